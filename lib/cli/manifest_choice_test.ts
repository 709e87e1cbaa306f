// `--manifest auto` is one function (lib/detect/choose.ts manifestFor): every command
// that reads a capture with rules picks the same ones, for the same reason; and a
// detector that names its manifest is shown with that one.
import * as path from "node:path";
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { cli, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-choice-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
// A raw stream names no program: only its screen (Codex's banner and composer) can.
const raw = writeTmp(dir, "codex.raw", ">_ OpenAI Codex (v0.1)\r\n› write a test\r\n");
const json = (args: string[]) => {
  const r = cli(args);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  return JSON.parse(r.stdout);
};

describe("auto picks the same rules in every command", () => {
  test("report, check, detect, explain and snapshot scoring all read codex, for the screen's reason", () => {
    const why = "the screen shows Codex's banner, status line or composer";
    const report = json(["report", raw, "--truth", "question", "--format", "json"]).inputs[0].manifest;
    const check = json(["check", raw, "--format", "json"]).files[0].manifest;
    const detect = json(["detect", raw, "--json"]).manifest;
    const explain = json(["explain", raw, "--json"]);
    const labels = writeTmp(dir, "snap.tsv", `${path.basename(raw)}\tidle\n`);
    const snapshot = json(["report", raw, "--labels", labels, "--format", "json"]).detectors.map((
      d: { name: string },
    ) => d.name);
    assert.deepEqual(report, { name: "codex", why });
    assert.deepEqual(check, { name: "codex", why });
    assert.deepEqual(detect, { name: "codex", why });
    assert.deepEqual([explain.manifest, explain.manifest_why], ["codex", why]);
    assert.ok(snapshot.includes("screen:codex"), snapshot.join(", "));
  });
  test("a detector that names its manifest is shown with it, not with the capture's", () => {
    const r = cli(["detect", raw, "--detector", "tail8k:claude"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^manifest claude \(named by --detector\)\n/);
    assert.match(r.stdout, /tail8k:claude: /);
    const j = json(["detect", raw, "--detector", "tail8k:claude", "--manifest", "generic", "--json"]);
    assert.deepEqual([j.detector, j.manifest.name], ["tail8k:claude", "claude"]);
    // `auto` in the detector's name still takes --manifest.
    assert.equal(
      json(["detect", raw, "--detector", "tail8k:auto", "--manifest", "generic", "--json"]).manifest.name,
      "generic",
    );
  });
});
