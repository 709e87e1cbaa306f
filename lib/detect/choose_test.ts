// `--manifest auto` (issue 21, class 3): a program nothing identifies gets the generic
// rules, an agent's markers on screen name it even under a command pstlab does not know,
// and the choice says why.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after } from "node:test";
import { chooseManifest } from "./choose.ts";
import { cli, tmpDir, writeTmp } from "../testkit.ts";

const h = (command?: string) => ({ cols: 80, rows: 24, ...(command ? { command } : {}) });

describe("auto's choice", () => {
  test("nothing identifies the program: generic, and it says so", () => {
    assert.deepEqual(chooseManifest(h(), ["Overwrite dist/? [y/N]"]), {
      name: "generic",
      why: "no command, title or agent's marker on screen: the generic rules",
    });
    assert.equal(chooseManifest(h()).name, "generic");
  });
  test("an unknown command: the agent whose markers are on screen, else generic", () => {
    const c = chooseManifest(h("bash run-agent.sh"), ["", "  ? for shortcuts"]);
    assert.equal(c.name, "claude");
    assert.match(
      c.why,
      /the screen shows Claude Code's banner or footer \(no bundled rules for the recorded command "bash run-agent\.sh"\)/,
    );
    assert.deepEqual(chooseManifest(h("make deploy"), ["Overwrite dist/? [y/N]"]), {
      name: "generic",
      why: `no bundled rules for the recorded command "make deploy" and no agent's marker on its screen`,
    });
  });
  test("a known command wins over the screen", () => {
    assert.equal(chooseManifest(h("codex"), ["? for shortcuts"]).name, "codex");
  });
  test("ordinary words are not an agent's marker", () => {
    for (const line of ["augmented reality", "Candy Crush saga", "android droid", "grok the docs"]) {
      assert.equal(chooseManifest(h(), [line]).name, "generic", line);
    }
  });
});

describe("auto on an import that names no program", () => {
  const dir = tmpDir("pstlab-auto-");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  test("a raw capture of a y/N prompt: generic, blocked, and the reason printed", () => {
    const f = writeTmp(dir, "deploy.raw", "building\r\nOverwrite dist/? [y/N] ");
    const r = cli(["detect", f, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual([j.manifest.name, j.state, j.rule], ["generic", "blocked", "confirmation"]);
    assert.match(cli(["explain", f]).stdout, /manifest chosen by no command, title or agent's marker on screen/);
  });
});
