// The comparison with a baseline, without the CLI: the tolerance at the limit and one
// past it, counts at any change, and the refusals (a shard, other definitions, other
// detectors, a --fail-on-worse name that is not a detector).
import { test } from "node:test";
import assert from "node:assert/strict";
import { type BaselineDoc, compare, fmtChange, parseBaseline } from "./baseline.ts";
import type { Summary } from "../score/metrics.ts";
import { emptyConfusion } from "../score/metrics.ts";

const fa = (n: number) => ({
  working: { count: n, seconds: n },
  idle: { count: 0, seconds: 0 },
  unlabeled: { count: 0, seconds: 0 },
});
function summary(detector: string, median: number, carried = 0, falseCount = 0): Summary {
  return {
    detector,
    episodes: 4,
    detected: 4,
    missed: 0,
    latency: { median, p95: median, max: median, mean: median },
    carried,
    freshLatency: { median, max: median },
    linger: { mean: 1, total: 4, max: 1, intoNext: 0 },
    falseAlarms: fa(falseCount),
    confusion: emptyConfusion(),
  };
}
const old: BaselineDoc = {
  file: "old.json",
  inputs: [],
  detectors: [{
    name: "screen:claude@50ms",
    latency_s: { median: 0.1, max: 0.1 },
    missed: 0,
    carried: 0,
    linger_s: 1,
    false_alarms: fa(2),
  }],
};

test("a duration is worse only past the tolerance; a count at any increase", () => {
  const at = compare([summary("screen:claude@50ms", 0.15, 0, 2)], old, 0.05, ["all"]);
  assert.deepEqual(at.detectors[0].changes.map((c) => c.verdict), ["same", "same", "same", "same", "same", "same"]);
  assert.deepEqual(at.failures, []);
  const past = compare([summary("screen:claude@50ms", 0.1501, 1, 1)], old, 0.05, ["screen:claude@50ms"]);
  const v = Object.fromEntries(past.detectors[0].changes.map((c) => [c.measure, c.verdict]));
  assert.deepEqual(v, {
    "median latency": "worse",
    "max latency": "worse",
    missed: "same",
    carried: "worse",
    linger: "same",
    "false alarms": "better",
  });
  assert.deepEqual(past.failures, [{
    detector: "screen:claude@50ms",
    worse: ["median latency", "max latency", "carried"],
  }]);
  assert.equal(fmtChange(past.detectors[0].changes[0]), "+0.05 s worse");
  assert.equal(fmtChange(past.detectors[0].changes[5]), "−1 better");
});

test("refusals: other detectors, an unknown --fail-on-worse name, a shard, other definitions, a bad shape", () => {
  assert.throws(
    () => compare([summary("question", 0.1)], old, 0.05, []),
    /old\.json was made with other detectors \(not in it: question; only in it: screen:claude@50ms\)/,
  );
  assert.throws(
    () => compare([summary("screen:claude@50ms", 0.1)], old, 0.05, ["questoin"]),
    /--fail-on-worse questoin is not a detector/,
  );
  assert.throws(() => parseBaseline('{"pstlab_shard":2}', "s.json"), /s\.json is a shard file/);
  assert.throws(() => parseBaseline('{"schema":1}', "v1.json"), /other scoring definitions \(report schema 1/);
  assert.throws(
    () => parseBaseline('{"schema":2,"detectors":"x"}', "bad.json"),
    /^bad\.json: not a valid pstlab report/,
  );
});
