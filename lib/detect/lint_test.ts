// `pstlab lint`'s findings, one manifest per hazard, in both manifest styles; and the
// command's exit codes, formats and corpus reading.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { loadManifest } from "./manifest.ts";
import { type Finding, lintManifest, type LintScreen, unrunnablePatterns } from "./lint.ts";
import { BUNDLED } from "./bundled.ts";
import { cli, tmpDir, writeTmp } from "../testkit.ts";

const fm = (rules: string) => loadManifest(`style = "first-match"\n${rules}`, "t", "t.toml");
const herdr = (rules: string) => loadManifest(`id = "t"\n${rules}`, "t", "t.toml");
const screen = (name: string, text: string, truth: LintScreen["truth"], title = ""): LintScreen => ({
  name,
  source: { rows: () => text.split("\n"), title, osc9: null },
  truth,
});
const brief = (fs: Finding[]) => fs.map((f) => `${f.level} ${f.rule}: ${f.message}`);

describe("lint: by construction", () => {
  test("a copy of an earlier rule, and rules after a catch-all, can never win", () => {
    const m = fm(`
[[rules]]
id = "a"
state = "blocked"
any = ['Allow\\?']
[[rules]]
id = "b"
state = "working"
any = ['Allow\\?']
[[rules]]
id = "everything"
state = "idle"
any = ['(?s).*']
[[rules]]
id = "late"
state = "working"
region = "bottom_non_empty_lines(3)"
any = ['esc to interrupt']
`);
    assert.deepEqual(brief(lintManifest(m)), [
      'error b: can never win: the same region and matchers as "a", which is evaluated first',
      'error late: can never win: "everything" is evaluated first and matches any text of whole_recent',
    ]);
  });
  test("herdr style: order is by priority, so the low-priority catch-all shadows nothing", () => {
    const m = herdr(`
[[rules]]
id = "fallback"
state = "working"
priority = -10
regex = ['(?s).+']
[[rules]]
id = "dialog"
state = "blocked"
priority = 300
contains = ["allow?"]
`);
    assert.deepEqual(lintManifest(m), []);
  });
  test("a title rule outranking every blocked rule that reads the screen is an error", () => {
    const m = herdr(`
[[rules]]
id = "title_busy"
state = "working"
priority = 1100
region = "osc_title"
regex = ['^[\\x{2800}-\\x{28FF}] ']
[[rules]]
id = "dialog"
state = "blocked"
priority = 980
contains = ["do you want to proceed?"]
`);
    const f = lintManifest(m);
    assert.equal(f.length, 1);
    assert.equal(f[0].level, "error");
    assert.equal(f[0].rule, "title_busy");
    assert.match(f[0].message, /outranks every blocked rule that reads the screen \(first: "dialog", priority 980\)/);
    // Below the blocked rule it is fine; the bundled manifests put title rules last.
    assert.deepEqual(
      lintManifest(herdr(`
[[rules]]
id = "title_busy"
state = "working"
priority = 900
region = "osc_title"
regex = ['^[\\x{2800}-\\x{28FF}] ']
[[rules]]
id = "dialog"
state = "blocked"
priority = 980
contains = ["do you want to proceed?"]
`)),
      [],
    );
    for (const name of Object.keys(BUNDLED)) {
      const errors = lintManifest(loadManifest(BUNDLED[name], name, name)).filter((x) => x.level === "error");
      assert.deepEqual(errors, [], name);
    }
  });
  test("every pattern no engine can run, each with its rule (the loader stops at the first)", () => {
    const text = `style = "first-match"
[[rules]]
id = "back"
state = "blocked"
any = ['(a)\\1']
[[rules]]
id = "look"
state = "idle"
any = ['x(?=y)', 'fine']
`;
    assert.deepEqual(unrunnablePatterns(text).map((f) => [f.level, f.rule]), [["error", "back"], ["error", "look"]]);
  });
  test("the runner's verdicts: exponential in JavaScript, or a Unicode \\b that keeps it in JavaScript", () => {
    const m = fm(`
[[rules]]
id = "nested"
state = "working"
any = ['(?:a+)+$']
[[rules]]
id = "plain"
state = "idle"
any = ['esc to interrupt']
`);
    assert.deepEqual(lintManifest(m).map((x) => [x.level, x.rule]), [["warning", "nested"]]);
    assert.match(lintManifest(m)[0].message, /exponentially in JavaScript.*the linear-time engine runs it/);
  });
});

describe("lint: on a labelled corpus", () => {
  const m = fm(`
[[rules]]
id = "any_menu"
state = "blocked"
region = "bottom_non_empty_lines(3)"
any = ['(?m)^❯ \\d\\. ']
[[rules]]
id = "yes_menu"
state = "blocked"
region = "bottom_non_empty_lines(3)"
any = ['(?m)^❯ 1\\. Yes']
[[rules]]
id = "working"
state = "working"
any = ['esc to interrupt']
`);
  const long = "Pick one?\n❯ 1. Yes\n  2. Yes, for this session\n  3. Yes, always\n  4. No\n  5. No, and say why";
  const screens = [
    screen("panes/a.txt", "Allow?\n❯ 1. Yes\n  2. No", "blocked"),
    screen("panes/b.txt", long, "blocked"),
    screen("panes/c.txt", "✻ Thinking… (Esc to interrupt)", "working"),
  ];
  const f = lintManifest(m, screens);
  test("a rule that matches screens but never first is an error naming who won", () => {
    const e = f.find((x) => x.rule === "yes_menu" && x.level === "error");
    assert.ok(e, JSON.stringify(f));
    assert.match(e.message, /never wins on the corpus: it matches 1 screen, and "any_menu" on 1 won first/);
  });
  test("a scan window shorter than a menu of the corpus is a warning naming the file", () => {
    const w = f.filter((x) => x.message.startsWith("its scan window"));
    assert.deepEqual(w.map((x) => x.rule), ["any_menu", "yes_menu"]);
    assert.match(w[0].message, /bottom_non_empty_lines\(3\) is shorter than the menu on panes\/b\.txt/);
  });
  test("a case-sensitive pattern the corpus shows in another case is a warning", () => {
    const w = f.find((x) => x.rule === "working");
    assert.ok(w);
    assert.match(w.message, /"esc to interrupt" is case-sensitive, and panes\/c\.txt shows it as "Esc to interrupt"/);
  });
});

