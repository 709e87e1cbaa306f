// The corpus of real programs (fixtures/corpus/, recorded by pstlab from the real
// tools, truth labelled by their scripts): every prompt is caught within 300 ms at a
// 300 ms sweep, and nothing is called blocked on a pager, an editor, a monitor, a
// long log or a plain shell — with the generic rules and with `auto`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { analyzeFile } from "../../replay/analyze.ts";
import { ROOT } from "../testkit.ts";

const corpus = (n: string) => path.join(ROOT, "fixtures/corpus", `${n}.cast`);
const PROMPTS: [string, number][] = [
  ["apt", 1],
  ["passphrase", 2],
  ["python-input", 1],
  ["git-add-p", 1],
  ["npm-init", 11],
  // Issue 21: git add -i's menus ("What now>", "Patch update>>", a "(1/1)" counter left
  // above the next "What now>"), top's own prompt, gpg's label questions typed into, a
  // question inside tmux (status bar below), whiptail's buttons on one row in a border.
  ["git-add-i", 4],
  ["top-kill", 1],
  ["gpg-label", 5],
  ["tmux-question", 2],
  ["whiptail", 1],
];
const QUIET = ["pager", "vim", "top", "seq", "shell"];

for (const manifest of ["generic", "auto"]) {
  describe(`corpus, --manifest ${manifest}`, () => {
    const run = (n: string) =>
      analyzeFile(corpus(n), { detectors: [`screen:${manifest}@300ms`], truth: "markers", open: {} });
    for (const [name, prompts] of PROMPTS) {
      test(`${name}: ${prompts} prompt${prompts === 1 ? "" : "s"}, each caught within 300 ms`, async () => {
        const r = await run(name);
        const s = r.scores[0];
        assert.equal(s.episodes.length, prompts);
        for (const e of s.episodes) {
          assert.ok(
            e.latency !== null && e.latency <= 0.3 + 1e-9,
            `${name}: episode at ${e.start} s caught after ${e.latency} s`,
          );
        }
        assert.equal(s.falseAlarms.working.count + s.falseAlarms.idle.count + s.falseAlarms.unlabeled.count, 0);
      });
    }
    for (const name of QUIET) {
      test(`${name}: never blocked`, async () => {
        const r = await run(name);
        assert.ok(
          r.timelines[0].points.every((p) => !p.needsYou),
          JSON.stringify(r.timelines[0].points.filter((p) => p.needsYou)),
        );
      });
    }
  });
}
