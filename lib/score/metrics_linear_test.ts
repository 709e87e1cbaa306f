// The scorer walks sorted interval lists with cursors (linear in the capture). This pins
// it to the definitions (metrics.ts, docs/scoring.md) computed another way: by looking
// at every sample instant and every small cell of time, with no interval lists at all,
// on random timelines with overlapping lingers, carried alarms and false runs across
// prompts. Two mutants of the scorer (the old definitions) must be caught.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type DetectorScore, emptyConfusion, score, type ScoreOptions, truthIntervals } from "./metrics.ts";
import { type Truth, truthFromMarkers, type TruthState } from "./truth.ts";
import { EPS, inForceAt, type Timeline, verdictAt } from "../detect/timeline.ts";

/** Every time in these tests is on a 1/8 s grid: a cell of that width has one truth state and one verdict. */
const CELL = 0.125;

function bruteForce(tl: Timeline, truth: Truth, end: number, tolerance: number) {
  const blocked = truthIntervals(truth, end, "blocked");
  const stateAt = (t: number): TruthState => inForceAt(truth.segments, t, (s) => s.start)?.state ?? "unlabeled";
  const nyAt = (t: number) => t < end - EPS && !!verdictAt(tl, t)?.needsYou;
  const cells = Math.round(end / CELL);
  /** Where the needs-you run holding at cell i began, walking back cell by cell. */
  const runStartAt = (i: number) => {
    while (i > 0 && nyAt((i - 1) * CELL + CELL / 2)) i--;
    return i * CELL;
  };
  /** The same, read as the label tolerance says: a lead of at most `tolerance` starts at the episode. */
  const cellOf = (t: number) => Math.floor(t / CELL + 1e-6);
  const ledStart = (s: number) => {
    if (stateAt(s) === "blocked") return s;
    const ep = blocked.find((b) => b.start > s + EPS && b.start - s <= tolerance + EPS);
    const goesOn = ep && nyAt(ep.start + CELL / 2) && Math.abs(runStartAt(cellOf(ep.start)) - s) < EPS;
    return goesOn ? ep.start : s;
  };
  const runAt = (t: number) => { // start of the (led) run holding at t, or null
    const i = cellOf(t);
    if (!nyAt(i * CELL + CELL / 2)) return null;
    return ledStart(runStartAt(i));
  };
  const every = tl.every ?? 0;
  const episodes = blocked.map((b, i) => {
    // Instants the detector is looked at inside the episode.
    const looks: number[] = [];
    if (every > 0) {
      for (let k = Math.ceil(b.start / every - 1e-9); k * every < b.end - EPS; k++) looks.push(k * every);
    } else looks.push(b.start, ...tl.points.map((p) => p.t).filter((t) => t > b.start && t < b.end - EPS));
    let detectedAt: number | null = null, carried = false;
    const led = runAt(b.start);
    if (led !== null && Math.abs(led - b.start) < EPS) detectedAt = b.start;
    else {
      for (const t of looks) {
        const start = runAt(t);
        if (start !== null) {
          [detectedAt, carried] = [t, start < b.start - EPS];
          break;
        }
      }
    }
    // Linger: the run holding just before the end, if it still holds at the end.
    const lastCell = Math.round(b.end / CELL) - 1;
    let lingerEnd = b.end;
    if (lastCell >= 0 && nyAt(lastCell * CELL + CELL / 2)) {
      let j = lastCell + 1;
      while (j < cells && nyAt(j * CELL + CELL / 2)) j++;
      lingerEnd = j * CELL;
    }
    const next = blocked[i + 1];
    return {
      start: b.start,
      end: b.end,
      kind: b.kind,
      detectedAt,
      latency: detectedAt === null ? null : detectedAt - b.start,
      carried,
      linger: lingerEnd - b.end,
      lingerIntoNext: !!next && lingerEnd > next.start + EPS,
    };
  });
  const fa = { working: { count: 0, seconds: 0 }, idle: { count: 0, seconds: 0 }, unlabeled: { count: 0, seconds: 0 } };
  const counted = new Set<number>();
  for (let i = 0; i < cells; i++) {
    const mid = i * CELL + CELL / 2;
    const start = runAt(mid);
    if (start === null || stateAt(start) === "blocked" || start > mid) continue;
    if (!counted.has(runStartAt(i))) {
      counted.add(runStartAt(i));
      fa[stateAt(start) as "working"].count++;
    }
    const st = stateAt(mid);
    if (st !== "blocked") fa[st].seconds += CELL;
  }
  return { episodes, falseAlarms: fa };
}

