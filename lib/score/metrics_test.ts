// Every metric on hand-written timelines with known answers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { needsYouIntervals, percentile, score, summarize, truthIntervals } from "./metrics.ts";
import { parseTruthLabel, type Truth, truthFromLabelsFile, truthFromMarkers, truthFromTimeline } from "./truth.ts";
import type { Timeline } from "../detect/timeline.ts";
import { FixtureError } from "../errors.ts";

/** [t, needsYou] change points → a timeline. */
function tl(points: [number, boolean, string?][], name = "d"): Timeline {
  return {
    detector: name,
    samples: points.length,
    points: points.map(([t, ny, st]) => ({
      t,
      verdict: { state: (st ?? (ny ? "blocked" : "working")) as "blocked", needsYou: ny, rule: null, evidence: null },
    })),
  };
}
function truth(segs: [number, string, string?][]): Truth {
  return truthFromMarkers(segs.map(([t, s, k]) => ({ t, label: `truth:${s}${k ? ":" + k : ""}` })))!;
}
const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

// Truth: working 0–10, blocked 10–15, working 15–20, idle 20–30, blocked 30–35, working 35–40.
const T = truth([[0, "working"], [10, "blocked", "permission"], [15, "working"], [20, "idle"], [30, "blocked"], [
  35,
  "working",
]]);

describe("episodes", () => {
  test("truth blocked intervals; consecutive blocked labels are one episode", () => {
    assert.deepEqual(truthIntervals(T, 40, "blocked").map((i) => [i.start, i.end, i.kind]), [[10, 15, "permission"], [
      30,
      35,
      null,
    ]]);
    const t2 = truth([[0, "working"], [5, "blocked"], [6, "blocked", "question"], [9, "idle"]]);
    assert.deepEqual(truthIntervals(t2, 12, "blocked").map((i) => [i.start, i.end]), [[5, 9]]);
  });
  test("needs-you runs", () => {
    assert.deepEqual(needsYouIntervals(tl([[0, false], [10.25, true], [15, false], [31, true]]), 40), [{
      start: 10.25,
      end: 15,
    }, { start: 31, end: 40 }]);
  });
});

describe("latency, missed, linger", () => {
  test("exact latencies", () => {
    const s = score(tl([[0, false], [10.03, true], [15, false], [30.06, true], [35, false]]), T, 40);
    close(s.episodes[0].latency, 0.03);
    close(s.episodes[1].latency, 0.06);
    assert.deepEqual(s.episodes.map((e) => e.linger), [0, 0]);
  });
  test("a missed episode", () => {
    const s = score(tl([[0, false], [10.5, true], [15, false]]), T, 40);
    assert.equal(s.episodes[1].detectedAt, null);
    const sum = summarize("d", [s]);
    assert.deepEqual([sum.episodes, sum.detected, sum.missed], [2, 1, 1]);
  });
  test("an alarm carried into an episode is seen at the first sample at or after its start", () => {
    // Sampled every 0.7 s: the episode starts at 10, the first sample after is 10.5.
    const sampled = { ...tl([[0, false], [7.7, true], [15.4, false]]), every: 0.7 };
    const s = score(sampled, T, 40);
    close(s.episodes[0].latency, 0.5);
    assert.equal(s.episodes[0].carried, true);
    // Judged at every event: the start itself.
    const s2 = score(tl([[0, false], [8, true], [15, false]]), T, 40);
    close(s2.episodes[0].latency, 0);
    assert.equal(s2.episodes[0].carried, true);
    assert.equal(s2.falseAlarms.working.count, 1);
    close(s2.falseAlarms.working.seconds, 2);
    const sum = summarize("d", [s2]);
    assert.equal(sum.carried, 1);
    assert.deepEqual(sum.freshLatency, { median: null, max: null });
  });
  test("a carried run that ends before the first sample: the next run detects, not carried", () => {
    const sampled = { ...tl([[0, false], [9, true], [10.5, false], [12, true], [15, false]]), every: 1.5 };
    const s = score(sampled, T, 40);
    close(s.episodes[0].detectedAt, 12);
    assert.equal(s.episodes[0].carried, false);
  });
  test("a lingering detector: linger after the episode is not a false alarm", () => {
    const s = score(tl([[0, false], [10.1, true], [22, false]]), T, 40);
    close(s.episodes[0].linger, 7);
    assert.equal(s.episodes[0].lingerIntoNext, false);
    assert.equal(s.falseAlarms.working.count, 0);
    assert.equal(s.falseAlarms.idle.count, 0);
    close(s.falseAlarms.working.seconds, 0);
    close(s.falseAlarms.idle.seconds, 0);
  });
  test("linger is never cut at the next episode; the next one is then carried", () => {
    const s = score(tl([[0, false], [10.1, true]]), T, 40);
    close(s.episodes[0].linger, 25); // 15 → 40, through the next episode
    assert.equal(s.episodes[0].lingerIntoNext, true);
    close(s.episodes[1].latency, 0);
    assert.equal(s.episodes[1].carried, true);
    close(s.episodes[1].linger, 5); // 35 → 40 (the end)
    assert.equal(s.episodes[1].lingerIntoNext, false);
    const sum = summarize("d", [s]);
    assert.equal(sum.linger.intoNext, 1);
    close(sum.linger.mean, 15);
    // Begun inside an episode: linger, never a false alarm, whatever it crosses.
    assert.deepEqual([s.falseAlarms.working, s.falseAlarms.idle], [{ count: 0, seconds: 0 }, { count: 0, seconds: 0 }]);
  });
});

