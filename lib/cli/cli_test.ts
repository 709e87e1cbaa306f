// The command-line contract: help, version, exit codes, and the JSON shapes of
// scan/status/emit that other tools and tests rely on.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { COMMANDS, loadCommands } from "./commands.ts";
import { VERSION } from "../version.ts";
import { castText, cli, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir();
const STREAM = "\x1b]7501;?\x1b\\hello \x1b]7501;state=working:progress=40:app=cargo\x1b\\" +
  "\x1b]7501;state=blocked:id=deploy/eu:kind=permission:msg=QXBwbHk/\x07" +
  "\x1b]7501;state=idle:msg=a\x07\x1b]7501;state=nope\x07\x1b]9;4;1;5\x07\x1b]133;A\x07\x1b]7501;state=done:id=x\x1b\\";

describe("CLI conventions", () => {
  test("--version and help", () => {
    const v = cli(["--version"]);
    assert.equal(v.code, 0);
    assert.match(v.stdout, new RegExp(`^pstlab ${VERSION.replace(/\./g, "\\.")} \\(OSC 7501 revision 0\\.4\\)`));
    const h = cli(["help"]);
    assert.equal(h.code, 0);
    for (const c of COMMANDS) assert.ok(h.stdout.includes(`  ${c.name} `), c.name);
  });
  test("the command table's names and summaries are the ones each command's spec holds", async () => {
    const loaded = await loadCommands();
    assert.deepEqual(
      loaded.map((c) => [c.spec.name, c.spec.summary]),
      COMMANDS.map((c) => [c.name, c.summary]),
    );
  });
  test("every command has --help with an example", () => {
    for (const c of COMMANDS) {
      const r = cli([c.name, "--help"]);
      assert.equal(r.code, 0, c.name);
      assert.match(r.stdout, /Usage: pstlab /, c.name);
      assert.match(r.stdout, /Examples:\n {2}pstlab /, c.name);
      assert.equal(cli(["help", c.name]).stdout, r.stdout);
    }
  });
  test("bad usage: one line on stderr, exit 2, no stack trace", () => {
    for (
      const args of [
        ["nosuch"],
        ["scan", "--bogus"],
        ["scan", "a", "b"],
        ["status", "--at", "soon"],
        ["emit"],
        ["emit", "working", "--progress", "x"],
        ["scan", "/nonexistent/file"],
        ["convert", "a"],
      ]
    ) {
      const r = cli(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.stderr.trim().split("\n").length, 1, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^pstlab: /);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    const none = cli([]);
    assert.equal(none.code, 2);
  });
  test("bad fixtures name file and line", () => {
    const p = writeTmp(
      dir,
      "bad.cast",
      '{"version":3,"term":{"cols":80,"rows":24}}\n[0.1,"o","ok"]\n[0.1,"r","huge"]\n',
    );
    const r = cli(["scan", p]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), `pstlab: ${p}:3: resize data must be "COLSxROWS", got "huge"`);
  });
});

describe("scan", () => {
  test("--json: one object per line with the documented fields", () => {
    const r = cli(["scan", "--json", "-"], { input: STREAM });
    assert.equal(r.code, 0, r.stderr);
    const evs = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(evs.map((e) => e.type), [
      "query",
      "report",
      "report",
      "discarded",
      "ignored",
      "lifecycle",
      "report",
    ]);
    for (const e of evs) assert.equal(e.t, 0); // raw input
    assert.equal(evs[0].reply, "\x1b]7501;?\x1b\\");
    const { t: _t, type: _ty, ...r1 } = evs[1];
    assert.deepEqual(Object.keys(r1).slice(0, 8), ["id", "state", "kind", "progress", "app", "title", "msg", "source"]);
    assert.deepEqual([r1.id, r1.state, r1.kind, r1.progress, r1.app, r1.title, r1.msg, r1.source], [
      null,
      "working",
      null,
      40,
      "cargo",
      null,
      null,
      "osc7501",
    ]);
    assert.deepEqual([evs[2].id, evs[2].kind, evs[2].msg], ["deploy/eu", "permission", "Apply?"]);
    assert.deepEqual([evs[3].reason, evs[3].raw], ["bad-base64", "\x1b]7501;state=idle:msg=a\x07"]);
    assert.equal(evs[4].reason, "unknown-state");
    // 9;4 is not mapped: a 7501 report came first (docs/osc7501.md D19).
    assert.deepEqual([evs[5].event, evs[5].removed], ["prompt", [null, "deploy/eu"]]);
  });
  test("recordings: times from the file, exit events are lifetime events", () => {
    const p = writeTmp(
      dir,
      "rec.cast",
      castText([[0.5, "o", "\x1b]7501;state=working\x07"], [1.25, "o", "\x1b]7501;state=done:id=a\x07"], [
        0.25,
        "x",
        "0",
      ]]),
    );
    const evs = cli(["scan", "--json", p]).stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(evs.map((e) => [e.t, e.type]), [[0.5, "report"], [1.75, "report"], [2, "lifecycle"]]);
    assert.deepEqual([evs[2].event, evs[2].removed], ["exit", [null]]);
  });
  test("the same events whatever the reads (every byte its own event)", () => {
    const whole = writeTmp(dir, "whole.cast", castText([[0, "o", STREAM]]));
    const bytes = new TextEncoder().encode(STREAM);
    const split = writeTmp(dir, "split.cast", castText([...bytes].map((b) => [0, "o", String.fromCharCode(b)])));
    const a = cli(["scan", "--json", whole]), b = cli(["scan", "--json", split]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout, a.stdout);
    assert.equal(cli(["scan", "--json", "-"], { input: STREAM }).stdout, a.stdout);
  });
  test("--raw reads an asciicast file as bytes", () => {
    const p = writeTmp(dir, "asraw.cast", castText([[0, "o", "x"]]));
    assert.equal(cli(["scan", "--raw", p]).stdout, "no OSC 7501 events\n");
  });
  test("readable listing", () => {
    const r = cli(["scan", "-"], { input: STREAM });
    assert.match(r.stdout, /^ TIME +TYPE +ID\/REASON +STATE +DETAILS\n/);
    assert.match(r.stdout, /report +\(root\) +working +progress=40 app=cargo/);
    assert.match(
      r.stdout,
      /discarded +bad-base64 +\\e\]7501;state=idle:msg=a\\a +\(msg is not valid standard base64\)/,
    );
    assert.doesNotMatch(r.stdout, /\x1b/); // NO_COLOR, and capture bytes are made visible
  });
});

