import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compilePattern, type Pattern, RegexError } from "./pattern.ts";
import { structure } from "./literals.ts";
import { translateRust } from "./rust.ts";
import { manifestPatterns, randomPattern } from "./testkit.ts";

/** What one pattern answers on one text: test, first and all. */
const answers = (p: Pattern, t: string) => ({ test: p.test(t), first: p.first(t), all: [...p.all(t)] });

/**
 * Texts that hit and miss a pattern's literals: pieces of its own characters, its
 * literals whole, cut short and with the case flipped, phrases of real screens, line breaks.
 */
function textsFor(p: Pattern): fc.Arbitrary<string> {
  const chars = [...new Set([...p.source.replace(/\\[a-zA-Z]|[\\()[\]{}?*+|^$]/g, ""), " ", "\n", "1", "a"])];
  const lits = p.literals ?? [];
  const pieces = lits.flatMap((l) => [l, l.slice(1), l.slice(0, -1), l.toUpperCase(), l.toLowerCase()]).filter((x) =>
    x
  );
  return fc.array(
    fc.oneof(
      fc.constantFrom(...chars),
      fc.constantFrom(...chars),
      fc.constantFrom("esc to interrupt", "Do you want to proceed?", "❯ 1. Yes", "\n", "K", "\u212a", "ſ", "İ"),
      ...(pieces.length ? [fc.constantFrom(...pieces)] : []),
    ),
    { maxLength: 24 },
  ).map((xs) => xs.join(""));
}

/** Runs the property: the prefiltered pattern answers as the plain one; returns the first text that differs. */
function disagreement(p: Pattern, prefiltered: Pattern, runs: number, seed: number): string | null {
  const plain = p.withLiterals(null);
  const out = fc.check(
    fc.property(textsFor(p), (t) => {
      assert.deepEqual(answers(prefiltered, t), answers(plain, t));
    }),
    { numRuns: runs, seed },
  );
  return out.failed ? JSON.stringify(out.counterexample) : null;
}

describe("the required-literal prefilter", () => {
  test("literals are read from the pattern's structure", () => {
    const lits = (src: string) => compilePattern(src).literals;
    assert.deepEqual(lits("(?i)esc to interrupt"), ["esc to interrupt"]);
    assert.deepEqual(lits("Do you want to (proceed|continue)"), ["Do you want to "]);
    assert.deepEqual(lits("(?:Yes, allow|Allow once)"), ["Yes, allow", "Allow once"]);
    assert.deepEqual(lits("ab+c"), ["ab"]);
    assert.deepEqual(lits("x(?:abc)?y"), ["x"]);
    assert.deepEqual(lits("\\x{2733} "), ["✳ "]);
    assert.equal(lits("a|\\d"), null); // one alternative has no literal: none for the whole
    assert.equal(lits("(?s).+"), null);
    assert.equal(lits("a?"), null);
  });

  test("within-a-line: decided from structure, conservatively", () => {
    const row = (src: string) => compilePattern(src).withinLine;
    assert.equal(row("(?i)esc to interrupt"), true);
    assert.equal(row("(?m)^› "), true); // (?m)^ sees a row start either way
    assert.equal(row("(?i)\\ballow\\b"), true); // a word boundary: "\n" is no word character
    assert.equal(row("^> "), false); // text start, not row start
    assert.equal(row("done$"), false);
    assert.equal(row("a\\s+b"), false); // \s takes a line break
    assert.equal(row("(?s)a.b"), false);
    assert.equal(row("\\Aa"), false);
    assert.equal(row("a\\z"), false);
    assert.equal(structure("a(?=[\\s\\S])", true).withinLine, false);
  });

  test("every bundled and Herdr pattern: prefiltered answers equal the plain ones on random texts", () => {
    const sources = manifestPatterns();
    assert.ok(sources.length > 100);
    let withLiterals = 0;
    for (const src of sources) {
      const p = compilePattern(src);
      if (!p.literals) continue;
      withLiterals++;
      assert.equal(disagreement(p, p, 80, 25), null, src);
    }
    assert.ok(withLiterals > sources.length / 2, `${withLiterals} of ${sources.length} have literals`);
  });

  test("random patterns: prefiltered answers equal the plain ones", () => {
    const ATOMS = ["ab", "a", "b", "K", "s", "é", "\\n", "·", "[a-c]", "\\s", "\\S", "\\d", "\\w", ".", "\\b", "❯"];
    const QUANTS = ["", "", "", "*", "+", "?", "{2}", "{1,3}", "+?"];
    const pattern = randomPattern(ATOMS, QUANTS, ["^", "$"], ["", "(?i)", "(?m)", "(?s)"]);
    let checked = 0;
    fc.assert(
      fc.property(pattern, fc.integer(), (src, seed) => {
        let p: Pattern;
        try {
          p = compilePattern(src);
        } catch (e) {
          if (e instanceof RegexError) return;
          throw e;
        }
        if (!p.literals) return;
        checked++;
        assert.equal(disagreement(p, p, 20, seed), null, src);
      }),
      { numRuns: 300, seed: 2025 }, // fixed: the count below is then not left to chance
    );
    assert.ok(checked > 80, `${checked} patterns with literals`);
  });

  test("case folding is the engine's own: a case-insensitive literal finds K, the Kelvin sign and ſ", () => {
    const p = compilePattern("(?i)ask");
    assert.deepEqual(p.literals, ["ask"]);
    for (const t of ["ASK", "a\u017fk", "as\u212a"]) assert.equal(p.test(t), true, t);
    // The translation agrees with the plain regex on these texts.
    const re = new RegExp(translateRust("(?i)ask").source, "iu");
    for (const t of ["ASK", "a\u017fk", "as\u212a"]) assert.equal(re.test(t), true, t);
  });

  test("a mutation is caught: a prefilter asking for a literal the match need not contain disagrees", () => {
    let caught = 0;
    for (
      const src of [
        "(?i)esc to interrupt",
        "Do you want to (proceed|continue|make this edit|create)",
        "(?:Yes, allow|Allow once|Allow always)",
        "(?i)ask",
      ]
    ) {
      const p = compilePattern(src);
      const lits = p.literals!;
      // Three mutations: a literal grown by one character, its first character
      // changed, one alternative dropped (or its last character changed).
      const mutants = [
        lits.map((l) => l + "!"),
        lits.map((l) => "\u0001" + l.slice(1)),
        lits.length > 1 ? lits.slice(1) : [lits[0].slice(0, -1) + "\u0000"],
      ];
      for (const m of mutants) {
        const mutated = p.withLiterals(m);
        if (disagreement(p, mutated, 200, 7) !== null) caught++;
      }
    }
    assert.equal(caught, 12);
  });
});
