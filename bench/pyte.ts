// Issue 12: `report` (the default 15 detectors) against what a Python user writes — a
// pyte screen scraper applying the same claude rules every 50 ms of capture time
// (bench/pyte_scraper.py, Debian's python3-pyte) — on the same ~2 MB dense capture,
// in the same run. Skipped, with a note, where python3-pyte is absent.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeDense } from "./analysis.ts";
import { analyzeFile } from "../replay/analyze.ts";
import { defaultDetectorNames } from "../lib/detect/detectors.ts";

const here = import.meta.dirname ?? ".";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-pytebench-"));
const file = path.join(dir, "dense2mb.cast");
writeDense(file, 180);
const mb = fs.statSync(file).size / 1e6;
console.log("| measurement | pstlab | baseline (same run) | pstlab faster by | goal |");
console.log("| --- | ---: | ---: | ---: | --- |");
const probe = spawnSync("/usr/bin/python3", ["-c", "import pyte"]);
if (probe.status !== 0) {
  console.log(`| report vs a pyte scraper, ${mb.toFixed(1)} MB | | (python3-pyte not installed: skipped) | | ≥ 20× |`);
} else {
  const t0 = performance.now();
  await analyzeFile(file, { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} });
  const ours = (performance.now() - t0) / 1000;
  const r = spawnSync("/usr/bin/python3", [path.join(here, "pyte_scraper.py"), file, path.join(here, "../fixtures/manifests/claude.toml")], { encoding: "utf8" });
  const theirs = Number(r.stdout.trim().split(" ")[0]);
  console.log(`| report (15 detectors) vs a pyte scraper (claude rules at 50 ms), ${mb.toFixed(1)} MB dense capture | ${ours.toFixed(2)} s | ${theirs.toFixed(2)} s | ${(theirs / ours).toFixed(1)}× | ≥ 20× |`);
}
fs.rmSync(dir, { recursive: true, force: true });
