// The analysis runner: one capture → truth + every detector's verdict timeline →
// scores. Pure with respect to its inputs (the same capture and options give the same
// result), so reports are byte-identical run after run.

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { openRecording, type OpenOptions } from "../lib/recording/open.ts";
import { createDetector, type Detector } from "../lib/detect/detectors.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { runDetectors } from "./clock.ts";
import { score, type DetectorScore } from "../lib/score/metrics.ts";
import { type Truth, truthFromLabelsFile, truthFromMarkers, truthFromTimeline, type TruthSegment } from "../lib/score/truth.ts";
import { readTextFile } from "../lib/recording/source.ts";
import { UsageError } from "../lib/cli/common.ts";

export interface AnalyzeOptions {
  detectors: string[];
  /** "auto" (markers, else the labels file, else protocol), "markers", "labels", or a detector name. */
  truth: string;
  labels?: string;
  open: OpenOptions;
}

export interface FileResult {
  path: string;
  sha256: string;
  format: string;
  cols: number;
  rows: number;
  duration: number;
  outputBytes: number;
  command: string | null;
  truth: string;
  truthSegments: TruthSegment[];
  blockedEpisodes: number;
  scores: DetectorScore[];
  warnings: string[];
  markers: { t: number; label: string }[];
  /** Change points per detector, for timelines (HTML). */
  timelines: { detector: string; points: { t: number; state: string; needsYou: boolean; rule: string | null }[] }[];
}

export function sha256File(path: string): string {
  if (path === "-") return "";
  const h = createHash("sha256");
  const fd = fs.openSync(path, "r");
  const buf = new Uint8Array(1 << 20);
  try {
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest("hex");
}

export async function analyzeFile(path: string, opts: AnalyzeOptions, onProgress?: (t: number) => void): Promise<FileResult> {
  const rec = await openRecording(path, opts.open);
  const names = [...opts.detectors];
  const truthDetector = !["auto", "markers", "labels"].includes(opts.truth) ? opts.truth : null;
  if (truthDetector && !names.includes(truthDetector)) names.push(truthDetector);
  // "auto" falls back to the program's own reports when there are no truth markers.
  if (opts.truth === "auto" && !names.includes("protocol")) names.push("protocol");
  let detectors: Detector[];
  try {
    detectors = names.map((n) => createDetector(n, resolveManifest));
  } catch (e) {
    throw new UsageError(`report: ${(e as Error).message}`);
  }
  const markers: { t: number; label: string }[] = [];
  let bytes = 0;
  let lastProgress = performance.now();
  const { timelines, end } = await runDetectors(rec.header, rec.events, detectors, {
    onEvent: (e) => {
      if (e.kind === "marker") markers.push({ t: e.t, label: e.label });
      else if (e.kind === "output") bytes += e.bytes.length;
      if (onProgress && performance.now() - lastProgress > 500) {
        lastProgress = performance.now();
        onProgress(e.t);
      }
    },
  });
  let truth: Truth | null = null;
  if (truthDetector) truth = truthFromTimeline(timelines[names.indexOf(truthDetector)]);
  else if (opts.truth === "labels" || (opts.truth === "auto" && opts.labels)) {
    if (!opts.labels) throw new UsageError("report: --truth labels needs --labels FILE");
    truth = truthFromLabelsFile(readTextFile(opts.labels), opts.labels);
  } else {
    truth = truthFromMarkers(markers);
    if (!truth && opts.truth === "markers") throw new UsageError(`report: ${path} has no truth: markers`);
    if (!truth) {
      const protocol = timelines.find((t) => t.detector === "protocol");
      if (!protocol || protocol.points.every((p) => p.verdict.state === "unknown")) {
        throw new UsageError(`report: ${path} has no truth: markers and no OSC 7501 reports; give --labels FILE or --truth DETECTOR`);
      }
      truth = truthFromTimeline(protocol);
    }
  }
  // Only the requested detectors are scored; a --truth detector added for the truth is not.
  const scored = detectors.slice(0, opts.detectors.length).map((d, i) => ({ d, tl: timelines[i] }));
  const scores = scored.map(({ tl }) => score(tl, truth!, end));
  return {
    path,
    sha256: sha256File(path),
    format: rec.format,
    cols: rec.header.cols,
    rows: rec.header.rows,
    duration: end,
    outputBytes: bytes,
    command: rec.header.command ?? null,
    truth: truth.source,
    truthSegments: truth.segments,
    blockedEpisodes: scores[0]?.episodes.length ?? 0,
    scores,
    warnings: rec.warnings,
    markers,
    timelines: scored.map(({ tl }) => ({ detector: tl.detector, points: tl.points.map((p) => ({ t: p.t, state: p.verdict.state, needsYou: p.verdict.needsYou, rule: p.verdict.rule })) })),
  };
}
