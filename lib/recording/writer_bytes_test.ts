// The recorder's byte path (issue 25): output escaped straight from the bytes read must
// be the very lines the string path writes (JSON.stringify of the decoded text), and the
// UTF-8 check that picks the path must agree with a fatal TextDecoder.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { AsciicastWriter } from "./asciicast.ts";
import { isUtf8 } from "./utf8.ts";
import type { Event } from "./model.ts";

const te = new TextEncoder();
const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Text with everything JSON escapes or might: controls, quotes, backslashes, DEL, U+2028, a BOM, astral characters. */
const text = fc.array(
  fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
    fc.constantFrom(
      '"',
      "\\",
      "\x7f",
      "\u2028",
      "\u2029",
      "\ufeff",
      "é",
      "─",
      "😀",
      "\x1b[31m",
      "\r\n",
      "\u0085",
      // The C1 controls and bidi formatting characters both paths write as \u escapes.
      "\u0080",
      "\u009b",
      "\u009f",
      "\u00a0",
      "\u061c",
      "\u061b",
      "\u200e",
      "\u200f",
      "\u2010",
      "\u202a",
      "\u202e",
      "\u202f",
      "\u2066",
      "\u2069",
      "\u206a",
    ),
  ),
  { maxLength: 30 },
).map((parts) => parts.join(""));

/** Bytes: mostly valid UTF-8 (cut anywhere, so characters straddle reads), sometimes not. */
const bytes = fc.oneof(
  { weight: 4, arbitrary: text.map((s) => te.encode(s)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.array(fc.constantFrom(0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0x41), { maxLength: 12 }).map((
      a,
    ) => new Uint8Array(a)),
  },
);

function written(events: Event[], version: 2 | 3, withBytes: boolean): Uint8Array {
  const out: number[] = [];
  const sink = withBytes
    ? { write: (s: string) => out.push(...te.encode(s)), writeBytes: (b: Uint8Array) => out.push(...b) }
    : { write: (s: string) => out.push(...te.encode(s)) };
  const w = new AsciicastWriter(sink, version);
  for (const e of events) w.event(e);
  w.end(events.at(-1)?.t ?? 0);
  return new Uint8Array(out);
}

describe("asciicast writer: lines made from the bytes equal lines made from the text", () => {
  test("random reads (valid, split mid-character, invalid), output and input, v2 and v3", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), bytes), { maxLength: 25 }),
        fc.constantFrom(2 as const, 3 as const),
        (reads, version) => {
          const events: Event[] = reads.map(([output, b], i) =>
            output ? { t: i / 10, kind: "output", bytes: b } : { t: i / 10, kind: "input", bytes: b }
          );
          assert.deepEqual(written(events, version, true), written(events, version, false));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("every byte value alone and in pairs", () => {
    for (let c = 0; c < 256; c++) {
      for (const b of [[c], [c, 0x41], [0x22, c, 0x5c]]) {
        const events: Event[] = [{ t: 0, kind: "output", bytes: new Uint8Array(b) }];
        assert.deepEqual(written(events, 3, true), written(events, 3, false), `bytes ${b}`);
      }
    }
  });
});

describe("asciicast writer: nothing in a line steers a terminal it is printed to", () => {
  test("C1 controls and bidi formatting characters are written as \\u escapes, and read back the same", () => {
    const quiet = ["\u0080", "\u009b", "\u009d", "\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069"];
    const textOut = `a${quiet.join("b")}z`;
    for (const withBytes of [true, false]) {
      const out = written(
        [{ t: 0, kind: "output", bytes: te.encode(textOut) }, {
          t: 1,
          kind: "marker",
          label: `m${quiet.join("")}`,
        }],
        3,
        withBytes,
      );
      const text = new TextDecoder().decode(out);
      for (const q of quiet) assert.ok(!text.includes(q), `${withBytes}: U+${q.charCodeAt(0).toString(16)} raw`);
      const lines = text.trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(lines[0][2], textOut);
      assert.equal(lines[1][2], `m${quiet.join("")}`);
    }
  });
});

describe("isUtf8 agrees with a fatal TextDecoder", () => {
  const decodes = (b: Uint8Array) => {
    try {
      fatal.decode(b);
      return true;
    } catch {
      return false;
    }
  };
  test("random bytes, weighted towards lead and continuation bytes and the edges of the ranges", () => {
    const edgy = fc.constantFrom(
      0x00,
      0x7f,
      0x80,
      0x8f,
      0x90,
      0x9f,
      0xa0,
      0xbf,
      0xc0,
      0xc1,
      0xc2,
      0xdf,
      0xe0,
      0xed,
      0xee,
      0xef,
      0xf0,
      0xf4,
      0xf5,
      0xff,
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(edgy, fc.integer({ min: 0, max: 255 })), { maxLength: 16 }), (a) => {
        const b = new Uint8Array(a);
        assert.equal(isUtf8(b), decodes(b), `bytes ${a}`);
      }),
      { numRuns: 20000 },
    );
  });
  test("text of every kind encodes to valid UTF-8", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (s) => assert.ok(isUtf8(te.encode(s)))));
  });
});
