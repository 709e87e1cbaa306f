// Scoring, with the definitions of docs/scoring.md (the osFoundry write-up's):
//  - latency: from the truth turning blocked until the detector first says "needs you";
//  - missed: truth blocked episodes the detector never flagged while they lasted;
//  - linger: how long the detector keeps saying "needs you" after the truth leaves
//    blocked (the needs-you run in force at the episode's end, up to the next episode);
//  - false alarms: needs-you episodes that start while the truth is working, and
//    separately idle (count), and the needs-you time spent in each truth state that is
//    neither a hit nor linger (seconds).
// Everything here works on plain interval lists, so every metric is testable with
// hand-written timelines.

import { EPS, inForceAt, type Interval, intervalsOf, type Timeline } from "../detect/timeline.ts";
import type { Truth, TruthState } from "./truth.ts";

export type { Interval };

export interface Episode {
  start: number;
  end: number;
  kind: string | null;
  /** First needs-you time within the episode, or null (missed). */
  detectedAt: number | null;
  latency: number | null;
  linger: number;
}

export interface FalseAlarms {
  working: { count: number; seconds: number };
  idle: { count: number; seconds: number };
  unlabeled: { count: number; seconds: number };
}

export const STATES = ["working", "idle", "blocked", "unknown"] as const;
export type Confusion = Record<TruthState, Record<(typeof STATES)[number], number>>;

export interface DetectorScore {
  detector: string;
  episodes: Episode[];
  falseAlarms: FalseAlarms;
  confusion: Confusion;
  samples: number;
}

/** Truth segments as intervals of one state up to `end`. */
export function truthIntervals(truth: Truth, end: number, state: TruthState): (Interval & { kind: string | null })[] {
  const out: (Interval & { kind: string | null })[] = [];
  const segs = truth.segments;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i], e = Math.min(i + 1 < segs.length ? segs[i + 1].start : end, end);
    if (s.state !== state || e <= s.start) continue;
    const last = out.at(-1);
    if (last && Math.abs(last.end - s.start) < EPS) last.end = e; // blocked → blocked:permission is one episode
    else out.push({ start: s.start, end: e, kind: s.kind });
  }
  return out;
}

/** The detector's needs-you runs up to `end`. */
export function needsYouIntervals(tl: Timeline, end: number): Interval[] {
  return intervalsOf(tl, end, (v) => v.needsYou);
}

/**
 * The first index at or after `from` whose interval ends after `t`. Scoring walks every
 * list with such cursors, asking with times that never decrease, so it stays linear: a
 * 33-hour capture has 4,400 episodes and each detector tens of thousands of changes.
 */
function firstEndingAfter(list: readonly Interval[], from: number, t: number): number {
  while (from < list.length && list[from].end <= t) from++;
  return from;
}

/** Length of the overlap of [a,b) with a sorted list of disjoint intervals, from index `from`. */
function overlap(list: Interval[], a: number, b: number, from: number): number {
  let n = 0;
  for (let i = from; i < list.length; i++) {
    const x = list[i];
    if (x.start >= b) break;
    n += Math.max(0, Math.min(b, x.end) - Math.max(a, x.start));
  }
  return n;
}

/** What scoring reads from the truth, the same for every detector: computed once per capture. */
export interface TruthLists {
  segs: Truth["segments"];
  blocked: (Interval & { kind: string | null })[];
  /** The truth's states as pieces covering [0, end] ("unlabeled" before the first segment). */
  pieces: (Interval & { state: TruthState })[];
}

export function truthLists(truth: Truth, end: number): TruthLists {
  const segs = truth.segments;
  const pieces: (Interval & { state: TruthState })[] = [];
  if (segs.length === 0 || segs[0].start > 0) {
    pieces.push({ start: 0, end: segs.length ? Math.min(segs[0].start, end) : end, state: "unlabeled" });
  }
  segs.forEach((s, i) =>
    pieces.push({ start: s.start, end: Math.min(i + 1 < segs.length ? segs[i + 1].start : end, end), state: s.state })
  );
  return { segs, blocked: truthIntervals(truth, end, "blocked"), pieces };
}

