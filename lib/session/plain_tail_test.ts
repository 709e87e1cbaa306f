// The lazy headless screen (issue 25): a fresh screen fed only the kept tail of a plain
// text stream must be the screen fed the whole stream — same rows (scrollback included,
// seen through a resize that pulls it back), same cursor, same replies to what follows.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { PlainTail } from "./plain_tail.ts";
import { Screen } from "../screen/screen.ts";
import { SCROLLBACK } from "../screen/scrollback.ts";

const te = new TextEncoder();

/** Plain fragments: text, long lines that wrap, the five plain controls, runs of lines. */
const fragment = fc.oneof(
  fc.stringMatching(/^[ -~]{0,12}$/),
  fc.nat(45).map((n) => "w".repeat(n)),
  fc.constantFrom("\r\n", "\n", "\r", "\t", "\b", "\x07", "ab\tc\b\bd"),
  fc.nat(80).map((n) => Array.from({ length: n }, (_, i) => `${i}\r\n`).join("")),
  fc.nat(60).map((n) => "x\n".repeat(n)), // LFs without CR: the column is kept
);

/** What comes after the plain text: queries whose replies depend on the screen's state. */
const PROBES = [
  "\x1b[6n", // CPR
  "\x1b[?6n", // DECXCPR
  "\x1b[3b\x1b[6n", // REP: repeats the preceding character, if any
  "Q\x1b[2b\x1b[6n",
  "\x1b[A\x1b[A\x1b[6n\x1b[c", // the cursor moves up into older lines
  "\x1b[?25l\x1b[?25$p", // DECRQM
];

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.slice(from, c));
    from = c;
  }
  return out;
}

function screenWith(cols: number, rows: number) {
  const replies: string[] = [];
  const s = new Screen(cols, rows, { onReply: (d) => replies.push(d) });
  return { s, replies };
}

describe("plain tail: a fresh screen fed the kept bytes is the screen fed everything", () => {
  test("rows, scrollback, cursor and replies agree after random plain streams read in random pieces", () => {
    let trimmed = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 24 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fragment, { maxLength: 120 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom(...PROBES),
        (cols, rows, parts, cuts, probe) => {
          const stream = te.encode(parts.join(""));
          const whole = screenWith(cols, rows), fresh = screenWith(cols, rows);
          const tail = new PlainTail(rows + SCROLLBACK);
          for (const read of splitAt(stream, cuts)) {
            assert.equal(tail.push(read), true);
            whole.s.write(read, 0);
          }
          if (tail.size < stream.length) trimmed++;
          fresh.s.write(tail.take(), 0);
          assert.deepEqual(whole.replies, [], "plain text is never answered");
          for (const x of [whole, fresh]) x.s.write(te.encode(probe), 0);
          assert.deepEqual(fresh.replies, whole.replies);
          assert.deepEqual(fresh.s.cursor(), whole.s.cursor());
          assert.deepEqual(fresh.s.rowsAsWritten(), whole.s.rowsAsWritten());
          // Growing the window pulls the scrollback back into view: it must agree too.
          for (const x of [whole, fresh]) x.s.resize(cols, rows + SCROLLBACK + 5);
          assert.deepEqual(fresh.s.rowsAsWritten(), whole.s.rowsAsWritten());
          assert.deepEqual(fresh.s.cursor(), whole.s.cursor());
          whole.s.dispose();
          fresh.s.dispose();
        },
      ),
      { numRuns: 300 },
    );
    // Else the streams never grew long enough to cut anything, and the test proved nothing.
    assert.ok(trimmed > 20, `only ${trimmed} runs cut their tail`);
  });

  test("what is kept stays small under a long flood of lines", () => {
    const tail = new PlainTail(32 + SCROLLBACK);
    const read = te.encode(Array.from({ length: 2000 }, (_, i) => `${1e6 + i}\r\n`).join(""));
    for (let k = 0; k < 50; k++) assert.equal(tail.push(read), true);
    // 132 lines of 9 bytes, plus the lines of the last read after the cut.
    assert.ok(tail.size <= read.length + 132 * 9, `${tail.size} bytes kept`);
  });

  test("a spinner redrawn with CR after CR keeps one place to cut per line, not one per CR", () => {
    const tail = new PlainTail(32 + SCROLLBACK);
    const frames = te.encode(Array.from({ length: 20000 }, (_, i) => `\r${"|/-\\"[i % 4]} working`).join(""));
    assert.equal(tail.push(frames), true);
    assert.equal(tail.pendingCuts, 1);
    for (let k = 0; k < 200; k++) tail.push(te.encode(`line ${k}\r\n\r\r`));
    assert.ok(tail.pendingCuts <= 32 + SCROLLBACK + 1, `${tail.pendingCuts} cuts pending`);
  });

  test("a byte that is not plain text is refused and nothing of its read is kept", () => {
    for (const b of [0x1b, 0x9b, 0xc2, 0x7f, 0x00, 0x05, 0x0b, 0x0c, 0x0e, 0x0f, 0xff]) {
      const tail = new PlainTail(10);
      assert.equal(tail.push(te.encode("abc\r\n")), true);
      assert.equal(tail.push(new Uint8Array([0x41, b, 0x42])), false, `byte ${b}`);
      assert.deepEqual([...tail.take()], [...te.encode("abc\r\n")]);
    }
  });

  test("a line that would pass the bound is refused: the screen starts instead", () => {
    const tail = new PlainTail(10, 1000);
    assert.equal(tail.push(te.encode("a".repeat(600))), true);
    assert.equal(tail.push(te.encode("b".repeat(600))), false);
    assert.equal(tail.size, 600);
  });
});
