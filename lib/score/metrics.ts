/**
 * How pstlab scores a detector against the truth (docs/scoring.md and README "How
 * pstlab scores" say the same in prose, with a drawn example). An *episode* is a span
 * in which the truth is blocked; a *run* is a span in which the detector says "needs
 * you". The osFoundry reference table (docs/detection.md §6) fixes the readings below: each
 * one chosen so that a naive detector cannot look better than it is.
 *
 * - **Latency**: from the episode's start to the first *sample at or after the start*
 *   at which the detector says needs-you (before the episode ends; else the episode is
 *   **missed**). A sampled detector (every k·interval) that was already alarming
 *   therefore scores its sampling phase, like any other; one judged after every event
 *   (`protocol`, `hooks`, `process`) scores 0 then; `quiet>=` is sampled every 50 ms.
 * - **Carried**: a detected episode whose detecting run began before the episode: the
 *   alarm was left over from earlier (a stale tail, a question line still on screen).
 *   Counted per detector; latency is also summarised without carried episodes.
 * - **Linger**: from the episode's end to the end of the run in force at that moment,
 *   never cut at the next episode. When that run is still going at the next episode's
 *   start the episode's `lingerIntoNext` is set (and the next episode is carried).
 * - **False alarms**: a run that *begins* while the truth is not blocked. Its count goes
 *   to the truth state where it begins (working, idle, unlabeled); its seconds are all
 *   the time it spends while the truth is working / idle / unlabeled, split by the truth
 *   state at each instant (the part inside a blocked episode is a detection). A run that
 *   began inside an episode is linger, never a false alarm. A false run that goes on past
 *   a later episode's end counts those seconds twice on purpose: as that episode's
 *   linger and as the false run's seconds.
 * - **Label tolerance** (`--label-tolerance`, off by default): hand labels land late; a
 *   run that begins at most that long before an episode (while the truth is not blocked)
 *   and is still going when it starts is read as beginning at the episode's start:
 *   latency 0, not carried, no false alarm.
 *
 * The confusion matrix (seconds of truth state × verdict state) is the plain overlap.
 * Everything works on interval lists, so each rule is testable with hand-written
 * timelines (metrics_test.ts) and checked against a brute-force scorer
 * (metrics_linear_test.ts).
 */

import { EPS, inForceAt, type Interval, intervalsOf, type Timeline } from "../detect/timeline.ts";
import { round6 } from "../text.ts";
import type { Truth, TruthState } from "./truth.ts";

export type { Interval };

