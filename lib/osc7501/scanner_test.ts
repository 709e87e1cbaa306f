// The scanner must give the same events however the input is split into reads
// (xterm.js's "split to single char input", RoyalTerminal's
// ReportsAndQueriesSurviveEveryInputSplit). Every explicit case below is also fed
// split at every byte offset, and fast-check composes random streams and random
// chunkings. Sections and decisions (§3, D4–D7): docs/osc7501.md.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ScanEvent, Scanner } from "./scanner.ts";
import { scanAll } from "../testkit.ts";

const te = new TextEncoder();
const td = new TextDecoder();
const bytes = (s: string) => te.encode(s);

/** Events rendered as comparable plain values (bytes as UTF-8 text unless told otherwise). */
function show(evs: ScanEvent[], text = (b: Uint8Array) => td.decode(b)): unknown[] {
  return evs.map((e) => {
    switch (e.type) {
      case "osc7501":
        return { type: e.type, body: text(e.body), t: e.terminator, end: e.end, depth: e.depth };
      case "osc7501-error":
        return { type: e.type, reason: e.reason, raw: text(e.raw), end: e.end, depth: e.depth };
      case "osc133":
      case "osc9":
        return { type: e.type, payload: e.payload, end: e.end, depth: e.depth };
      case "ris":
        return { type: e.type, end: e.end, depth: e.depth };
    }
  });
}

function scanChunks(chunks: Uint8Array[]): unknown[] {
  const out: ScanEvent[] = [];
  const s = new Scanner((e) => out.push(e));
  for (const c of chunks) s.feed(c);
  s.end();
  return show(out);
}

/** Asserts that splitting at every single offset, and into single bytes, changes nothing. */
function assertSplitInvariant(input: Uint8Array): unknown[] {
  const whole = show(scanAll(input));
  for (let k = 0; k <= input.length; k++) {
    assert.deepEqual(scanChunks([input.subarray(0, k), input.subarray(k)]), whole, `split at ${k}`);
  }
  assert.deepEqual(scanChunks([...input].map((b) => new Uint8Array([b]))), whole, "single bytes");
  return whole;
}

const brief = (evs: unknown[]) =>
  evs.map((e) => {
    const { end: _e, depth: _d, ...rest } = e as Record<string, unknown>;
    return rest;
  });

