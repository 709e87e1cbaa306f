// `pstlab demo`: the main job with no setup — the detector report on the bundled
// capture of the simulated agent, then a short live session recorded here (the
// simulated agent in a real PTY, driven by a simulated user) and its report.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defineCommand, err, out, runCommand } from "./common.ts";
import { choice, flag, HOOKS, NONE, number, outputFile, PROTOCOL, type Values } from "./options.ts";
import { command as report } from "./report.ts";
import { command as check } from "./check.ts";
import { headerFor, runSession } from "../session/recorder.ts";
import { processTerminal } from "./terminal.ts";
import { openOutput, provenance } from "./output.ts";
import { runBot } from "../sim/bot.ts";
import { selfArgv } from "../runtime.ts";
import { summaryOf } from "./commands.ts";
// The bundled capture travels inside the compiled binary, as the manifests do: the demo
// needs no checkout.
import bundledCast from "../../fixtures/captures/fake-claude.cast" with { type: "text" };

export const spec = {
  name: "demo",
  summary: summaryOf("demo"),
  synopsis: "",
  options: {
    "no-live": flag("only the bundled capture"),
    "no-report": {
      ...flag(
        "only record the live session to the --record FILE, no report\n(how fixtures/make-sim-captures.sh makes its captures)",
      ),
      // Without --record the recording is a temporary file removed at the end: the flag
      // would give nothing, so it is refused rather than printing the bundled report.
      requires: ["record"],
    },
    tasks: number("N", "tasks in the live session (default 3)", { min: 1, max: 1000, integer: true }),
    scale: number("F", "live session speed: durations × F (default 0.3)", { min: 0.05, max: 10 }),
    seed: number("N", "seed for the agent and its simulated user (default 7)", {
      min: 0,
      max: 2 ** 32 - 1,
      integer: true,
    }),
    record: outputFile("FILE", "keep the live recording here (default: a temporary file)"),
    overwrite: { ...flag("replace an existing non-empty --record file"), requires: ["record"] },
    format: choice("FORMAT", ["table", "markdown"] as const, "table (default) or markdown"),
    protocol: {
      ...PROTOCOL,
      help:
        "how the simulated agent reports: correct (default) or a regression that\ncheck must catch: none, late=DURATION, no-blocked, stale, malformed, children, flap",
    },
    hooks: {
      ...HOOKS,
      help:
        "how the simulated agent calls its hooks: correct (default), late=DURATION,\nsilent (a hook failing without a word) or no-notification",
    },
  },
  positionals: NONE,
  notes: [
    "The live session carries four sources side by side: the screen, the agent's OSC 7501",
    "reports, its hooks (pstlab hook, as Claude Code's would call it) and the process table.",
    "",
    "The bundled capture fixtures/captures/fake-claude.cast was made with",
    "  pstlab demo --record fixtures/captures/fake-claude.cast --tasks 30 --scale 1",
  ],
  examples: [
    "pstlab demo",
    "npm run demo",
    "pstlab demo --hooks silent",
    "pstlab demo --tasks 30 --scale 1 --record my-run.cast",
  ],
};

export function fixturesDir(): string | null {
  const here = import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname);
  for (const cand of [path.resolve(here, "../../fixtures"), path.resolve(process.cwd(), "fixtures")]) {
    if (fs.existsSync(path.join(cand, "captures"))) return cand;
  }
  return null;
}

/**
 * Runs `fn` with a file named `name` (written from `text`) in a temporary folder that is
 * the current directory meanwhile, so what is printed names `name`, never a temporary
 * path that is gone when the demo ends.
 */
async function inTempDir<T>(name: string, text: string | null, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-demo-"));
  const cwd = process.cwd();
  try {
    if (text !== null) fs.writeFileSync(path.join(dir, name), text);
    process.chdir(dir);
    return await fn(name);
  } finally {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const fmt = v.format ?? "table";
  const fx = fixturesDir();
  const onDisk = fx ? path.join(fx, "captures", "fake-claude.cast") : null;
  if (!v.record) {
    out(
      `# 1. The bundled capture: a simulated Claude-like agent recorded by pstlab, truth from its labels.\n`,
    );
    if (onDisk && fs.existsSync(onDisk)) {
      const rel = path.relative(process.cwd(), onDisk) || onDisk;
      out(`$ pstlab report ${rel}\n\n`);
      await report.run([rel.startsWith("..") ? onDisk : rel, "--format", fmt]);
    } else {
      // Outside a checkout (the compiled binary in an empty folder): the copy inside pstlab.
      out(`$ pstlab report fake-claude.cast   # the copy inside pstlab\n\n`);
      await inTempDir("fake-claude.cast", bundledCast, (f) => report.run([f, "--format", fmt]));
    }
    out("\n");
  }
  if (v["no-live"]) return 0;
  if (v.record) return await live(v, v.record, fmt);
  // Not kept: recorded in a temporary folder, reported by its name there, then removed.
  return await inTempDir("live.cast", null, (f) => live(v, f, fmt));
});

