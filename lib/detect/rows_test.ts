// Issue 25: rules evaluated per row (each row's hits kept by its text, the rule memo
// compared row by row, literal checks per row) give what the plain evaluation of the
// joined region text gives — on random screens changed a few rows at a time, for every
// bundled and Herdr manifest; and a wrong path decision is caught.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { BUNDLED } from "./bundled.ts";
import { evaluate, type Gate, loadManifest, type Manifest, type Matcher, RowMemo, ruleMemo } from "./manifest.ts";
import { type RegionSource, RegionView } from "./regions.ts";
import { ROOT } from "../testkit.ts";

const HERDR = path.resolve(ROOT, "../shared/manifests/herdr");

function manifests(): Manifest[] {
  const out = Object.entries(BUNDLED).map(([n, t]) => loadManifest(t, n, n));
  if (fs.existsSync(HERDR)) {
    for (const f of fs.readdirSync(HERDR).filter((f) => f.endsWith(".toml")).sort()) {
      out.push(loadManifest(fs.readFileSync(path.join(HERDR, f), "utf8"), `herdr/${f}`, f));
    }
  }
  return out;
}

/** The same manifest with every matcher and needle rebuilt by `f` (fresh memos throughout). */
function rewired(m: Manifest, f: (x: Matcher, line: boolean) => Matcher, rowNeedles: boolean): Manifest {
  const gate = (g: Gate): Gate => ({
    contains: g.contains,
    containsRows: g.contains.map((c) => (rowNeedles && !c.includes("\n") ? new RowMemo<boolean>() : null)),
    regex: g.regex.map((x) => f(x, false)),
    lineRegex: g.lineRegex.map((x) => f(x, true)),
    all: g.all.map(gate),
    any: g.any.map(gate),
    not: g.not.map(gate),
  });
  const rules = m.rules.map((r) => ({ ...r, gate: gate(r.gate) }));
  const byIndex = new Map(rules.map((r) => [r.index, r]));
  return { ...m, rules, order: m.order.map((r) => byIndex.get(r.index)!) };
}

/** The plain evaluation: no prefilter, no per-row anything — each regex on the joined region text. */
const plain = (m: Manifest) =>
  rewired(
    m,
    (x, line) => ({
      ...x,
      re: x.re.withLiterals(null),
      path: line ? "row" : "joined",
      rowLiterals: false,
      rows: new RowMemo(),
    }),
    false,
  );

/** A mutation: every regex read per row, whether or not it can span lines. */
const allRows = (m: Manifest) =>
  rewired(m, (x) => ({ ...x, path: "row", rowLiterals: false, rows: new RowMemo() }), true);

const gates = (g: Gate): Gate[] => [g, ...g.all.flatMap(gates), ...g.any.flatMap(gates), ...g.not.flatMap(gates)];

/**
 * A text a pattern may well match, read crudely off its source (first alternatives,
 * white space for \s, escapes dropped): wrapped over two rows, it is what a per-row
 * reading of a spanning pattern would miss.
 */
function phrase(src: string): string {
  let t = src.replace(/^\(\?[a-z]+\)/, "").replace(/\\s[*+?]?/g, " ").replace(/\[\^?[^\]]*\][*+?]?/g, "x");
  for (let k = 0; k < 4; k++) t = t.replace(/\((?:\?:)?([^()|]*)(?:\|[^()]*)?\)[*+?]?/g, "$1");
  return t.replace(/\\([^a-zA-Z])/g, "$1").replace(/\\[a-zA-Z]/g, "").replace(/[*+?](?=\s|$)/g, "").replace(
    /[\^$]/g,
    "",
  );
}

/** Phrases of the manifest's patterns, for wrapping over rows. */
function phrases(m: Manifest): string[] {
  const out = new Set<string>(["Do you want to proceed?", "❯ 1. Yes"]);
  for (const r of m.rules) {
    for (const g of gates(r.gate)) {
      for (const x of g.regex) if (phrase(x.source).includes(" ")) out.add(phrase(x.source));
    }
  }
  return [...out];
}

/** Pieces of rows: the manifest's own literals and words, boxes, prompts, spinners. */
function vocabulary(m: Manifest): string[] {
  const out = new Set<string>([
    "",
    " ",
    "  ",
    "❯",
    "›",
    ">",
    "1. Yes",
    "2. No",
    "────────",
    "╭──────╮",
    "│ > │",
    "│",
    "✻",
    "⠋",
    "·",
    "…",
    "(12s · ↑ 1.2k tokens · esc to interrupt)",
    "Do you",
    "want to proceed?",
    "trust the contents of this directory?",
    "?",
    "Σ",
    "İ",
  ]);
  for (const r of m.rules) {
    for (const g of gates(r.gate)) {
      for (const c of g.contains) out.add(c), out.add(c.toUpperCase());
      for (const x of [...g.regex, ...g.lineRegex]) {
        for (const l of x.re.literals ?? []) {
          out.add(l);
          for (const w of l.split(" ")) out.add(w);
        }
      }
    }
  }
  return [...out];
}

interface Step {
  rows: string[];
  title: string;
  cursor: number;
}

