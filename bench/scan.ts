// Issue 2: throughput of `scan` on a 100 MB synthetic stream (mixed text, escapes,
// ~1 % of bytes in OSC 7501 reports), next to a plain byte-copy baseline run in the
// same process. Goal: ≥ 200 MB/s. Usage: bun bench/scan.ts [MB]
import { Scanner } from "../lib/osc7501/scanner.ts";
import { Tracker } from "../lib/osc7501/tracker.ts";
import { goal, synthChunks } from "./synth.ts";

const MB = Number(process.argv[2] ?? 100);
const chunks = [...synthChunks(MB * 1e6)];
const total = chunks.reduce((n, c) => n + c.length, 0);

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return (performance.now() - t0) / 1000;
}

function best(fn: () => void, runs = 3): number {
  let b = Infinity;
  for (let i = 0; i < runs; i++) b = Math.min(b, time(fn));
  return b;
}

const dst = new Uint8Array(1 << 16);
let sink = 0;
const copy = best(() => {
  for (const c of chunks) {
    for (let off = 0; off < c.length; off += dst.length) dst.set(c.subarray(off, off + dst.length));
    sink ^= dst[0];
  }
});
let events = 0;
const scanner = best(() => {
  const s = new Scanner(() => events++);
  for (const c of chunks) s.feed(c);
  s.end();
});
let reports = 0;
const tracker = best(() => {
  const t = new Tracker((e) => e.type === "report" && reports++);
  let i = 0;
  for (const c of chunks) t.feed(c, i++ * 0.001);
  t.end(i * 0.001);
});

const rate = (s: number) => total / 1e6 / s;
console.log(`scan: ${(total / 1e6).toFixed(1)} MB in ${chunks.length} reads, ${reports / 3} reports per pass`);
console.log(`| measure | MB/s | × byte copy |`);
console.log(`| --- | ---: | ---: |`);
console.log(`| byte copy (baseline) | ${rate(copy).toFixed(0)} | 1.00 |`);
console.log(`| scanner (framing only) | ${rate(scanner).toFixed(0)} | ${(copy / scanner).toFixed(2)} |`);
console.log(`| scan: scanner + parser + store | ${rate(tracker).toFixed(0)} | ${(copy / tracker).toFixed(2)} |`);
console.log(`goal ≥ 200 MB/s for scan: ${rate(tracker) >= 200 ? "met" : "NOT met"}`);
goal("scan (scanner + parser + store)", `${rate(tracker).toFixed(0)} MB/s`, "≥ 200 MB/s", rate(tracker) >= 200);
void sink;

// End to end: the CLI on a file (raw input, --json to /dev/null), next to `cat`.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-bench-")), "synth.raw");
const fd = fs.openSync(file, "w");
for (const c of chunks) fs.writeSync(fd, c);
fs.closeSync(fd);
const main = path.resolve(import.meta.dirname ?? ".", "../main.ts");
const wall = (cmd: string, args: string[]) => {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ["ignore", fs.openSync("/dev/null", "w"), "inherit"] });
  if (r.status !== 0) throw new Error(`${cmd} failed`);
  return (performance.now() - t0) / 1000;
};
const cat = Math.min(wall("cat", [file]), wall("cat", [file]));
const cliScan = Math.min(
  wall(process.execPath, [main, "scan", "--json", "--raw", file]),
  wall(process.execPath, [main, "scan", "--json", "--raw", file]),
);
console.log(`| cat FILE > /dev/null (baseline) | ${rate(cat).toFixed(0)} | — |`);
console.log(
  `| pstlab scan --json FILE > /dev/null | ${rate(cliScan).toFixed(0)} | ${(cliScan / cat).toFixed(1)}× cat's time |`,
);
fs.rmSync(path.dirname(file), { recursive: true, force: true });
