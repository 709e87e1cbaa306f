// The key reader parses what the terminal sends as terminal input: replies to queries
// (what a capture's `ESC [ c` makes the outer terminal send) are consumed, never keys;
// a lone ESC is Esc only once its wait passes; arrows still arrive as arrows.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ESC_WAIT_MS, SEQUENCE_WAIT_MS, TermInput } from "./term_input.ts";

/** Feeds the reads in order; "WAIT" stands for the pending wait passing. */
function keys(...reads: string[]): string[] {
  const r = new TermInput();
  const out: string[] = [];
  for (const x of reads) out.push(...(x === "WAIT" ? r.timeout() : r.feed(x)));
  return out;
}

describe("terminal input", () => {
  const table: [string, string[], string[]][] = [
    ["plain keys", ["q"], ["q"]],
    ["space, dot, utf-8", [" .é"], [" ", ".", "é"]],
    ["arrows, shift+arrows, SS3 arrows", ["\x1b[D\x1b[C\x1b[1;2D\x1bOC"], ["\x1b[D", "\x1b[C", "\x1b[1;2D", "\x1bOC"]],
    ["device attributes reply (DA1)", ["\x1b[?1;2c"], []],
    ["DA1 reply then q", ["\x1b[?62;22c", "q"], ["q"]],
    ["secondary DA reply (tmux)", ["\x1b[>84;0;0c"], []],
    ["cursor position report", ["\x1b[12;40R"], []],
    ["device status report", ["\x1b[0n"], []],
    ["OSC 11 reply with BEL", ["\x1b]11;rgb:0000/0000/0000\x07"], []],
    ["OSC 11 reply with ST", ["\x1b]11;rgb:ffff/ffff/ffff\x1b\\"], []],
    ["DCS reply (XTVERSION)", ["\x1bP>|tmux 3.4\x1b\\"], []],
    ["focus in/out", ["\x1b[I\x1b[O"], []],
    ["mode report (DECRPM)", ["\x1b[?2026;2$y"], []],
    ["a reply cut across reads", ["\x1b", "[?1;", "2c"], []],
    ["an OSC reply cut after its ESC of ST", ["\x1b]11;rgb:1/2/3\x1b", "\\ "], [" "]],
    ["a lone ESC: Esc once its wait passes", ["\x1b", "WAIT"], ["\x1b"]],
    ["ESC ESC: Esc, then a sequence", ["\x1b\x1b[D"], ["\x1b", "\x1b[D"]],
    ["Alt+q is one key, not Esc then q", ["\x1bq"], ["\x1bq"]],
    ["a cut CSI whose wait passes is dropped, not Esc", ["\x1b[?1", "WAIT", "x"], ["x"]],
    ["an unterminated OSC whose wait passes is dropped", ["\x1b]11;rgb", "WAIT", "q"], ["q"]],
    ["a reply and an arrow in one read", ["\x1b[?1;2c\x1b[C"], ["\x1b[C"]],
    ["a control character cancels a CSI", ["\x1b[1\x03"], []],
  ];
  for (const [name, reads, want] of table) {
    test(name, () => assert.deepEqual(keys(...reads), want));
  }
  test("waits: none in ground, short after a lone ESC, longer inside a sequence", () => {
    const r = new TermInput();
    assert.equal(r.wait(), null);
    r.feed("\x1b");
    assert.equal(r.wait(), ESC_WAIT_MS);
    r.feed("]11;");
    assert.equal(r.wait(), SEQUENCE_WAIT_MS);
    r.feed("x\x07");
    assert.equal(r.wait(), null);
  });
  test("a long reply is consumed whole; one that never ends gives keys back after its wait", () => {
    assert.deepEqual(keys("\x1b]" + "x".repeat(100_000) + "\x07q"), ["q"]);
    assert.deepEqual(keys("\x1b]" + "x".repeat(100_000), "WAIT", "q"), ["q"]);
  });
});