describe("label tolerance", () => {
  // A hand label typed 0.3 s after the prompt was drawn.
  const late = truth([[0, "working"], [10.3, "blocked"], [15, "working"]]);
  const on = tl([[0, false], [10, true], [15, false]]);
  test("without it: a false alarm of 0.3 s and a carried episode", () => {
    const s = score(on, late, 20);
    assert.equal(s.falseAlarms.working.count, 1);
    close(s.falseAlarms.working.seconds, 0.3);
    assert.equal(s.episodes[0].carried, true);
  });
  test("with it: detected at the label, latency 0, no false alarm", () => {
    const s = score(on, late, 20, undefined, { labelTolerance: 0.5 });
    close(s.episodes[0].latency, 0);
    assert.equal(s.episodes[0].carried, false);
    assert.deepEqual(s.falseAlarms.working, { count: 0, seconds: 0 });
  });
  test("a lead longer than the tolerance stays a false alarm (the limit and one past it)", () => {
    const at = score(on, late, 20, undefined, { labelTolerance: 0.3 });
    assert.equal(at.falseAlarms.working.count, 0);
    const past = score(on, late, 20, undefined, { labelTolerance: 0.299 });
    assert.equal(past.falseAlarms.working.count, 1);
    assert.equal(past.episodes[0].carried, true);
  });
});

describe("false alarms, split by the truth state at their start", () => {
  test("counts and seconds in working and idle", () => {
    const s = score(
      tl([[0, false], [2, true], [3, false], [5, true], [6.5, false], [21, true], [25, false], [28, true], [
        29,
        false,
      ]]),
      T,
      40,
    );
    assert.equal(s.falseAlarms.working.count, 2);
    close(s.falseAlarms.working.seconds, 2.5);
    assert.equal(s.falseAlarms.idle.count, 2);
    close(s.falseAlarms.idle.seconds, 5);
    assert.deepEqual(s.episodes.map((e) => e.detectedAt), [null, null]);
  });
  test("a run begun at idle that lasts through working: counted in idle, seconds split", () => {
    const s = score(
      tl([[0, false], [25, true], [30, false]]),
      truth([[0, "working"], [20, "idle"], [27, "working"], [40, "blocked"]]),
      45,
    );
    assert.equal(s.falseAlarms.idle.count, 1);
    assert.equal(s.falseAlarms.working.count, 0);
    close(s.falseAlarms.idle.seconds, 2);
    close(s.falseAlarms.working.seconds, 3);
  });
  test("a false run is counted whole, also across a later episode's linger (not hidden by it)", () => {
    // Runs from idle at 22 to 38: its blocked part (30–35) is a detection, the rest false;
    // 35–38 is also episode 2's linger.
    const s = score(tl([[0, false], [22, true], [38, false]]), T, 40);
    assert.equal(s.falseAlarms.idle.count, 1);
    close(s.falseAlarms.idle.seconds, 8);
    close(s.falseAlarms.working.seconds, 3);
    close(s.episodes[1].linger, 3);
    assert.equal(s.episodes[1].carried, true);
  });
  test("before the first label: unlabeled, not working or idle", () => {
    const s = score(tl([[0, true], [1, false]]), truth([[2, "working"]]), 5);
    assert.equal(s.falseAlarms.unlabeled.count, 1);
    assert.equal(s.falseAlarms.working.count + s.falseAlarms.idle.count, 0);
  });
});

