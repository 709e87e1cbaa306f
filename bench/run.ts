// Runs every benchmark in its own process and prints their tables.
// Usage: bun bench/run.ts [name …]   (names: scan, fixture_io, …)
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import * as fs from "node:fs";

const here = import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname);
const all = fs.readdirSync(here).filter((f) => f.endsWith(".ts") && !["run.ts", "synth.ts"].includes(f) && !f.endsWith("_test.ts")).map((f) => f.slice(0, -3)).sort();
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : all;
console.log(`pstlab benchmarks — ${new Date().toISOString()} — ${process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.version}`}, ${process.platform}/${process.arch}\n`);
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark ${name} (have: ${all.join(", ")})`);
    process.exit(2);
  }
  console.log(`## ${name}\n`);
  const r = spawnSync(process.execPath, [path.join(here, `${name}.ts`)], { stdio: "inherit" });
  if (r.status !== 0) process.exitCode = 1;
  console.log();
}
