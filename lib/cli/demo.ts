// `pstlab demo`: the main workflow on a bundled capture, with no setup.

import * as fs from "node:fs";
import * as path from "node:path";
import { type CommandSpec, out, parseFlags, UsageError } from "./common.ts";
import * as info from "./info.ts";
import * as scan from "./scan.ts";
import * as status from "./status.ts";

export const spec: CommandSpec = {
  name: "demo",
  summary: "run the main workflow on a bundled capture (no setup needed)",
  usage: "pstlab demo",
  options: [],
  examples: ["pstlab demo", "npm run demo"],
};

export function fixturesDir(): string {
  const here = import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname);
  for (const cand of [path.resolve(here, "../../fixtures"), path.resolve(process.cwd(), "fixtures")]) {
    if (fs.existsSync(path.join(cand, "captures"))) return cand;
  }
  throw new UsageError("demo: the bundled fixtures/ folder was not found (run it from a pstlab checkout)");
}

export async function run(argv: string[]): Promise<number> {
  const p = parseFlags(argv, spec, {}, { maxPositionals: 0 });
  if (!p) return 0;
  const cap = path.join(fixturesDir(), "captures", "deploy.cast");
  const rel = path.relative(process.cwd(), cap);
  out(`# A deploy script reporting its status with OSC 7501 (recorded with util-linux script).\n\n$ pstlab info ${rel}\n`);
  await info.run([cap]);
  out(`\n$ pstlab scan ${rel}\n`);
  await scan.run([cap]);
  out(`\n$ pstlab status ${rel} --at 1.0   # while eu-west waits for approval\n`);
  await status.run([cap, "--at", "1.0"]);
  out(`\n$ pstlab status ${rel}            # after the process exited: done survives\n`);
  await status.run([cap]);
  return 0;
}
