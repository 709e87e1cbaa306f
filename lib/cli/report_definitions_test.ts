// The scoring definitions (docs/scoring.md) end to end on a hand-made capture with exact
// answers: a stale tail alarm carried across two prompts, a `?` line left at idle that
// lasts through the next turn and prompt; then label tolerance, the truth statement in
// every format, and --baseline comparisons.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { castText, cli, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-defs-");
const SPIN = "\x1b[1;1H\x1b[2K✢ Working… (esc to interrupt)";
const PROMPT = "\x1b[3;1HDo you want to proceed?\x1b[4;1H❯ 1. Yes";
const ERASE = "\x1b[3;1H\x1b[J";
/** Absolute times → asciicast v3 intervals. */
function cast(events: [number, string, string][]): string {
  let last = 0;
  return castText(
    events.map(([t, c, d]) => {
      const dt = Math.round((t - last) * 1e6) / 1e6;
      last = t;
      return [dt, c, d];
    }),
    { term: { cols: 80, rows: 24 } },
  );
}
// working 0–2, blocked 2–4, working 4–6.01, blocked 6.01–7, working 7–9, idle 9–12 (the
// reply ends in a question, on row 2), working 12–14.02, blocked 14.02–15, working
// 15–16.5, idle 16.5–20; the question row is erased at 17. The prompt's words stay in
// the byte tail to the end.
const EVENTS: [number, string, string][] = [
  [0, "m", "truth:working"],
  [0, "o", SPIN],
  [2, "m", "truth:blocked:permission"],
  [2, "o", PROMPT],
  [4, "m", "truth:working"],
  [4, "o", ERASE + SPIN],
  [6.01, "m", "truth:blocked:permission"],
  [6.01, "o", PROMPT],
  [7, "m", "truth:working"],
  [7, "o", ERASE + SPIN],
  [9, "m", "truth:idle"],
  [9, "o", "\x1b[1;1H\x1b[2K\x1b[2;1HWould you like me to add a test?"],
  [12, "m", "truth:working"],
  [12, "o", SPIN],
  [14.02, "m", "truth:blocked:permission"],
  [14.02, "o", PROMPT],
  [15, "m", "truth:working"],
  [15, "o", ERASE + SPIN],
  [16.5, "m", "truth:idle"],
  [17, "o", "\x1b[2;1H\x1b[2K"],
  [20, "m", "end"],
];
const capture = writeTmp(dir, "defs.cast", cast(EVENTS));
const DET = "tail8k:claude,question";

