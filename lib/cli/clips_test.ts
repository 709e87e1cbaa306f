// Clips keep their truth: a trimmed window is labelled as it was in the whole capture,
// `cat` keeps each part's labels, `report --episodes` never prints an empty heading, and
// `report --labels` says when a labels file does not fit the capture.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { castText, cli, ROOT, tmpDir, writeTmp } from "../testkit.ts";
import { slice } from "../recording/transforms.ts";
import { type Event } from "../recording/model.ts";
import { collect, fromArray } from "../testkit.ts";

const dir = tmpDir();
const FAKE = path.join(ROOT, "fixtures/captures/fake-claude.cast");
const te = new TextEncoder();
const o = (t: number, s = "x"): Event => ({ t, kind: "output", bytes: te.encode(s) });
const m = (t: number, label: string): Event => ({ t, kind: "marker", label });
const markers = (evs: Event[]) => evs.flatMap((e) => e.kind === "marker" ? [`${e.t}:${e.label}`] : []);

describe("slice carries what is in force at --from", () => {
  const input = [
    m(0, "truth:working"),
    o(0.5),
    m(1, "truth:blocked:permission"),
    o(1.5),
    { t: 1.8, kind: "resize", cols: 50, rows: 9 } as Event,
    o(2),
    o(3),
  ];
  for (const keepPrelude of [false, true]) {
    test(`the label in force and the size at t=0 (keepPrelude ${keepPrelude})`, async () => {
      const evs = await collect(slice(fromArray(input), { from: 2, to: 3, keepPrelude }));
      assert.deepEqual(markers(evs), ["0:truth:blocked:permission"]);
      const sizes = evs.filter((e) => e.kind === "resize");
      assert.deepEqual(sizes.map((e) => e.t), [0]);
      assert.equal(evs.filter((e) => e.kind === "output").length, keepPrelude ? 4 : 2);
    });
  }
  test("a label at --from itself is not doubled", async () => {
    const evs = await collect(slice(fromArray(input), { from: 1, to: 3 }));
    assert.deepEqual(markers(evs), ["0:truth:blocked:permission"]);
  });
  test("a window past every event still carries the label", async () => {
    const evs = await collect(slice(fromArray(input), { from: 10 }));
    assert.deepEqual(markers(evs), ["0:truth:blocked:permission"]);
  });
  test("notes (non-truth markers) before the window are not carried", async () => {
    const evs = await collect(slice(fromArray([m(0, "note"), o(1)]), { from: 0.5 }));
    assert.deepEqual(markers(evs), []);
  });
});