const CASES: [string, string, unknown[]][] = [
  ["ST terminator", "a\x1b]7501;state=working\x1b\\b", [{ type: "osc7501", body: "state=working", t: "st" }]],
  ["BEL terminator", "\x1b]7501;state=idle\x07", [{ type: "osc7501", body: "state=idle", t: "bel" }]],
  ["query", "\x1b]7501;?\x1b\\", [{ type: "osc7501", body: "?", t: "st" }]],
  ["empty body", "\x1b]7501;\x07", [{ type: "osc7501", body: "", t: "bel" }]],
  ["two reports back to back", "\x1b]7501;state=working\x07\x1b]7501;state=done\x1b\\", [{
    type: "osc7501",
    body: "state=working",
    t: "bel",
  }, { type: "osc7501", body: "state=done", t: "st" }]],
  [
    "not this protocol: 07501, 75010, 750, 75",
    "\x1b]07501;state=idle\x07\x1b]75010;state=idle\x07\x1b]750;state=idle\x07\x1b]75;x\x07",
    [],
  ],
  ["no separator", "\x1b]7501\x07\x1b]7501\x1b\\", [
    { type: "osc7501-error", reason: "missing-separator", raw: "\x1b]7501" },
    { type: "osc7501-error", reason: "missing-separator", raw: "\x1b]7501" },
  ]],
  ["CAN aborts (D4 does not apply)", "\x1b]7501;state=idle\x18\x1b]7501;state=done\x07", [
    { type: "osc7501-error", reason: "aborted-by-can", raw: "\x1b]7501;state=idle" },
    { type: "osc7501", body: "state=done", t: "bel" },
  ]],
  ["SUB aborts", "\x1b]7501;state=idle\x1a", [{
    type: "osc7501-error",
    reason: "aborted-by-sub",
    raw: "\x1b]7501;state=idle",
  }]],
  [
    "ESC not followed by \\ aborts and starts a new sequence (D5)",
    "\x1b]7501;state=working\x1b]7501;state=idle\x1b\\",
    [
      { type: "osc7501-error", reason: "aborted-by-esc", raw: "\x1b]7501;state=working" },
      { type: "osc7501", body: "state=idle", t: "st" },
    ],
  ],
  ["ESC c inside a 7501 body aborts it and is a RIS", "\x1b]7501;state=working\x1bc", [
    { type: "osc7501-error", reason: "aborted-by-esc", raw: "\x1b]7501;state=working" },
    { type: "ris" },
  ]],
  ["other C0 stays in the body (D4)", "\x1b]7501;state=wor\x01king\r\n\x07", [{
    type: "osc7501",
    body: "state=wor\x01king\r\n",
    t: "bel",
  }]],
  ["unterminated at end of input", "\x1b]7501;state=working", [{
    type: "osc7501-error",
    reason: "unterminated",
    raw: "\x1b]7501;state=working",
  }]],
  ["RIS", "x\x1bcy", [{ type: "ris" }]],
  ["ESC c only as a bare escape: not in CSI, DCS or OSC", "\x1b[c\x1bPc\x1b\\\x1b]0;\x1bc", [{ type: "ris" }]],
  ["OSC 133 marks", "\x1b]133;A\x07\x1b]133;B\x1b\\\x1b]133;A;k=r\x07\x1b]133;D;0\x07", [
    { type: "osc133", payload: "A" },
    { type: "osc133", payload: "B" },
    { type: "osc133", payload: "A;k=r" },
    { type: "osc133", payload: "D;0" },
  ]],
  ["OSC 9 payloads", "\x1b]9;4;1;50\x07\x1b]9;Hello\x1b\\", [{ type: "osc9", payload: "4;1;50" }, {
    type: "osc9",
    payload: "Hello",
  }]],
  ["titles and other OSCs are skipped", "\x1b]0;title\x07\x1b]2;t\x1b\\\x1b]8;;http://x\x07\x1b]52;c;YQ==\x07", []],
  [
    "DCS/APC/PM/SOS payloads are skipped (BEL does not end them)",
    "\x1bP1$r\x07]7501;state=idle\x07c\x1b\\\x1b_\x07c\x1b\\\x1bX\x07\x1b\\\x1b^c\x1b\\",
    [],
  ],
  ["an ESC inside a DCS ends it, as in the DEC state machine", "\x1bPq\x1b]7501;state=idle\x07", [{
    type: "osc7501",
    body: "state=idle",
    t: "bel",
  }]],
  ["a report right after a DCS ends", "\x1bPqdata\x1b\\\x1b]7501;state=done\x07", [{
    type: "osc7501",
    body: "state=done",
    t: "bel",
  }]],
  ["CSI parameters never hide a report", "\x1b[38;2;1;2;3m\x1b]7501;state=idle\x07\x1b[?1049h", [{
    type: "osc7501",
    body: "state=idle",
    t: "bel",
  }]],
  ["tmux passthrough is unwrapped", "\x1bPtmux;\x1b\x1b]7501;state=blocked\x1b\x1b\\\x1b\\", [{
    type: "osc7501",
    body: "state=blocked",
    t: "st",
  }]],
  ["tmux passthrough with BEL inside", "\x1bPtmux;\x1b\x1b]7501;state=done\x07\x1b\\", [{
    type: "osc7501",
    body: "state=done",
    t: "bel",
  }]],
  [
    "two levels of tmux passthrough",
    "\x1bPtmux;\x1b\x1bPtmux;\x1b\x1b\x1b\x1b]7501;state=idle\x1b\x1b\x1b\x1b\\\x1b\x1b\\\x1b\\",
    [{ type: "osc7501", body: "state=idle", t: "st" }],
  ],
  ["an unfinished report inside passthrough is dropped when it ends", "\x1bPtmux;\x1b\x1b]7501;state=idle\x1b\\x", [{
    type: "osc7501-error",
    reason: "unterminated",
    raw: "\x1b]7501;state=idle",
  }]],
  ["8-bit C1 is payload (D6)", "\x9d7501;state=idle\x9c\x1b]7501;state=x\x9cy\x07", [{
    type: "osc7501",
    body: "state=x\x9cy",
    t: "bel",
  }]],
];

