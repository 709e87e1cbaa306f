import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encodeQuery, encodeReport, wrapTmux } from "./encode.ts";
import { parseBody } from "./parse.ts";
import { scanAll } from "../testkit.ts";

const td = new TextDecoder();

describe("encoder", () => {
  test("pst key order and ST by default", () => {
    const r = encodeReport({
      state: "blocked",
      id: "deploy/eu",
      kind: "permission",
      progress: 10,
      app: "terraform",
      title: "eu",
      msg: "Apply?",
    });
    assert.ok(r.ok);
    assert.equal(
      td.decode(r.ok ? r.bytes : undefined),
      "\x1b]7501;state=blocked:id=deploy/eu:kind=permission:progress=10:app=terraform:title=ZXU=:msg=QXBwbHk/\x1b\\",
    );
  });
  test("BEL terminator", () => {
    const r = encodeReport({ state: "idle" }, { terminator: "bel" });
    assert.equal(r.ok && td.decode(r.bytes), "\x1b]7501;state=idle\x07");
  });
  test("refuses reports a strict parser would reject or trim", () => {
    const cases: [Parameters<typeof encodeReport>[0], string][] = [
      [{ state: "nope" }, "unknown-state"],
      [{ state: "idle", id: "bad!" }, "bad-id"],
      [{ state: "idle", app: "x".repeat(33) }, "value-too-long"],
      [{ state: "idle", msg: "two\nlines" }, "control-char"],
      [{ state: "idle", msg: "m".repeat(2049) }, "text-too-long"],
      [{ state: "idle", kind: "permission" }, "dropped"],
      [{ state: "done", progress: 5 }, "dropped"],
      [{ state: "working", app: "a b" }, "dropped"],
    ];
    for (const [input, reason] of cases) {
      const r = encodeReport(input);
      assert.equal(r.ok, false, JSON.stringify(input));
      assert.equal(!r.ok && r.reason, reason, JSON.stringify(input));
    }
  });
  test("query", () => {
    assert.equal(td.decode(encodeQuery()), "\x1b]7501;?\x1b\\");
    assert.equal(td.decode(encodeQuery("bel")), "\x1b]7501;?\x07");
  });
  test("tmux wrapping doubles every ESC and nests", () => {
    const seq = encodeReport({ state: "done" });
    assert.ok(seq.ok);
    if (!seq.ok) return;
    assert.equal(td.decode(wrapTmux(seq.bytes)), "\x1bPtmux;\x1b\x1b]7501;state=done\x1b\x1b\\\x1b\\");
    for (const levels of [1, 2, 3]) {
      const evs = scanAll(wrapTmux(seq.bytes, levels));
      assert.equal(evs.length, 1);
      assert.equal(evs[0].type === "osc7501" && td.decode(evs[0].body), "state=done");
      assert.equal(evs[0].depth, levels);
    }
  });
  test("property: anything the encoder accepts parses back to the same report", () => {
    const text = fc.string({ maxLength: 40 });
    const input = fc.record({
      state: fc.constantFrom("idle", "working", "done", "blocked", "error"),
      id: fc.option(fc.stringMatching(/^[a-z0-9_.+-]{1,8}(\/[a-z0-9_.+-]{1,8}){0,3}$/), { nil: null }),
      app: fc.option(fc.stringMatching(/^[A-Za-z0-9_.+-]{1,32}$/), { nil: null }),
      title: fc.option(text, { nil: null }),
      msg: fc.option(text, { nil: null }),
    });
    let encoded = 0;
    fc.assert(fc.property(input, (inp) => {
      const r = encodeReport(inp);
      if (!r.ok) return; // control characters etc. are refused
      encoded++;
      const p = parseBody(r.bytes.subarray(7, r.bytes.length - 2), "st");
      assert.equal(p.type, "report");
      if (p.type !== "report") return;
      assert.equal(p.report.state, inp.state);
      assert.equal(p.report.id, inp.id);
      assert.equal(p.report.app, inp.app);
      assert.equal(p.report.title, inp.title === "" ? null : inp.title);
      assert.equal(p.report.msg, inp.msg === "" ? null : inp.msg);
    }));
    assert.ok(encoded > 10, `the encoder accepted only ${encoded} inputs`);
  });
});