const near = (a: number | null, b: number | null) => a === b || (a !== null && b !== null && Math.abs(a - b) < 1e-6);
function same(got: Pick<DetectorScore, "episodes" | "falseAlarms">, want: ReturnType<typeof bruteForce>): boolean {
  if (got.episodes.length !== want.episodes.length) return false;
  const eq = got.episodes.every((e, i) => {
    const w = want.episodes[i];
    return near(e.start, w.start) && near(e.end, w.end) && near(e.detectedAt, w.detectedAt) &&
      near(e.latency, w.latency) && e.carried === w.carried && near(e.linger, w.linger) &&
      e.lingerIntoNext === w.lingerIntoNext;
  });
  return eq &&
    (["working", "idle", "unlabeled"] as const).every((k) =>
      got.falseAlarms[k].count === want.falseAlarms[k].count &&
      near(got.falseAlarms[k].seconds, want.falseAlarms[k].seconds)
    );
}

const states = ["working", "idle", "blocked", "unknown"] as const;
/** A sampled detector's change points sit on its own sample grid; a write-judged one's anywhere on the cell grid. */
const timeline = fc.constantFrom(0, 0.5, 0.75, 1.5).chain((every) =>
  fc.tuple(
    fc.uniqueArray(fc.integer({ min: 0, max: every ? Math.floor(30 / every) : 240 }), { maxLength: 25 }),
    fc.array(fc.constantFrom(...states), { minLength: 25, maxLength: 25 }),
  ).map(([ks, ps]): Timeline => ({
    detector: "d",
    samples: ks.length,
    every,
    points: ks.sort((a, b) => a - b).map((k, i) => ({
      t: k * (every || CELL),
      verdict: { state: ps[i], needsYou: ps[i] === "blocked", rule: null, evidence: null },
    })),
  }))
);
const truthArb = fc.tuple(
  fc.uniqueArray(fc.integer({ min: 0, max: 240 }), { maxLength: 25 }),
  fc.array(fc.constantFrom("working", "idle", "blocked"), { minLength: 25, maxLength: 25 }),
).map(([ts, ss]): Truth =>
  truthFromMarkers(ts.sort((a, b) => a - b).map((t, i) => ({ t: t * CELL, label: `truth:${ss[i]}` }))) ??
    { source: "markers", segments: [] }
);

type Scorer = (tl: Timeline, truth: Truth, end: number, opts: ScoreOptions) => DetectorScore;
const agrees = (scorer: Scorer) =>
  fc.property(
    timeline,
    truthArb,
    fc.integer({ min: 1, max: 32 }),
    fc.constantFrom(0, 0, 0.25, 0.5),
    (tl, truth, end, tol) => {
      const got = scorer(tl, truth, end, { labelTolerance: tol });
      assert.ok(same(got, bruteForce(tl, truth, end, tol)), "scorer and brute force differ");
    },
  );

test("the linear scorer equals brute force on random timelines and truths", () => {
  fc.assert(agrees((tl, truth, end, opts) => score(tl, truth, end, undefined, opts)), { numRuns: 1500 });
});

test("the property catches the old definitions (linger cut at the next episode; a carried alarm scores 0)", () => {
  const cutLinger: Scorer = (tl, truth, end, opts) => {
    const s = score(tl, truth, end, undefined, opts);
    s.episodes.forEach((e, i) => {
      const next = s.episodes[i + 1]?.start ?? end;
      e.linger = Math.min(e.linger, Math.max(0, next - e.end));
    });
    return s;
  };
  const carriedZero: Scorer = (tl, truth, end, opts) => {
    const s = score(tl, truth, end, undefined, opts);
    for (const e of s.episodes) if (e.carried) [e.detectedAt, e.latency] = [e.start, 0];
    return s;
  };
  for (const mutant of [cutLinger, carriedZero]) {
    assert.throws(() => fc.assert(agrees(mutant), { numRuns: 1500, seed: 7, endOnFailure: true }), /Property failed/);
  }
});

test("the confusion matrix is the plain overlap of truth pieces and verdicts", () => {
  fc.assert(
    fc.property(timeline, truthArb, fc.integer({ min: 1, max: 32 }), (tl, truth, end) => {
      const want = emptyConfusion();
      for (let i = 0; i < end / CELL; i++) {
        const mid = i * CELL + CELL / 2;
        const v = verdictAt(tl, mid);
        if (!v) continue;
        const st = inForceAt(truth.segments, mid, (s) => s.start)?.state ?? "unlabeled";
        want[st][v.needsYou ? "blocked" : v.state as "working"] += CELL;
      }
      const got = score(tl, truth, end).confusion;
      for (const t of Object.keys(want) as TruthState[]) {
        for (const v of states) assert.ok(near(got[t][v], want[t][v]), `${t}×${v}: ${got[t][v]} vs ${want[t][v]}`);
      }
    }),
    { numRuns: 500 },
  );
});
