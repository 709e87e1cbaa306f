// Issue 6: `report` with the default detector set — on the bundled demo capture (×real
// time; goal ≥ 1,000×) and on synthetic captures of 1, 10 and 100 MB (issue 12: time per
// MB should not grow with size), next to a baseline run in the same process: reading the
// capture and feeding the screen only.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { analyzeFile } from "../replay/analyze.ts";
import { defaultDetectorNames } from "../lib/detect/kinds.ts";
import { openRecording } from "../lib/recording/open.ts";
import { Screen } from "../lib/screen/screen.ts";
import { goal, writeSynthCast } from "./synth.ts";

const here = import.meta.dirname ?? ".";
const demo = path.resolve(here, "../fixtures/captures/fake-claude.cast");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-reportbench-"));
function synthesise(mb: number): string {
  const file = path.join(dir, `synth${mb}.cast`);
  writeSynthCast(file, mb, { chunkSeed: 9, timeSeed: 9, step: 0.02, markerEvery: 400 });
  return file;
}

async function baseline(file: string): Promise<number> {
  const t0 = performance.now();
  const rec = await openRecording(file);
  const s = new Screen(rec.header.cols, rec.header.rows);
  for await (const e of rec.events) if (e.kind === "output") s.write(e.bytes, e.t);
  s.dispose();
  return (performance.now() - t0) / 1000;
}

console.log(
  "| capture | size | capture time | read + screen (baseline) | report, default detectors | s per MB | × baseline | × real time |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
const captures: [string, string][] = [["bundled demo (fake-claude.cast)", demo]];
const perMB: number[] = [];
for (const mb of [1, 10, 100]) captures.push([`synthetic ${mb} MB`, synthesise(mb)]);
for (const [label, file] of captures) {
  if (!fs.existsSync(file)) {
    console.log(`| ${label} | (missing) | | | | | | |`);
    continue;
  }
  const size = fs.statSync(file).size;
  const base = await baseline(file);
  const t0 = performance.now();
  const r = await analyzeFile(file, { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} });
  const sec = (performance.now() - t0) / 1000;
  if (file !== demo) perMB.push(sec / (size / 1e6));
  console.log(
    `| ${label} | ${(size / 1e6).toFixed(1)} MB | ${r.duration.toFixed(0)} s | ${base.toFixed(2)} s | ${
      sec.toFixed(2)
    } s | ${(sec / (size / 1e6)).toFixed(3)} | ${(sec / base).toFixed(2)} | ${(r.duration / sec).toFixed(0)}× |`,
  );
  fs.rmSync(file === demo ? path.join(dir, "none") : file, { force: true });
}
// "Does not grow": the largest capture's time per MB within 20 % of the best smaller one's.
if (perMB.length === 3) {
  goal(
    "report time per MB at 1 / 10 / 100 MB",
    perMB.map((x) => x.toFixed(3)).join(" / ") + " s",
    "does not grow (100 MB ≤ 1.2× the best)",
    perMB[2] <= 1.2 * Math.min(perMB[0], perMB[1]),
  );
}
fs.rmSync(dir, { recursive: true, force: true });