export interface Episode {
  start: number;
  end: number;
  kind: string | null;
  /** First needs-you time within the episode, or null (missed). */
  detectedAt: number | null;
  latency: number | null;
  /** Detected by a run that began before the episode (an alarm left over from earlier). */
  carried: boolean;
  /** From the episode's end to the end of the run in force then (never cut at the next episode). */
  linger: number;
  /** That run was still going when the next episode began. */
  lingerIntoNext: boolean;
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

/** The first sample at or after t of a detector sampled every `every` seconds (0: judged at every event). */
export function firstSampleAt(t: number, every: number | undefined): number {
  if (!every) return t;
  return round6(Math.ceil((t - EPS) / every) * every);
}

/**
 * The detector's runs, with `--label-tolerance`: a run that begins within `tolerance`
 * before an episode, outside blocked, and is still going at its start, begins there.
 */
function ledRuns(ny: Interval[], blocked: Interval[], stateAt: (t: number) => TruthState, tolerance: number) {
  if (!(tolerance > 0)) return ny;
  let b = 0;
  return ny.map((n) => {
    b = firstEndingAfter(blocked, b, n.start);
    // The first episode that has not ended by the run's start: the only one the run can lead.
    const ep = blocked[b];
    if (
      ep && ep.start > n.start + EPS && ep.start - n.start <= tolerance + EPS && n.end > ep.start + EPS &&
      stateAt(n.start) !== "blocked"
    ) return { start: ep.start, end: n.end };
    return n;
  });
}

export interface ScoreOptions {
  /** Seconds by which a detector may lead a hand label and still count as on time (0: off). */
  labelTolerance?: number;
}

export function score(
  tl: Timeline,
  truth: Truth,
  end: number,
  lists: TruthLists = truthLists(truth, end),
  opts: ScoreOptions = {},
): DetectorScore {
  const { blocked, segs, pieces } = lists;
  const stateAt = (t: number): TruthState => inForceAt(segs, t, (s) => s.start)?.state ?? "unlabeled";
  const ny = ledRuns(needsYouIntervals(tl, end), blocked, stateAt, opts.labelTolerance ?? 0);
  const episodes: Episode[] = [];
  // Both lists are sorted and disjoint: the first run ending after a point is the only
  // candidate for the run in force there.
  let h = 0, r = 0;
  blocked.forEach((b, i) => {
    h = firstEndingAfter(ny, h, b.start + EPS);
    let detectedAt: number | null = null, carried = false;
    // A run carried into the episode is seen at the first sample at or after its start;
    // if it ended before that sample, the next run is the candidate.
    for (let k = h; k < ny.length && ny[k].start < b.end - EPS; k++) {
      const run = ny[k];
      const began = run.start < b.start - EPS;
      const at = began ? firstSampleAt(b.start, tl.every) : run.start;
      if (at < run.end - EPS && at < b.end - EPS) {
        [detectedAt, carried] = [at, began];
        break;
      }
    }
    r = firstEndingAfter(ny, r, b.end + EPS);
    const run = r < ny.length && ny[r].start < b.end - EPS ? ny[r] : undefined;
    const next = blocked[i + 1];
    episodes.push({
      start: b.start,
      end: b.end,
      kind: b.kind,
      detectedAt,
      latency: detectedAt === null ? null : detectedAt - b.start,
      carried,
      linger: run ? run.end - b.end : 0,
      lingerIntoNext: !!run && !!next && run.end > next.start + EPS,
    });
  });

  // False alarms: runs that begin outside blocked, counted where they begin; their
  // seconds split by the truth state at each instant (blocked time excluded).
  const fa: FalseAlarms = {
    working: { count: 0, seconds: 0 },
    idle: { count: 0, seconds: 0 },
    unlabeled: { count: 0, seconds: 0 },
  };
  let q = 0;
  for (const n of ny) {
    const st = stateAt(n.start);
    if (st === "blocked") continue;
    fa[st].count++;
    q = firstEndingAfter(pieces, q, n.start);
    for (let k = q; k < pieces.length && pieces[k].start < n.end; k++) {
      const p = pieces[k];
      if (p.state === "blocked") continue;
      const x = Math.max(p.start, n.start), y = Math.min(p.end, n.end);
      if (y > x) fa[p.state].seconds += y - x;
    }
  }

  // Time confusion: seconds of (truth state × verdict state).
  const confusion = emptyConfusion();
  const points = tl.points;
  let n = points.length;
  while (n > 0 && points[n - 1].t > end + EPS) n--;
  // Piece ends never decrease (each is the next start, capped at `end`), so pieces that
  // end by a point end by every later one.
  let c = 0;
  for (let i = 0; i < n; i++) {
    const a = points[i].t, b = i + 1 < n ? points[i + 1].t : end;
    if (b <= a) continue;
    const vs = points[i].verdict.needsYou ? "blocked" : points[i].verdict.state;
    c = firstEndingAfter(pieces, c, a);
    for (let k = c; k < pieces.length && pieces[k].start < b; k++) {
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
  /** Detected episodes whose alarm was left over from before they began. */
  carried: number;
  /** Latency over the detected episodes that were not carried. */
  freshLatency: { median: number | null; max: number | null };
  /** Mean linger per episode (seconds), and the total and max; `intoNext`: lingers still going at the next episode. */
  linger: { mean: number; total: number; max: number; intoNext: number };
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
  const fresh = eps.filter((e) => e.latency !== null && !e.carried).map((e) => e.latency!).sort((a, b) => a - b);
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
    carried: eps.filter((e) => e.carried).length,
    freshLatency: { median: median(fresh), max: fresh.length ? fresh[fresh.length - 1] : null },
    linger: {
      mean: eps.length ? lingerTotal / eps.length : 0,
      total: lingerTotal,
      max: eps.reduce((m, e) => Math.max(m, e.linger), 0),
      intoNext: eps.filter((e) => e.lingerIntoNext).length,
    },
    falseAlarms: fa,
    confusion,
  };
}
