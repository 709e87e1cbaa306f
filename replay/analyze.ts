// The analysis runner: one capture → truth + every detector's verdict timeline →
// scores. Pure with respect to its inputs (the same capture and options give the same
// result), so reports are byte-identical run after run.

import type { OpenOptions } from "../lib/recording/open.ts";
import { type AheadRecording, openRecordingAhead } from "../lib/recording/ahead.ts";
import { sha256File } from "../lib/recording/source.ts";
import { isMainThread } from "node:worker_threads";
import { createDetector, readsScreen, usesAuto, withManifest } from "../lib/detect/kinds.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { AUTO, manifestFor } from "../lib/detect/choose.ts";
import type { Timeline } from "../lib/detect/timeline.ts";
import { sampleDetectors, timelineOf } from "./clock.ts";
import type { SidePayload, SideResult } from "./ahead_worker.ts";
import { workerUrl } from "../lib/runtime.ts";
import { type DetectorScore, score, truthLists } from "../lib/score/metrics.ts";
import { type DrawnTimeline, drawnTimeline, drawnTruth, type FileResult } from "../lib/score/result.ts";
import {
  labelWarnings,
  type Truth,
  truthFromLabelsFile,
  truthFromMarkers,
  truthFromTimeline,
  truthMarkerWarnings,
} from "../lib/score/truth.ts";
import { readTextFile } from "../lib/recording/source.ts";
import { UsageError } from "../lib/errors.ts";
import { detached } from "../lib/text.ts";
import { GarbageWatch } from "../lib/runtime.ts";

export interface AnalyzeOptions {
  /** Detector names; `:auto` as the manifest is chosen per file (lib/detect/choose.ts). */
  detectors: string[];
  /** "auto" (markers, else the labels file, else protocol), "markers", "labels", or a detector name. */
  truth: string;
  labels?: string;
  open: OpenOptions;
  /** `--label-tolerance` in seconds (metrics.ts ScoreOptions). */
  labelTolerance?: number;
}

const TRUTH_SOURCES = ["auto", "markers", "labels"];

/** The detectors to run: the requested ones, then any the truth needs (not scored). */
function detectorNames(opts: AnalyzeOptions): { names: string[]; truthDetector: string | null } {
  const names = [...opts.detectors];
  const truthDetector = TRUTH_SOURCES.includes(opts.truth) ? null : opts.truth;
  if (truthDetector && !names.includes(truthDetector)) names.push(truthDetector);
  // "auto" falls back to the program's own reports when there are no truth markers.
  if (opts.truth === "auto" && !names.includes("protocol")) names.push("protocol");
  return { names, truthDetector };
}

/** Timelines are built when asked: `truthTimeline` the --truth detector's, `protocolTimeline` the protocol detector's (undefined: not run). */
function chooseTruth(
  path: string,
  opts: AnalyzeOptions,
  truthTimeline: (() => Timeline) | null,
  protocolTimeline: () => Timeline | undefined,
  markers: { t: number; label: string }[],
): Truth {
  if (truthTimeline) return truthFromTimeline(truthTimeline());
  if (opts.truth === "labels" || (opts.truth === "auto" && opts.labels)) {
    if (!opts.labels) throw new UsageError("report: --truth labels needs --labels FILE");
    return truthFromLabelsFile(readTextFile(opts.labels), opts.labels);
  }
  const truth = truthFromMarkers(markers);
  if (truth) return truth;
  if (opts.truth === "markers") throw new UsageError(`report: ${path} has no truth: markers`);
  const protocol = protocolTimeline();
  if (!protocol || protocol.points.every((p) => p.verdict.state === "unknown")) {
    throw new UsageError(
      `report: ${path} has no truth: markers and no OSC 7501 reports; give --labels FILE or --truth DETECTOR`,
    );
  }
  return truthFromTimeline(protocol);
}

export async function analyzeFile(
  path: string,
  opts: AnalyzeOptions,
  onProgress?: (t: number) => void,
): Promise<FileResult> {
  // On the main thread a big capture is read on a second core meanwhile (ahead.ts), and
  // the detectors that read no screen run there too (ahead_worker.ts); a `--jobs N`
  // worker already shares the cores with its siblings.
  const rec = await openRecordingAhead(path, opts.open, {
    worker: workerUrl("replay/ahead_worker.ts"),
    hash: true,
    side: true,
    min: isMainThread ? undefined : Infinity,
  });
  try {
    return await analyzeRecording(path, rec, opts, onProgress);
  } finally {
    rec.close(); // a failure before the last event leaves no reader thread behind
  }
}

