import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { checkRegex, LINE_CHARS, nestedQuantifier, REDOS_BUDGET_MS, slowInput } from "./redos.ts";
import { compileRust } from "./regex_rust.ts";

const check = (p: string) => checkRegex(compileRust(p), p);

describe("catastrophic backtracking guard", () => {
  test("classic exponential shapes are refused statically", () => {
    for (const p of ["(a+)+$", "(\\w+\\s?)+$", "^(\\s*\\S*)*$", "(x|x)+y", "(a|ab)*c", "(.*a){1,}b", "((ab)*)+$"]) {
      const f = check(p);
      assert.equal(f?.kind, "nested-quantifier", p);
    }
  });
  test("bounded repetition and plain patterns pass", () => {
    for (const p of [
      "(?:\\n[ \\t]+[^\\n]*?){0,3}x", "^( [\\x{2800}-\\x{28FF}]){1,2} ", "(■|⬝){4,}", "^\\s*[⏸⏵].*esc to interrupt(?:\\s|·|$)",
      "\\bword\\b", "Do you want to (proceed|continue|make this edit|create)",
    ]) assert.equal(check(p), null, p);
  });
  test("per-line patterns are timed on lines, not whole screens", () => {
    // Quadratic on a 4 KB run of spaces (two adjacent \s*), harmless on a terminal line.
    const p = "(?i)^\\s*❯?\\s*yes\\b";
    assert.equal(checkRegex(compileRust(p), p, REDOS_BUDGET_MS, LINE_CHARS), null);
  });
  test("a polynomial blow-up is caught by timing", () => {
    // Not nested, but cubic on long runs of spaces.
    const p = "\\s*\\s*\\s*\\s*x";
    assert.equal(nestedQuantifier(compileRust(p).source), null);
    assert.match(slowInput(compileRust(p), p, false, 5) ?? "", /ms on/);
  });
  test("an exponential pattern is stopped quickly by growing inputs", () => {
    const t0 = performance.now();
    const r = slowInput(compileRust("(a+)+$"), "(a+)+$", true, 5);
    assert.match(r ?? "", /× "a"/);
    assert.ok(performance.now() - t0 < 2000);
  });
  test("lookarounds from \\b translation are not mistaken for repeated groups", () => {
    assert.equal(check("(?:\\bx\\b)+y"), null);
  });
});
