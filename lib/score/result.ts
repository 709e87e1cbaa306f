// What one analysed capture yields: the input's identity, its truth, every scored
// detector and the change points the HTML timeline draws. Produced by replay/analyze.ts,
// read by the report model and its renderers (which never re-read the capture).

import type { DetectorScore } from "./metrics.ts";
import type { TruthSegment, TruthState } from "./truth.ts";
import type { DetState } from "../detect/manifest.ts";
import { sameChange, type Timeline } from "../detect/timeline.ts";

export interface DrawnPoint {
  t: number;
  state: string;
  needsYou: boolean;
  rule: string | null;
}

export interface DrawnTimeline {
  detector: string;
  points: DrawnPoint[];
  /** Set when the change points were more than the lane has room for: how many there were (they were coarsened). */
  changes?: number;
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
  /** The manifest `auto` chose for this file, and why (null: no detector asked for auto). */
  manifest: { name: string; why: string } | null;
  truth: string;
  /** The truth as drawn: every segment, or (past DRAWN_POINTS) coarsened like a detector's lane. */
  truthSegments: TruthSegment[];
  /** Set when the truth's segments were coarsened: how many there were. */
  truthChanges?: number;
  blockedEpisodes: number;
  scores: DetectorScore[];
  warnings: string[];
  /** Change points per detector, for timelines (HTML), at most DRAWN_POINTS each. */
  timelines: DrawnTimeline[];
}

/**
 * The HTML lane is 1,000 units wide: a 34-hour capture gave 22,000 change points per
 * detector, drawn as slivers narrower than a pixel, and kept in every result (and every
 * shard file) for nothing. Past this many points a lane is drawn in DRAWN_POINTS equal
 * time slots.
 */
export const DRAWN_POINTS = 2000;

const drawn = (
  p: { t: number; verdict: { state: string; needsYou: boolean; rule: string | null } },
  t = p.t,
): DrawnPoint => ({ t, state: p.verdict.state, needsYou: p.verdict.needsYou, rule: p.verdict.rule });

/**
 * A timeline as drawn over [0, end]: every change point when they fit; otherwise one
 * verdict per slot of end / DRAWN_POINTS seconds — the needs-you verdict that lasts
 * longest in the slot if there is one (an alarm is never hidden by coarsening), else the
 * verdict that lasts longest — starting where that verdict starts, or at the slot's
 * start.
 */
export function drawnTimeline(tl: Timeline, end: number, slots = DRAWN_POINTS): DrawnTimeline {
  const pts = tl.points;
  if (pts.length <= slots || !(end > 0)) return { detector: tl.detector, points: pts.map((p) => drawn(p)) };
  const out: DrawnPoint[] = [];
  const w = end / slots;
  let i = 0;
  // The first point is kept as it is: before it the lane is empty, not "unknown".
  out.push(drawn(pts[0]));
  for (let k = Math.floor(pts[0].t / w); k < slots; k++) {
    const a = k * w, b = k === slots - 1 ? end : (k + 1) * w;
    while (i + 1 < pts.length && pts[i + 1].t <= a) i++;
    let best = i, bestLen = -1, bestNy = false;
    for (let j = i; j < pts.length && pts[j].t < b; j++) {
      const len = Math.min(b, j + 1 < pts.length ? pts[j + 1].t : end) - Math.max(a, pts[j].t);
      const ny = pts[j].verdict.needsYou && len > 0;
      if ((ny && !bestNy) || (ny === bestNy && len > bestLen)) [best, bestLen, bestNy] = [j, len, ny];
    }
    const p = drawn(pts[best], Math.max(a, pts[best].t));
    if (!sameChange(out.at(-1), p)) out.push(p);
  }
  return { detector: tl.detector, points: out, changes: pts.length };
}

/** The truth's segments as drawn: coarsened like a detector's lane past DRAWN_POINTS (blocked counts as needs-you). */
export function drawnTruth(
  segments: TruthSegment[],
  end: number,
  slots = DRAWN_POINTS,
): { segments: TruthSegment[]; changes?: number } {
  if (segments.length <= slots || !(end > 0)) return { segments };
  const lane = drawnTimeline(
    {
      detector: "truth",
      samples: segments.length,
      points: segments.map((s) => ({
        t: s.start,
        verdict: { state: s.state as DetState, needsYou: s.state === "blocked", rule: s.kind, evidence: null },
      })),
    },
    end,
    slots,
  );
  return {
    segments: lane.points.map((p) => ({ start: p.t, state: p.state as TruthState, kind: p.rule })),
    changes: segments.length,
  };
}