export function score(
  tl: Timeline,
  truth: Truth,
  end: number,
  lists: TruthLists = truthLists(truth, end),
): DetectorScore {
  const { blocked, segs, pieces } = lists;
  const ny = needsYouIntervals(tl, end);
  const episodes: Episode[] = [];
  // Linger windows: after each episode, the needs-you run in force at its end, up to
  // the next blocked episode.
  const lingerWindows: Interval[] = [];
  // Both lists are sorted and disjoint: the first run ending after a point is the only
  // candidate for the run in force there.
  let h = 0, r = 0;
  blocked.forEach((b, i) => {
    h = firstEndingAfter(ny, h, b.start + EPS);
    const hit = h < ny.length && ny[h].start < b.end - EPS ? ny[h] : undefined;
    const detectedAt = hit ? Math.max(hit.start, b.start) : null;
    r = firstEndingAfter(ny, r, b.end + EPS);
    const run = r < ny.length && ny[r].start < b.end - EPS ? ny[r] : undefined;
    const nextStart = i + 1 < blocked.length ? blocked[i + 1].start : end;
    const linger = run ? Math.max(0, Math.min(run.end, nextStart) - b.end) : 0;
    if (linger > 0) lingerWindows.push({ start: b.end, end: b.end + linger });
    episodes.push({
      start: b.start,
      end: b.end,
      kind: b.kind,
      detectedAt,
      latency: detectedAt === null ? null : detectedAt - b.start,
      linger,
    });
  });

  // False alarms. Counts: needs-you runs that start outside truth-blocked, by the truth
  // state at their start. Seconds: needs-you time outside blocked and outside linger,
  // by the truth state at each instant.
  const fa: FalseAlarms = {
    working: { count: 0, seconds: 0 },
    idle: { count: 0, seconds: 0 },
    unlabeled: { count: 0, seconds: 0 },
  };
  const stateAt = (t: number): TruthState => inForceAt(segs, t, (s) => s.start)?.state ?? "unlabeled";
  for (const n of ny) {
    const st = stateAt(n.start);
    if (st !== "blocked") fa[st].count++;
  }
  let first = 0, lw = 0;
  for (const p of pieces) {
    if (p.state === "blocked" || p.end <= p.start) continue;
    first = firstEndingAfter(ny, first, p.start);
    for (let k = first; k < ny.length && ny[k].start < p.end; k++) {
      const n = ny[k];
      const a = Math.max(p.start, n.start), b = Math.min(p.end, n.end);
      if (b <= a) continue;
      lw = firstEndingAfter(lingerWindows, lw, a);
      fa[p.state].seconds += (b - a) - overlap(lingerWindows, a, b, lw);
    }
  }

  // Time confusion: seconds of (truth state × verdict state).
  const confusion = emptyConfusion();
  const points = tl.points;
  let n = points.length;
  while (n > 0 && points[n - 1].t > end + EPS) n--;
  // Piece ends never decrease (each is the next start, capped at `end`), so pieces that
  // end by a point end by every later one.
  let q = 0;
  for (let i = 0; i < n; i++) {
    const a = points[i].t, b = i + 1 < n ? points[i + 1].t : end;
    if (b <= a) continue;
    const vs = points[i].verdict.needsYou ? "blocked" : points[i].verdict.state;
    q = firstEndingAfter(pieces, q, a);
    for (let k = q; k < pieces.length && pieces[k].start < b; k++) {
      const p = pieces[k];
      const x = Math.max(a, p.start), y = Math.min(b, p.end);
      if (y > x) confusion[p.state][vs] += y - x;
    }
  }
  return { detector: tl.detector, episodes, falseAlarms: fa, confusion, samples: tl.samples };
}

export function emptyConfusion(): Confusion {
  const row = () => ({ working: 0, idle: 0, blocked: 0, unknown: 0 });
  return { working: row(), idle: row(), blocked: row(), unlabeled: row() };
}

// ---------------------------------------------------------------- summaries

export interface Summary {
  detector: string;
  episodes: number;
  detected: number;
  missed: number;
  latency: { median: number | null; p95: number | null; max: number | null; mean: number | null };
  /** Mean linger per episode (seconds), and the total and max. */
  linger: { mean: number; total: number; max: number };
  falseAlarms: FalseAlarms;
  confusion: Confusion;
}

/** Nearest-rank percentile (p95 = max when n < 20). */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(sorted: number[]): number | null {
  if (sorted.length === 0) return null;
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}

/** Pools episodes of several files (or one) for one detector. */
export function summarize(detector: string, scores: DetectorScore[]): Summary {
  const eps = scores.flatMap((s) => s.episodes);
  const lat = eps.filter((e) => e.latency !== null).map((e) => e.latency!).sort((a, b) => a - b);
  const fa: FalseAlarms = {
    working: { count: 0, seconds: 0 },
    idle: { count: 0, seconds: 0 },
    unlabeled: { count: 0, seconds: 0 },
  };
  const confusion = emptyConfusion();
  for (const s of scores) {
    for (const k of ["working", "idle", "unlabeled"] as const) {
      fa[k].count += s.falseAlarms[k].count;
      fa[k].seconds += s.falseAlarms[k].seconds;
    }
    for (const t of Object.keys(confusion) as TruthState[]) {
      for (const v of STATES) confusion[t][v] += s.confusion[t][v];
    }
  }
  const lingerTotal = eps.reduce((n, e) => n + e.linger, 0);
  return {
    detector,
    episodes: eps.length,
    detected: lat.length,
    missed: eps.length - lat.length,
    latency: {
      median: median(lat),
      p95: percentile(lat, 95),
      max: lat.length ? lat[lat.length - 1] : null,
      mean: lat.length ? lat.reduce((a, b) => a + b, 0) / lat.length : null,
    },
    linger: {
      mean: eps.length ? lingerTotal / eps.length : 0,
      total: lingerTotal,
      max: eps.reduce((m, e) => Math.max(m, e.linger), 0),
    },
    falseAlarms: fa,
    confusion,
  };
}
