// Conformance table for the body parser: every rule of docs/osc7501.md §1–§3 and
// every decision of its §8 that concerns a single report. Inputs are the exact
// bodies quoted by the sources (pst's spec-example list, Ghostty's discarded-report
// table, tuios, AC).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseBody, parseProgress, parseQueryReplyBody, type ParseResult, type Report } from "./parse.ts";
import * as L from "./limits.ts";

/** The longest body with `ESC \\` (two bytes of terminator): the BEL body less one. */
const MAX_BODY_BYTES_ST = L.MAX_SEQUENCE_BYTES - L.INTRODUCER_BYTES - 2;
import { encodeBase64 } from "./base64.ts";

const te = new TextEncoder();
const b64 = (s: string) => encodeBase64(te.encode(s));
const parse = (body: string | Uint8Array, t: "st" | "bel" = "st"): ParseResult =>
  parseBody(typeof body === "string" ? te.encode(body) : body, t);

function report(body: string | Uint8Array, t: "st" | "bel" = "st"): Report {
  const r = parse(body, t);
  assert.equal(r.type, "report", `expected a report for ${JSON.stringify(body)}, got ${JSON.stringify(r)}`);
  return (r as { report: Report }).report;
}
function reason(body: string | Uint8Array, t: "st" | "bel" = "st"): string {
  const r = parse(body, t);
  assert.equal(r.type, "rejected", `expected a rejection for ${JSON.stringify(body)}, got ${JSON.stringify(r)}`);
  return (r as { reason: string }).reason;
}
const rep = (o: Partial<Report>): Report => ({
  state: "idle",
  id: null,
  kind: null,
  progress: null,
  app: null,
  title: null,
  msg: null,
  ...o,
});

describe("grammar (§1.2)", () => {
  test("spec examples", () => {
    assert.deepEqual(
      report("state=blocked:kind=permission:app=terraform:msg=" + b64("Apply these changes?")),
      rep({ state: "blocked", kind: "permission", app: "terraform", msg: "Apply these changes?" }),
    );
    assert.deepEqual(
      report("state=working:msg=" + b64("Syncing photos")),
      rep({ state: "working", msg: "Syncing photos" }),
    );
    assert.deepEqual(
      report("state=working:id=us-east:progress=40"),
      rep({ state: "working", id: "us-east", progress: 40 }),
    );
  });
  test("pair splits at the first `=`; later `=` belong to the value", () => {
    assert.equal(report("state=done:msg=SGk=").msg, "Hi");
    assert.equal(report("state=done:msg=YQ==").msg, "a");
  });
  test("whitespace around keys and values is trimmed (D17: space and tab only)", () => {
    assert.deepEqual(report(" state = working \t: app =\tcargo "), rep({ state: "working", app: "cargo" }));
    // Other whitespace is not trimmed: the pair is malformed.
    assert.equal(reason("state=idle\u000b"), "no-state");
    assert.equal(reason("\u00a0state=idle"), "no-state");
  });
  test("whitespace inside a value makes the pair malformed", () => {
    assert.equal(report("state=idle:app=br ew").app, null);
    assert.equal(report("state=idle:app=car go").app, null);
  });
  test("empty pairs are harmless", () => {
    assert.deepEqual(report("::state=idle::"), rep({}));
    assert.deepEqual(report(":state=idle:app=ok:::"), rep({ app: "ok" }));
  });
  test("malformed pairs are skipped, the rest applies", () => {
    for (
      const junk of [
        "junk",
        "=x",
        "Bad=1",
        "App=cargo",
        "st4te=done",
        "my_key=1",
        "app=b@d",
        "app=br;ew",
        "title=a%41",
        "msg=bad!",
      ]
    ) {
      const r = parse(`state=working:${junk}:progress=5`);
      assert.equal(r.type, "report", junk);
      assert.deepEqual((r as { report: Report }).report, rep({ state: "working", progress: 5 }), junk);
      assert.ok((r as { notes: unknown[] }).notes.length > 0, `a note explains ${junk}`);
    }
  });
  test("unknown keys are ignored (the extension mechanism)", () => {
    assert.deepEqual(report("state=done:future=1:seq=42"), rep({ state: "done" }));
  });
  test("duplicates: last well-formed occurrence wins", () => {
    assert.deepEqual(report("state=idle:app=a:state=done:app=b"), rep({ state: "done", app: "b" }));
    assert.deepEqual(report("state=bogus:state=done"), rep({ state: "done" }));
    assert.equal(reason("state=done:state=nope"), "unknown-state");
  });
  test("keys are lower-case only; values are case-sensitive", () => {
    assert.equal(reason("STATE=idle"), "no-state");
    for (const s of ["IDLE", "Idle", "Clear"]) assert.equal(reason(`state=${s}`), "unknown-state");
    assert.equal(report("state=blocked:kind=Permission").kind, null);
  });
  test("empty values", () => {
    assert.equal(reason("state="), "no-state");
    assert.equal(reason("state=idle:id="), "bad-id");
    assert.deepEqual(report("state=working:app=:kind=:progress="), rep({ state: "working" }));
    assert.deepEqual(report("state=done:msg=:title="), rep({ state: "done" })); // D16
  });
  test("empty body and missing state are ignored", () => {
    assert.equal(reason(""), "no-state");
    assert.equal(reason("app=cargo"), "no-state");
  });
});

