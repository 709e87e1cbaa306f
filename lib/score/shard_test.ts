// Shards without the CLI: a merge pools exactly what one run gives; every shard file is
// checked against its schema first (wrong types, absurd counts, non-finite numbers, bad
// hashes: one line naming the file); a shard's paths never reach outside its folder.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { analyzeFile } from "../../replay/analyze.ts";
import { buildReport } from "../report/model.ts";
import { renderJson } from "../report/data.ts";
import {
  makeShard,
  MAX_SHARD_FILES,
  mergeShards,
  parseShard,
  parseShardSpec,
  recordingBeside,
  type Shard,
  shardSlice,
} from "./shard.ts";
import type { FileResult } from "./result.ts";
import { ROOT } from "../testkit.ts";
import { UserError } from "../errors.ts";

const CAPTURES = ["sim-stale", "sim-correct", "sim-late"].map((n) => path.join(ROOT, "fixtures/captures", `${n}.cast`));
const DETECTORS = ["protocol", "question", "tail8k:claude", "screen:claude@700ms"];
const results: FileResult[] = [];
for (const p of CAPTURES) results.push(await analyzeFile(p, { detectors: DETECTORS, truth: "auto", open: {} }));

/** The shard files a --shard K/N run over CAPTURES would write, as text. */
function shardTexts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const mine = shardSlice(results, i + 1, n);
    return JSON.stringify(makeShard(
      `${i + 1}/${n}`,
      results.length,
      DETECTORS,
      "auto",
      0,
      mine.map((m) => ({
        index: m.index,
        result: m.item,
      })),
    ));
  });
}
const merge = (texts: string[]) =>
  mergeShards(texts.map((t, i) => ({ file: `s${i}.json`, shard: parseShard(t, `s${i}.json`) })));

describe("merge", () => {
  test("pools exactly: the merged report is the one-run report, for every split", () => {
    const whole = renderJson(buildReport(results, null, []));
    for (const n of [1, 2, 3]) assert.equal(renderJson(buildReport(merge(shardTexts(n)).files, null, [])), whole);
  });
  test("a missing or doubled shard, or one of another run, is refused", () => {
    const [a, b] = shardTexts(2);
    assert.throws(() => merge([a]), /1 of 3 files missing \(file 2\): a shard is missing/);
    assert.throws(() => merge([a, a, b]), /is in two shards/);
    const other = JSON.stringify({
      ...JSON.parse(b),
      detectors: ["protocol", "question", "tail8k:claude", "hash@500ms"],
    });
    assert.throws(
      () => merge([a, other]),
      /s1\.json comes from a different run \(its detectors differ from s0\.json\)/,
    );
    const tol = JSON.stringify({ ...JSON.parse(b), label_tolerance_s: 0.5 });
    assert.throws(() => merge([a, tol]), /its label tolerance differ/);
  });
  test("K/N: bounds, and the slice is every N-th from the K-th", () => {
    assert.deepEqual(shardSlice(["a", "b", "c", "d", "e"], 2, 2).map((x) => x.index), [1, 3]);
    assert.throws(() => parseShardSpec("0/2"), /bad --shard "0\/2"/);
    assert.throws(() => parseShardSpec("3/2"), /bad --shard/);
    assert.deepEqual(parseShardSpec("100000/100000"), { k: 100000, n: 100000 });
    assert.throws(() => parseShardSpec("1/100001"), /bad --shard/);
  });
});

describe("every shard is checked against its schema before use", () => {
  const good = JSON.parse(shardTexts(1)[0]) as Shard;
  const edit = (f: (d: any) => void): string => {
    const d = structuredClone(good) as any;
    f(d);
    return JSON.stringify(d);
  };
  const cases: [string, string, RegExp][] = [
    ["detectors as a string", edit((d) => (d.detectors = "protocol")), /detectors must be array/],
    ["a null file", edit((d) => (d.files = [null])), /files\.0 must be object/],
    ["an absurd total", edit((d) => (d.total = 1e12)), /total must be <= 1000000/],
    ["a total as text", edit((d) => (d.total = "3")), /total must be integer/],
    ["an index past the limit", edit((d) => (d.files[0].index = 5e9)), /files\.0\.index must be <= 999999/],
    ["a bad hash", edit((d) => (d.files[0].result.sha256 = "../../etc/passwd")), /sha256 must match pattern/],
    ["a negative size", edit((d) => (d.files[0].result.cols = -1)), /cols must be >= 1/],
    ["a wrong state", edit((d) => (d.files[0].result.truthSegments[0].state = "<b>")), /state must be equal to one/],
    ["scores not a list", edit((d) => (d.files[0].result.scores = { 0: 1 })), /scores must be array/],
    ["a latency as text", edit((d) => (d.files[0].result.scores[0].episodes[0].latency = "0")), /latency must be/],
    // JSON cannot say NaN, but 1e999 parses to Infinity.
    [
      "an infinite duration",
      JSON.stringify(good).replace(/"duration":[0-9.e+-]+/, '"duration":1e999'),
      /duration must be number/,
    ],
    ["not JSON", "{", /not a shard file \(not JSON/],
    ["another format", edit((d) => (d.pstlab_shard = 1)), /a shard of format 1, made with other scoring definitions/],
  ];
  for (const [what, text, want] of cases) {
    test(what, () => {
      assert.throws(() => parseShard(text, "bad.json"), (e: unknown) => {
        assert.ok(e instanceof UserError, String(e));
        const line = (e as UserError).oneLine();
        assert.match(line, /^bad\.json: /);
        assert.match(line, want);
        assert.ok(!line.includes("\n"), "one line");
        return true;
      });
    });
  }
  test("the file-count limit: at it the shard is read, one past it refused before any array is made", () => {
    const at = parseShard(edit((d) => (d.total = MAX_SHARD_FILES)), "at.json");
    assert.throws(() => mergeShards([{ file: "at.json", shard: at }]), /999997 of 1000000 files missing/);
    assert.throws(() => parseShard(edit((d) => (d.total = MAX_SHARD_FILES + 1)), "past.json"), /total must be <=/);
    assert.throws(() => parseShard(edit((d) => (d.files[0].index = MAX_SHARD_FILES)), "past.json"), /index must be <=/);
  });
  test("an index inside the limit but past the run's files, or a file with too few scores", () => {
    const past = parseShard(edit((d) => (d.files[0].index = 3)), "x.json");
    assert.throws(
      () => mergeShards([{ file: "x.json", shard: past }]),
      /x\.json: file index 3 is past the run's 3 files/,
    );
    const few = parseShard(edit((d) => d.files[0].result.scores.pop()), "y.json");
    assert.throws(() => mergeShards([{ file: "y.json", shard: few }]), /y\.json: file 1 has 3 scores for 4 detectors/);
  });
});

describe("a shard's recording is looked for only beside the shard file", () => {
  test("relative paths resolve against the shard's folder; absolute, .. and stdin are refused", () => {
    assert.equal(recordingBeside("ci/out/part1.json", "caps/a.cast"), path.join("ci/out", "caps/a.cast"));
    assert.equal(recordingBeside("part1.json", "a.cast"), "a.cast");
    for (
      const bad of ["/home/me/.ssh/id_ed25519", "../secret.cast", "caps/../../x", "-", "", "C:\\x.cast", "\\\\host\\x"]
    ) {
      assert.equal(recordingBeside("ci/part1.json", bad), null, bad);
    }
  });
});
