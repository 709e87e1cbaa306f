// `report --labels … --manifest NEW --compare-manifest OLD`: both accuracies and every
// flipped file with the rule that fired on each side, in every format; `--fail-on-worse`
// fails when a file that was right becomes wrong.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-compare-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, "panes"));
writeTmp(dir, "panes/ask.txt", "Overwrite dist/? [y/N] \n");
writeTmp(dir, "panes/shell.txt", "$ ls\nREADME\n$ \n");
writeTmp(dir, "panes/spin.txt", "⠙ Building the image\n");
const labels = writeTmp(
  dir,
  "labels.tsv",
  "# path state kind\npanes/ask.txt\tblocked\tpermission\npanes/shell.txt\tidle\npanes/spin.txt\tworking\n",
);
const rules = (blocked: string) =>
  `style = "first-match"\n[[rules]]\nid = "${blocked}"\nstate = "blocked"\nany = ['${
    blocked === "yn" ? "\\[y/N\\]" : "\\[Y/n\\]"
  }']\n[[rules]]\nid = "spin"\nstate = "working"\nany = ['⠙']\n`;
// The new manifest narrows the confirmation to [Y/n]: ask.txt flips from right to wrong.
const old = writeTmp(dir, "old.toml", rules("yn"));
const now = writeTmp(dir, "new.toml", rules("yn_strict"));
const base = [
  "report",
  "--labels",
  labels,
  "--manifest",
  now,
  "--compare-manifest",
  old,
  "--detectors",
  `screen:${now},question`,
];

describe("report --compare-manifest", () => {
  test("both accuracies and the one flipped file, with the rule on each side, in every format", () => {
    const out = (f: string) => path.join(dir, `cmp.${f}`);
    const formats = ["json", "markdown", "html", "junit", "csv"];
    const r = cli([...base, ...formats.flatMap((f) => [`--export-${f}`, out(f)])]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^screen +100\.0 % \(3\/3\) +66\.7 % \(2\/3\) +−33\.3 pt +0 +1$/m);
    assert.match(
      r.stdout,
      /^ {2}panes\/ask\.txt: screen broken \(truth blocked:permission\): blocked by yn → idle by no rule$/m,
    );
    assert.doesNotMatch(r.stdout, /question/); // a detector without a manifest never flips
    const j = JSON.parse(fs.readFileSync(out("json"), "utf8"));
    assert.equal(j.kind, "manifest-comparison");
    assert.deepEqual(
      j.detectors.map((d: { kind: string; old: { accuracy: number }; new: { accuracy: number } }) => [
        d.kind,
        d.old.accuracy,
        d.new.accuracy,
      ]),
      [["screen", 1, 0.666667]],
    );
    assert.deepEqual(j.flips, [{
      path: "panes/ask.txt",
      truth: "blocked:permission",
      detector: "screen",
      kind: "broken",
      old: { verdict: "blocked", rule: "yn" },
      new: { verdict: "idle", rule: null },
    }]);
    for (const f of ["markdown", "html", "junit", "csv"]) {
      const text = fs.readFileSync(out(f), "utf8");
      assert.ok(text.includes("panes/ask.txt") && text.includes("yn"), f);
    }
    assert.match(fs.readFileSync(out("junit"), "utf8"), /failures="1"/);
  });
  test("--fail-on-worse all (or the detector) exits 1 with one line; a file made right does not", () => {
    for (const list of ["all", "screen"]) {
      const r = cli([...base, "--fail-on-worse", list]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /^pstlab: report: 1 labelled file right with .*old\.toml is wrong with .*new\.toml .*panes\/ask\.txt \(screen\)\n$/,
      );
    }
    // The other way round the change fixes ask.txt: nothing got worse.
    const back = cli([
      "report",
      "--labels",
      labels,
      "--manifest",
      old,
      "--compare-manifest",
      now,
      "--fail-on-worse",
      "all",
    ]);
    assert.equal(back.code, 0, back.stderr);
    assert.match(
      back.stdout,
      /panes\/ask\.txt: screen fixed \(truth blocked:permission\): idle by no rule → blocked by yn/,
    );
  });
  test("misuse is one line, exit 2", () => {
    for (
      const [args, msg] of [
        [["report", "x.cast", "--compare-manifest", old], /--compare-manifest needs --labels/],
        [["report", "x.cast", "--fail-on-worse", "all"], /--fail-on-worse needs --baseline or --compare-manifest/],
        [[...base.slice(0, 6), "auto"], /not auto/],
        [[...base.slice(0, 6), path.join(dir, "none.toml")], /none\.toml/],
      ] as const
    ) {
      const r = cli([...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, msg);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
  });
});