function report(args: string[], file = capture) {
  const r = cli(["report", file, "--detectors", DET, "--format", "json", ...args]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  return { j, d: Object.fromEntries(j.detectors.map((x: { name: string }) => [x.name, x])) };
}

describe("the definitions on a hand-made capture", () => {
  const { d } = report([]);
  test("a stale tail alarm: carried into the next two prompts, latency to the first sample, linger uncut", () => {
    const t = d["tail8k:claude"];
    const eps = t.episode_list.map((e: Record<string, unknown>) => [
      e.start_s,
      e.latency_s,
      e.carried,
      e.linger_s,
      e.linger_into_next,
    ]);
    assert.deepEqual(eps, [
      [2, 0, false, 16, true], // the alarm runs from 2 s to the end (20 s)
      [6.01, 0.04, true, 13, true], // seen at the 6.05 s sample
      [14.02, 0.03, true, 5, false], // seen at 14.05 s
    ]);
    assert.equal(t.carried, 2);
    assert.deepEqual(t.latency_s, { median: 0.03, p95: 0.04, max: 0.04, mean: 0.023333 });
    assert.deepEqual(t.latency_not_carried_s, { median: 0, max: 0 });
    assert.equal(t.linger_s, 11.333333);
    assert.equal(t.linger_into_next, 2);
    // Begun inside an episode: linger, never a false alarm.
    assert.deepEqual(t.false_alarms.working, { count: 0, seconds: 0 });
    assert.deepEqual(t.false_alarms.idle, { count: 0, seconds: 0 });
  });
  test("a `?` line left at idle: one false alarm where it began, its seconds split by the truth at each instant", () => {
    const q = d.question;
    assert.deepEqual(q.episode_list.map((e: { latency_s: number }) => e.latency_s), [0, 0.04, 0.03]);
    assert.deepEqual(q.episode_list.map((e: { carried: boolean }) => e.carried), [false, false, true]);
    assert.deepEqual(q.episode_list.map((e: { linger_s: number }) => e.linger_s), [0, 0, 2]); // 15 → 17, across the turn
    assert.equal(q.carried, 1);
    // Begun at idle (9 s), erased at 17 s: idle 9–12 and 16.5–17, working 12–14.02 and 15–16.5.
    assert.deepEqual(q.false_alarms.idle, { count: 1, seconds: 3.5 });
    assert.deepEqual(q.false_alarms.working, { count: 0, seconds: 3.52 });
  });
  test("the text table: Carried column, one decimal under 10 s, lingers into the next episode", () => {
    const r = cli(["report", capture, "--detectors", DET]);
    assert.match(r.stdout, /^tail8k:claude +0\.03 s +0\.04 s +0 \/ 3 +2 +11\.3 s +0 +0$/m);
    assert.match(r.stdout, /^question +0\.03 s +0\.04 s +0 \/ 3 +1 +0\.7 s +0 \/ 3\.5 s +1 \/ 3\.5 s$/m);
    assert.match(r.stdout, /lingers still going when the next episode began: tail8k:claude 2 of 3/);
    assert.match(r.stdout, /^linger: from the episode's end to the end of the alarm then in force, never cut/m);
  });
});

describe("--label-tolerance", () => {
  // Labels typed by hand 0.3 s after each prompt appeared (and after it went).
  const labels = writeTmp(
    dir,
    "late.tsv",
    "0\tworking\n2.3\tblocked\n4.3\tworking\n6.31\tblocked\n7.3\tworking\n9\tidle\n",
  );
  const bare = writeTmp(dir, "bare.cast", cast(EVENTS.filter(([, c]) => c !== "m")));
  test("off: the prompt rule leads the label, a carried alarm and a false alarm", () => {
    const r = cli(["report", bare, "--labels", labels, "--detectors", "question"]);
    assert.equal(r.code, 0, r.stderr);
    // Carried into both labels (seen at 2.30 and 6.35 s), and two false alarms of 0.3 and 0.26 s.
    assert.match(r.stdout, /^question +0\.02 s +0\.04 s +0 \/ 2 +2 +0 s +2 \/ 0\.6 s +1 \/ 8\.0 s$/m);
  });
  test("500ms: detected at the label, latency 0, no false alarm, and the report says so", () => {
    const r = cli(["report", bare, "--labels", labels, "--detectors", "question", "--label-tolerance", "500ms"]);
    assert.match(r.stdout, /^question +0\.00 s +0\.00 s +0 \/ 2 +0 +0 s +0 +1 \/ 8\.0 s$/m);
    assert.match(r.stdout, /label tolerance 0\.5 s: an alarm that leads a label by at most this counts as on time/);
    const { j } = report(["--labels", labels, "--label-tolerance", "500ms"], bare);
    assert.equal(j.label_tolerance_s, 0.5);
  });
  test("a tolerance past the limit is refused", () => {
    const r = cli(["report", bare, "--labels", labels, "--label-tolerance", "61s"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--label-tolerance 61 s is more than 60 s/);
  });
});

describe("the truth is stated in every format", () => {
  const bare = writeTmp(
    dir,
    "emitter.cast",
    cast([
      [0, "o", "\x1b]7501;state=working\x1b\\"],
      [
        1,
        "o",
        "\x1b]7501;state=blocked:kind=permission\x1b\\" + PROMPT,
      ],
      [2, "o", "\x1b]7501;state=working\x1b\\" + ERASE],
      [3, "m", "end"],
    ]),
  );
  const args = [bare, "--detectors", "protocol,screen:claude@50ms"];
  const said = /the program's own OSC 7501 reports — the protocol row cannot be judged here/;
  for (const format of ["table", "markdown", "html", "json", "junit"]) {
    test(format, () => {
      const r = cli(["report", ...args, "--format", format]);
      assert.equal(r.code, 0, r.stderr);
      if (format === "json") {
        assert.equal(JSON.parse(r.stdout).truth.source, "detector:protocol");
        assert.match(JSON.parse(r.stdout).truth.note, said);
      } else if (format === "junit") assert.match(r.stdout, /<property name="truth" value="truth: the program's own/);
      else if (format === "html") assert.match(r.stdout, /<p class="truth">truth: the program&#39;s own OSC 7501/);
      else assert.match(r.stdout, said);
    });
  }
});

describe("--baseline", () => {
  const old = `${dir}/old.json`;
  test("a known difference is marked better / worse in every format; --fail-on-worse exits 1", () => {
    // The baseline: the same capture with the question line erased at 10 s instead of 17 s.
    const earlier = writeTmp(
      dir,
      "earlier.cast",
      cast(
        EVENTS.map(([t, c, x]): [number, string, string] => (c === "o" && t === 17 ? [10, c, x] : [t, c, x]))
          .sort((a, b) => a[0] - b[0]),
      ),
    );
    assert.equal(cli(["report", earlier, "--detectors", DET, "-o", old]).code, 0);
    const text = cli(["report", capture, "--detectors", DET, "--baseline", old]);
    assert.equal(text.code, 0, text.stderr);
    // Erased at 10 s the `?` line was gone before the third prompt: it was not carried, did not linger.
    assert.match(text.stdout, /^question += += += +\+1 worse +\+0\.67 s worse +=$/m);
    assert.match(text.stdout, /^tail8k:claude += += += += += +=$/m);
    const md = cli(["report", capture, "--detectors", DET, "--baseline", old, "--format", "markdown"]).stdout;
    assert.match(md, /\| `question` \| = \| = \| = \| \+1 worse \| \+0\.67 s worse \| = \|/);
    const { j } = report(["--baseline", old]);
    const q = j.baseline.detectors.find((x: { name: string }) => x.name === "question");
    assert.deepEqual(q.changes.find((c: { measure: string }) => c.measure === "carried"), {
      measure: "carried",
      old: 0,
      new: 1,
      delta: 1,
      verdict: "worse",
    });
    const gate = cli(["report", capture, "--detectors", DET, "--baseline", old, "--fail-on-worse", "question"]);
    assert.equal(gate.code, 1);
    assert.match(gate.stderr, /question: worse than .*old\.json: carried, linger/);
    const junit = cli([
      "report",
      capture,
      "--detectors",
      DET,
      "--baseline",
      old,
      "--fail-on-worse",
      "all",
      "--format",
      "junit",
    ]);
    assert.match(junit.stdout, /<failure message="worse than [^"]*old\.json: carried, linger"\/>/);
    assert.equal(
      cli(["report", capture, "--detectors", DET, "--baseline", old, "--fail-on-worse", "tail8k:claude"]).code,
      0,
    );
  });
  test("a baseline made from other files is said (paths and sha256); FAIL only with --fail-on-worse", () => {
    // old.json was made from earlier.cast: comparing defs.cast with it compares other captures.
    for (const format of ["table", "markdown", "junit"]) {
      const r = cli(["report", capture, "--detectors", DET, "--baseline", old, "--format", format]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        /warning: --baseline .*old\.json was made from other files.*only here: .*defs\.cast \(sha256 [0-9a-f]{12}\); only in the baseline: .*earlier\.cast \(sha256 [0-9a-f]{12}\)/,
      );
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.doesNotMatch(r.stdout, /FAIL|<failure/, format);
    }
    const j = JSON.parse(cli(["report", capture, "--detectors", DET, "--baseline", old, "--format", "json"]).stdout);
    assert.match(j.baseline.other_files, /only here: .*defs\.cast/);
    // The same file: no warning.
    const same = `${dir}/same.json`;
    assert.equal(cli(["report", capture, "--detectors", DET, "-o", same]).code, 0);
    const r = cli(["report", capture, "--detectors", DET, "--baseline", same]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr + r.stdout, /other files/);
  });
  test("--gate and --fail-on-worse NAME with auto name the detector auto resolved to; unknown names fail first", () => {
    const det = "screen:auto@50ms,question";
    const base = `${dir}/auto.json`;
    const second = writeTmp(dir, "defs2.cast", cast(EVENTS));
    assert.equal(cli(["report", capture, second, "--detectors", det, "-o", base]).code, 0);
    const run = (extra: string[]) => cli(["report", capture, second, "--detectors", det, "--baseline", base, ...extra]);
    for (const flag of [["--fail-on-worse"], ["--max-missed", "99", "--gate"]]) {
      const ok = run([...flag, "screen:auto@50ms"]);
      assert.equal(ok.code, 0, `${flag.join(" ")}: ${ok.stderr}`);
      // A name no detector of the run has is refused before the files are analysed.
      const bad = run([...flag, "screen:auto@700ms"]);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /screen:auto@700ms is not a detector of this run/);
      assert.doesNotMatch(bad.stderr, /analys/);
    }
    // The gate applies to the row auto resolved to (generic misses these claude prompts).
    const g = run(["--gate", "screen:auto@50ms", "--max-missed", "0"]);
    assert.equal(g.code, 1, g.stderr + g.stdout);
    assert.match(g.stderr, /screen:generic@50ms: missed 6 > 0/);
  });
  test("a baseline of other detectors or other definitions is refused in one line", () => {
    const other = cli(["report", capture, "--detectors", "question", "--baseline", old]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /old\.json was made with other detectors \(only in it: tail8k:claude\)/);
    const v1 = writeTmp(dir, "v1.json", JSON.stringify({ ...JSON.parse(fs.readFileSync(old, "utf8")), schema: 1 }));
    const r = cli(["report", capture, "--detectors", DET, "--baseline", v1]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /v1\.json was made with other scoring definitions \(report schema 1; this pstlab writes 2\)/,
    );
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