async function analyzeRecording(
  path: string,
  rec: AheadRecording,
  opts: AnalyzeOptions,
  onProgress?: (t: number) => void,
): Promise<FileResult> {
  const { names: asked, truthDetector } = detectorNames(opts);
  const choice = asked.some(usesAuto) ? await manifestFor(path, rec.header, AUTO, opts.open) : null;
  const names = choice ? asked.map((n) => withManifest(n, choice.name)) : asked;
  const beside = rec.beside ? names.map((n) => !readsScreen(n)) : names.map(() => false);
  const sideNames = names.filter((_, i) => beside[i]);
  const side = rec.beside?.({ names: sideNames } satisfies SidePayload) as Promise<SideResult> | undefined;
  // Built here for all: the side's are judged on the reader's thread, their names and
  // intervals read here.
  const all = names.map((n) => createDetector(n, resolveManifest));
  const detectors = all.filter((_, i) => !beside[i]);
  const sideDetectors = all.filter((_, i) => beside[i]);
  // Where detector i runs: [beside, index among those].
  const where: [boolean, number][] = [];
  let onMain = 0, onSide = 0;
  for (const b of beside) where.push([b, b ? onSide++ : onMain++]);
  // Markers as columns with shared labels: one object per marker, kept for the whole
  // analysis, pinned memory among each sample's garbage (19,000 after 34 hours).
  const markerTimes: number[] = [];
  const markerLabels: string[] = [];
  const labels = new Map<string, string>();
  let bytes = 0;
  let lastProgress = performance.now();
  const garbage = new GarbageWatch();
  const { sampler, end } = await sampleDetectors(rec.header, rec.runs ? { runs: rec.runs } : rec.events, detectors, {
    garbage,
    onEvent: (e) => {
      if (e.kind === "marker") {
        let label = labels.get(e.label);
        if (label === undefined) labels.set(label = detached(e.label), label);
        markerTimes.push(e.t);
        markerLabels.push(label);
      } else if (e.kind === "output") bytes += e.bytes.length;
      if (onProgress && performance.now() - lastProgress > 500) {
        lastProgress = performance.now();
        onProgress(e.t);
      }
    },
  });
  // Detector i's timeline, from whichever thread ran it.
  const fromSide = side ? await side : null;
  const timeline = (i: number): Timeline => {
    const [b, j] = where[i];
    return b ? timelineOf(sideDetectors[j], fromSide!.columns[j], fromSide!.verdicts) : sampler.timeline(j);
  };
  const truthAt = truthDetector ? names.indexOf(names[asked.indexOf(truthDetector)]) : -1;
  const protocolAt = all.findIndex((d) => d.name === "protocol");
  const markerWarnings = truthMarkerWarnings(path, markerTimes.map((t, i) => ({ t, label: markerLabels[i] })));
  let truth: Truth;
  try {
    truth = chooseTruth(
      path,
      opts,
      truthAt >= 0 ? () => timeline(truthAt) : null,
      () => protocolAt < 0 ? undefined : timeline(protocolAt),
      markerTimes.map((t, i) => ({ t, label: markerLabels[i] })),
    );
  } catch (e) {
    // The reader's warnings (a truncated last line: the recording cut short, its markers
    // with it) are the likely why; they would be lost with the result that carries them.
    const why = [...markerWarnings, ...rec.warnings];
    if (e instanceof UsageError && why.length) throw new UsageError(`${e.message} (and: ${why.join("; ")})`);
    throw e;
  }
  // Only the requested detectors are scored; a --truth detector added for the truth is
  // not. One timeline at a time: 15 detectors × 22,000 change points after 34 hours.
  const lists = truthLists(truth, end);
  const scores: DetectorScore[] = [];
  const drawn: DrawnTimeline[] = [];
  for (let i = 0; i < opts.detectors.length; i++) {
    const tl = timeline(i);
    scores.push(score(tl, truth, end, lists, { labelTolerance: opts.labelTolerance }));
    drawn.push(drawnTimeline(tl, end));
    garbage.check(); // each timeline is garbage once scored and drawn
  }
  const drawnTruthLane = drawnTruth(truth.segments, end);
  return {
    path,
    sha256: (await rec.sha256()) ?? sha256File(path),
    format: rec.format,
    cols: rec.header.cols,
    rows: rec.header.rows,
    duration: end,
    outputBytes: bytes,
    command: rec.header.command ?? null,
    manifest: choice,
    truth: truth.source,
    truthSegments: drawnTruthLane.segments,
    ...(drawnTruthLane.changes === undefined ? {} : { truthChanges: drawnTruthLane.changes }),
    blockedEpisodes: scores[0]?.episodes.length ?? 0,
    scores,
    warnings: [...rec.warnings, ...markerWarnings, ...labelWarnings(truth, end, path)],
    timelines: drawn,
  };
}