function screens(vocab: string[], wrap: string[]): fc.Arbitrary<Step[]> {
  const row = fc.array(fc.constantFrom(...vocab), { maxLength: 4 }).map((xs) => xs.join(" ").trimEnd());
  // A phrase wrapped at one of its spaces: the end of one row and the start of the next.
  const wrapped = fc.tuple(fc.constantFrom(...wrap), fc.nat(), row, row).map(([p, k, before, after]) => {
    const spaces = [...p.matchAll(/ /g)].map((x) => x.index!);
    const at = spaces[k % spaces.length];
    return [`${before} ${p.slice(0, at)}`.trimStart(), `${p.slice(at + 1)} ${after}`.trimEnd()];
  });
  const first = fc.record({
    rows: fc.array(fc.oneof(row.map((r) => [r]), wrapped), { minLength: 1, maxLength: 8 }).map((xs) => xs.flat()),
    title: fc.oneof(fc.constant(""), row),
    cursor: fc.nat(14),
  });
  // Later screens: a few rows redrawn, the rest the very same strings (a screen's dirty rows).
  const change = fc.record({
    // Scrolled by 0–2 lines (new rows at the bottom), then a few rows redrawn.
    scroll: fc.array(row, { maxLength: 2 }),
    at: fc.array(fc.tuple(fc.nat(13), row), { maxLength: 3 }),
    title: fc.option(row),
    cursor: fc.option(fc.nat(14)),
  });
  return fc.tuple(first, fc.array(change, { maxLength: 6 })).map(([s, changes]) => {
    const steps: Step[] = [s];
    for (const c of changes) {
      const prev = steps[steps.length - 1];
      const rows = [...prev.rows.slice(c.scroll.length), ...c.scroll].slice(-prev.rows.length);
      for (const [i, r] of c.at) rows[i % rows.length] = r;
      steps.push({ rows, title: c.title ?? prev.title, cursor: c.cursor ?? prev.cursor });
    }
    return steps;
  });
}

const source = (s: Step, withCursor: boolean): RegionSource => ({
  rows: () => s.rows,
  title: s.title,
  osc9: null,
  ...(withCursor ? { cursor: () => ({ x: 0, y: Math.min(s.cursor, s.rows.length - 1) }) } : {}),
});

const verdict = (e: ReturnType<typeof evaluate>) => ({
  state: e.state,
  rule: e.rule?.id ?? null,
  evidence: e.evidence,
  kind: e.kind,
  visible: e.visible,
  skip: e.skip,
});

/** Screens compared, and the rules seen winning (the property is not vacuous). */
let compared = 0;
const matched = new Set<string>();

/** The first screen sequence on which `candidate` (memo kept across steps) and the plain evaluation differ. */
function disagreement(m: Manifest, candidate: Manifest, runs: number, seed: number): string | null {
  const ref = plain(m);
  const out = fc.check(
    fc.property(screens(vocabulary(m), phrases(m)), fc.boolean(), (steps, withCursor) => {
      const memo = ruleMemo();
      for (const s of steps) {
        const got = evaluate(candidate, new RegionView(source(s, withCursor), memo), { memo });
        const want = evaluate(ref, new RegionView(source(s, withCursor)));
        assert.deepEqual(verdict(got), verdict(want));
        if (want.rule) matched.add(`${m.name}:${want.rule.id}`);
        compared++;
      }
      const last = steps[steps.length - 1];
      const ex = (mm: Manifest) =>
        evaluate(mm, new RegionView(source(last, withCursor)), { explain: true }).results!.map((r) => ({
          rule: r.rule.id,
          matched: r.matched,
          text: r.regionText,
          matchers: r.matchers,
        }));
      assert.deepEqual(ex(candidate), ex(ref));
    }),
    { numRuns: runs, seed },
  );
  return out.failed ? JSON.stringify(out.counterexample).slice(0, 400) : null;
}

describe("per-row evaluation", () => {
  const all = manifests();

  test("every bundled and Herdr manifest: per-row evaluation equals the joined one on random screens and dirty rows", () => {
    assert.ok(all.length >= Object.keys(BUNDLED).length);
    let rowMatchers = 0, joined = 0;
    for (const m of all) {
      for (const r of m.rules) {
        for (const g of gates(r.gate)) for (const x of g.regex) x.path === "row" ? rowMatchers++ : joined++;
      }
      assert.equal(disagreement(m, m, 40, 25), null, m.name);
    }
    // Both paths are exercised, on many screens, and many rules win on them.
    assert.ok(rowMatchers > 50 && joined > 50, `${rowMatchers} per-row, ${joined} joined`);
    assert.ok(compared > all.length * 100, `${compared} screens`);
    assert.ok(matched.size > all.length * 2, `${matched.size} rules won`);
  });

  test("the path is decided when the manifest is compiled", () => {
    const m = loadManifest(
      `style = "first-match"\n[[rules]]\nstate = "working"\nany = ['(?i)esc to interrupt', '❯\\s*1\\.\\s*Yes', '(?s)a.b', '^> ']\n`,
      "t",
      "t",
    );
    const paths = m.rules[0].gate.any.map((g) => g.regex[0].path);
    assert.deepEqual(paths, ["row", "joined", "joined", "joined"]);
    assert.deepEqual(m.rules[0].gate.any.map((g) => g.regex[0].rowLiterals), [false, true, true, true]);
  });

  test("a mutation is caught: reading every pattern per row disagrees where a match spans rows", () => {
    // Codex's trust dialog: `(?s)Do\s+you\s+trust…`, its words wrapped over rows.
    const codex = all.find((m) => m.name === "codex")!;
    assert.notEqual(disagreement(codex, allRows(codex), 300, 3), null);
    const spanning = loadManifest(
      `style = "first-match"\n[[rules]]\nstate = "blocked"\nany = ['❯\\s*1\\.\\s*Yes']\n`,
      "s",
      "s",
    );
    assert.notEqual(disagreement(spanning, allRows(spanning), 300, 3), null);
  });
});