describe("confusion and summaries", () => {
  test("time confusion matrix", () => {
    const s = score(tl([[0, false, "working"], [10, true], [15, false, "idle"]]), T, 20);
    close(s.confusion.working.working, 10);
    close(s.confusion.blocked.blocked, 5);
    close(s.confusion.working.idle, 5);
  });
  test("pooled summary: median, nearest-rank p95, max, mean linger", () => {
    const mk = (lat: number) =>
      score(
        tl([[0, false], [10 + lat, true], [15, false]]),
        truth([[0, "working"], [10, "blocked"], [15, "working"]]),
        20,
      );
    const sum = summarize("d", [mk(0.1), mk(0.3), mk(0.2), mk(0.9)]);
    close(sum.latency.median, 0.25);
    close(sum.latency.p95, 0.9);
    close(sum.latency.max, 0.9);
    assert.equal(sum.linger.mean, 0);
    assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 95), 19);
    const none = summarize("d", [score(tl([[0, false]]), T, 40)]);
    assert.deepEqual(none.latency, { median: null, p95: null, max: null, mean: null });
  });
});

describe("truth sources", () => {
  test("markers: done/error read as idle; other markers ignored", () => {
    const t = truthFromMarkers([{ t: 0, label: "note" }, { t: 1, label: "truth:working" }, {
      t: 2,
      label: "truth:done",
    }, { t: 3, label: "truth:error" }])!;
    assert.deepEqual(t.segments.map((s) => [s.start, s.state]), [[1, "working"], [2, "idle"]]);
    assert.equal(truthFromMarkers([{ t: 0, label: "x" }]), null);
    assert.deepEqual(parseTruthLabel("truth:blocked:auth"), { state: "blocked", kind: "auth" });
    assert.equal(parseTruthLabel("truth:sleeping"), null);
  });
  test("labels file: TSV with file:line errors", () => {
    const t = truthFromLabelsFile("# comment\n0\tworking\n12.5\tblocked\tpermission\n20\tidle\n", "l.tsv");
    assert.deepEqual(t.segments.map((s) => [s.start, s.state, s.kind]), [[0, "working", null], [
      12.5,
      "blocked",
      "permission",
    ], [20, "idle", null]]);
    assert.throws(
      () => truthFromLabelsFile("0\tworking\n1 blocked\n", "l.tsv"),
      (e: unknown) => e instanceof FixtureError && e.line === 2,
    );
    assert.throws(() => truthFromLabelsFile("0\tsleeping\n", "l.tsv"), /unknown state "sleeping"/);
    // Out of order (a hand edit, a seek back while labelling): read sorted, with a warning.
    const sorted = truthFromLabelsFile("5\tworking\n1\tidle\n", "l.tsv");
    assert.deepEqual(sorted.segments.map((s) => [s.start, s.state]), [[1, "idle"], [5, "working"]]);
    assert.deepEqual(sorted.warnings, ["l.tsv:2: labels out of order (1 s after 5 s): read sorted by time"]);
  });
  test("a detector as truth: needs-you is blocked", () => {
    const t = truthFromTimeline(tl([[0, false, "working"], [5, true], [6, false, "idle"]], "protocol"));
    assert.equal(t.source, "detector:protocol");
    assert.deepEqual(t.segments.map((s) => [s.start, s.state]), [[0, "working"], [5, "blocked"], [6, "idle"]]);
  });
});
