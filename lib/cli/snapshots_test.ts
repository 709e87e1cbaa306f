// Scoring a folder of labelled screens: `report SNAPSHOT… --labels FILE` with
// `PATH<TAB>state[<TAB>kind]` lines: accuracy, confusion matrix and misjudged files with
// the rule that fired, in table, JSON and markdown; other people's snapshots when present.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, hasShared, SHARED, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-snaps-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, "panes"));
writeTmp(
  dir,
  "panes/prompt.ansi.txt",
  " Bash command\n\n   rm -rf build\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n",
);
writeTmp(dir, "panes/working.ansi.txt", "⏺ Read(src/a.ts)\n\n✻ Pondering… (3s · esc to interrupt)\n");
writeTmp(dir, "panes/idle.ansi.txt", "──────\n❯ \n──────\n  ? for shortcuts\n");
writeTmp(dir, "panes/question.ansi.txt", "Which file should I edit?\n");
const labels = writeTmp(
  dir,
  "labels.tsv",
  "# pane\tstate\tkind\npanes/prompt.ansi.txt\tblocked\tpermission\npanes/working.ansi.txt\tworking\npanes/idle.ansi.txt\tidle\npanes/question.ansi.txt\tidle\n",
);

describe("report --labels on snapshots", () => {
  test("JSON: accuracy, confusion, misjudged with the rule", () => {
    const r = cli(["report", "--labels", labels, "--manifest", "claude", "--format", "json"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.kind, "snapshots");
    assert.equal(j.snapshots, 4);
    const screen = j.detectors.find((d: { name: string }) => d.name === "screen:claude");
    assert.deepEqual([screen.correct, screen.total, screen.accuracy], [4, 4, 1]);
    assert.deepEqual(screen.confusion, { blocked: { blocked: 1 }, working: { working: 1 }, idle: { idle: 2 } });
    const question = j.detectors.find((d: { name: string }) => d.name === "question");
    assert.equal(question.accuracy, 0.5);
    assert.deepEqual(
      question.misjudged.map((
        m: { path: string; verdict: string; rule: string },
      ) => [path.basename(m.path), m.verdict, m.rule]),
      [["working.ansi.txt", "idle", null], ["question.ansi.txt", "blocked", "line-ends-with-?"]],
    );
  });
  test("table and markdown say the same; detectors that need time are named as not scored", () => {
    const args = [
      "report",
      path.join(dir, "panes/prompt.ansi.txt"),
      path.join(dir, "panes/question.ansi.txt"),
      "--labels",
      labels,
      "--manifest",
      "claude",
      "--detectors",
      "screen:claude@50ms,question,quiet>=2s",
    ];
    const t = cli(args);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^2 labelled snapshots/);
    assert.match(t.stdout, /^screen:claude +100\.0 % +2 \/ 2 +0$/m);
    assert.match(t.stdout, /^question +50\.0 % +1 \/ 2 +1$/m);
    assert.match(t.stdout, /misjudged .*question\.ansi\.txt: idle read as blocked \(rule line-ends-with-\?\)/);
    assert.match(t.stdout, /not scored \(they need time, not an instant\): quiet>=2s/);
    const m = cli([...args, "--format", "markdown"]).stdout;
    assert.match(m, /\| `question` \| 50\.0 % \| 1 \/ 2 \| 1 \|/);
    assert.match(m, /\| idle \| 1 \| 0 \| 0 \| 0 \|/);
  });
  test("a snapshot without a label, a bad labels line: one line, exit 2", () => {
    const other = writeTmp(dir, "panes/unlabelled.ansi.txt", "x\n");
    assert.match(cli(["report", other, "--labels", labels]).stderr, /unlabelled\.ansi\.txt has no label in/);
    const bad = writeTmp(dir, "bad.tsv", "panes/idle.ansi.txt\tsleeping\n");
    const r = cli(["report", "--labels", bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.tsv:1: unknown state "sleeping"/);
  });
  test("other people's snapshots, with the rules made for them", { skip: !hasShared && "../shared is absent" }, () => {
    // Labels name files inside their own folder (a symlink out of it is refused): the shared
    // captures named here are copied into the test's temporary folder.
    for (
      const f of [
        "captures/claudeless-2.1.29/initial_state.tui.ansi.txt",
        "captures/claudeless-2.1.29/bash_permission_dialog.tui.ansi.txt",
        "captures/codex/codex_tui__bottom_pane__approval_overlay__tests__approval_overlay_permissions_prompt.snap",
        "captures/codex/codex_tui__status_indicator_widget__tests__renders_with_working_header.snap",
      ]
    ) {
      fs.mkdirSync(path.dirname(path.join(dir, "shared", f)), { recursive: true });
      fs.copyFileSync(path.join(SHARED, f), path.join(dir, "shared", f));
    }
    const l = writeTmp(
      dir,
      "shared.tsv",
      [
        `shared/captures/claudeless-2.1.29/initial_state.tui.ansi.txt\tidle`,
        `shared/captures/claudeless-2.1.29/bash_permission_dialog.tui.ansi.txt\tblocked\tpermission`,
      ].join("\n") + "\n",
    );
    const j = JSON.parse(cli(["report", "--labels", l, "--format", "json", "--manifest", "claude"]).stdout);
    const screen = j.detectors.find((d: { name: string }) => d.name === "screen:claude");
    assert.equal(screen.accuracy, 1);
    assert.deepEqual(screen.confusion, { idle: { idle: 1 }, blocked: { blocked: 1 } });
    const codex = writeTmp(
      dir,
      "codex.tsv",
      [
        `shared/captures/codex/codex_tui__bottom_pane__approval_overlay__tests__approval_overlay_permissions_prompt.snap\tblocked\tpermission`,
        `shared/captures/codex/codex_tui__status_indicator_widget__tests__renders_with_working_header.snap\tworking`,
      ].join("\n") + "\n",
    );
    const c = JSON.parse(
      cli(["report", "--labels", codex, "--format", "json", "--manifest", "codex", "--detectors", "screen:codex"])
        .stdout,
    );
    assert.equal(c.detectors[0].accuracy, 1, JSON.stringify(c.detectors[0].misjudged));
  });
  test("a labels line names a regular file inside the labels file's folder, or it is refused (file:line)", () => {
    for (
      const [line, why] of [
        ["/dev/zero\tidle", /bad-path\.tsv:2: "\/dev\/zero": a path must be relative/],
        ["../../etc/passwd\tidle", /bad-path\.tsv:2: "\.\.\/\.\.\/etc\/passwd": a path must be relative/],
        ["panes\tidle", /bad-path\.tsv:2: "panes" is not a regular file/],
        ["zero\tidle", /bad-path\.tsv:2: "zero": leads out of the labels file's folder through a symbolic link/],
        ["s.txt\tidle", /bad-path\.tsv:2: "s\.txt": leads out of the labels file's folder through a symbolic link/],
        ["rootdir/etc/passwd\tidle", /bad-path\.tsv:2: "rootdir\/etc\/passwd": leads out of the labels file's/],
        [
          "panes/idle.ansi.txt\tworking",
          /bad-path\.tsv:2: "panes\/idle\.ansi\.txt" is labelled working here and idle at .*bad-path\.tsv:1: one file, one truth/,
        ],
        [
          "./panes/idle.ansi.txt\tblocked",
          /bad-path\.tsv:2: ".*" is labelled blocked here and idle at .*bad-path\.tsv:1 \(as "panes\/idle\.ansi\.txt"\)/,
        ],
      ] as const
    ) {
      for (const [name, to] of [["zero", "/dev/zero"], ["s.txt", "/etc/passwd"], ["rootdir", "/"]]) {
        if (!fs.existsSync(path.join(dir, name))) fs.symlinkSync(to, path.join(dir, name));
      }
      const bad = writeTmp(dir, "bad-path.tsv", `panes/idle.ansi.txt\tidle\n${line}\n`);
      const r = cli(["report", "--labels", bad], { timeout: 20000 });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, why);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    }
    // The same file with the same state twice is a harmless repeat.
    const twice = writeTmp(dir, "twice.tsv", "panes/idle.ansi.txt\tidle\npanes/idle.ansi.txt\tidle\n");
    assert.equal(cli(["report", "--labels", twice]).code, 0);
  });
});