describe("scanner cases (each also split at every byte)", () => {
  for (const [name, input, want] of CASES) {
    test(name, () => {
      // Inputs holding 8-bit C1 bytes are written one byte a character (latin1), not as UTF-8.
      const latin1 = input.includes("\x9c") || input.includes("\x9d");
      const raw = latin1 ? new Uint8Array([...input].map((c) => c.charCodeAt(0))) : bytes(input);
      const got = assertSplitInvariant(raw);
      // A body holding a 0x9c byte is compared byte for byte (UTF-8 decoding would replace it).
      assert.deepEqual(brief(latin1 ? show(scanAll(raw), (b) => String.fromCharCode(...b)) : got), want);
    });
  }
});

describe("offsets and depth", () => {
  test("end offsets point just past the terminator", () => {
    const evs = scanAll(bytes("ab\x1b]7501;state=idle\x07cd\x1b]7501;x=1\x1b\\"));
    assert.deepEqual(evs.map((e) => e.end), [20, 34]);
  });
  test("depth counts passthrough levels", () => {
    const evs = scanAll(bytes("\x1bPtmux;\x1b\x1b]7501;state=idle\x07\x1b\\\x1b]7501;state=done\x07"));
    assert.deepEqual(evs.map((e) => e.depth), [1, 0]);
  });
});

describe("limits in the stream (§3, D7)", () => {
  const intro = "\x1b]7501;";
  const body = (n: number) => "state=idle:x=" + "a".repeat(n - 13);
  test("4096 bytes with ST is a report; 4097 is too long", () => {
    assert.equal(scanAll(bytes(intro + body(4087) + "\x1b\\"))[0].type, "osc7501");
    const over = scanAll(bytes(intro + body(4088) + "\x1b\\"));
    assert.equal(over[0].type === "osc7501-error" && over[0].reason, "sequence-too-long");
  });
  test("4096 bytes with BEL is a report; 4097 is too long", () => {
    assert.equal(scanAll(bytes(intro + body(4088) + "\x07"))[0].type, "osc7501");
    const over = scanAll(bytes(intro + body(4089) + "\x07"));
    assert.equal(over[0].type === "osc7501-error" && over[0].reason, "sequence-too-long");
  });
  test("a huge sequence is dropped with bounded memory and scanning resumes", () => {
    const huge = bytes(intro + "state=idle:x=" + "a".repeat(1_000_000) + "\x07" + intro + "state=done\x07");
    const evs = scanAll(huge);
    assert.equal(evs.length, 2);
    assert.equal(evs[0].type === "osc7501-error" && evs[0].truncated, true);
    assert.equal(evs[0].type === "osc7501-error" && evs[0].raw.length <= 4096, true);
    assert.equal(evs[1].type, "osc7501");
  });
});

// Fragments that exercise every state, including ones that interact across boundaries.
const FRAGMENTS = [
  "plain text ",
  "\r\n",
  "中文",
  "\x1b[1;31m",
  "\x1b[?2026h",
  "\x1b[2K",
  "\x1b7",
  "\x1b(B",
  "\x1b]7501;state=working:progress=40\x1b\\",
  "\x1b]7501;state=idle\x07",
  "\x1b]7501;?\x1b\\",
  "\x1b]7501;state=blocked:kind=permission:msg=SGk=\x07",
  "\x1b]7501;",
  "state=",
  "\x07",
  "\x1b\\",
  "\x1b",
  "\x1b]133;A\x07",
  "\x1b]133;B\x07",
  "\x1b]9;4;1;20\x07",
  "\x1b]0;title\x07",
  "\x1bc",
  "\x18",
  "\x1a",
  "\x1bPtmux;\x1b\x1b]7501;state=done\x1b\x1b\\\x1b\\",
  "\x1bPq#0;2;0;0;0\x1b\\",
  "\x1b_apc\x1b\\",
  "\x1b]",
  "7501",
  ";",
];

describe("split invariance (property)", () => {
  test("random streams, random chunkings: same events as one read", () => {
    const stream = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6 })), { maxLength: 40 })
      .map((parts) => bytes(parts.join("")));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 12 }), (input, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(input.subarray(prev, p));
          prev = p;
        }
        chunks.push(input.subarray(prev));
        assert.deepEqual(scanChunks(chunks), show(scanAll(input)));
      }),
      { numRuns: 400 },
    );
  });
  test("random bytes never throw and are split-invariant", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), (input, cut) => {
        const k = cut % (input.length + 1);
        assert.deepEqual(scanChunks([input.subarray(0, k), input.subarray(k)]), show(scanAll(input)));
      }),
      { numRuns: 400 },
    );
  });
});
