import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileRust, RegexTranslationError, translateRust } from "./rust.ts";

const m = (p: string, s: string) => compileRust(p).test(s);

describe("Rust regex → JavaScript", () => {
  test("\\x{HHHH}, \\u{…}, \\uHHHH and ranges of them", () => {
    assert.ok(m("^[\\x{2800}-\\x{28FF}\\x{25D0}-\\x{25D3}] ", "◐ Thinking"));
    assert.ok(m("^[\\x{2800}-\\x{28FF}\\x{25D0}-\\x{25D3}] ", "⠋ x"));
    assert.ok(!m("^[\\x{2800}-\\x{28FF}\\x{25D0}-\\x{25D3}] ", "✳ idle"));
    assert.ok(m("^\\x{2733}\\x{FE0E}? ", "✳︎ x"));
    assert.ok(m("^⏳[\\u{fe0e}\\u{fe0f}]?(?:\\s|$)", "⏳"));
    assert.ok(m("^\\s*[\\u2800-\\u28FF]", "  ⠙ working"));
    assert.ok(m("\\x41", "A"));
  });
  test("leading inline flags", () => {
    assert.ok(m("(?i)esc to close\\s*$", "ESC TO CLOSE "));
    assert.ok(m("(?m)^\\s*❯\\s*$", "text\n ❯ \nmore"));
    assert.ok(!m("^\\s*❯\\s*$", "text\n ❯ \nmore"));
    assert.ok(m("(?s)Do\\s+you\\s+trust.+directory\\?", "Do you\ntrust the contents of this directory?"));
    assert.equal(translateRust("(?i)(?m)x").flags, "iu"); // (?m) is translated into the pattern, not a JS flag
  });
  test("(?m)^ and $ match at \\n only, as in Rust (JS's m flag also breaks lines at \\r, U+2028, U+2029)", () => {
    assert.ok(m("(?m)^b$", "a\nb\nc"));
    assert.ok(m("(?m)^b$", "b"));
    assert.ok(!m("(?m)^b", "a\rb"));
    assert.ok(!m("(?m)a$", "a\rb"));
    assert.ok(!m("(?m)^b", "a\u2028b"));
    assert.ok(!m("^b", "a\nb"));
  });
  test("Unicode classes like Rust's: \\w, \\d, \\s, \\b", () => {
    assert.ok(m("^\\w+$", "café"));
    assert.ok(m("^\\d$", "٣"));
    assert.ok(m("\\bword\\b", "a word."));
    assert.ok(!m("\\bword\\b", "swordfish"));
    assert.ok(m("(?i)^\\s*❯?\\s*yes\\b", "❯ Yes, allow"));
    assert.ok(!m("(?i)^\\s*❯?\\s*yes\\b", "❯ yesterday"));
    assert.ok(m("\\bé", "x é")); // a Unicode boundary, which JS's own \b would miss
    assert.ok(m("[\\w-]+", "a-b"));
  });
  test("\\A and \\z anchor the whole text, even in multi-line mode", () => {
    assert.ok(m("\\A> You are in [^\\r\\n]+(?:\\r?\\n|$)", "> You are in /tmp\nrest"));
    assert.ok(!m("(?m)\\A> You", "first\n> You"));
    assert.ok(m("end\\z", "the end"));
  });
  test("\\p{…}: binary properties, categories, scripts", () => {
    assert.ok(m("^\\s*(◔|◑|◕|●)\\s+\\p{Alphabetic}", "● Reading"));
    assert.ok(m("\\p{Greek}", "λ"));
    assert.ok(m("\\pL", "x"));
    assert.ok(m("\\P{L}", "1"));
  });
  test("Rust's . excludes only \\n", () => {
    assert.ok(m("a.b", "a\rb"));
    assert.ok(!m("a.b", "a\nb"));
  });
  test("punctuation escapes that JS u mode rejects", () => {
    assert.ok(m("\\#\\ \\-\\~\\'", "# -~'"));
    assert.ok(m("[\\<\\>]", "<"));
  });
  test("regex 1.10 word boundaries: \\< \\> \\b{start} \\b{end}", () => {
    assert.ok(m("\\<yes\\>", "say yes now"));
    assert.ok(!m("\\<yes", "ayes"));
    assert.ok(!m("yes\\>", "yesterday"));
    assert.ok(!m("\\<", "<"));
    assert.ok(m("\\b{start}é", "x é"));
    assert.ok(!m("a\\b{end}", "ab"));
    assert.throws(() => translateRust("\\b{start-half}"), /not supported/);
    assert.ok(m("^\\s*\\(\\d+(?:m(?:\\s+\\d+s)?|s)\\s·\\sesc to cancel\\)\\s*$", "(12s · esc to cancel)"));
  });
  test("named groups, POSIX classes", () => {
    assert.ok(m("(?P<n>ab)c", "abc"));
    assert.ok(m("^[[:alpha:]]+[[:digit:]]$", "ab1"));
  });
  test("untranslatable constructs are refused with a reason", () => {
    for (
      const [p, re] of [
        ["a(?i)b", /only supported at the start/],
        ["(?x)a b", /verbose/],
        ["[a-z&&[^aeiou]]", /set operations|nested/],
        ["(a)\\1", /backreferences/],
        ["\\k", /unknown escape/],
        ["[\\W]", /negated class/],
        ["(?=a)", /look-around/],
        ["\\p{NoSuchProperty}", /unknown Unicode property/],
        ["[abc", /unterminated/],
        ["a{2,1}", /not a valid pattern/],
      ] as const
    ) {
      assert.throws(
        () => translateRust(p),
        (e: unknown) => e instanceof RegexTranslationError && re.test(e.message),
        p,
      );
    }
  });
});