describe("pstlab lint", () => {
  const dir = tmpDir("pstlab-lint-");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const good = writeTmp(
    dir,
    "good.toml",
    `style = "first-match"\n[[rules]]\nid = "a"\nstate = "blocked"\nany = ['Allow\\?']\n`,
  );
  const stale = writeTmp(
    dir,
    "stale.toml",
    `id = "s"\n[[rules]]\nid = "title"\nstate = "working"\npriority = 5\nregion = "osc_title"\nregex = ['^⠋']\n[[rules]]\nid = "dialog"\nstate = "blocked"\npriority = 1\ncontains = ["allow?"]\n`,
  );
  const cased = writeTmp(
    dir,
    "cased.toml",
    `style = "first-match"\n[[rules]]\nid = "w"\nstate = "working"\nany = ['esc to interrupt']\n`,
  );
  fs.mkdirSync(path.join(dir, "panes"));
  writeTmp(dir, "panes/w.txt", "✻ Thinking… (Esc to interrupt)\n");
  const labels = writeTmp(dir, "labels.tsv", "# path state\npanes/w.txt\tworking\n");
  test("clean manifests exit 0; an error exits 1 with one line naming the file and the rule", () => {
    const ok = cli(["lint", good, "claude", "generic"]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.equal(ok.stdout, "");
    assert.match(ok.stderr, /lint: 0 errors, 0 warnings in 3 manifests/);
    const bad = cli(["lint", good, stale]);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, new RegExp(`^${stale.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: error: rule "title": `));
    assert.equal(bad.stdout.trim().split("\n").length, 1);
  });
  test("warnings exit 0, or 1 with --strict; --labels reads the corpus; --json for machines", () => {
    const w = cli(["lint", cased, "--labels", labels]);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /warning: rule "w": "esc to interrupt" is case-sensitive, and panes\/w\.txt shows it/);
    assert.equal(cli(["lint", cased, "--labels", labels, "--strict"]).code, 1);
    assert.equal(cli(["lint", cased]).stdout, "");
    const j = JSON.parse(cli(["lint", cased, stale, "--labels", labels, "--json"]).stdout);
    assert.deepEqual([j.errors, j.warnings, j.manifests.length], [1, 1, 2]);
  });
  test("a manifest that does not load is an error finding; a missing file is exit 2", () => {
    const r = cli([
      "lint",
      writeTmp(dir, "bad.toml", `style = "first-match"\n[[rules]]\nid = "x"\nstate = "idle"\nany = ['(a)\\1']\n`),
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /bad\.toml: error: rule "x": "\(a\)\\\\1": /);
    // Every problem of every rule, not only the unrunnable pattern the loader stopped at: one
    // rule no engine can run beside each other kind of problem (a table: the class, not one case).
    const BACK = `[[rules]]\nid = "back"\nstate = "blocked"\nany = ['(a)\\1']\n`;
    const cases: [string, string, RegExp][] = [
      [
        "duplicate",
        `style = "first-match"\n${BACK}[[rules]]\nid = "a"\nstate = "idle"\nany = ['x']\n[[rules]]\nid = "b"\nstate = "idle"\nany = ['x']\n`,
        /^error b: can never win: the same region and matchers as "a"/,
      ],
      [
        "catch-all first",
        `style = "first-match"\n${BACK}[[rules]]\nid = "all"\nstate = "idle"\nany = ['']\n[[rules]]\nid = "late"\nstate = "working"\nany = ['y']\n`,
        /^error late: can never win: "all" is evaluated first/,
      ],
      [
        "exponential pattern",
        `style = "first-match"\n${BACK}[[rules]]\nid = "nested"\nstate = "working"\nany = ['(?:a+)+$']\n`,
        /^warning nested: .*exponentially/,
      ],
      [
        "a second load error",
        `style = "first-match"\n${BACK}[[rules]]\nid = "s"\nstate = "sleepy"\nany = ['z']\n`,
        /^error null: .*state must be idle, working, blocked or unknown/,
      ],
    ];
    for (const [name, text, other] of cases) {
      const j = JSON.parse(cli(["lint", writeTmp(dir, `both-${name.replace(/ /g, "-")}.toml`, text), "--json"]).stdout);
      const got = (j.manifests[0].findings as Finding[]).map((f) => `${f.level} ${f.rule}: ${f.message}`);
      assert.ok(got.some((g) => /^error back: .*backreferences/.test(g)), `${name}: ${got.join(" | ")}`);
      assert.ok(got.some((g) => other.test(g)), `${name}: ${got.join(" | ")}`);
    }
    const m = cli(["lint", path.join(dir, "nope.toml")]);
    assert.equal(m.code, 2);
    assert.equal(m.stderr.trim().split("\n").length, 1);
  });
});
