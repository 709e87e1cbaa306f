import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { EscapeState } from "./escape_state.ts";

const te = new TextEncoder();
const state = (...pieces: (string | Uint8Array)[]) => {
  const e = new EscapeState();
  for (const p of pieces) e.feed(typeof p === "string" ? te.encode(p) : p);
  const open = e.openSequence();
  return { inside: e.inside, open: open && new TextDecoder().decode(open) };
};

describe("EscapeState", () => {
  test("where each kind of sequence ends", () => {
    const cases: [string, boolean, string | null][] = [
      ["plain text", false, null],
      ["a\x1b[1;31mb", false, null],
      ["a\x1b[1;3", true, "\x1b[1;3"],
      ["a\x1b]7501;state=blocked", true, "\x1b]7501;state=blocked"],
      ["a\x1b]7501;state=working\x1b\\b", false, null],
      ["a\x1b]0;title\x07b", false, null],
      ["a\x1b]0;title\x1b", true, "\x1b]0;title\x1b"],
      ["a\x1b]0;tit\x1b[3", true, "\x1b[3"], // ESC in a string begins a new sequence
      ["a\x1bP1$r\x1b\\", false, null],
      ["a\x1b(", true, "\x1b("],
      ["a\x1b(B", false, null],
      ["a\x1b]0;x\x18b", false, null], // CAN cancels
      ["a\x1b", true, "\x1b"],
      ["a\x1b\x1b[", true, "\x1b["],
    ];
    for (const [s, inside, open] of cases) assert.deepEqual(state(s), { inside, open }, JSON.stringify(s));
  });

  test("any split of a stream ends in the same state with the same open sequence (property)", () => {
    const UNITS = [
      "\x1b",
      "[",
      "]",
      "P",
      "\\",
      "\x07",
      "\x18",
      "(",
      "B",
      "0",
      ";",
      "m",
      "a",
      "7501",
      "é",
      "\r",
      "\x7f",
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...UNITS), { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (units, cuts) => {
          const bytes = te.encode(units.join(""));
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const pieces: Uint8Array[] = [];
          let from = 0;
          for (const c of [...at, bytes.length]) {
            pieces.push(bytes.subarray(from, c));
            from = c;
          }
          assert.deepEqual(state(...pieces), state(bytes));
        },
      ),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 2000) },
    );
  });
});

describe("EscapeState.begunInLast", () => {
  test("says whether the open sequence began in the last piece", () => {
    const e = new EscapeState();
    e.feed(te.encode("text \x1b]7501;sta"));
    assert.equal(e.begunInLast, true);
    e.feed(te.encode("te=working"));
    assert.equal(e.begunInLast, false, "still the sequence begun before");
    e.feed(te.encode("\x1b\\plain"));
    assert.equal(e.begunInLast, false, "closed");
    e.feed(te.encode("\x1b[3"));
    assert.equal(e.begunInLast, true);
  });
});
