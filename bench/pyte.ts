// Issue 12: `report` against what a Python user would write for the same job — a pyte
// screen scraper (bench/pyte_scraper.py) replaying the same 2 MB dense capture, reading
// the screen every 50 ms of capture time and applying the same claude rules. Both sides
// time only the work (not interpreter start-up, imports or compiling the rules), each
// run in a fresh process (pstlab's JIT starts cold, as it does for a user); the figure
// is the median of the runs.
// Skipped, with a note, when Debian's python3-pyte is absent.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeDense } from "./analysis.ts";
import { analyzeFile } from "../replay/analyze.ts";
import { defaultDetectorNames } from "../lib/detect/kinds.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { goal, median } from "./synth.ts";

const here = import.meta.dirname ?? ".";
const self = import.meta.filename ?? path.join(here, "pyte.ts");
const RUNS = 5;

if (process.argv[2] === "--child") {
  // The same scope as the scraper's timer, which starts after load_rules(): the rules
  // are compiled first (resolveManifest caches them), the rest — reading, emulating,
  // every detector, scoring, hashing the input — is timed.
  resolveManifest("claude");
  const t0 = performance.now();
  await analyzeFile(process.argv[3], { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} });
  console.log(((performance.now() - t0) / 1000).toFixed(4));
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-pytebench-"));
  const file = path.join(dir, "dense2mb.cast");
  writeDense(file, 180);
  const mb = fs.statSync(file).size / 1e6;
  console.log("| measurement | pstlab | baseline (same run) | pstlab faster by | goal |");
  console.log("| --- | ---: | ---: | ---: | --- |");
  const probe = spawnSync("/usr/bin/python3", ["-c", "import pyte"]);
  if (probe.status !== 0) {
    console.log(
      `| report vs a pyte scraper, ${mb.toFixed(1)} MB | | (python3-pyte not installed: skipped) | | ≥ 20× |`,
    );
  } else {
    const ours: number[] = [], theirs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const a = spawnSync(process.execPath, [self, "--child", file], { encoding: "utf8" });
      ours.push(Number(a.stdout.trim()));
      const b = spawnSync("/usr/bin/python3", [
        path.join(here, "pyte_scraper.py"),
        file,
        path.join(here, "../fixtures/manifests/claude.toml"),
      ], { encoding: "utf8" });
      theirs.push(Number(b.stdout.trim().split(" ")[0]));
    }
    const o = median(ours), t = median(theirs);
    const ratio = t / o;
    console.log(
      `| report (15 detectors) vs a pyte scraper (claude rules at 50 ms), ${
        mb.toFixed(1)
      } MB dense capture, median of ${RUNS} | ${o.toFixed(3)} s | ${t.toFixed(2)} s | ${ratio.toFixed(1)}× | ≥ 20× ${
        ratio >= 20 ? "met" : "NOT met"
      } |`,
    );
    goal(
      `report vs a pyte scraper, ${mb.toFixed(1)} MB dense capture`,
      `${ratio.toFixed(1)}× faster (${o.toFixed(3)} s vs ${t.toFixed(2)} s)`,
      "≥ 20×",
      ratio >= 20,
    );
    console.log(
      `\npstlab runs: ${ours.map((x) => x.toFixed(3)).join(", ")} s (each in a fresh process: JIT cold); pyte runs: ${
        theirs.map((x) => x.toFixed(2)).join(", ")
      } s`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
