// Issue 12: `report` against what a Python user would write for the same job — a pyte
// screen scraper (bench/pyte_scraper.py) replaying the same 2 MB dense capture, reading
// the screen every 50 ms of capture time and applying the same claude rules. Both sides
// time only the work (not interpreter start-up, imports or compiling the rules), each
// run in a fresh process (pstlab's JIT starts cold, as it does for a user); the figure
// is the median of the runs.
// Issue 25: also whole process both sides (`time pstlab report --detectors
// screen:claude@50ms …` vs `time python3 pyte_scraper.py …`: start-up, imports and rule
// compilation included), on this capture and on a second dense shape (writeJumpy).
// Skipped, with a note, when Debian's python3-pyte is absent.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeDense, writeJumpy } from "./analysis.ts";
import { analyzeFile } from "../replay/analyze.ts";
import { defaultDetectorNames } from "../lib/detect/kinds.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { goal, median } from "./synth.ts";
import { WORKER_ENTRIES } from "../lib/runtime.ts";

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
  const jumpy = path.join(dir, "jumpy2mb.cast");
  writeJumpy(jumpy, 2_000_000);
  const mb = fs.statSync(file).size / 1e6, jmb = fs.statSync(jumpy).size / 1e6;
  console.log("| measurement | pstlab | baseline (same run) | pstlab faster by | goal |");
  console.log("| --- | ---: | ---: | ---: | --- |");
  const probe = spawnSync("/usr/bin/python3", ["-c", "import pyte"]);
  if (probe.status !== 0) {
    console.log(
      `| report vs a pyte scraper, ${mb.toFixed(1)} MB | | (python3-pyte not installed: skipped) | | ≥ 20× |`,
    );
  } else {
    const scraper = (f: string) => [
      path.join(here, "pyte_scraper.py"),
      f,
      path.join(here, "../fixtures/manifests/claude.toml"),
    ];
    // In-process: both sides time their work only (the scraper's own timer).
    const ours: number[] = [], theirs: number[] = [];
    // Whole process, as a user times it (`time pstlab report …` vs `time python3 scraper.py …`):
    // start-up, imports and compiling the rules included, both sides.
    const bin = build(dir);
    const pstlab = bin ? [bin] : [path.join(here, "../main.ts")];
    const exe = bin ?? process.execPath;
    const whole = {
      dense: { ours: [] as number[], theirs: [] as number[] },
      jumpy: { ours: [] as number[], theirs: [] as number[] },
    };
    for (let i = 0; i < RUNS; i++) {
      const a = spawnSync(process.execPath, [self, "--child", file], { encoding: "utf8" });
      ours.push(Number(a.stdout.trim()));
      const b = spawnSync("/usr/bin/python3", scraper(file), { encoding: "utf8" });
      theirs.push(Number(b.stdout.trim().split(" ")[0]));
      for (const [k, f] of [["dense", file], ["jumpy", jumpy]] as const) {
        whole[k].ours.push(
          timed(exe, [...pstlab.slice(bin ? 1 : 0), "report", f, "--detectors", "screen:claude@50ms"]),
        );
        whole[k].theirs.push(timed("/usr/bin/python3", scraper(f)));
      }
    }
    const o = median(ours), t = median(theirs);
    const ratio = t / o;
    console.log(
      `| in-process: report (15 detectors) vs a pyte scraper (claude rules at 50 ms), ${
        mb.toFixed(1)
      } MB dense capture, work only, median of ${RUNS} | ${o.toFixed(3)} s | ${t.toFixed(2)} s | ${
        ratio.toFixed(1)
      }× | ≥ 20× ${ratio >= 20 ? "met" : "NOT met"} |`,
    );
    goal(
      `in-process: report vs a pyte scraper, ${mb.toFixed(1)} MB dense capture`,
      `${ratio.toFixed(1)}× faster (${o.toFixed(3)} s vs ${t.toFixed(2)} s)`,
      "≥ 20×",
      ratio >= 20,
    );
    for (
      const [k, label, size] of [["dense", "dense", mb], [
        "jumpy",
        "second dense shape (cursor jumps, log lines)",
        jmb,
      ]] as const
    ) {
      const wo = median(whole[k].ours), wt = median(whole[k].theirs), r = wt / wo;
      console.log(
        `| whole process: \`pstlab report --detectors screen:claude@50ms\` vs \`python3 pyte_scraper.py\`, ${
          size.toFixed(1)
        } MB ${label}, median of ${RUNS} | ${wo.toFixed(3)} s | ${wt.toFixed(2)} s | ${r.toFixed(1)}× | ≥ 20× ${
          r >= 20 ? "met" : "NOT met"
        } |`,
      );
      goal(
        `whole process: report --detectors screen:claude@50ms vs a pyte scraper, ${size.toFixed(1)} MB ${label}`,
        `${r.toFixed(1)}× faster (${wo.toFixed(3)} s vs ${wt.toFixed(2)} s)`,
        "≥ 20×",
        r >= 20,
        bin ? "the compiled binary" : "from source: the build failed",
      );
    }
    console.log(
      `\npstlab runs (in-process): ${
        ours.map((x) => x.toFixed(3)).join(", ")
      } s (each in a fresh process: JIT cold); pyte runs: ${theirs.map((x) => x.toFixed(2)).join(", ")} s`,
    );
    for (const k of ["dense", "jumpy"] as const) {
      console.log(
        `whole process, ${k}: pstlab ${whole[k].ours.map((x) => x.toFixed(3)).join(", ")} s; pyte ${
          whole[k].theirs.map((x) => x.toFixed(2)).join(", ")
        } s`,
      );
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Wall time of one process, start to exit. */
function timed(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

/** The binary a user runs (package.json's build); null when it cannot be built here. */
function build(dir: string): string | null {
  const root = path.join(here, "..");
  const out = path.join(dir, "pstlab");
  const r = spawnSync(process.execPath, [
    "build",
    "--compile",
    "--bytecode",
    "--format=esm",
    path.join(root, "main.ts"),
    ...WORKER_ENTRIES.map((w) => path.join(root, w)),
    "--outfile",
    out,
  ], { stdio: "ignore" });
  return r.status === 0 && fs.existsSync(out) ? out : null;
}
