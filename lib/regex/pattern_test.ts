import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compilePattern, FAST_PATH_STEPS, MAX_BOUNDARY_DEGREE, type Pattern, RegexError } from "./pattern.ts";
import { manifestPatterns, randomPattern } from "./testkit.ts";

/** Both engines' answers on one text, for comparison. */
function both(p: Pattern, text: string) {
  const js = p.forEngine("js"), linear = p.forEngine("linear");
  const run = (q: Pattern) => ({ test: q.test(text), first: q.first(text), all: [...q.all(text)] });
  return { js: js && run(js), linear: linear && run(linear) };
}

const ATOMS = [
  "a",
  "b",
  "x",
  " ",
  "é",
  "ж",
  "\\n",
  "·",
  "[a-c]",
  "[^a\\n]",
  "\\s",
  "\\S",
  "\\d",
  "\\w",
  "\\W",
  ".",
  "[[:alpha:]]",
  "\\x{e9}",
  "\\p{L}",
];
const QUANTS = ["", "", "", "*", "+", "?", "{1,3}", "*?", "+?", "{2}"];

const pattern = randomPattern(ATOMS, QUANTS, ["^", "$", "\\A", "\\z"], ["", "(?i)", "(?m)", "(?s)", "(?im)"]);
const text = fc.array(
  fc.constantFrom("a", "b", "x", " ", "é", "ж", "\n", "·", "A", "1", "٣", "\t", "_", "\r", "É", "B"),
  {
    maxLength: 40,
  },
).map((xs) => xs.join(""));