describe("state, kind, progress, app (§2)", () => {
  test("every state", () => {
    for (const s of ["idle", "working", "done", "blocked", "error", "clear"]) {
      assert.equal(report(`state=${s}`).state, s);
    }
  });
  test("a future state is ignored, not mapped", () => {
    assert.equal(reason("state=paused"), "unknown-state");
  });
  test("kind only on blocked; unknown kind reads as absent", () => {
    for (const k of ["permission", "question", "auth"]) assert.equal(report(`state=blocked:kind=${k}`).kind, k);
    assert.deepEqual(report("state=blocked:kind=dance"), rep({ state: "blocked" }));
    assert.deepEqual(report("state=blocked:kind=coffee"), rep({ state: "blocked" }));
    assert.equal(report("state=working:kind=permission").kind, null);
  });
  test("progress table (D8, D9)", () => {
    const cases: [string, number | null][] = [
      ["0", 0],
      ["40", 40],
      ["100", 100],
      ["007", 7],
      ["000100", 100],
      ["040", 40],
      ["00", 0],
      ["-1", null],
      ["+1", null],
      ["+5", null],
      ["4.5", null],
      ["5.5", null],
      ["1.0", null],
      ["1_0", null],
      ["1e1", null],
      ["0x10", null],
      ["abc", null],
      ["101", null],
      ["256", null],
      ["99999999999999999999", null],
      ["0000000000000000000001", 1],
    ];
    for (const [v, want] of cases) {
      assert.equal(parseProgress(v), want, v);
      const r = parse(`state=working:progress=${v}`);
      if (r.type === "report") assert.equal(r.report.progress, want, v);
      else assert.equal(want, null, v); // `+` etc. may make the pair malformed: absent either way
    }
    assert.equal(report("state=working:progress=50:progress=101").progress, null); // D9
    assert.equal(report("state=blocked:progress=30").progress, 30);
    for (const s of ["idle", "done", "error"]) assert.equal(report(`state=${s}:progress=50`).progress, null);
  });
  test("app: bad characters read as absent; over 32 bytes discards (D10)", () => {
    assert.equal(report("state=idle:app=claude-code").app, "claude-code");
    assert.equal(report("state=idle:app=a,b").app, null);
    assert.equal(report("state=idle:app=a/b").app, null);
    assert.equal(report("state=idle:app=a=b").app, null);
    assert.equal(report(`state=idle:app=${"a".repeat(L.MAX_APP_BYTES)}`).app, "a".repeat(32));
    assert.equal(reason(`state=idle:app=${"a".repeat(L.MAX_APP_BYTES + 1)}`), "value-too-long");
    // D2: the length check comes before the charset check.
    assert.equal(reason(`state=idle:app=${"!".repeat(L.MAX_APP_BYTES + 1)}`), "value-too-long");
    // Limits apply to every occurrence, even an overridden one (§3).
    assert.equal(reason(`state=idle:app=${"a".repeat(33)}:app=ok`), "value-too-long");
  });
});

