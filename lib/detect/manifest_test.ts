// Manifest engine: both styles, Herdr's limits and field checks, every Herdr manifest
// loading, and the real snapshots classifying correctly.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { evaluate, LIMITS, loadManifest, ruleMemo } from "./manifest.ts";
import { BUNDLED, resolveManifest } from "./bundled.ts";
import { ManifestError } from "../errors.ts";
import { hasShared, SHARED } from "../testkit.ts";

const screen = (text: string, title = "", osc9: string | null = null) => ({
  rows: () => text.split("\n"),
  title,
  osc9,
});
const herdr = (rules: string, top = 'id = "t"\nversion = "1"\n') => top + rules;

function rejects(text: string, re: RegExp) {
  assert.throws(
    () => loadManifest(text, "t", "t.toml"),
    (e: unknown) => e instanceof ManifestError && re.test(e.message),
    re.source,
  );
}

describe("herdr style", () => {
  const m = loadManifest(
    herdr(`
[[rules]]
id = "low"
state = "working"
priority = 10
contains = ["ESC to interrupt"]

[[rules]]
id = "high"
state = "blocked"
priority = 900
visible_blocker = true
region = "bottom_non_empty_lines(2)"
contains = ["do you want to proceed?"]
any = [{ line_regex = ['(?i)^\\s*1\\.\\s*yes\\b'] }, { contains = ["2. no"] }]
not = [{ contains = ["select model"] }]

[[rules]]
id = "tie_first"
state = "idle"
priority = 5
regex = ['\\S']

[[rules]]
id = "tie_second"
state = "working"
priority = 5
regex = ['\\S']

[[rules]]
id = "title"
state = "working"
priority = 1100
region = "osc_title"
regex = ['^[\\x{2800}-\\x{28FF}] ']
`),
    "t",
    "t.toml",
  );
  test("highest priority wins; contains is case-insensitive", () => {
    const e = evaluate(m, screen("esc TO INTERRUPT\nDo you want to proceed?\n  1. Yes"));
    assert.equal(e.rule?.id, "high");
    assert.equal(e.visible, true);
    assert.equal(e.evidence, "do you want to proceed?");
  });
  test("regions: a prompt above the bottom lines does not count", () => {
    assert.equal(evaluate(m, screen("Do you want to proceed?\n1. Yes\nmore\noutput\nbelow")).rule?.id, "tie_first");
  });
  test("not gates and any gates", () => {
    assert.equal(evaluate(m, screen("Do you want to proceed?\nSelect model 2. no")).rule?.id, "tie_first");
    assert.equal(evaluate(m, screen("x\nDo you want to proceed? 2. No")).rule?.id, "high");
  });
  test("priority ties: the earlier rule wins", () => {
    assert.equal(evaluate(m, screen("text")).rule?.id, "tie_first");
  });
  test("title rules compete in the same priority space", () => {
    assert.equal(evaluate(m, screen("Do you want to proceed?\n1. Yes", "⠋ Working")).rule?.id, "title");
  });
  test("no match → idle fallback", () => {
    const e = evaluate(m, screen(""));
    assert.deepEqual([e.state, e.rule], ["idle", null]);
  });
  test("explain lists every rule with what it saw", () => {
    const e = evaluate(m, screen("esc to interrupt"), { explain: true });
    assert.deepEqual(e.results!.map((r) => [r.rule.id, r.matched]), [
      ["low", true],
      ["high", false],
      ["tie_first", true],
      ["tie_second", true],
      ["title", false],
    ]);
    assert.equal(e.rule?.id, "low");
    assert.equal(e.results![0].regionText, "esc to interrupt");
  });
  test("skip_state_update and visible flags only for their own state", () => {
    const m2 = loadManifest(
      herdr(`
[[rules]]
id = "viewer"
state = "unknown"
skip_state_update = true
visible_idle = true
contains = ["transcript"]
`),
      "t",
      "t.toml",
    );
    const e = evaluate(m2, screen("showing detailed transcript"));
    assert.deepEqual([e.state, e.skip, e.visible], ["unknown", true, false]);
  });
});

