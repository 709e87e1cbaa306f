// The labelled-screen corpus format (issue 21): labels.tsv with named columns declared
// in a header comment (size, program, version, source…), a pane's size from its label
// else from the file itself, a warning when text would scroll off, paths printed as the
// labels file gives them, and one reading of `.txt`/`.ansi`/`.snap` pane captures by
// screen, detect, explain and report --labels.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, tmpDir, writeTmp } from "../testkit.ts";
import { labelColumns, parseSnapshotLabels } from "../score/snapshots.ts";

const dir = tmpDir("pstlab-corpus-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, "panes"));
// A 200x50 pane: the dialog sits at its top, 40 rows of transcript below it.
const tall = [
  " Do you want to proceed?",
  " ❯ 1. Yes",
  "   2. No",
  ...Array.from({ length: 47 }, (_, i) => `log line ${i} ` + "·".repeat(i === 5 ? 180 : 20)),
];
writeTmp(dir, "panes/tall.txt", tall.join("\n") + "\n");
writeTmp(dir, "panes/apt.txt", "Reading package lists... Done\nDo you want to continue? [Y/n] \n");
writeTmp(dir, "panes/shell.ansi", "\x1b[32m$\x1b[0m ls\nREADME.md\n$ \n");

describe("labels.tsv: named columns", () => {
  test("a header comment names the columns, in any order; without one: path, state, kind", () => {
    assert.deepEqual(labelColumns("# path state kind size program version source\n"), [
      "path",
      "state",
      "kind",
      "size",
      "program",
      "version",
      "source",
    ]);
    assert.deepEqual(labelColumns("# captured on Tuesday\n# state path\n"), ["state", "path"]);
    assert.deepEqual(labelColumns("# pane\tstate\tkind\na\tidle\n"), ["path", "state", "kind"]);
    const file = path.join(dir, "l.tsv");
    const l = parseSnapshotLabels(
      "# state size path program version\nblocked\t200x50\tpanes/tall.txt\tclaude\t2.1.40\nidle\t-\tpanes/shell.ansi\t\t\n",
      file,
    );
    assert.deepEqual(
      l.map((x) => [x.given, x.state, x.size ?? null, x.program ?? null, x.meta]),
      [
        ["panes/tall.txt", "blocked", { cols: 200, rows: 50 }, "claude", { version: "2.1.40" }],
        ["panes/shell.ansi", "idle", null, null, {}],
      ],
    );
    assert.equal(l[0].path, path.join(dir, "panes/tall.txt"));
  });
  test("a bad size, too many columns, a missing state: file:line, exit 2", () => {
    const head = "# path state size\n";
    for (
      const [body, msg] of [
        ["panes/apt.txt\tblocked\t200by50\n", /bad\.tsv:2: bad size "200by50"/],
        ["panes/apt.txt\tblocked\t80x24\textra\n", /bad\.tsv:2: 4 columns, the header names 3/],
        ["panes/apt.txt\n", /bad\.tsv:2: expected "PATH<TAB>STATE<TAB>SIZE"/],
        ["panes/apt.txt\tblocked\t1x24\n", /bad\.tsv:2: bad size "1x24"/],
      ] as const
    ) {
      const r = cli(["report", "--labels", writeTmp(dir, "bad.tsv", head + body)]);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, msg);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
  });
});

describe("the program column", () => {
  test("names the rules --manifest auto uses for a pane that shows no agent's marker", () => {
    writeTmp(dir, "panes/dialog.txt", " Do you want to proceed?\n ❯ 1. Yes\n   2. No\n");
    const run = (labels: string) =>
      JSON.parse(
        cli(["report", "--labels", writeTmp(dir, "prog.tsv", labels), "--detectors", "screen:auto", "--format", "json"])
          .stdout,
      ).detectors[0];
    const named = run("# path state program\npanes/dialog.txt\tblocked\tclaude\n");
    assert.deepEqual([named.name, named.accuracy], ["screen:claude", 1]);
    assert.equal(run("panes/dialog.txt\tblocked\n").name, "screen:generic");
  });
});

describe("a pane's size", () => {
  const report = (labels: string, extra: string[] = []) => {
    const r = cli([
      "report",
      "--labels",
      writeTmp(dir, "size.tsv", labels),
      "--manifest",
      "claude",
      "--detectors",
      "screen:claude",
      "--format",
      "json",
      ...extra,
    ]);
    assert.equal(r.code, 0, r.stderr);
    return { j: JSON.parse(r.stdout), stderr: r.stderr };
  };
  test("from the labels file's size column: the whole pane is read", () => {
    const { j, stderr } = report("# path state size\npanes/tall.txt\tblocked\t200x50\n");
    assert.equal(j.detectors[0].accuracy, 1, JSON.stringify(j.detectors[0].misjudged));
    assert.equal(stderr, "");
  });
  test("from the file itself when no size is given (its line count and widest line)", () => {
    const { j } = report("panes/tall.txt\tblocked\n");
    assert.equal(j.detectors[0].accuracy, 1);
    const s = JSON.parse(cli(["screen", path.join(dir, "panes/tall.txt"), "--json"]).stdout);
    assert.deepEqual([s.cols, s.rows, s.lines[0]], [191, 50, " Do you want to proceed?"]);
  });
  test("a given size smaller than the text: read at it, with a warning naming the path as given", () => {
    const { j, stderr } = report("# path state size\npanes/tall.txt\tblocked\t120x32\n");
    assert.equal(j.detectors[0].accuracy, 0);
    assert.equal(j.detectors[0].misjudged[0].path, "panes/tall.txt");
    assert.match(
      stderr,
      /^pstlab: warning: panes\/tall\.txt: its text is 191x50 but is read at 120x32: long lines wrap and rows scroll off the top/,
    );
    const s = cli(["screen", path.join(dir, "panes/tall.txt"), "--size", "120x32"]);
    assert.match(s.stderr, /its text is 191x50 but is read at 120x32/);
  });
});

describe("one reading of a pane capture", () => {
  test("screen, detect, explain and report --labels see the same rows (no LF staircase)", () => {
    const f = path.join(dir, "panes/apt.txt");
    const s = JSON.parse(cli(["screen", f, "--json"]).stdout);
    assert.deepEqual(s.lines.slice(0, 2), ["Reading package lists... Done", "Do you want to continue? [Y/n]"]);
    const d = JSON.parse(cli(["detect", f, "--manifest", "generic", "--json"]).stdout);
    assert.deepEqual([d.state, d.rule], ["blocked", "confirmation"]);
    const e = JSON.parse(cli(["explain", f, "--manifest", "generic", "--json"]).stdout);
    assert.equal(e.rule, "confirmation");
    const r = JSON.parse(
      cli([
        "report",
        "--labels",
        writeTmp(dir, "one.tsv", "panes/apt.txt\tblocked\npanes/shell.ansi\tidle\n"),
        "--manifest",
        "generic",
        "--detectors",
        "screen:generic",
        "--format",
        "json",
      ]).stdout,
    );
    assert.equal(r.detectors[0].accuracy, 1, JSON.stringify(r.detectors[0].misjudged));
  });
  test("misjudged files print as the labels file gives them, in every format", () => {
    const l = writeTmp(dir, "rel.tsv", "panes/apt.txt\tidle\n");
    const out = (f: string) => path.join(dir, `rel.${f}`);
    const formats = ["json", "markdown", "html", "junit", "csv"];
    const r = cli([
      "report",
      "--labels",
      l,
      "--manifest",
      "generic",
      ...formats.flatMap((f) => [`--export-${f}`, out(f)]),
    ]);
    assert.equal(r.code, 0, r.stderr);
    for (const [format, text] of [["table", r.stdout], ...formats.map((f) => [f, fs.readFileSync(out(f), "utf8")])]) {
      assert.ok(!text.includes(dir), `${format} prints an absolute path`);
      if (format !== "csv") assert.ok(text.includes("panes/apt.txt"), format);
    }
  });
});