describe("title and msg (§2.5, D3, D16)", () => {
  test("decoded UTF-8 text, emoji, CJK, bidi and invisible characters pass", () => {
    for (const s of ["héllo", "中文", "🎉 done", "a\u00a0b", "zero\u200bwidth", "\u2028", "\u202eevil"]) {
      assert.equal(report(`state=done:msg=${b64(s)}`).msg, s);
      assert.equal(report(`state=done:title=${b64(s)}`).title, s);
    }
  });
  test("bad base64 discards", () => {
    for (const v of ["a", "YR==", "aG=k", "YQ==YQ==", "YQ=a", "YQ===", "a-b_"]) {
      assert.equal(reason(`state=done:msg=${v}`), "bad-base64", v);
    }
  });
  test("every occurrence must be valid (D3)", () => {
    assert.equal(reason("state=done:msg=a:msg=SGk="), "bad-base64");
    assert.equal(reason("state=done:title=a:title=SGk="), "bad-base64");
  });
  test("invalid UTF-8 discards (overlong, truncated, surrogate)", () => {
    for (const bytes of [[0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xff], [0xf4, 0x90, 0x80, 0x80]]) {
      assert.equal(reason(`state=done:msg=${encodeBase64(new Uint8Array(bytes))}`), "bad-utf8", String(bytes));
    }
  });
  test("control characters in decoded text discard (C0, DEL, C1)", () => {
    for (const c of ["\t", "\n", "\r", "\u001b", "\u0000", "\u007f", "\u0080", "\u009f"]) {
      assert.equal(reason(`state=done:msg=${b64("a" + c + "b")}`), "control-char", JSON.stringify(c));
      assert.equal(reason(`state=done:title=${b64(c)}`), "control-char", JSON.stringify(c));
    }
    assert.equal(report(`state=done:msg=${b64("a\u00a0b")}`).msg, "a\u00a0b"); // U+00A0 is not C1
  });
  test("a UTF-8 BOM is text, not stripped", () => {
    assert.equal(report(`state=done:msg=${b64("\ufeffx")}`).msg, "\ufeffx");
  });
  test("title limits: 256 encoded / 192 decoded", () => {
    assert.equal(report(`state=idle:title=${b64("t".repeat(L.MAX_TITLE_DECODED_BYTES))}`).title?.length, 192);
    assert.equal(reason(`state=idle:title=${b64("t".repeat(L.MAX_TITLE_DECODED_BYTES + 1))}`), "value-too-long");
    assert.equal(report(`state=idle:title=${"QUFB".repeat(L.MAX_TITLE_ENCODED_BYTES / 4)}`).title?.length, 192);
    assert.equal(reason(`state=idle:title=${"QUFB".repeat(L.MAX_TITLE_ENCODED_BYTES / 4)}Q`), "value-too-long");
  });
  test("msg limits: 2732 encoded / 2048 decoded; 2049 bytes encode to exactly 2732 chars and are rejected", () => {
    assert.equal(report(`state=idle:msg=${b64("m".repeat(L.MAX_MSG_DECODED_BYTES))}`).msg?.length, 2048);
    const over = b64("m".repeat(L.MAX_MSG_DECODED_BYTES + 1));
    assert.equal(over.length, L.MAX_MSG_ENCODED_BYTES);
    assert.equal(reason(`state=idle:msg=${over}`), "text-too-long");
    assert.equal(reason(`state=idle:msg=${"A".repeat(L.MAX_MSG_ENCODED_BYTES + 1)}`), "value-too-long");
    // Encoded length is checked before decoding: even junk over the limit is a length breach.
    assert.equal(reason(`state=idle:msg=${"!".repeat(L.MAX_MSG_ENCODED_BYTES + 1)}`), "value-too-long");
  });
  test("msg with multibyte text at the decoded limit", () => {
    const s = "é".repeat(L.MAX_MSG_DECODED_BYTES / 2);
    assert.equal(report(`state=idle:msg=${b64(s)}`).msg, s);
    assert.equal(reason(`state=idle:msg=${b64(s + "x")}`), "text-too-long");
  });
});

