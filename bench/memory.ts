// Issue 12: peak memory of `report` (default 15 detectors) on the bundled demo capture
// repeated to ~50, ~100 and ~200 MB (8 to 33 hours, 1,100 to 4,400 permission prompts),
// each analysed in a fresh process; goal ≤ 300 MB and flat. Also seconds per capture.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { analyzeFile } from "../replay/analyze.ts";
import { defaultDetectorNames } from "../lib/detect/detectors.ts";
import { peakRssMB } from "./synth.ts";

const here = import.meta.dirname ?? ".";
const demo = path.resolve(here, "../fixtures/captures/fake-claude.cast");

if (process.argv[2] === "--child") {
  const t0 = performance.now();
  const r = await analyzeFile(process.argv[3], { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} });
  console.log(JSON.stringify({ seconds: (performance.now() - t0) / 1000, rss: peakRssMB(), duration: r.duration, episodes: r.blockedEpisodes }));
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-membench-"));
  const lines = fs.readFileSync(demo, "utf8").split("\n");
  const [header, ...events] = lines.filter((l) => l !== "");
  console.log("| capture | size | capture time | prompts | report | peak RSS | goal |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const copies of [43, 86, 172]) {
    const file = path.join(dir, `x${copies}.cast`);
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, header + "\n");
    // The exit event ends each copy; drop it so the copies read as one long session.
    const body = events.filter((l) => !/^\[[0-9.]+, "x"/.test(l)).join("\n") + "\n";
    for (let i = 0; i < copies; i++) fs.writeSync(fd, body);
    fs.closeSync(fd);
    const r = spawnSync(process.execPath, [import.meta.filename ?? path.join(here, "memory.ts"), "--child", file], { encoding: "utf8" });
    const m = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");
    console.log(`| demo capture × ${copies} | ${(fs.statSync(file).size / 1e6).toFixed(0)} MB | ${(m.duration / 3600).toFixed(1)} h | ${m.episodes} | ${m.seconds?.toFixed(1)} s | ${m.rss?.toFixed(0)} MB | ≤ 300 MB, flat |`);
    fs.rmSync(file);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