describe("the regex runner", () => {
  test("JavaScript and the linear-time engine agree on whether and where a match starts (random patterns and texts)", () => {
    let compared = 0;
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 5 }), (src, texts) => {
        let p: Pattern;
        try {
          p = compilePattern(src);
        } catch (e) {
          if (e instanceof RegexError) return; // refused by both
          throw e;
        }
        for (const t of texts) {
          // Only where the runner itself would use JavaScript: a pattern the guard sends to
          // RE2 can backtrack exponentially, and JavaScriptCore then gives up and answers
          // "no match" (seen: `(?:(?:a*|a*?)(?:(?:a|a))*…)*a` on "a1…" — false on Bun).
          if (p.engineFor(t) !== "js") continue;
          const r = both(p, t);
          if (!r.js || !r.linear) continue;
          // Whether there is a match, and where the leftmost one starts, never differ. Its end
          // can, in one corner: a repeated group whose iteration can match empty, which
          // ECMAScript refuses past the minimum count and Rust and RE2 accept
          // (`(?:a*?|a){1,3}` on "a": "a" in JavaScript, "" in both others).
          const at = `${JSON.stringify(src)} on ${JSON.stringify(t)}`;
          assert.equal(r.js.test, r.linear.test, at);
          assert.equal(r.js.first?.index, r.linear.first?.index, at);
          compared++;
        }
      }),
      { numRuns: 2000 },
    );
    // Most random patterns run on both engines; a runner that gave one of them up would compare nothing.
    assert.ok(compared > 1000, `only ${compared} comparisons`);
  });

  test("every pattern of the bundled and Herdr manifests: both engines agree on texts made of its own characters", () => {
    const sources = manifestPatterns();
    assert.ok(sources.length > 100);
    let compared = 0;
    for (const src of sources) {
      const p = compilePattern(src);
      const chars = [...new Set([...src.replace(/\\[a-zA-Z]|[\\()[\]{}?*+|^$]/g, ""), " ", "\n", "1", "a"])];
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              fc.constantFrom(...chars),
              fc.constantFrom("esc to interrupt", "Do you want to proceed?", "❯ 1. Yes", "\n"),
            ),
            {
              maxLength: 30,
            },
          ),
          (parts) => {
            const t = parts.join("");
            const r = both(p, t);
            if (r.js && r.linear) {
              compared++;
              assert.deepEqual(r.js, r.linear, `${JSON.stringify(src)} on ${JSON.stringify(t)}`);
            }
          },
        ),
        { numRuns: 60 },
      );
    }
    assert.ok(compared > 1000);
  });

  test("a mutation is caught: an engine that drops the i flag disagrees", () => {
    const p = compilePattern("(?i)esc to INTERRUPT");
    const wrong = compilePattern("esc to INTERRUPT");
    assert.equal(p.forEngine("linear")!.test("Esc to interrupt"), true);
    assert.notEqual(wrong.forEngine("linear")!.test("Esc to interrupt"), p.forEngine("js")!.test("Esc to interrupt"));
  });

  test("hostile patterns run on the linear engine and finish", () => {
    const long = "ж".repeat(3000);
    for (
      const src of [
        "ж*ж*ж*ж*ж*ж*ж*ж*z",
        "^\\s*(?:[⠁-⣿]|\\.{1,2})\\s+.*\\(\\d+(?:m(?:\\s+\\d+s)?|s).*\\s·\\sesc to cancel\\)\\s*$", // degree 5
        "(a+)+$",
        "(\\w+\\s?)+$",
        "[^\\n]*a[^\\n]*b[^\\n]*c",
      ]
    ) {
      const p = compilePattern(src);
      for (const t of [long, "a".repeat(3000) + "!", " ".repeat(200) + "(1s " + " ".repeat(200)]) {
        assert.equal(p.engineFor(t), "linear", `${src} on ${t.length} characters`);
        assert.equal(typeof p.test(t), "boolean");
      }
    }
  });

  test(`the fast path's limit: ${FAST_PATH_STEPS} estimated steps, at it JavaScript, one past it linear`, () => {
    // degree 1, can take a line break: (n+1)^2 steps
    const p = compilePattern("\\s*x");
    assert.equal(p.analysis!.degree, 1);
    const atLimit = Math.floor(Math.sqrt(FAST_PATH_STEPS)) - 1;
    assert.equal(p.engineFor(" ".repeat(atLimit)), "js");
    assert.equal(p.engineFor(" ".repeat(atLimit + 1)), "linear");
    // line-bounded degree 2: n·(L+1)^2 — short lines keep a long text on the fast path
    const q = compilePattern("[^\\n]*a[^\\n]*b");
    assert.equal(q.analysis!.lineBounded, true);
    const rows = Array.from({ length: 100 }, () => "a".repeat(40)).join("\n");
    assert.equal(q.engineFor(rows), "js");
    assert.equal(q.engineFor("a".repeat(rows.length)), "linear");
  });

  test("patterns only the linear engine can run: flags part-way through", () => {
    const p = compilePattern("a(?i:b)c");
    assert.equal(p.analysis, null);
    assert.equal(p.engineFor("aBc"), "linear");
    assert.deepEqual(p.first("xaBc"), { index: 1, end: 4, text: "aBc" });
  });

  test("a Unicode word boundary: RE2's ASCII one on texts whose word characters are ASCII, else JavaScript", () => {
    const p = compilePattern("(?i)^\\s*❯?\\s*yes\\b");
    assert.equal(p.analysis!.degree, 2);
    assert.equal(p.forEngine("linear"), null);
    const ascii = " ".repeat(5000) + "❯ yes";
    assert.equal(p.engineFor(ascii), "linear");
    assert.equal(p.test(ascii), true);
    assert.equal(p.test(" ".repeat(5000) + "❯ yesé"), false); // é is a word character: no boundary
    assert.equal(p.engineFor(" ".repeat(5000) + "❯ yesé"), "js");
    // Above MAX_BOUNDARY_DEGREE such a pattern is refused: JavaScript could not be bounded.
    const deep = "\\s*".repeat(MAX_BOUNDARY_DEGREE + 1) + "\\bx";
    assert.throws(() => compilePattern(deep), /linear-time engine cannot run it on every text/);
    compilePattern("\\s*".repeat(MAX_BOUNDARY_DEGREE) + "\\bx");
  });

  test("what no engine can run is refused with one reason", () => {
    for (
      const [src, why] of [["(a)\\1", /backreferences/], ["(?=a)", /look-around/], [
        "[a&&b]",
        /set operations/,
      ]] as const
    ) {
      assert.throws(() => compilePattern(src), (e: Error) => e instanceof RegexError && why.test(e.message), src);
    }
  });

  test("all(): non-empty matches, left to right, on both engines", () => {
    const p = compilePattern("b*");
    for (const q of [p.forEngine("js")!, p.forEngine("linear")!]) {
      assert.deepEqual([...q.all("abbcb")].map((m) => [m.index, m.text]), [[1, "bb"], [4, "b"]]);
    }
  });
});