type DemoValues = Values<typeof spec.options>;

/** The live session: recorded to `file`, then reported and checked (unless --no-report). */
async function live(v: DemoValues, file: string, fmt: "table" | "markdown"): Promise<number> {
  const tasks = v.tasks ?? 3;
  const scale = v.scale ?? 0.3;
  const seed = v.seed ?? 7;
  const protocol = v.protocol ?? { mode: "correct" };
  const mode = protocol.mode === "late" ? `late=${protocol.delay}s` : protocol.mode;
  const hooks = v.hooks ?? { mode: "correct" };
  const hookMode = hooks.mode === "late" ? `late=${hooks.delay}s` : hooks.mode;
  const argvSim = [
    ...selfArgv(),
    "sim",
    "--seed",
    String(seed),
    "--tasks",
    String(tasks),
    "--scale",
    String(scale),
    "--protocol",
    mode,
    "--hooks",
    hookMode,
  ];
  out(
    `# ${
      !v.record ? "2" : "1"
    }. A live session: the simulated agent in a real PTY, driven by a simulated user\n#    (${tasks} task${
      tasks === 1 ? "" : "s"
    }, durations × ${scale}, emitter ${mode}, hooks ${hookMode}); pstlab answers its OSC 7501 query\n#    and records its hooks and the process table beside the screen.\n`,
  );
  const env: Record<string, string> = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
  env.TERM = "xterm-256color";
  // A generous cap: a task takes ~25 s at scale 1; a stuck session must still end.
  const opts = {
    argv: argvSim,
    cols: 120,
    rows: 32,
    headless: true,
    captureInput: false,
    answer: true,
    hooks: true,
    env,
    // Headless, nothing typed: the terminal only brings the signals that stop a recording.
    terminal: processTerminal({ show: false, input: false }),
    timeout: Math.max(120, tasks * 60 * scale + 120),
  };
  const header = headerFor(opts, {
    title: "pstlab sim (simulated Claude-like agent)",
    envCapture: {},
    provenance: provenance({
      query_answered: true,
      emitter: `pstlab-sim seed=${seed} tasks=${tasks} scale=${scale}`,
      truth: "labels-fifo (the agent's own state)",
    }),
  });
  header.command = `pstlab sim --seed ${seed} --tasks ${tasks} --scale ${scale}${
    mode === "correct" ? "" : ` --protocol ${mode}`
  } --hooks ${hookMode}`;
  const o = openOutput(file, header, { overwrite: !!v.overwrite }, { durable: true });
  const warn = (m: string) => err(`pstlab: warning: ${m}\n`);
  const t0 = performance.now();
  const r = await runSession({
    ...opts,
    onWarning: warn,
    driver: (host) =>
      runBot(host, {
        seed,
        tasks,
        scale,
        log: (s) => err(`  [${((performance.now() - t0) / 1000).toFixed(1)} s] ${s}\n`),
      }),
  }, o.writer);
  o.file.close();
  err(
    `  recorded ${path.relative(process.cwd(), file) || file}: ${
      r.duration.toFixed(1)
    } s, ${r.reports} OSC 7501 reports, exit ${r.status}\n\n`,
  );
  if (v["no-report"]) return 0;
  out(`$ pstlab report ${file}\n\n`);
  await report.run([file, "--format", fmt]);
  // The emitter's side: does this capture keep the protocol? (exit 1 when it does not)
  out(`\n$ pstlab check ${file}\n\n`);
  const verdict = await runCommand(() => check.run([file, "--format", fmt === "markdown" ? "markdown" : "text"]));
  if (v.record) out(`\n(kept ${file}; try: pstlab report ${file} --format html -o report.html)\n`);
  return verdict;
}
