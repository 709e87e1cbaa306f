// Issue 4: `seq 1 3000000` recorded headless, wall time next to util-linux
// `script -q -c … /dev/null`, to asciinema 2.2 `rec` (when installed) and to running it
// directly, in one run (goals: ≤ 1.3× script from issue 4, ≤ 1.0× both from issue 12).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { goal, median as med } from "./synth.ts";

const N = Number(process.argv[2] ?? 3_000_000);
const here = import.meta.dirname ?? ".";
const main = path.resolve(here, "../main.ts");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-recbench-"));
const devnull = () => fs.openSync("/dev/null", "w");

function wall(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ["ignore", devnull(), "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

const runs = 3;
const rows: Record<string, number[]> = { direct: [], script: [], asciinema: [], pstlab: [] };
const hasAsciinema = spawnSync("asciinema", ["--version"]).status === 0;
let size = 0;
for (let i = 0; i < runs; i++) {
  rows.direct.push(wall("seq", ["1", String(N)]));
  rows.script.push(wall("script", ["-q", "-c", `seq 1 ${N}`, "/dev/null"]));
  if (hasAsciinema) {
    rows.asciinema.push(
      wall("asciinema", ["rec", "-q", "--overwrite", "-c", `seq 1 ${N}`, path.join(dir, `a${i}.cast`)]),
    );
  }
  const out = path.join(dir, `seq${i}.cast`);
  rows.pstlab.push(
    wall(process.execPath, [main, "record", "-q", "--headless", "-o", out, "--", "seq", "1", String(N)]),
  );
  size = fs.statSync(out).size;
}
console.log(`record: seq 1 ${N} (${runs} runs each, median wall time; recording ${(size / 1e6).toFixed(1)} MB)`);
console.log("| command | wall s | × script |");
console.log("| --- | ---: | ---: |");
for (
  const [k, label] of [["direct", "seq (direct, to /dev/null)"], ["script", "script -q -c … /dev/null"], [
    "asciinema",
    "asciinema rec -q -c …",
  ], ["pstlab", "pstlab record --headless"]] as const
) {
  if (rows[k].length === 0) {
    console.log(`| ${label} | (not installed) | |`);
    continue;
  }
  console.log(`| ${label} | ${med(rows[k]).toFixed(2)} | ${(med(rows[k]) / med(rows.script)).toFixed(2)} |`);
}
const ratio = med(rows.pstlab) / med(rows.script);
console.log(`goal ≤ 1.0× script: ${ratio <= 1.0 ? "met" : "NOT met"} (${ratio.toFixed(2)}×)`);
goal("record --headless of seq 1 3000000 vs script", `${ratio.toFixed(2)}×`, "≤ 1.0×", ratio <= 1.0);
if (hasAsciinema) {
  const a = med(rows.pstlab) / med(rows.asciinema);
  console.log(`goal ≤ 1.0× asciinema rec: ${a <= 1.0 ? "met" : "NOT met"} (${a.toFixed(2)}×)`);
  goal("record --headless of seq 1 3000000 vs asciinema rec", `${a.toFixed(2)}×`, "≤ 1.0×", a <= 1.0);
}
fs.rmSync(dir, { recursive: true, force: true });
