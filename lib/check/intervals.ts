// Timelines as intervals: when a state held, from change points to the end.

import type { Timeline } from "../detect/timeline.ts";
import type { Verdict } from "../detect/detectors.ts";

export interface Interval {
  start: number;
  end: number;
}

/** The intervals over [0, end] during which `holds` is true of the verdict in force. */
export function intervalsOf(tl: Timeline, end: number, holds: (v: Verdict) => boolean): Interval[] {
  const out: Interval[] = [];
  let open: number | null = null;
  for (const p of tl.points) {
    if (p.t > end) break;
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

/** Where two interval lists overlap. */
export function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const s = Math.max(a[i].start, b[j].start), e = Math.min(a[i].end, b[j].end);
    if (e > s) out.push({ start: s, end: e });
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return out;
}

export const fmtT = (t: number) => `${t.toFixed(2)} s`;