describe("the README's bug-report clip", () => {
  for (const prelude of [["--keep-prelude"], []]) {
    test(`trim --from 61 --to 75 ${prelude.join(" ")} keeps the permission prompt's episode`, () => {
      const clip = path.join(dir, `prompt${prelude.length}.cast`);
      assert.equal(cli(["trim", FAKE, clip, "--from", "61", "--to", "75", ...prelude]).code, 0);
      const r = cli(["report", clip, "--detectors", "protocol", "--episodes"]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /: 14\.0 s, 1 blocked episode \(truth: markers\)/);
      assert.match(r.stdout, /#1 0\.000–/);
    });
  }
});

describe("a cut inside an escape sequence", () => {
  // An OSC 7501 report written in two reads, 1.1 s and 3.1 s: the report completes at 3.1 s.
  const split = castText([
    [0.1, "o", "hello\r\n"],
    [1, "o", "Allow? \x1b]7501;state=blocked:kind=permission"],
    [2, "o", ":app=x\x1b\\"],
    [1, "o", "\x1b]7501;state=working\x1b\\done"],
  ]);
  test("trim --from starts the clip with the sequence's head: the report keeps its time, no text leaks", () => {
    const whole = writeTmp(dir, "split.cast", split);
    const clip = path.join(dir, "split-from.cast");
    assert.equal(cli(["trim", whole, clip, "--from", "2"]).code, 0);
    const scan = cli(["scan", clip, "--json"]).stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(scan.filter((e) => e.type === "report").map((e) => [e.t, e.state]), [[1.1, "blocked"], [
      2.1,
      "working",
    ]]);
    const screen = cli(["screen", clip, "--at", "1.5"]).stdout;
    assert.doesNotMatch(screen, /kind=|app=/);
  });
  test("cat of a part that ends inside a sequence says the next part continues it", () => {
    const whole = writeTmp(dir, "split3.cast", split);
    const head = path.join(dir, "split-head.cast");
    assert.equal(cli(["trim", whole, head, "--to", "2"]).code, 0);
    const r = cli(["cat", head, whole, "-o", path.join(dir, "joined-open.cast")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /split-head\.cast ends inside an escape sequence: .*split3\.cast's first output continues it/,
    );
    const clean = cli(["cat", whole, whole, "-o", path.join(dir, "joined-clean.cast")]);
    assert.doesNotMatch(clean.stderr, /escape sequence/);
  });
  test("trim of a window with no output says so", () => {
    const whole = writeTmp(dir, "split4.cast", split);
    const r = cli(["trim", whole, path.join(dir, "silence.cast"), "--from", "1.5", "--to", "1.6"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: the clip holds no output \(nothing was written between 1\.5 s and 1\.6 s\)/);
    const some = cli(["trim", whole, path.join(dir, "some.cast"), "--from", "0", "--to", "1"]);
    assert.doesNotMatch(some.stderr, /holds no output/);
  });
  test("trim --to inside a sequence says so", () => {
    const whole = writeTmp(dir, "split2.cast", split);
    const r = cli(["trim", whole, path.join(dir, "split-to.cast"), "--to", "2"]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /warning: the clip ends inside an escape sequence begun at 1\.100 s/);
    const clean = cli(["trim", whole, path.join(dir, "split-to2.cast"), "--to", "3.5"]);
    assert.doesNotMatch(clean.stderr, /escape sequence/);
  });
});

describe("cat keeps each part's labels", () => {
  test("episodes of both parts, at the parts' times", () => {
    const a = writeTmp(
      dir,
      "a.cast",
      castText([[0, "m", "truth:working"], [1, "m", "truth:blocked:question"], [1, "o", "? "], [1, "m", "truth:idle"]]),
    );
    const b = writeTmp(
      dir,
      "b.cast",
      castText([[0, "m", "truth:working"], [2, "m", "truth:blocked:permission"], [1, "m", "truth:done"]]),
    );
    const both = path.join(dir, "both.cast");
    assert.equal(cli(["cat", a, b, "--gap", "1", "-o", both]).code, 0);
    const r = cli(["report", both, "--detectors", "protocol", "--episodes"]);
    assert.match(r.stdout, /: 7\.0 s, 2 blocked episodes/);
    assert.match(r.stdout, /#1 1\.000–3\.000 s \(question\)/);
    assert.match(r.stdout, /#2 6\.000–7\.000 s \(permission\)/);
  });
  test("a part whose truth starts with the label before it is named on stderr", () => {
    const a = writeTmp(dir, "ca.cast", castText([[0, "m", "truth:working"], [1, "m", "truth:blocked:question"]]));
    const none = writeTmp(dir, "cnone.cast", castText([[0, "o", "x"], [1, "o", "y"]]));
    const late = writeTmp(dir, "clate.cast", castText([[0, "o", "x"], [2, "m", "truth:working"]]));
    const same = writeTmp(dir, "csame.cast", castText([[0, "o", "x"], [2, "m", "truth:blocked:question"]]));
    const run = (...files: string[]) => {
      const out = path.join(dir, `joined${files.length}-${files.map((f) => path.basename(f)).join("")}`);
      const r = cli(["cat", ...files, "-o", out]);
      assert.equal(r.code, 0, r.stderr);
      return r.stderr.split("\n").filter((l) => l.includes("warning"));
    };
    assert.deepEqual(run(a, none), [
      `pstlab: warning: ${none}: has no truth label: the label before it (truth:blocked:question) holds over all of it in the result`,
    ]);
    assert.deepEqual(run(a, late), [
      `pstlab: warning: ${late}: its first truth label is 2.000 s in: the label before it (truth:blocked:question) holds until then in the result`,
    ]);
    assert.deepEqual(run(a, same), []);
    assert.deepEqual(run(none, a), []);
  });
});

describe("report --episodes with no episode", () => {
  test("says none instead of an empty heading", () => {
    const c = writeTmp(dir, "calm.cast", castText([[0, "m", "truth:working"], [1, "o", "ok"], [1, "m", "truth:idle"]]));
    const r = cli(["report", c, "--detectors", "protocol", "--episodes"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Episodes \(truth blocked\): none$/m);
    assert.doesNotMatch(r.stdout, /^Episodes \(truth blocked\):$/m);
  });
});

describe("report --labels warns about labels that do not fit", () => {
  const c = writeTmp(dir, "short.cast", castText([[0, "o", "a"], [4, "o", "b"]]));
  test("labels past the end and out of order: one line each, read sorted", () => {
    const l = writeTmp(dir, "l.tsv", "0\tworking\n3\tidle\n1\tblocked\tpermission\n23.9\tidle\n");
    // Two captures (one file may be given once): the labels file's own warning is said once.
    const c2 = writeTmp(dir, "short2.cast", fs.readFileSync(c, "utf8"));
    const r = cli(["report", c, c2, "--labels", l, "--detectors", "protocol", "--episodes"]);
    assert.equal(r.code, 0, r.stderr);
    const warnings = r.stderr.split("\n").filter((x) => x.includes("warning"));
    assert.deepEqual(warnings, [
      `pstlab: warning: ${l}:3: labels out of order (1 s after 3 s): read sorted by time`,
      `pstlab: warning: ${l}: labels past the end of ${c} (4.00 s), the last at 23.90 s`,
      `pstlab: warning: ${l}: labels past the end of ${c2} (4.00 s), the last at 23.90 s`,
    ]);
    assert.match(r.stdout, /#1 1\.000–3\.000 s \(permission\)/);
  });
  test("a labels file that fits: no warning", () => {
    const l = writeTmp(dir, "ok.tsv", "0\tworking\n1\tblocked\n3\tidle\n");
    const r = cli(["report", c, "--labels", l, "--detectors", "protocol"]);
    assert.equal(r.code, 0);
    assert.doesNotMatch(r.stderr, /warning/);
  });
});

process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
