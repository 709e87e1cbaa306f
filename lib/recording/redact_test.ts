import { describe, test } from "node:test";
import { compilePattern } from "../regex/pattern.ts";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeWithMap, envValuePatterns, Redactor } from "./redact.ts";
import type { Event } from "./model.ts";
import { concatOutput } from "../testkit.ts";
import { decodeBase64Strict, encodeBase64 } from "../osc7501/base64.ts";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const isValidUtf8 = (b: Uint8Array) => {
  try {
    strictUtf8.decode(b);
    return true;
  } catch {
    return false;
  }
};
const te = new TextEncoder();
const td = new TextDecoder();
const o = (t: number, s: string | Uint8Array): Event => ({
  t,
  kind: "output",
  bytes: typeof s === "string" ? te.encode(s) : s,
});
const i = (t: number, s: string): Event => ({ t, kind: "input", bytes: te.encode(s) });

function runAll(r: Redactor, events: Event[]): Event[] {
  const out: Event[] = [];
  for (const e of events) out.push(...r.push(e));
  out.push(...r.end());
  return out;
}
const text = (evs: Event[], kind: "output" | "input" = "output") =>
  td.decode(concatOutput(evs.filter((e) => e.kind === kind).map((e) => ({ ...e, kind: "output" }) as Event)));

describe("redact", () => {
  test("plain matches in output, counted", () => {
    const r = new Redactor({ patterns: [compilePattern("sk-[a-z0-9]{8}")], replace: "[R]" });
    const out = runAll(r, [o(0, "key sk-abcd1234 and sk-zzzz9999\r\n")]);
    assert.equal(text(out), "key [R] and [R]\r\n");
    assert.equal(r.stats.output, 2);
  });
  test("a secret split across reads is found; the replacement goes where it starts", () => {
    const r = new Redactor({ patterns: [compilePattern("hunter2")], replace: "***" });
    const out = runAll(r, [o(0, "pw: hun"), o(1, "te"), o(2, "r2 ok")]);
    assert.deepEqual(out.map((e) => td.decode((e as { bytes: Uint8Array }).bytes)), ["pw: ***", "", " ok"]);
    assert.deepEqual(out.map((e) => e.t), [0, 1, 2]);
  });
  test("typed one key per input event", () => {
    const r = new Redactor({ patterns: [compilePattern("s3cret")], replace: "•" });
    const out = runAll(r, [..."s3cret\r"].map((c, k) => i(k, c)));
    assert.equal(text(out, "input"), "•\r");
    assert.equal(r.stats.input, 1);
  });
  test("order with other events is kept", () => {
    const r = new Redactor({ patterns: [compilePattern("xyz")], replace: "_" });
    const out = runAll(r, [o(0, "ax"), { t: 1, kind: "resize", cols: 80, rows: 24 }, o(2, "yzb"), {
      t: 3,
      kind: "marker",
      label: "m xyz",
    }]);
    assert.deepEqual(out.map((e) => e.kind), ["output", "resize", "output", "marker"]);
    assert.equal(text(out), "a_b");
    assert.equal((out[3] as { label: string }).label, "m _");
  });
  test("inside OSC sequences: titles in plain text, OSC 7501 msg/title decoded and re-encoded", () => {
    const r = new Redactor({ patterns: [compilePattern("tok_[0-9]+")], replace: "[R]" });
    const msg = encodeBase64(te.encode("using tok_12345 now"));
    const out = runAll(r, [o(0, `\x1b]0;tok_999\x07\x1b]7501;state=working:msg=${msg}\x1b\\`)]);
    const s = text(out);
    assert.ok(s.startsWith("\x1b]0;[R]\x07"));
    const m = /msg=([A-Za-z0-9+/=]+)/.exec(s)!;
    assert.equal(td.decode(decodeBase64Strict(te.encode(m[1]))!), "using [R] now");
    assert.equal(r.stats.osc7501, 1);
    assert.equal(r.stats.output, 1);
  });
  test("header command, title and env values", () => {
    const r = new Redactor({ patterns: [compilePattern("API=\\w+")], replace: "API=x" });
    assert.deepEqual(
      r.header({
        cols: 80,
        rows: 24,
        command: "run API=abc",
        title: "t API=q",
        env: { SHELL: "/bin/sh", X: "API=zz" },
      }),
      { cols: 80, rows: 24, command: "run API=x", title: "t API=x", env: { SHELL: "/bin/sh", X: "API=x" } },
    );
    assert.equal(r.stats.header, 3);
  });
  test("every event still decodes: invalid bytes around a match survive", () => {
    const r = new Redactor({ patterns: [compilePattern("abc")], replace: "€" });
    const out = runAll(r, [o(0, new Uint8Array([0xff, 0x61, 0x62])), o(1, new Uint8Array([0x63, 0xe2]))]);
    assert.deepEqual([...concatOutput(out)], [0xff, ...te.encode("€"), 0xe2]);
  });
  test("bounded memory: long streams flow through without waiting for the end", () => {
    const r = new Redactor({ patterns: [compilePattern("never")], replace: "" });
    let emitted = 0;
    for (let k = 0; k < 200; k++) emitted += r.push(o(k, "x".repeat(4096))).length;
    assert.ok(emitted > 150, `emitted ${emitted} before the end`);
  });
  test("property: without matches the stream is unchanged; with them no secret survives", () => {
    fc.assert(fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 20 }), fc.nat(5), (parts, insertAt) => {
      const clean = parts.map((p) => p.replace(/S/g, ""));
      const r1 = new Redactor({ patterns: [compilePattern("SECRET")], replace: "#" });
      assert.equal(text(runAll(r1, clean.map((p, k) => o(k, p)))), clean.join(""));
      const withSecret = [...clean];
      const at = Math.min(insertAt, withSecret.length);
      withSecret.splice(at, 0, "SEC", "RET");
      const r2 = new Redactor({ patterns: [compilePattern("SECRET")], replace: "#" });
      const out = runAll(r2, withSecret.map((p, k) => o(k, p)));
      assert.ok(!text(out).includes("SECRET"));
      assert.equal(r2.stats.output, 1);
      for (const e of out) assert.ok(isValidUtf8((e as { bytes: Uint8Array }).bytes));
    }));
  });
  test("decodeWithMap maps UTF-16 units to byte offsets", () => {
    const { text: t, map } = decodeWithMap(new Uint8Array([0x61, 0xe2, 0x82, 0xac, 0xff, 0xf0, 0x9f, 0x98, 0x80]));
    assert.equal(t, "a€\ufffd😀");
    assert.deepEqual([...map], [0, 1, 4, 5, 5, 9]);
  });
  test("env value patterns pick secret-looking names only", () => {
    const pats = envValuePatterns({
      GITHUB_TOKEN: "ghp_abcdefgh",
      HOME: "/root/home",
      AWS_SECRET_ACCESS_KEY: "a+b.c*d",
      SHORT_TOKEN: "abc",
    });
    assert.deepEqual(pats.map((p) => p.source).sort(), ["a\\+b\\.c\\*d", "ghp_abcdefgh"]);
  });
  test("env value patterns never take a placeholder (or its remains) for a secret", () => {
    const header = { A: "[REDACTED]", B: "[REDACTED][REDACTED]", C: "x[REDACTED]y", D: "#####", E: "real-secret" };
    assert.deepEqual(envValuePatterns({ X_TOKEN: "[REDACTED]" }, header).map((p) => p.source), ["real-secret"]);
    assert.deepEqual(envValuePatterns({}, { A: "#####", B: "abc-#####" }, ["#####"]).map((p) => p.source), []);
  });
});

