// Issue 12: peak memory of `report` (default 15 detectors) on the bundled demo capture
// repeated to ~50, ~100 and ~200 MB (8 to 33 hours, 1,100 to 4,400 permission prompts),
// each analysed in three fresh processes; goal ≤ 300 MB and flat. Also seconds per capture.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { analyzeFile } from "../replay/analyze.ts";
import { defaultDetectorNames } from "../lib/detect/kinds.ts";
import { goal, median, peakRssMB } from "./synth.ts";

const here = import.meta.dirname ?? ".";
const demo = path.resolve(here, "../fixtures/captures/fake-claude.cast");

if (process.argv[2] === "--child") {
  const t0 = performance.now();
  const r = await analyzeFile(process.argv[3], { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} });
  console.log(
    JSON.stringify({
      seconds: (performance.now() - t0) / 1000,
      rss: peakRssMB(),
      duration: r.duration,
      episodes: r.blockedEpisodes,
    }),
  );
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-membench-"));
  const lines = fs.readFileSync(demo, "utf8").split("\n");
  const [header, ...events] = lines.filter((l) => l !== "");
  console.log(
    "| capture | size | capture time | prompts | report (median of 3) | peak RSS (median; each run) | goal |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
  const peaks: number[] = [];
  for (const copies of [43, 86, 172]) {
    const file = path.join(dir, `x${copies}.cast`);
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, header + "\n");
    // The exit event ends each copy; drop it so the copies read as one long session.
    const body = events.filter((l) => !/^\[[0-9.]+, "x"/.test(l)).join("\n") + "\n";
    for (let i = 0; i < copies; i++) fs.writeSync(fd, body);
    fs.closeSync(fd);
    // Three fresh processes; the median of each figure. The peak depends on where the
    // collections fall, and one run of the 200 MB capture ranged from 139 to 156 MB.
    const runs = [0, 1, 2].map(() => {
      const r = spawnSync(process.execPath, [import.meta.filename ?? path.join(here, "memory.ts"), "--child", file], {
        encoding: "utf8",
      });
      return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as {
        seconds: number;
        rss: number;
        duration: number;
        episodes: number;
      };
    });
    const med = (f: (x: (typeof runs)[number]) => number) => median(runs.map(f));
    const m = runs[0];
    console.log(
      `| demo capture × ${copies} | ${(fs.statSync(file).size / 1e6).toFixed(0)} MB | ${
        (m.duration / 3600).toFixed(1)
      } h | ${m.episodes} | ${med((x) => x.seconds).toFixed(1)} s | ${med((x) => x.rss).toFixed(0)} MB (${
        runs.map((x) => x.rss.toFixed(0)).join(", ")
      }) | ≤ 300 MB, flat |`,
    );
    peaks.push(med((x) => x.rss));
    fs.rmSync(file);
  }
  const [small, , big] = peaks;
  goal(
    "report peak RSS on the demo capture repeated to 50 / 100 / 200 MB",
    peaks.map((p) => `${p.toFixed(0)}`).join(" / ") + " MB",
    "≤ 300 MB",
    Math.max(...peaks) <= 300,
  );
  // "Flat": the 200 MB capture within 10 % of the 50 MB one.
  goal(
    "the same, flat from 50 to 200 MB",
    `${big > small ? "+" : ""}${(100 * (big / small - 1)).toFixed(0)} %`,
    "within 10 %",
    big <= small * 1.1,
  );
  fs.rmSync(dir, { recursive: true, force: true });
}
