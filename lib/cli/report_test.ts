// `pstlab report` end to end: known answers on a hand-built capture, every format,
// determinism (byte-identical runs, whatever --jobs), truth sources and CI gates.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { castText, cli, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-report-");
const HEAD = '{"version":3,"term":{"cols":80,"rows":24}}';
// working 0–2 s (spinner), blocked 2–5 s (a prompt, reported by OSC 7501 too), working
// 5–7 s, idle from 7 s; the prompt is placed with CSI n G and erased at 5 s.
function capture(shift = 0): string {
  const ev: unknown[][] = [[0, "m", "truth:working"], [0, "o", "\u001b]7501;state=working\u001b\\"]];
  let last = 0;
  const at = (t: number, code: string, data: string) => {
    ev.push([Math.round((t + shift - last) * 1000) / 1000, code, data]);
    last = t + shift;
  };
  last = 0;
  for (let k = 1; k < 20; k++) at(k * 0.1, "o", `\r\u001b[2K✢ Working… (${k}s · esc to interrupt)`);
  at(2, "m", "truth:blocked:permission");
  at(
    2,
    "o",
    "\u001b]7501;state=blocked:kind=permission\u001b\\\r\n\u001b[2GDo\u001b[5Gyou\u001b[9Gwant\u001b[14Gto\u001b[17Gproceed?\r\n❯ 1. Yes\r\n",
  );
  at(5, "m", "truth:working");
  at(5, "o", "\u001b]7501;state=working\u001b\\\u001b[3A\u001b[J");
  for (let k = 51; k < 70; k++) at(k * 0.1, "o", `\r\u001b[2K✢ Working… (${k}s · esc to interrupt)`);
  at(7, "m", "truth:idle");
  at(7, "o", "\u001b]7501;state=idle\u001b\\\r\u001b[2K? for shortcuts");
  at(12, "x", "0");
  return [HEAD, ...ev.map((e) => JSON.stringify(e))].join("\n") + "\n";
}
const cap = writeTmp(dir, "known.cast", capture());
const cap2 = writeTmp(dir, "known2.cast", capture(0.02));
const DET = "protocol,screen:claude@50ms,screen:claude@700ms,quiet>=1s,question";
const json = (args: string[]) => {
  const r = cli(["report", ...args, "--format", "json"]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

describe("report: known answers", () => {
  test("latency, missed, linger, false alarms per detector", () => {
    const j = json([cap, "--detectors", DET]);
    assert.equal(j.schema, 2);
    assert.equal(j.truth.source, "markers");
    assert.deepEqual(
      j.inputs.map((i: { blocked_episodes: number; duration_s: number }) => [i.blocked_episodes, i.duration_s]),
      [[1, 12]],
    );
    const d = Object.fromEntries(j.detectors.map((x: { name: string }) => [x.name, x]));
    assert.deepEqual(Object.keys(d), DET.split(","));
    assert.deepEqual(d.protocol.latency_s, { median: 0, p95: 0, max: 0, mean: 0 });
    assert.equal(d.protocol.missed, 0);
    assert.equal(d.protocol.linger_s, 0);
    assert.deepEqual(d["screen:claude@50ms"].latency_s.max, 0); // the sample at 2.00 s sees the prompt
    assert.equal(d["screen:claude@700ms"].latency_s.max, 0.1); // next sweep at 2.1 s
    assert.equal(d["screen:claude@700ms"].linger_s, 0.6); // erased at 5 s, next sweep at 5.6 s
    assert.equal(d["quiet>=1s"].latency_s.max, 1); // silent from 2 s
    assert.deepEqual(d["quiet>=1s"].false_alarms.idle, { count: 1, seconds: 4 }); // 8 s → 12 s
    assert.deepEqual(d["quiet>=1s"].false_alarms.working, { count: 0, seconds: 0 });
    assert.equal(d.question.latency_s.max, 0);
    assert.equal(d.question.linger_s, 0);
    assert.ok(d.protocol.confusion_s.blocked.blocked > 2.9);
  });
  test("the text table has the reference table's columns", () => {
    const r = cli(["report", cap, "--detectors", DET]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Detector +Median latency +Max +Missed +Carried +Linger +False, working +False, idle/);
    assert.match(r.stdout, /quiet>=1s +1\.00 s +1\.00 s +0 \/ 1 +0 +0 s +0 +1 \/ 4\.0 s/);
    assert.match(r.stdout, /screen:claude@700ms +0\.10 s +0\.10 s +0 \/ 1 +0 +0\.6 s/);
  });
  test("--episodes lists every episode with each detector's detection time", () => {
    const r = cli(["report", cap, "--detectors", DET, "--episodes"]);
    assert.match(r.stdout, /#1 2\.000–5\.000 s \(permission\)/);
    assert.match(r.stdout, /screen:claude@700ms +\+0\.100 s +linger 0\.60 s/);
  });
});

describe("report: formats", () => {
  test("markdown ends with what reproduces it", () => {
    const r = cli(["report", cap, "--detectors", DET, "--format", "markdown"]);
    assert.match(
      r.stdout,
      /\| Detector \| Median latency \| Max \| Missed \| Carried \| Linger \| False, working \| False, idle \|\n\|:---\|---:\|/,
    );
    assert.match(r.stdout, /\| `quiet>=1s` \| 1\.00 s \|/);
    assert.match(
      r.stdout,
      /pstlab 0\.1\.0 · OSC 7501 revision 0\.4 · truth: markers · .*known\.cast` sha256 `[0-9a-f]{16}…` · reproduce: `pstlab report /,
    );
  });
  test("csv and junit", () => {
    const csv = cli(["report", cap, "--detectors", DET, "--format", "csv"]).stdout.trim().split("\n");
    assert.equal(
      csv[0],
      "file,detector,episodes,detected,missed,carried,latency_median_s,latency_p95_s,latency_max_s,linger_mean_s,linger_into_next,false_working_count,false_working_s,false_idle_count,false_idle_s,truth_for_files",
    );
    assert.equal(csv.length, 6);
    const xml = cli(["report", cap, "--detectors", DET, "--format", "junit"]).stdout;
    assert.match(xml, /<testsuites name="pstlab report" tests="5" failures="0" skipped="5">/);
    assert.equal((xml.match(/<testcase /g) ?? []).length, 5);
    // Without gates nothing was checked: each case says so instead of passing.
    assert.equal((xml.match(/<skipped message="not gated/g) ?? []).length, 5);
  });
  test("-o infers the format from the extension", () => {
    const out = path.join(dir, "r.json");
    assert.equal(cli(["report", cap, "--detectors", "protocol", "-o", out]).code, 0);
    assert.equal(JSON.parse(fs.readFileSync(out, "utf8")).schema, 2);
  });
});

describe("report: determinism and aggregation", () => {
  test("two runs give byte-identical output; --jobs does not change it", () => {
    const a = cli(["report", cap, cap2, "--detectors", DET, "--format", "json", "--jobs", "1"]);
    const b = cli(["report", cap, cap2, "--detectors", DET, "--format", "json", "--jobs", "1"]);
    const c = cli(["report", cap, cap2, "--detectors", DET, "--format", "json", "--jobs", "2"]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(c.code, 0, c.stderr);
    assert.equal(a.stdout, b.stdout);
    assert.equal(a.stdout, c.stdout);
    assert.match(c.stderr, /analysed 2 files/);
  });
  test("episodes are pooled over files; per-input rows are kept", () => {
    const j = JSON.parse(cli(["report", cap, cap2, "--detectors", DET, "--format", "json"]).stdout);
    const p = j.detectors.find((d: { name: string }) => d.name === "screen:claude@700ms");
    assert.equal(p.episodes, 2);
    assert.equal(p.per_input.length, 2);
    assert.deepEqual(p.per_input.map((x: { episodes: number }) => x.episodes), [1, 1]);
  });
});

describe("report: inputs read from a pipe", () => {
  test("stdin's sha256 is that of the bytes read, as the file's (report and check)", () => {
    const file = writeTmp(dir, "piped.cast", capture());
    const want = createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    const bytes = fs.readFileSync(file);
    for (const cmd of ["report", "check"]) {
      const r = cli([cmd, "-", "--format", "json"], { input: bytes });
      assert.ok(r.code === 0 || r.code === 1, `${cmd}: ${r.stderr}`);
      const doc = JSON.parse(r.stdout);
      const inputs = doc.inputs ?? doc.files;
      assert.equal(inputs[0].sha256, want, cmd);
    }
  });
});

describe("report: truth sources and gates", () => {
  test("a labels file labels a capture without editing it", () => {
    const bare = writeTmp(dir, "bare.cast", capture().split("\n").filter((l) => !l.includes('"m"')).join("\n"));
    const labels = writeTmp(dir, "truth.tsv", "0\tworking\n2\tblocked\tpermission\n5\tworking\n7\tidle\n");
    const j = json([bare, "--labels", labels, "--detectors", DET]);
    assert.match(j.truth.source, /^labels/);
    assert.equal(j.inputs[0].blocked_episodes, 1);
    const bad = writeTmp(dir, "bad.tsv", "0\tworking\nx\tidle\n");
    const r = cli(["report", bare, "--labels", bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.tsv:2: expected "seconds<TAB>state/);
    // No truth, and the capture cut short: the error keeps the reader's warning (its why).
    const cut = writeTmp(dir, "cut.cast", fs.readFileSync(bare, "utf8").trimEnd() + '\n[9.5, "o", "trunc');
    const c = cli(["report", cut, "--truth", "markers"]);
    assert.equal(c.code, 2);
    assert.match(c.stderr, /has no truth: markers \(and: .*cut\.cast:\d+: last line is truncated/);
    assert.equal(c.stderr.trim().split("\n").length, 1);
    // A misspelt truth marker is named (once, at its first time), not skipped without a word.
    const typo = writeTmp(
      dir,
      "typo.cast",
      castText([[0, "m", "truth:working"], [0.1, "o", "w\r\n"], [5, "m", "truth:idel"], [0.1, "o", "$ "], [
        5,
        "m",
        "truth:idel",
      ]]),
    );
    const ty = cli(["report", typo, "--detectors", "protocol"]);
    assert.equal(ty.code, 0, ty.stderr);
    assert.deepEqual(ty.stderr.split("\n").filter((l) => l.includes("truth:idel")), [
      `pstlab: warning: ${typo}: marker at 5.100 s: "truth:idel" is not a truth label (use truth:idle, truth:working, truth:blocked, truth:done, truth:error, with :KIND after blocked); ignored, the label before it holds`,
    ]);
    // A mistyped time on the first line is not read as a snapshot path (no file has that name).
    for (const [i, first] of ["1O.5", "12s", "-3", ".5x"].entries()) {
      const typo = writeTmp(dir, `typo${i}.tsv`, `${first}\tworking\n5\tidle\n`);
      const t = cli(["report", bare, "--labels", typo]);
      assert.equal(t.code, 2, first);
      assert.match(t.stderr, new RegExp(`typo${i}\\.tsv:1: expected "seconds<TAB>state`), first);
    }
  });
  test("a detector as the truth compares two detectors directly", () => {
    const j = json([cap, "--truth", "protocol", "--detectors", "screen:claude@700ms"]);
    assert.equal(j.truth.source, "detector:protocol");
    assert.equal(j.detectors.length, 1);
    assert.equal(j.detectors[0].latency_s.max, 0.1);
  });
  test("without truth markers the protocol's reports are the truth", () => {
    const bare = writeTmp(dir, "bare2.cast", capture().split("\n").filter((l) => !l.includes('"m"')).join("\n"));
    assert.equal(json([bare, "--detectors", "screen:claude@50ms"]).truth.source, "detector:protocol");
  });
  test("the truth is named, not scored: the protocol row when the protocol is the truth, in every format", () => {
    const bare = writeTmp(dir, "bare3.cast", capture().split("\n").filter((l) => !l.includes('"m"')).join("\n"));
    const args = [bare, "--detectors", "protocol,screen:claude@50ms"];
    assert.match(cli(["report", ...args]).stdout, /^protocol \(the truth\) +– +– +– +– +– +– +–$/m);
    assert.match(cli(["report", ...args, "--format", "markdown"]).stdout, /\| `protocol \(the truth\)` \| – \|/);
    const j = json(args);
    assert.equal(j.detectors[0].truth_for_files, 1);
    assert.equal(j.detectors[1].truth_for_files, 0);
    assert.match(cli(["report", ...args, "--format", "csv"]).stdout.split("\n")[1], /,1$/);
    assert.match(
      cli(["report", ...args, "--format", "junit"]).stdout,
      /name="protocol">\n\s*<skipped message="the truth of this report/,
    );
    // A gate on the truth could never fail: refused.
    const gate = cli(["report", ...args, "--gate", "protocol", "--max-missed", "0"]);
    assert.equal(gate.code, 2);
    assert.match(gate.stderr, /--gate protocol is this report's truth/);
  });
  test("a pooled report that mixes truth sources says which file used which", () => {
    const bare = writeTmp(dir, "bare4.cast", capture().split("\n").filter((l) => !l.includes('"m"')).join("\n"));
    const out = cli(["report", cap, bare, "--detectors", "protocol,screen:claude@50ms"]).stdout;
    assert.match(out, /^protocol \* /m);
    assert.match(out, /\* protocol is the truth of 1 of 2 files: there it grades itself/);
    assert.match(out, /truth per file: .*known\.cast truth markers; .*bare4\.cast the protocol's reports/);
  });
  test("--max-* gates fail with exit 1 (and a JUnit failure)", () => {
    const ok = cli([
      "report",
      cap,
      "--detectors",
      DET,
      "--gate",
      "protocol",
      "--max-missed",
      "0",
      "--max-latency",
      "0.05",
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    const bad = cli([
      "report",
      cap,
      "--detectors",
      DET,
      "--gate",
      "screen:claude@700ms",
      "--max-latency",
      "0.05",
      "--format",
      "junit",
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /<failure message="max latency 0\.100 s &gt; 0\.05 s"\/>/);
    assert.match(bad.stderr, /screen:claude@700ms: max latency/);
  });
  test("bad detectors and formats are usage errors", () => {
    assert.equal(cli(["report", cap, "--detectors", "nope"]).code, 2);
    assert.equal(cli(["report", cap, "--format", "pdf"]).code, 2);
    assert.equal(cli(["report", cap, "--manifest", "nosuch"]).code, 2);
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