describe("status", () => {
  test("--json at the end: root first, then ids in lexicographic order", () => {
    const input =
      "\x1b]7501;state=working:id=b:app=x\x07\x1b]7501;state=done:id=a/c\x07\x1b]7501;state=idle:app=root\x07\x1b]7501;state=blocked:id=a\x07";
    const r = cli(["status", "--json", "-"], { input });
    const { records } = JSON.parse(r.stdout);
    assert.deepEqual(records.map((x: { id: string }) => x.id), [null, "a", "a/c", "b"]);
    assert.deepEqual(Object.keys(records[0]), [
      "id",
      "state",
      "kind",
      "progress",
      "app",
      "effectiveApp",
      "title",
      "msg",
    ]);
    assert.deepEqual(records.map((x: { effectiveApp: string }) => x.effectiveApp), ["root", "root", "root", "x"]);
  });
  test("--at picks the time", () => {
    const p = writeTmp(
      dir,
      "at.cast",
      castText([[1, "o", "\x1b]7501;state=working\x07"], [1, "o", "\x1b]7501;state=blocked\x07"], [
        1,
        "o",
        "\x1b]133;A\x07",
      ]]),
    );
    const at = (s: string) =>
      JSON.parse(cli(["status", "--json", p, "--at", s]).stdout).records.map((x: { state: string }) => x.state);
    assert.deepEqual(at("0.5"), []);
    assert.deepEqual(at("1"), ["working"]);
    assert.deepEqual(at("2500ms"), ["blocked"]);
    assert.deepEqual(at("3"), []);
  });
});

describe("emit", () => {
  test("one well-formed sequence, ST by default", () => {
    const r = cli([
      "emit",
      "blocked",
      "Apply these changes?",
      "--kind",
      "permission",
      "--app",
      "terraform",
      "--id",
      "eu",
      "--progress",
      "10",
      "--title",
      "EU",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      "\x1b]7501;state=blocked:id=eu:kind=permission:progress=10:app=terraform:title=RVU=:msg=QXBwbHkgdGhlc2UgY2hhbmdlcz8=\x1b\\",
    );
  });
  test("--bel, --tmux, query", () => {
    assert.equal(cli(["emit", "done", "--bel"]).stdout, "\x1b]7501;state=done\x07");
    assert.equal(cli(["emit", "done", "--tmux"]).stdout, "\x1bPtmux;\x1b\x1b]7501;state=done\x1b\x1b\\\x1b\\");
    assert.equal(cli(["emit", "query"]).stdout, "\x1b]7501;?\x1b\\");
    assert.equal(cli(["emit", "query", "--bel"]).stdout, "\x1b]7501;?\x07");
  });
  test("what emit prints, scan reads back", () => {
    const seq = cli(["emit", "working", "héllo", "--app", "x", "--progress", "7"]).bytes;
    const ev = JSON.parse(cli(["scan", "--json", "-"], { input: seq }).stdout);
    assert.deepEqual([ev.state, ev.msg, ev.app, ev.progress], ["working", "héllo", "x", 7]);
  });
  test("refuses what a strict terminal would reject or drop", () => {
    for (
      const args of [
        ["nope"],
        ["idle", "--id", "bad!"],
        ["idle", "two\nlines"],
        ["idle", "--kind", "auth"],
        ["blocked", "--kind", "dance"],
        ["idle", "--app", "x".repeat(33)],
        ["working", "--progress", "101"],
        // The spec's digits only (D8), and nothing a clear would drop.
        ["working", "--progress", "1e2"],
        ["working", "--progress", " 5"],
        ["working", "--progress", "-0"],
        ["clear", "--progress", "5"],
        ["clear", "bye"],
        ["clear", "--app", "x"],
      ]
    ) {
      const r = cli(["emit", ...args]);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, /^pstlab: emit[: ]/);
      assert.equal(r.stdout, "");
    }
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
void path;
