import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { backtrackDegree, checkRegex, MAX_DEGREE, nestedQuantifier } from "./redos.ts";
import { compileRust } from "./regex_rust.ts";

const check = (p: string) => checkRegex(compileRust(p));
const degree = (p: string) => backtrackDegree(compileRust(p).source, "u");

describe("catastrophic backtracking guard (static, deterministic)", () => {
  test("classic exponential shapes are refused as nested", () => {
    for (const p of ["(a+)+$", "(\\w+\\s?)+$", "^(\\s*\\S*)*$", "(x|x)+y", "(a|ab)*c", "(.*a){1,}b", "((ab)*)+$"]) {
      assert.equal(check(p)?.kind, "nested-quantifier", p);
    }
  });
  test("bounded repetition and plain patterns pass", () => {
    for (
      const p of [
        "(?:\\n[ \\t]+[^\\n]*?){0,3}x",
        "^( [\\x{2800}-\\x{28FF}]){1,2} ",
        "(■|⬝){4,}",
        "^\\s*[⏸⏵].*esc to interrupt(?:\\s|·|$)",
        "\\bword\\b",
        "Do you want to (proceed|continue|make this edit|create)",
        "(?s)Do\\s+you\\s+trust\\s+the\\s+contents\\s+of\\s+this\\s+directory\\?",
        "(?i)^\\s*❯?\\s*yes\\b",
      ]
    ) assert.equal(check(p), null, p);
  });
  test("the degree counts repeated elements that can take the same characters in a row", () => {
    const cases: [string, number][] = [
      ["a+b+c+", 1],
      ["\\d+[a-z]+", 1],
      ["\\s*\\s*", 2],
      [".*a.*", 2],
      ["(?i)^\\s*❯?\\s*yes\\b", 2],
      ["Do\\s+you\\s+trust", 1],
      ["(.*a){3}", 3],
      ["(.*a){12}", 12],
      ["(?:\\n[ \\t]+[^\\n]*?){0,3}x", 2],
      ["(a+)+$", Infinity],
    ];
    for (const [p, d] of cases) assert.equal(degree(p), d, p);
  });
  test(`at degree ${MAX_DEGREE - 1} a pattern loads, at ${MAX_DEGREE} it is refused — the same answer every time`, () => {
    const chain = (n: number) => `${"\\s*".repeat(n)}x`;
    assert.equal(check(chain(MAX_DEGREE - 1)), null);
    assert.equal(check(chain(MAX_DEGREE))?.kind, "polynomial");
    for (let i = 0; i < 20; i++) {
      assert.match(
        check("(.*a){12}")?.detail ?? "",
        /12 repeated elements can share the same characters in a row \(limit 5\)/,
      );
    }
    assert.equal(check(`(.*a){${MAX_DEGREE - 1}}`), null);
    assert.equal(check(`(.*a){${MAX_DEGREE}}`)?.kind, "polynomial");
  });
  test("lookarounds from \\b translation are not mistaken for repeated groups", () => {
    assert.equal(check("(?:\\bx\\b)+y"), null);
    assert.equal(nestedQuantifier(compileRust("(?:\\bx\\b)+y").source), null);
  });
});
