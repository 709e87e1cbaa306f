// The byte-level asciicast event reader (event_line.ts + ByteLineReader) against the text
// reader it replaced (readEventsText: every line decoded and JSON.parse'd): the same
// events, warnings and errors on any file cut into any blocks, and the same text for
// every consumer of the events (a writer's Utf8Chunker, the tail).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type EventClock, readEvents, readEventsText } from "./asciicast_common.ts";
import { fastEventLine } from "./event_line.ts";
import { v3Clock } from "./asciicast_v3.ts";
import { v2Clock } from "./asciicast_v2.ts";
import type { Event } from "./model.ts";
import { Utf8Chunker } from "./utf8.ts";
import { concat } from "./source.ts";
import { IncrementalTail } from "../screen/tail.ts";

const RUNS = Number(process.env.PSTLAB_FUZZ_RUNS ?? 150);
const te = new TextEncoder();
const FILE = "f.cast";

/**
 * The bytes in blocks cut at `cuts`, each block in one reused buffer as a file source
 * gives them (a reader that keeps a view of a block past the next one reads garbage).
 */
async function* blocks(bytes: Uint8Array, cuts: number[]): AsyncIterable<Uint8Array> {
  const buf = new Uint8Array(bytes.length);
  let at = 0;
  for (const c of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    if (c <= at) continue;
    buf.fill(0x5a);
    buf.set(bytes.subarray(at, c));
    yield buf.subarray(0, c - at);
    at = c;
  }
}

type Reader = typeof readEvents;