describe("id (§2.6, D1)", () => {
  test("valid ids", () => {
    for (
      const id of [
        "a",
        "task_1.a",
        "plan-2",
        "paused+3",
        "bg4",
        "us-east/upload",
        "a/b/c/d/e/f/g/h",
        "..",
        "a/../b",
        "x".repeat(L.MAX_ID_SEGMENT_BYTES),
        Array(4).fill("y".repeat(31)).join("/"), /* 127 bytes */
      ]
    ) {
      assert.equal(report(`state=working:id=${id}`).id, id, id);
    }
  });
  test("ids at the byte limit", () => {
    const seg = "a".repeat(L.MAX_ID_SEGMENT_BYTES);
    const exact = [seg, seg, seg, "b".repeat(L.MAX_ID_BYTES - 3 * 33)].join("/");
    assert.equal(exact.length, L.MAX_ID_BYTES);
    assert.equal(report(`state=idle:id=${exact}`).id, exact);
    assert.equal(reason(`state=idle:id=${exact}a`), "value-too-long");
  });
  test("invalid ids reject the report, never falling back to the root", () => {
    const bad = [
      "/",
      "//",
      "/a",
      "a/",
      "a//b",
      "a,b",
      "a=b",
      "a/b,c",
      "x".repeat(33),
      "a/b/c/d/e/f/g/h/i",
      "bad!",
      "bad name",
      "é",
      "🎉",
    ];
    for (const id of bad) assert.equal(reason(`state=working:id=${id}`), "bad-id", id);
    assert.equal(reason("state=clear:id=bad!"), "bad-id"); // D1: clears nothing
  });
  test("every id occurrence must be valid", () => {
    assert.equal(reason("state=idle:id=bad!:id=ok"), "bad-id");
    assert.equal(report("state=idle:id=a:id=b").id, "b");
  });
  test("discard beats ignore: a bad msg after a bad id still reads as discarded", () => {
    const r = parse("state=idle:id=bad!:msg=a");
    assert.equal(r.type === "rejected" && r.disposition, "discarded");
  });
});

describe("clear", () => {
  test("carries only its id; other keys are validated", () => {
    assert.deepEqual(report("state=clear:id=a:app=x:msg=SGk=:progress=5"), rep({ state: "clear", id: "a" }));
    assert.deepEqual(report("state=clear"), rep({ state: "clear" }));
    assert.equal(reason("state=clear:id=a:msg=a"), "bad-base64");
  });
});

