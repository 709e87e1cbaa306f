// Interval arithmetic for check (the intervals themselves come from lib/detect/timeline.ts).

import type { Interval } from "../detect/timeline.ts";

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
