// A detector's verdicts over time, kept as change points: each holds from its t until
// the next. The type sits beside the detectors (not in replay/) because scoring and
// rendering read timelines without depending on how they were sampled.

import type { DetState } from "./manifest.ts";
import type { Kind } from "../osc7501/parse.ts";

/** What a detector says at one instant. */
export interface Verdict {
  state: DetState;
  needsYou: boolean;
  /** The rule that decided (manifest rule id, `record:<id>`, `quiet`, …) or null. */
  rule: string | null;
  evidence: string | null;
  kind?: Kind | null;
}

export interface Sample {
  t: number;
  verdict: Verdict;
}

export interface Timeline {
  detector: string;
  points: Sample[];
  samples: number;
  /**
   * The sampling period in seconds (samples at k·every); 0 or absent: judged after every
   * event. Scoring needs it: an alarm carried into an episode is seen at the first sample
   * at or after the episode's start, not at the start itself.
   */
  every?: number;
}

/** Two verdicts are one change point when state, needs-you and rule agree (evidence may differ). */
export function sameChange(
  a: { state: string; needsYou: boolean; rule: string | null } | null | undefined,
  b: { state: string; needsYou: boolean; rule: string | null },
): boolean {
  return a != null && a.state === b.state && a.needsYou === b.needsYou && a.rule === b.rule;
}

/** Time comparisons tolerate float noise below a microsecond. */
export const EPS = 1e-9;

/**
 * The value in force at t: the last point whose time ≤ t (within EPS), by binary
 * search over points sorted by time; null before the first. One helper for verdicts,
 * truth segments and anything else kept as change points.
 */
export function inForceAt<P>(points: readonly P[], t: number, timeOf: (p: P) => number): P | null {
  const i = indexInForce(points.length, (j) => timeOf(points[j]), t);
  return i < 0 ? null : points[i];
}

/** inForceAt over any n time-sorted points read by index (the sampler's columns): the index, or -1. */
export function indexInForce(n: number, timeAt: (i: number) => number, t: number): number {
  let lo = 0, hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeAt(mid) > t + EPS) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

/** The verdict in force at time t. */
export function verdictAt(tl: Timeline, t: number): Verdict | null {
  return inForceAt(tl.points, t, (p) => p.t)?.verdict ?? null;
}

export interface Interval {
  start: number;
  end: number;
}

/**
 * The intervals over [0, end] during which `holds` is true of the verdict in force: the
 * needs-you runs that scoring reads, and the states that check compares with the screen.
 */
export function intervalsOf(tl: Timeline, end: number, holds: (v: Verdict) => boolean): Interval[] {
  const out: Interval[] = [];
  let open: number | null = null;
  for (const p of tl.points) {
    if (p.t > end + EPS) break;
    const h = holds(p.verdict);
    if (h && open === null) open = p.t;
    else if (!h && open !== null) {
      if (p.t > open) out.push({ start: open, end: p.t });
      open = null;
    }
  }
  if (open !== null && end > open) out.push({ start: open, end });
  return out;
}
