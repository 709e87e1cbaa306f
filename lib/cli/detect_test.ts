// detect / explain / screen on the command line.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { cli, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-detect-");
const cast = writeTmp(
  dir,
  "t.cast",
  [
    '{"version":3,"term":{"cols":60,"rows":10},"command":"claude"}',
    '[0.5,"o","\\u001b]0;✳ Claude Code\\u0007✢ Working… (1s · esc to interrupt)"]',
    '[1,"o","\\r\\n\\u001b[2GDo\\u001b[5Gyou\\u001b[9Gwant\\u001b[14Gto\\u001b[17Gproceed?\\r\\n❯ 1. Yes"]',
  ].join("\n") + "\n",
);

describe("detect", () => {
  test("--json: t, state, needsYou, rule, evidence", () => {
    const r = cli(["detect", cast, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual([j.t, j.state, j.needsYou, j.rule, j.evidence, j.kind], [
      1.5,
      "blocked",
      true,
      "permission_prompt",
      "Do you want to proceed",
      "permission",
    ]);
    const early = JSON.parse(cli(["detect", cast, "--json", "--at", "1"]).stdout);
    assert.deepEqual([early.t, early.state, early.needsYou], [1, "working", false]);
  });
  test("--detector picks another detector; raw input takes --size", () => {
    const j = JSON.parse(cli(["detect", cast, "--json", "--detector", "title:claude"]).stdout);
    assert.deepEqual([j.detector, j.state, j.rule], ["title:claude", "idle", "title_idle"]);
    const raw = writeTmp(dir, "s.raw", "Do you want to proceed?\r\n❯ 1. Yes\r\n");
    // A raw stream names no program: auto would pick generic (issue 21), so the rules are named.
    assert.equal(
      JSON.parse(cli(["detect", raw, "--json", "--size", "40x5", "--manifest", "claude"]).stdout).state,
      "blocked",
    );
    assert.equal(cli(["detect", cast, "--detector", "nope"]).code, 2);
  });
});

describe("explain", () => {
  test("every rule, matched or not, with the text it saw", () => {
    const r = cli(["explain", cast]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^claude \(first-match\) at 1\.500 s → blocked by permission_prompt/);
    assert.match(r.stdout, /✓ permission_prompt +blocked +region after_last_input_box +← wins/);
    assert.match(r.stdout, /✓ turn_working/);
    assert.match(r.stdout, /· prompt_idle/);
    assert.match(
      r.stdout,
      /\+ regex "Do you want to \(proceed\|continue\|make this edit\|create\)" +→ "Do you want to proceed"/,
    );
    const j = JSON.parse(cli(["explain", cast, "--json"]).stdout);
    assert.equal(j.rules.length, 6);
    assert.equal(j.rules.find((x: { id: string }) => x.id === "title_idle").regionText, "✳ Claude Code");
  });
});

describe("screen", () => {
  test("the viewport at a time, as text or JSON", () => {
    const r = cli(["screen", cast, "--plain"]);
    assert.equal(r.stdout, "✢ Working… (1s · esc to interrupt)\n Do you want to proceed?\n❯ 1. Yes\n");
    const j = JSON.parse(cli(["screen", cast, "--json", "--at", "1"]).stdout);
    assert.deepEqual([j.cols, j.rows, j.title, j.lines[0], j.altScreen], [
      60,
      10,
      "✳ Claude Code",
      "✢ Working… (1s · esc to interrupt)",
      false,
    ]);
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