describe("first-match style", () => {
  const m = loadManifest(BUNDLED.claude, "claude", "bundled");
  test("blocked before working: the footer says esc to interrupt while a prompt is up", () => {
    const e = evaluate(m, screen("Do you want to proceed?\n❯ 1. Yes\n  2. No\nesc to interrupt"));
    assert.deepEqual([e.state, e.kind, e.rule?.id], ["blocked", "permission", "permission_prompt"]);
  });
  test("working, idle, fallback", () => {
    assert.equal(evaluate(m, screen("✢ Reticulating… (3s · ↓ 120 tokens · esc to interrupt)")).state, "working");
    assert.equal(evaluate(m, screen("✻ Worked for 1m 52s\n? for shortcuts")).state, "idle");
    assert.equal(evaluate(m, screen("✳ Pondering…")).state, "working"); // a custom status line hides the footer
    assert.deepEqual([evaluate(m, screen("hello")).state, evaluate(m, screen("hello")).rule], ["idle", null]);
  });
  test("a reply ending in 'Would you like me to…?' is not a prompt", () => {
    assert.equal(
      evaluate(m, screen("Done. Would you like me to add a regression test?\n? for shortcuts")).state,
      "idle",
    );
  });
  test("a stale working title does not outrank the idle screen", () => {
    assert.equal(evaluate(m, screen("? for shortcuts", "⠋ Claude")).state, "idle");
    assert.equal(evaluate(m, screen("", "⠋ Claude")).state, "working");
  });
});

describe("validation and limits", () => {
  test("unknown fields are rejected (Herdr does)", () => {
    rejects(
      herdr(`[[rules]]\nid = "a"\nstate = "idle"\ncolour = "red"\ncontains = ["x"]\n`),
      /rule "a": unknown field "colour"/,
    );
    rejects(herdr(`[[rules]]\nid = "a"\nstate = "idle"\nany = [{ contain = ["x"] }]\n`), /unknown field "contain"/);
    rejects('id = "t"\nowner = "me"\n[[rules]]\nid = "a"\nstate = "idle"\n', /unknown top-level field "owner"/);
  });
  test("bad states, regions, TOML, engine versions", () => {
    rejects(herdr(`[[rules]]\nid = "a"\nstate = "sleeping"\n`), /state must be/);
    rejects(herdr(`[[rules]]\nid = "a"\nstate = "idle"\nregion = "middle"\n`), /unknown region "middle"/);
    rejects(herdr(`[[rules]]\nid = "a"\nstate = "idle"\nregion = "bottom_lines"\n`), /unknown region/);
    rejects("id = \n", /not valid TOML/);
    rejects(
      herdr(`[[rules]]\nid = "a"\nstate = "idle"\n`, 'id = "t"\nmin_engine_version = 9\n'),
      /needs a newer engine/,
    );
    rejects(herdr(`[[rules]]\nid = "a"\nstate = "idle"\n[[rules]]\nid = "a"\nstate = "idle"\n`), /duplicate rule id/);
  });
  test("a regex no engine can run names the rule", () => {
    rejects(
      herdr(`[[rules]]\nid = "bad_rx"\nstate = "idle"\nregex = ['(a)\\1']\n`),
      /rule "bad_rx": regex "\(a\)\\\\1": backreferences/,
    );
  });
  test("flags part-way through a pattern load (the linear-time engine reads them as Rust does)", () => {
    const m = loadManifest(herdr(`[[rules]]\nid = "mid"\nstate = "blocked"\nregex = ['a(?i)b']\n`), "t", "t.toml");
    assert.equal(evaluate(m, screen("xaBx")).state, "blocked");
    assert.equal(evaluate(m, screen("xAbx")).state, "idle");
  });
  test("catastrophic patterns load and run in linear time (as in Herdr's engine)", () => {
    const m = loadManifest(herdr(`[[rules]]\nid = "evil"\nstate = "blocked"\nregex = ['(a+)+$']\n`), "t", "t.toml");
    assert.equal(evaluate(m, screen("a".repeat(5000) + "!")).state, "idle");
    assert.equal(evaluate(m, screen("x" + "a".repeat(5000))).state, "blocked");
  });
  const rule = (i: number, body = 'contains = ["x"]') => `[[rules]]\nid = "r${i}"\nstate = "idle"\n${body}\n`;
  test(`${LIMITS.rules} rules load, ${LIMITS.rules + 1} do not`, () => {
    loadManifest(herdr(Array.from({ length: LIMITS.rules }, (_, i) => rule(i)).join("")), "t", "t.toml");
    rejects(herdr(Array.from({ length: LIMITS.rules + 1 }, (_, i) => rule(i)).join("")), /129 rules \(limit 128\)/);
  });
  test(`${LIMITS.matchersPerGate} matchers per gate load, ${LIMITS.matchersPerGate + 1} do not`, () => {
    const n = (k: number) => `contains = [${Array.from({ length: k }, (_, i) => `"m${i}"`).join(", ")}]`;
    loadManifest(herdr(rule(0, n(32))), "t", "t.toml");
    rejects(herdr(rule(0, n(33))), /33 matchers in one gate \(limit 32\)/);
  });
  test(`${LIMITS.matchers} matchers in all load, ${LIMITS.matchers + 1} do not`, () => {
    const body = (k: number) => `contains = [${Array.from({ length: k }, (_, i) => `"m${i}"`).join(", ")}]`;
    loadManifest(herdr(Array.from({ length: 32 }, (_, i) => rule(i, body(32))).join("")), "t", "t.toml");
    rejects(
      herdr(Array.from({ length: 32 }, (_, i) => rule(i, body(32))).join("") + rule(99, body(1))),
      /more than 1024 matchers/,
    );
  });
  test(`${LIMITS.gates} gates load, ${LIMITS.gates + 1} do not`, () => {
    const gates = (k: number) => `any = [${Array.from({ length: k }, () => '{ contains = ["g"] }').join(", ")}]`;
    // 128 rules × (1 + 3) gates = 512
    loadManifest(herdr(Array.from({ length: 128 }, (_, i) => rule(i, gates(3))).join("")), "t", "t.toml");
    rejects(
      herdr(Array.from({ length: 127 }, (_, i) => rule(i, gates(3))).join("") + rule(200, gates(4))),
      /more than 512 gates/,
    );
  });
  test(`${LIMITS.matcherChars} characters per matcher load, ${LIMITS.matcherChars + 1} do not`, () => {
    loadManifest(herdr(rule(0, `contains = ["${"x".repeat(512)}"]`)), "t", "t.toml");
    rejects(herdr(rule(0, `contains = ["${"x".repeat(513)}"]`)), /513 characters \(limit 512\)/);
    rejects(herdr(rule(0, `regex = ['${"x".repeat(513)}']`)), /513 characters/);
  });
  test(`gates nested ${LIMITS.depth} deep load, ${LIMITS.depth + 1} do not`, () => {
    const nest = (d: number): string => (d === 0 ? 'contains = ["x"]' : `any = [{ ${nest(d - 1)} }]`);
    loadManifest(herdr(rule(0, nest(LIMITS.depth - 1))), "t", "t.toml");
    rejects(herdr(rule(0, nest(LIMITS.depth))), /nested deeper than 8/);
  });
});

