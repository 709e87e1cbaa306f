import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { analyse, backtrackDegree } from "./guard.ts";
import { compileRust } from "./rust.ts";

const js = (p: string) => compileRust(p);
const degree = (p: string) => {
  const re = js(p);
  return backtrackDegree(re.source, re.flags);
};
const nested = (p: string) => {
  const re = js(p);
  return analyse(re.source, re.flags).nested;
};

describe("backtracking analysis (static, deterministic)", () => {
  test("classic exponential shapes are nested (degree Infinity)", () => {
    for (const p of ["(a+)+$", "(\\w+\\s?)+$", "^(\\s*\\S*)*$", "(x|x)+y", "(a|ab)*c", "(.*a){1,}b", "((ab)*)+$"]) {
      assert.ok(nested(p), p);
      assert.equal(degree(p), Infinity, p);
    }
  });
  test("bounded repetition and plain patterns are not nested", () => {
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
    ) assert.equal(nested(p), null, p);
  });
  test("a repeated group whose iterations each start with a literal nothing else in it can take is not nested", () => {
    // Herdr's codex.toml weak_blocker: each block starts with a line break the rest cannot take.
    assert.equal(nested("(?m)^›[⠁⠂⠄⠈⠐⠠⡀⢀][^\\n]*(?:\\n(?:[^•■✗✓\\n][^\\n]*)?)*\\z"), null);
    assert.equal(nested("(?:;[^;]*)*x"), null);
    // …but not when something else in the iteration can take that literal too.
    assert.ok(nested("(?:\\n[^\\n]*\\n?)*x"));
    assert.ok(nested("(?:;.*)*x"));
    assert.ok(nested("(?:a[a-z]*)*!"));
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
  test("characters outside the fixed probes are probed: a class of them is never taken as disjoint", () => {
    // ж is not a fixed probe: it is probed because the pattern names it.
    assert.equal(degree("ж*ж*ж*ж*ж*ж*ж*ж*z"), 8);
    assert.equal(degree("[hm]*[a-z]*"), 2);
    assert.ok(nested("(?:[a-z]*h)*!"));
    // A class none of the probes fall in is taken to match everything.
    assert.equal(degree("\\p{Greek}*\\p{Cyrillic}*"), 2);
    assert.equal(degree("[\\x{10400}-\\x{10410}]*[\\x{10405}-\\x{10420}]*"), 2);
  });
  test("the same answer every time", () => {
    for (let i = 0; i < 20; i++) assert.equal(degree("(.*a){12}"), 12);
  });
  test("line-bounded: nothing in the pattern can take a line break", () => {
    const lb = (p: string) => {
      const re = js(p);
      return analyse(re.source, re.flags).lineBounded;
    };
    assert.equal(lb("^[^\\n]*a.*b"), true);
    assert.equal(lb("(?m)^\\s*x"), false);
    assert.equal(lb("a\\nb"), false);
    assert.equal(lb("\\p{Greek}+"), false); // unprobed: assumed to take anything
    assert.equal(lb("(?s)a.b"), false);
  });
  test("lookarounds from \\b translation are not mistaken for repeated groups", () => {
    assert.equal(nested("(?:\\bx\\b)+y"), null);
  });
});