/** What a reader gives: events (with the text its consumers see), warnings, and the error. */
async function outcome(read: Reader, bytes: Uint8Array, cuts: number[], v2: boolean) {
  const warnings: string[] = [];
  const clock: EventClock = v2 ? v2Clock(FILE, warnings) : v3Clock();
  const events: unknown[] = [];
  let error: string | null = null;
  const tail = new IncrementalTail(64);
  const rows: string[][] = [];
  try {
    for await (const e of read(FILE, blocks(bytes, cuts), clock, warnings)) {
      events.push(e.kind === "output" || e.kind === "input" ? { ...e, seen: seen(e) } : e);
      if (e.kind === "output") {
        tail.push(e.bytes);
        rows.push(tail.rows());
      }
    }
  } catch (e) {
    error = `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
  return { events, warnings, error, rows };
}

/** The text a writer (Utf8Chunker) takes for an event's bytes: the reader's string when it left one. */
function seen(e: Event & { bytes: Uint8Array }) {
  const p = new Utf8Chunker().push(e.bytes);
  return { text: p.text, exact: p.exact };
}

// ---- generators

const ws = fc.array(fc.constantFrom(" ", "\t", "\r", "  "), { maxLength: 2 }).map((a) => a.join(""));
const hex4 = (u: number, upper: boolean) => {
  const h = u.toString(16).padStart(4, "0");
  return upper ? h.toUpperCase() : h;
};

/** A piece of a JSON string body, as bytes: raw text, every escape, stray bytes. */
const strPiece: fc.Arbitrary<Uint8Array> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }).map((s) => te.encode(JSON.stringify(s).slice(1, -1))),
  },
  {
    weight: 2,
    arbitrary: fc.string({ unit: "binary", maxLength: 4 }).map((s) => te.encode(s.replace(/["\\\x00-\x1f]/g, ""))),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom('\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t").map((s) => te.encode(s)),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.boolean()).map(([u, up]) =>
      te.encode(`\\u${hex4(u, up)}`)
    ),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.integer({ min: 0xd800, max: 0xdbff }),
      fc.integer({ min: 0xdc00, max: 0xdfff }),
      fc.boolean(),
    )
      .map(([h, l, up]) => te.encode(`\\u${hex4(h, up)}\\u${hex4(l, up)}`)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("\\u001b[2K", "\\u001B]7501;state=idle\\u0007", "\\uFEFF", "\uFEFF").map((s) =>
      te.encode(s)
    ),
  },
  // Malformed: invalid UTF-8, raw control characters, bad escapes, a quote, a cut escape.
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 3 }).map((b) => b.map((x) => x | 0x80)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("\x00", "\x1b", "\t", "\x7f", "\\x", "\\u12", "\\uZZZZ", '"', "\\", "\\U0041").map((s) =>
      te.encode(s)
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom([0xed, 0xa0, 0x80], [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xef, 0xbb, 0xbf], [
      0xe2,
      0x82,
    ]).map((a) => new Uint8Array(a)),
  },
);

const jsonString = fc.array(strPiece, { maxLength: 8 }).map((ps) => concat([te.encode('"'), ...ps, te.encode('"')]));

const number = fc.oneof(
  fc.double({ min: 0, max: 1e7, noNaN: true }).map(String),
  fc.nat({ max: 100000 }).map((n) => (n / 1000).toFixed(3)),
  fc.tuple(fc.nat(999), fc.nat(999999), fc.integer({ min: -30, max: 30 }), fc.constantFrom("e", "E", "e+", "E-"))
    .map(([a, b, e, s]) => `${a}.${b}${s}${Math.abs(e)}`),
  fc.stringMatching(/^-?[0-9]{1,25}(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?$/),
  fc.constantFrom(
    "0",
    "-0",
    "-1",
    "1e400",
    "1e308",
    "-0.0",
    "01",
    ".5",
    "1.",
    "1e",
    "+1",
    "0x10",
    "Infinity",
    "NaN",
    '"1"',
    "null",
    "1E-400",
    "9007199254740993",
    "0.1234567890123456789",
    "9999999999999999e-15",
    "1.7976931348623157e308",
  ),
);

const code = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('"o"', '"i"') },
  { weight: 1, arbitrary: fc.constantFrom('"m"', '"x"', '"r"', '"z"', '"\\u006f"', '""', '"oo"', "1", '"b"') },
);

/** An event line's bytes: mostly well-formed `o`/`i` lines, with every kind of damage. */
const eventLine: fc.Arbitrary<Uint8Array> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.tuple(ws, ws, number, ws, ws, code, ws, ws, jsonString, ws, ws, ws).map((
      [a, b, n, c, d, k, e, f, s, g, h, i],
    ) => concat([te.encode(`${a}[${b}${n}${c},${d}${k}${e},${f}`), s, te.encode(`${g}]${h}`), te.encode(i)])),
  },
  // A `b` event (valid base64 of random bytes, or not), then usually its `o`.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.uint8Array({ maxLength: 6 }), fc.boolean()).map(([b, ok]) =>
      te.encode(`[0.5, "b", "${ok ? btoa(String.fromCharCode(...b)) : "!!"}"]`)
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '[1, "r", "80x24"]',
      '[1, "m", "truth:idle"]',
      '[1, "x", "0"]',
      '[1, "x", 2]',
      '[1, "r", "0x0"]',
      '[1, "zz", {"a": 1}]',
    ).map((s) => te.encode(s)),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(number, jsonString).map(([n, s]) => concat([te.encode(`[${n}, "o", `), s, te.encode(`, 5]`)])),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(number, jsonString).map(([n, s]) => concat([te.encode(`[${n}, "o"`), s, te.encode(`]`)])),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", "# a comment", "#", "[]", "[1]", "{}", '[1, "o"]', "garbage", '\uFEFF[1, "o", "x"]')
      .map((s) => te.encode(s)),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 12 }) },
);

/** The line, or a damaged copy: cut (a recorder killed mid-write), one byte changed, one byte gone. */
const maybeCut = fc.tuple(
  eventLine,
  fc.nat(),
  fc.nat(9),
  fc.constantFrom(0x5d, 0x7d, 0x2c, 0x22, 0x5c, 0x20, 0x00, 0x80, 0x31, 0x65),
)
  .map(([l, at, p, byte]) => {
    const k = at % (l.length + 1);
    if (p === 0) return l.subarray(0, k);
    if (p === 1 && k < l.length) return concat([l.subarray(0, k), new Uint8Array([byte]), l.subarray(k + 1)]);
    if (p === 2) return concat([l.subarray(0, k), l.subarray(k + 1)]);
    return l;
  });

const HEADER = {
  v3: te.encode('{"version": 3, "term": {"cols": 80, "rows": 24}}'),
  v2: te.encode('{"version": 2, "width": 80, "height": 24}'),
};

/** A whole file: header, lines ending in "\n" or "\r\n", the last one maybe unterminated. */
const castFile = fc.tuple(
  fc.array(fc.tuple(maybeCut, fc.constantFrom("\n", "\n", "\r\n")), { maxLength: 10 }),
  maybeCut,
  fc.boolean(),
  fc.boolean(),
).map(([ls, last, v2, bom]) => ({
  v2,
  bytes: concat([
    bom ? new Uint8Array([0xef, 0xbb, 0xbf]) : new Uint8Array(0),
    v2 ? HEADER.v2 : HEADER.v3,
    te.encode("\n"),
    ...ls.flatMap(([l, end]) => [l, te.encode(end)]),
    last,
  ]),
}));

async function same(bytes: Uint8Array, cuts: number[], v2: boolean, want?: Awaited<ReturnType<typeof outcome>>) {
  want ??= await outcome(readEventsText, bytes, [], v2);
  const got = await outcome(readEvents, bytes, cuts, v2);
  assert.deepEqual(got, want, `file ${JSON.stringify(new TextDecoder().decode(bytes))} cut at ${cuts}`);
}

describe("byte-level asciicast event reader", () => {
  test("same events, warnings and errors as the text reader, in any blocks (property)", async () => {
    await fc.assert(
      fc.asyncProperty(castFile, fc.array(fc.nat(), { maxLength: 6 }), async ({ bytes, v2 }, cuts) => {
        const want = await outcome(readEventsText, bytes, [], v2);
        await same(bytes, cuts, v2, want);
        // Small files: cut in two at every offset.
        if (bytes.length <= 160) { for (let k = 1; k < bytes.length; k++) await same(bytes, [k], v2, want); }
      }),
      { numRuns: RUNS },
    );
  });

  test("one damaged event line: the same event or the same error as the text reader (property)", async () => {
    const goodLine = fc.tuple(ws, number, ws, fc.constantFrom('"o"', '"i"'), ws, jsonString, ws).map((
      [a, n, b, k, c, s, d],
    ) => concat([te.encode(`${a}[${n}${b},${k},${c}`), s, te.encode(`${d}]`)]));
    const byte = fc.oneof(
      fc.constantFrom(0x5d, 0x5b, 0x7d, 0x2c, 0x22, 0x5c, 0x20, 0x0d, 0x00, 0x80, 0x31, 0x2e, 0x65, 0x2d),
      fc.nat(255),
    );
    const damage = fc.tuple(goodLine, fc.nat(), fc.nat(2), byte).map(([l, at, how, x]) => {
      const k = at % (l.length + 1);
      const tail = l.subarray(how === 0 ? k : Math.min(k + 1, l.length)); // 0 insert, 1 replace, 2 delete
      return concat([l.subarray(0, k), how === 2 ? new Uint8Array(0) : new Uint8Array([x]), tail]);
    });
    await fc.assert(
      fc.asyncProperty(damage, fc.boolean(), async (line, v2) => {
        await same(concat([v2 ? HEADER.v2 : HEADER.v3, te.encode("\n"), line, te.encode("\n")]), [], v2);
      }),
      { numRuns: RUNS * 4 },
    );
  });

  test("a well-formed o/i line takes the fast path, and gives TextEncoder's bytes of JSON.parse's string (property)", () => {
    const wellFormed = fc.string({ unit: "binary", maxLength: 40 }).filter((s) => s.isWellFormed());
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        fc.constantFrom("o", "i"),
        wellFormed,
        fc.boolean(),
        (time, code, s, escapeAll) => {
          // JSON.stringify leaves most characters raw; the \u form of every one is valid too.
          const body = escapeAll
            ? `"${Array.from({ length: s.length }, (_, k) => `\\u${hex4(s.charCodeAt(k), k % 2 === 0)}`).join("")}"`
            : JSON.stringify(s);
          const line = `[${time}, "${code}", ${body}]`;
          const got = fastEventLine(te.encode(line));
          assert.ok(got, `declined ${line}`);
          assert.equal(got.time, JSON.parse(line)[0]);
          assert.equal(got.code, code);
          assert.deepEqual(got.bytes, te.encode(JSON.parse(line)[2]));
        },
      ),
      { numRuns: RUNS * 4 },
    );
  });

  test("every escape, a surrogate pair, raw UTF-8 and JSON whitespace decode to their bytes", () => {
    const line = ' \t[ 1.5e1 ,\r"o" , "a\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00é€😀\\u0000" ]\r ';
    const got = fastEventLine(te.encode(line));
    assert.ok(got);
    assert.equal(got.time, 15);
    assert.deepEqual(got.bytes, te.encode('a"\\/\b\f\n\r\té€😀é€😀\0'));
  });

  test("lines it is not sure of are left to the ordinary reader", () => {
    for (
      const line of [
        '[1, "o", "\\ud800"]', // a lone surrogate: the ordinary reader keeps the string for writers
        '[1, "o", "\\udc00\\ud800"]',
        '[1, "o", "a\x01"]', // a raw control character
        '[1, "o", "\xff"]',
        '[-1, "o", "x"]',
        '[1e400, "o", "x"]',
        '[01, "o", "x"]',
        '[1, "o", "x", 2]',
        '[1, "m", "x"]',
        '[1, "o", "x"] x',
        '[1, "\\u006f", "x"]',
      ]
    ) {
      const bytes = line.includes("\xff")
        ? new Uint8Array([...te.encode(line)].map((b, k, a) => (k === a.length - 3 ? 0xff : b)))
        : te.encode(line);
      assert.equal(fastEventLine(bytes), null, line);
    }
    assert.equal(
      fastEventLine(new Uint8Array([...te.encode('[1, "o", "'), 0xed, 0xa0, 0x80, ...te.encode('"]')])),
      null,
    );
  });

  test("times are the doubles JSON.parse gives (property)", () => {
    const num = fc.oneof(
      fc.double({ min: 0, max: 1e300, noNaN: true, noDefaultInfinity: true }).map(String),
      fc.stringMatching(/^(0|[1-9][0-9]{0,20})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?$/),
    );
    fc.assert(
      fc.property(num, (n) => {
        const line = `[${n}, "o", ""]`;
        const want = JSON.parse(line)[0];
        const got = fastEventLine(te.encode(line));
        if (!Number.isFinite(want)) assert.equal(got, null);
        else assert.ok(Object.is(got?.time, want), `${n}: ${got?.time} vs ${want}`);
      }),
      { numRuns: RUNS * 10 },
    );
  });
});