const herdrDir = path.join(SHARED, "manifests", "herdr");
describe("a custom manifest's name", () => {
  test("its file's base name, wherever it is; a bundled name is shown as the path", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-name-"));
    try {
      fs.mkdirSync(path.join(dir, "rules"));
      const mine = path.join(dir, "rules", "my-rules.toml");
      const clash = path.join(dir, "rules", "claude.toml");
      fs.writeFileSync(mine, BUNDLED.claude);
      fs.writeFileSync(clash, BUNDLED.claude);
      assert.equal(resolveManifest(mine).name, "my-rules");
      assert.equal(resolveManifest(clash).name, clash);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Herdr's manifests", { skip: !hasShared && "../shared is absent" }, () => {
  const files = hasShared ? fs.readdirSync(herdrDir).filter((f) => f.endsWith(".toml")) : [];
  test("the folder has manifests (every one of them is loaded below)", () => assert.ok(files.length > 0));
  for (const f of files) {
    test(`${f} loads`, () => {
      const file = path.join(herdrDir, f);
      const m = resolveManifest(file);
      assert.equal(m.style, "herdr");
      // Named by its file; a name a bundled manifest has is shown as the path.
      assert.equal(m.name, Object.hasOwn(BUNDLED, f.slice(0, -5)) ? file : f.slice(0, -5));
      assert.ok(m.rules.length > 0);
    });
  }
});

describe("evidence without a full trace", () => {
  test('a matcher whose pattern starts with "not " is never the evidence (as explain\'s trace filter reads it)', () => {
    const m = loadManifest(
      herdr(`
[[rules]]
id = "r"
state = "working"
contains = ["not ready", "ready"]
`),
      "t",
      "t.toml",
    );
    const src = screen("not ready yet");
    assert.equal(evaluate(m, src).evidence, "ready");
    assert.equal(evaluate(m, src, { explain: true }).evidence, "ready");
  });
  // evaluate() takes the winner's evidence from its first matched matcher; explain reads
  // it off the whole trace. Both must agree on every screen, for every manifest.
  test("evaluate and explain give the same verdict and evidence (bundled and Herdr manifests, random screens)", () => {
    const manifests = Object.keys(BUNDLED).map((n) => resolveManifest(n));
    if (hasShared) {
      const dir = path.join(SHARED, "manifests", "herdr");
      for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".toml"))) {
        manifests.push(loadManifest(fs.readFileSync(path.join(dir, f), "utf8"), f, f));
      }
    }
    // Pieces of what the rules look for (their own literals, cut and joined), and noise.
    const words = new Set<string>([
      "esc to interrupt",
      "? for shortcuts",
      "Do you want to proceed?",
      "❯ 1. Yes",
      "✻ Pondering… (3s · esc to interrupt)",
      "not ",
      "─────",
      "› ",
      "[y/n]",
      "Allow?",
      "\u2733 Claude",
      "⠋ Working",
    ]);
    for (const m of manifests) {
      for (const r of m.rules) {
        (function walk(g: typeof r.gate) {
          g.contains.forEach((c) => words.add(c));
          [...g.regex, ...g.lineRegex].forEach((x) =>
            words.add(x.source.replace(/\\[sdwSDW]|[\\^$()[\]{}|?*+]/g, " ").slice(0, 40))
          );
          [...g.all, ...g.any, ...g.not].forEach(walk);
        })(r.gate);
      }
    }
    const pool = [...words];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...pool), { maxLength: 4 }), { maxLength: 12 }),
        fc.constantFrom("", "\u2733 Claude Code", "⠋ task"),
        (lines, title) => {
          const src = screen(lines.map((l) => l.join(" ")).join("\n"), title);
          for (const m of manifests) {
            const a = evaluate(m, src), b = evaluate(m, src, { explain: true });
            assert.deepEqual([a.state, a.rule?.id, a.evidence], [b.state, b.rule?.id, b.evidence], m.name);
          }
        },
      ),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 200) },
    );
  });

  test("rule results kept by region text give what a fresh evaluation gives, screen after screen", () => {
    // A screen's rows change a few at a time (so some regions keep their text and some do
    // not); the same memo serves the whole sequence, as an observer's does.
    const manifests = [
      ...Object.keys(BUNDLED).map((n) => resolveManifest(n)),
      ...(hasShared
        ? fs.readdirSync(path.join(SHARED, "manifests", "herdr")).filter((f) => f.endsWith(".toml")).map((f) =>
          loadManifest(fs.readFileSync(path.join(SHARED, "manifests", "herdr", f), "utf8"), f, f)
        )
        : []),
    ];
    const pool = [
      "esc to interrupt",
      "? for shortcuts",
      "Do you want to proceed?",
      "❯ 1. Yes",
      "  2. No",
      "─────────",
      "› ",
      "[y/n]",
      "✻ Pondering… (3s · esc to interrupt)",
      "Enter to select · ↑/↓ to navigate",
      "",
      "",
      "text",
    ];
    const edit = fc.tuple(
      fc.nat({ max: 11 }),
      fc.constantFrom(...pool),
      fc.constantFrom("", "\u2733 Claude Code", "⠋ task"),
    );
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 40 }), (edits) => {
        const memos = new Map(manifests.map((m) => [m, ruleMemo()]));
        const rows: string[] = new Array(12).fill("");
        for (const [row, text, title] of edits) {
          rows[row] = text;
          const src = screen(rows.join("\n"), title);
          for (const m of manifests) {
            const a = evaluate(m, src, { memo: memos.get(m) }), b = evaluate(m, src);
            assert.deepEqual([a.state, a.rule?.id, a.evidence], [b.state, b.rule?.id, b.evidence], m.name);
          }
        }
      }),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 100) },
    );
  });
});
