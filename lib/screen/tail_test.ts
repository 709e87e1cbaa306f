// The incremental tail equals stripping the last 8 KB at once, whatever the reads:
// escapes and UTF-8 characters cut across reads and at the 8 KB boundary, \r redraws,
// long OSC/DCS strings, reads larger than the window.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { IncrementalTail, stripTail } from "./tail.ts";

const te = new TextEncoder();
const FRAGMENTS = [
  "text ",
  "line\r\n",
  "\r",
  "\r\r\n",
  "\n",
  "\x1b[2K",
  "\x1b[38;5;174m",
  "\x1b[0m",
  "\x1b]0;title\x07",
  "\x1b]7501;state=working\x1b\\",
  "\x1bP+q5463\x1b\\",
  "\x1b[?2026h",
  "\x1b7",
  "\x1b",
  "\x1b[",
  "\x1b]0;open",
  "\x1bP",
  "€",
  "中文",
  "✻ Pondering…",
  "\t",
  "\x07",
  "\x00",
  "\x7f",
  "⠋ Working (esc to interrupt)",
];

/** The plain computation the incremental tail is compared with: every byte kept, the last `size` read. */
class TailBuffer {
  private all: number[] = [];
  constructor(readonly size: number) {}
  push(b: Uint8Array): void {
    this.all.push(...b);
  }
  bytes(): Uint8Array {
    return new Uint8Array(this.all.slice(-this.size));
  }
}

/** Writes the stream to both, cut into reads at random places (mid-escape and mid-character too). */
function feed(parts: string[], cuts: number[], size: number) {
  const bytes = te.encode(parts.join(""));
  const inc = new IncrementalTail(size), ref = new TailBuffer(size);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  for (const p of [...points, bytes.length]) {
    if (p <= at) continue;
    inc.push(bytes.subarray(at, p));
    ref.push(bytes.subarray(at, p));
    at = p;
  }
  return { inc, ref };
}

describe("incremental tail", () => {
  test("rows equal stripping the window at once (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.constantFrom(64, 200, 8192),
        (parts, cuts, size) => {
          const { inc, ref } = feed(parts, cuts, size);
          assert.deepEqual(inc.bytes(), ref.bytes());
          assert.deepEqual(inc.rows(), stripTail(ref.bytes()).split("\n"));
        },
      ),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 400) },
    );
  });
  test("after every single read, too", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...FRAGMENTS), fc.boolean()), { maxLength: 80 }), (reads) => {
        const inc = new IncrementalTail(100), ref = new TailBuffer(100);
        for (const [r] of reads) {
          inc.push(te.encode(r));
          ref.push(te.encode(r));
          assert.deepEqual(inc.rows(), stripTail(ref.bytes()).split("\n"));
        }
      }),
      { numRuns: 200 },
    );
  });
  test("read at random moments, through windows smaller and larger than a read (property)", () => {
    // The rows of the whole output are folded as the tail is read: reads that leave the
    // window unread, and rows decided by a later \r redraw, must read as a fresh strip.
    const read = fc.tuple(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 6 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(read, { maxLength: 120 }), fc.constantFrom(8, 16, 64, 200), (reads, size) => {
        const inc = new IncrementalTail(size), ref = new TailBuffer(size);
        for (const [parts, look] of reads) {
          const b = te.encode(parts.join(""));
          inc.push(b);
          ref.push(b);
          if (look) assert.deepEqual(inc.rows(), stripTail(ref.bytes()).split("\n"));
        }
        assert.deepEqual(inc.rows(), stripTail(ref.bytes()).split("\n"));
      }),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 400) },
    );
  });
  test("an escape cut at the window's start reads as stripping from the cut", () => {
    const inc = new IncrementalTail(10), ref = new TailBuffer(10);
    for (const r of ["abc\x1b[31", "mdefghij\r\n", "k"]) {
      inc.push(te.encode(r));
      ref.push(te.encode(r));
    }
    assert.deepEqual(inc.rows(), stripTail(ref.bytes()).split("\n"));
  });
});
