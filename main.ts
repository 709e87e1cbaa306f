#!/usr/bin/env bun
// pstlab — argv → subcommand; nothing else.

// Only the command table, stdio and the version are loaded up front: a command's modules
// (and the shared CLI plumbing, which reads the detector registry) load when it runs.
import { COMMANDS } from "./lib/cli/commands.ts";
import { err, out } from "./lib/cli/stdio.ts";
import { SPEC_REVISION } from "./lib/osc7501/limits.ts";
import { VERSION } from "./lib/version.ts";

function usage(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `pstlab ${VERSION} — record pty sessions, replay them through an OSC 7501 parser and`,
    "screen heuristics, and score detection latency and false alarms.",
    "",
    "Usage: pstlab COMMAND [ARGS…]   (pstlab COMMAND --help for options and examples)",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    `  ${"help".padEnd(w)}  show this list, or a command's help`,
    "",
    "Examples:",
    "  pstlab demo",
    "  pstlab report fixtures/captures/fake-claude.cast --format markdown",
    "  pstlab record -o session.cast -- claude",
    "  pstlab scan fixtures/captures/deploy.cast",
    '  pstlab emit working "Building" --progress 40',
    "",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "-h" || name === "--help") {
    if (name === "help" && rest[0] && rest[0] !== "--help" && rest[0] !== "-h") {
      const c = COMMANDS.find((c) => c.name === rest[0]);
      if (!c) {
        err(`pstlab: unknown command "${rest[0]}" (see pstlab help)\n`);
        return 2;
      }
      const { helpText } = await import("./lib/cli/options.ts");
      out(helpText((await c.load()).spec));
      return 0;
    }
    if (name === undefined) {
      err(usage());
      return 2;
    }
    out(usage());
    return 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    out(`pstlab ${VERSION} (OSC 7501 revision ${SPEC_REVISION})\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    err(`pstlab: unknown command "${name}" (see pstlab help)\n`);
    return 2;
  }
  const [{ runCommand }, cmd] = await Promise.all([import("./lib/cli/common.ts"), entry.load()]);
  return await runCommand(() => cmd.run(rest));
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(process.argv.slice(2));
  } catch (e) {
    code = (await import("./lib/cli/common.ts")).reportError(e);
  }
  // Let stdout drain before exiting (pipes).
  process.exitCode = code;
}
