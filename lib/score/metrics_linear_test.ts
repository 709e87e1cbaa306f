// The scorer walks its sorted interval lists with cursors (linear in the capture) where
// it once searched every run for every episode. This pins the cursors to the plain
// definition: on random timelines and truths, the score equals one computed by brute
// force, searching everything, exactly as the quadratic version did.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { emptyConfusion, type Interval, needsYouIntervals, score, truthIntervals } from "./metrics.ts";
import { type Truth, truthFromMarkers, type TruthState } from "./truth.ts";
import { EPS, inForceAt, type Timeline } from "../detect/timeline.ts";

function bruteForce(tl: Timeline, truth: Truth, end: number) {
  const blocked = truthIntervals(truth, end, "blocked");
  const ny = needsYouIntervals(tl, end);
  const overlap = (list: Interval[], a: number, b: number) =>
    list.reduce((n, x) => n + Math.max(0, Math.min(b, x.end) - Math.max(a, x.start)), 0);
  const lingerWindows: Interval[] = [];
  const episodes = blocked.map((b, i) => {
    const hit = ny.find((n) => n.end > b.start + EPS && n.start < b.end - EPS);
    const run = ny.find((n) => n.start < b.end - EPS && n.end > b.end + EPS);
    const nextStart = i + 1 < blocked.length ? blocked[i + 1].start : end;
    const linger = run ? Math.max(0, Math.min(run.end, nextStart) - b.end) : 0;
    if (linger > 0) lingerWindows.push({ start: b.end, end: b.end + linger });
    const detectedAt = hit ? Math.max(hit.start, b.start) : null;
    return {
      start: b.start,
      end: b.end,
      kind: b.kind,
      detectedAt,
      latency: detectedAt === null ? null : detectedAt - b.start,
      linger,
    };
  });
  const segs = truth.segments;
  const fa = { working: { count: 0, seconds: 0 }, idle: { count: 0, seconds: 0 }, unlabeled: { count: 0, seconds: 0 } };
  for (const n of ny) {
    const st: TruthState = inForceAt(segs, n.start, (s) => s.start)?.state ?? "unlabeled";
    if (st !== "blocked") fa[st].count++;
  }
  const pieces: (Interval & { state: TruthState })[] = [];
  if (segs.length === 0 || segs[0].start > 0) {
    pieces.push({ start: 0, end: segs.length ? Math.min(segs[0].start, end) : end, state: "unlabeled" });
  }
  segs.forEach((s, i) =>
    pieces.push({ start: s.start, end: Math.min(i + 1 < segs.length ? segs[i + 1].start : end, end), state: s.state })
  );
  for (const p of pieces) {
    if (p.state === "blocked") continue;
    for (const n of ny) {
      const a = Math.max(p.start, n.start), b = Math.min(p.end, n.end);
      if (b > a) fa[p.state].seconds += (b - a) - overlap(lingerWindows, a, b);
    }
  }
  const confusion = emptyConfusion();
  const points = tl.points.filter((p) => p.t <= end + EPS);
  points.forEach((pt, i) => {
    const a = pt.t, b = i + 1 < points.length ? points[i + 1].t : end;
    const vs = pt.verdict.needsYou ? "blocked" : pt.verdict.state;
    for (const p of pieces) {
      const x = Math.max(a, p.start), y = Math.min(b, p.end);
      if (y > x) confusion[p.state][vs] += y - x;
    }
  });
  return { episodes, falseAlarms: fa, confusion };
}

// Times on a coarse grid so that runs touch, nest and coincide with truth changes often.
const times = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 25 }).map((a) =>
  a.sort((x, y) => x - y).map((n) => n / 2)
);
const states = ["working", "idle", "blocked", "unknown"] as const;

test("the linear scorer equals brute force on random timelines and truths", () => {
  fc.assert(
    fc.property(
      times,
      fc.array(fc.constantFrom(...states), { minLength: 25, maxLength: 25 }),
      times,
      fc.array(fc.constantFrom("working", "idle", "blocked"), { minLength: 25, maxLength: 25 }),
      fc.integer({ min: 1, max: 35 }),
      (pt, ps, tt, ts, end) => {
        const tl: Timeline = {
          detector: "d",
          samples: pt.length,
          points: pt.map((t, i) => ({
            t,
            verdict: { state: ps[i], needsYou: ps[i] === "blocked", rule: null, evidence: null },
          })),
        };
        const truth = truthFromMarkers(tt.map((t, i) => ({ t, label: `truth:${ts[i]}` }))) ??
          { source: "markers", segments: [] };
        const got = score(tl, truth, end);
        const want = bruteForce(tl, truth, end);
        assert.deepEqual({ episodes: got.episodes, falseAlarms: got.falseAlarms, confusion: got.confusion }, want);
      },
    ),
    { numRuns: 2000 },
  );
});