describe("limits (§3, D2, D7)", () => {
  test("key length: 16 is fine, 17 discards (any key)", () => {
    assert.equal(report(`state=idle:${"k".repeat(L.MAX_KEY_BYTES)}=1`).state, "idle");
    assert.equal(reason(`state=idle:${"k".repeat(L.MAX_KEY_BYTES + 1)}=1`), "key-too-long");
    assert.equal(reason(`state=idle:${"K".repeat(L.MAX_KEY_BYTES + 1)}=1`), "key-too-long"); // malformed keys too
    // A pair without `=` has no key: it is only malformed.
    assert.equal(report(`state=idle:${"k".repeat(40)}`).state, "idle");
  });
  test("whole sequence: 4096 bytes counting the real terminator (D7)", () => {
    const pad = (n: number) => `state=idle:x=${"a".repeat(n - "state=idle:x=".length)}`;
    // ST: 7 + 4087 + 2 = 4096
    assert.equal(report(pad(MAX_BODY_BYTES_ST), "st").state, "idle");
    assert.equal(reason(pad(MAX_BODY_BYTES_ST + 1), "st"), "sequence-too-long");
    // BEL: 7 + 4088 + 1 = 4096
    assert.equal(report(pad(L.MAX_BODY_BYTES_BEL), "bel").state, "idle");
    assert.equal(reason(pad(L.MAX_BODY_BYTES_BEL + 1), "bel"), "sequence-too-long");
  });
  test("limits are named after the spec", () => {
    assert.equal(L.MAX_SEQUENCE_BYTES, 4096);
    assert.equal(MAX_BODY_BYTES_ST, 4087);
    assert.equal(L.MAX_BODY_BYTES_BEL, 4088);
    assert.equal(L.MAX_RECORDS, 256);
  });
});

describe("raw controls in the body (D4)", () => {
  test("a raw C0 byte makes its pair malformed and is flagged", () => {
    const r = parse("state=working:app=ca\x01rgo:progress=3");
    assert.equal(r.type, "report");
    if (r.type !== "report") return;
    assert.deepEqual(r.report, rep({ state: "working", progress: 3 }));
    assert.ok(r.notes.some((n) => n.code === "raw-control"));
    assert.equal(reason("state=wor\x01king"), "no-state");
  });
  test("0x9c is payload, not a terminator (D6)", () => {
    assert.equal(reason(new Uint8Array([...te.encode("state=idle"), 0x9c])), "no-state");
  });
});

describe("query (§5, D14, D15, D21)", () => {
  test("exact `?` is the query; the reply mirrors the terminator", () => {
    const st = parse("?", "st");
    assert.equal(st.type, "query");
    assert.deepEqual(st.type === "query" && [...st.reply], [...te.encode("\x1b]7501;?\x1b\\")]);
    const bel = parse("?", "bel");
    assert.deepEqual(bel.type === "query" && [...bel.reply], [...te.encode("\x1b]7501;?\x07")]);
  });
  test("near-queries are not queries", () => {
    for (const body of ["??", "? ", " ?", "?=", "?x", "state=?", ""]) assert.notEqual(parse(body).type, "query", body);
    assert.notEqual(parse("state=idle:?").type, "query");
    assert.notEqual(parse("?:state=idle").type, "query");
  });
  test("program side: `?` and `?:…` replies mean supported", () => {
    assert.deepEqual(parseQueryReplyBody(te.encode("?")), { capabilities: {} });
    assert.deepEqual(parseQueryReplyBody(te.encode("?:future=1")), { capabilities: { future: "1" } });
    assert.deepEqual(parseQueryReplyBody(te.encode("?:version=2:x=y:junk")), {
      capabilities: { version: "2", x: "y" },
    });
    assert.equal(parseQueryReplyBody(te.encode("?x")), null);
    assert.equal(parseQueryReplyBody(te.encode("state=idle")), null);
  });
});

describe("a body whose fields are split by ';'", () => {
  test("is rejected with the reason it was not read", () => {
    for (const body of ["state=blocked;kind=permission", "state=working;msg=eA=="]) {
      const r = parseBody(new TextEncoder().encode(body), "st");
      assert.equal(r.type, "rejected", body);
      assert.match((r as { detail: string }).detail, /fields are separated by ":", not ";"/, body);
    }
    const plain = parseBody(new TextEncoder().encode("kind=permission"), "st");
    assert.doesNotMatch((plain as { detail: string }).detail, /separated/);
  });
});
