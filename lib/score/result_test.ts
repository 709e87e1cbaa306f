// The HTML draws each detector lane from drawnTimeline: exact when the change points fit,
// coarsened to slots when they do not — and coarsening must never hide an alarm.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { DRAWN_POINTS, type DrawnPoint, drawnTimeline } from "./result.ts";
import { inForceAt, type Timeline } from "../detect/timeline.ts";
import type { DetState } from "../detect/manifest.ts";

const tl = (pts: [number, DetState, string | null][]): Timeline => ({
  detector: "d",
  samples: pts.length,
  points: pts.map(([t, state, rule]) => ({
    t,
    verdict: { state, needsYou: state === "blocked", rule, evidence: null },
  })),
});

const at = (pts: DrawnPoint[], t: number) => inForceAt(pts, t, (p) => p.t);

test("a timeline that fits is drawn point for point, without a coarsening count", () => {
  const src = tl([[0, "working", null], [1.5, "blocked", "r"], [2, "idle", null]]);
  const d = drawnTimeline(src, 10, 3);
  assert.equal(d.changes, undefined);
  assert.deepEqual(d.points, [
    { t: 0, state: "working", needsYou: false, rule: null },
    { t: 1.5, state: "blocked", needsYou: true, rule: "r" },
    { t: 2, state: "idle", needsYou: false, rule: null },
  ]);
});

test("past the limit each slot shows its needs-you verdict if any, else its longest", () => {
  // 4 slots of 1 s. Slot 0: working 0.9 s, blocked 0.1 s → blocked. Slot 1: idle 0.7,
  // working 0.3 → idle. Slot 2: idle throughout. Slot 3: working 0.6, idle 0.4 → working.
  const src = tl([
    [0, "working", null],
    [0.9, "blocked", "b"],
    [1, "idle", null],
    [1.7, "working", null],
    [2, "idle", null],
    [3, "working", "w"],
    [3.6, "idle", null],
  ]);
  const d = drawnTimeline(src, 4, 4);
  assert.equal(d.changes, 7);
  assert.deepEqual(d.points.map((p) => [p.t, p.state, p.rule]), [[0, "working", null], [0.9, "blocked", "b"], [
    1,
    "idle",
    null,
  ], [3, "working", "w"]]);
});

test("the limit is DRAWN_POINTS: at it exact, one past it coarsened", () => {
  const make = (n: number) =>
    tl(Array.from({ length: n }, (_, i) => [i, i % 2 ? "blocked" : "working", null] as [number, DetState, null]));
  assert.equal(drawnTimeline(make(DRAWN_POINTS), DRAWN_POINTS).changes, undefined);
  const past = drawnTimeline(make(DRAWN_POINTS + 1), DRAWN_POINTS + 1);
  assert.equal(past.changes, DRAWN_POINTS + 1);
  assert.ok(past.points.length <= DRAWN_POINTS + 1);
});

test("coarsened lanes keep every alarm and every quiet slot, in order, within the slot count", () => {
  const states: DetState[] = ["working", "idle", "blocked", "unknown"];
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 10000 }), fc.constantFrom(...states)), {
        minLength: 1,
        maxLength: 300,
      }),
      fc.integer({ min: 1, max: 40 }),
      (raw, slots) => {
        const times = [...new Set(raw.map(([t]) => t / 100))].sort((a, b) => a - b);
        const src = tl(times.map((t, i) => [t, raw[i % raw.length][1], `r${i % 3}`]));
        const end = 100;
        const d = drawnTimeline(src, end, slots);
        if (src.points.length <= slots) return assert.equal(d.points.length, src.points.length);
        assert.ok(d.points.length <= slots + 1);
        for (let i = 1; i < d.points.length; i++) assert.ok(d.points[i].t >= d.points[i - 1].t);
        const w = end / slots;
        const drawnIn = (k: number) =>
          d.points.filter((p, i) => {
            const next = i + 1 < d.points.length ? d.points[i + 1].t : end;
            return next > k * w + 1e-9 && p.t < (k + 1) * w - 1e-9;
          });
        for (let k = 0; k < slots; k++) {
          const a = k * w, b = (k + 1) * w;
          if (a < src.points[0].t) continue;
          const inside = src.points.filter((p) => p.t > a && p.t < b);
          const alarm = src.points.some((p, i) =>
            p.verdict.needsYou && p.t < b && (i + 1 < src.points.length ? src.points[i + 1].t : end) > a &&
            Math.min(b, i + 1 < src.points.length ? src.points[i + 1].t : end) > Math.max(a, p.t)
          );
          if (alarm) assert.ok(drawnIn(k).some((p) => p.needsYou), `slot ${k} hides an alarm`);
          if (inside.length === 0) {
            const v = inForceAt(src.points, a + w / 2, (p) => p.t)!.verdict;
            const got = at(d.points, a + w / 2)!;
            assert.deepEqual([got.state, got.rule], [v.state, v.rule], `quiet slot ${k}`);
          }
        }
      },
    ),
    { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 300) },
  );
});