describe('redact: raw 8-bit C1 (a "b" event)', () => {
  const raw = (s: string) => Uint8Array.from([...s].map((c) => c.charCodeAt(0)));
  const b64 = (s: string) => encodeBase64(te.encode(s));
  test("OSC 7501 and OSC 52 between raw 0x9D and 0x9C/BEL are decoded and scrubbed; the C1 bytes stay raw", () => {
    const src = [
      o(0, raw(`\x9d7501;state=working:app=a:msg=${b64("raw hunter2SECRETzz")}\x9c`)),
      o(1, raw(`\x9d52;c;${b64("clip hunter2SECRETzz")}\x07`)),
    ];
    const r = new Redactor({ patterns: [compilePattern("hunter2SECRETzz")], replace: "[R]" });
    const out = runAll(r, src);
    assert.deepEqual(
      [...(out[0] as { bytes: Uint8Array }).bytes],
      [...raw(`\x9d7501;state=working:app=a:msg=${b64("raw [R]")}\x9c`)],
    );
    assert.deepEqual([...(out[1] as { bytes: Uint8Array }).bytes], [...raw(`\x9d52;c;${b64("clip [R]")}\x07`)]);
    assert.equal(r.stats.osc7501, 1);
    assert.equal(r.stats.osc52, 1);
    // What `redact --check` runs finds nothing left.
    const again = new Redactor({ patterns: [compilePattern("hunter2SECRETzz")], replace: "[R]" });
    runAll(again, out);
    assert.equal(again.stats.osc7501 + again.stats.osc52 + again.stats.output, 0);
  });
});
