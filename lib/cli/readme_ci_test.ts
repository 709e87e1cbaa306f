// The README's "regression-test your emitter in CI" job runs as written: every `run:`
// step but `npm ci` (the suite already has the dependencies) and the apt-get one (.ci/run
// installs the same packages), in a fresh folder that holds the checkout as the job's
// checkout step would.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT, tmpDir, which } from "../testkit.ts";

const dir = tmpDir("pstlab-readme-ci-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("README: the CI job's steps pass on this checkout and produce the report and the JUnit file", {
  skip: (!which("bash") && "bash is not installed") ||
    (!which("tmux") && "tmux is not installed (.ci/run installs it)"),
}, () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const block = /<!-- ci-job -->\n+```yaml\n([\s\S]*?)```\n+<!-- \/ci-job -->/.exec(readme);
  assert.ok(block, "the README has the marked CI job");
  const runs = [...block[1].matchAll(/^\s*- run: (.+)$/gm)].map((m) => m[1]).filter((c) =>
    c !== "npm ci" && !c.startsWith("sudo apt-get")
  );
  assert.equal(runs.length, 4);
  for (const entry of ["main.ts", "lib", "replay", "fixtures", "node_modules", "package.json"]) {
    fs.symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
  }
  for (const cmd of runs) {
    const r = spawnSync("bash", ["-c", cmd], {
      cwd: dir,
      encoding: "utf8",
      timeout: 120000,
      env: { ...process.env, NO_COLOR: "1" },
    });
    assert.equal(r.status, 0, `${cmd}\n${r.stdout}\n${r.stderr}`);
  }
  assert.match(
    fs.readFileSync(path.join(dir, "check.xml"), "utf8"),
    /<testsuites name="pstlab check" tests="\d+" failures="0">/,
  );
  const html = fs.readFileSync(path.join(dir, "report.html"), "utf8");
  assert.ok(html.includes("AsciinemaPlayer"), "the page has the player");
  // Judged by the screen, not by itself: the page says which truth, and the protocol row is scored.
  assert.ok(html.includes(`<p class="truth">truth: detector screen:claude@50ms&#39;s verdicts`), "truth named");
  assert.ok(/<tr><td>protocol<\/td><td>0\.\d\d s<\/td>/.test(html), "the protocol row is scored");
  // The matrix: four cells, each a testcase that passed, each capture there to upload.
  assert.match(
    fs.readFileSync(path.join(dir, "matrix.xml"), "utf8"),
    /<testsuites name="pstlab check --matrix" tests="4" failures="0">/,
  );
  assert.deepEqual(fs.readdirSync(path.join(dir, "cells")).filter((f) => f.endsWith(".cast")).length, 4);
});
