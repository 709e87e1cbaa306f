// The README's first command: `npm run demo` is `pstlab demo`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import * as os from "node:os";
import { cli, ROOT, tmpDir } from "../testkit.ts";
import { WORKER_ENTRIES } from "../runtime.ts";

const bundled = path.join(ROOT, "fixtures/captures/fake-claude.cast");

describe("demo", () => {
  test("the bundled capture's report", () => {
    assert.ok(fs.existsSync(bundled), `${bundled} is part of the checkout`);
    const r = cli(["demo", "--no-live"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /fake-claude\.cast: [0-9.]+ s, [0-9]+ blocked episodes \(truth: markers\)/);
    assert.match(r.stdout, /protocol +0\.00 s +0\.00 s +0 \/ [0-9]+/);
    assert.match(r.stdout, /quiet>=8s +– +– +([0-9]+) \/ \1/);
  });
  test("a live session of the simulated agent, recorded here and scored", () => {
    const r = cli(["demo", "--tasks", "1", "--scale", "0.1"], { timeout: 120000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /A live session/);
    assert.match(r.stderr, /task 1\/1/);
    assert.match(r.stderr, /recorded .*live\.cast: [0-9.]+ s, [1-9][0-9]* OSC 7501 reports, exit 0/);
    assert.match(r.stdout, /truth: markers/);
    assert.match(r.stdout, /screen:claude@50ms/);
  });
  test("--no-report without --record is refused (it would record to a file it deletes), with it nothing is reported", () => {
    const r = cli(["demo", "--no-report", "--tasks", "1"]);
    assert.equal(r.code, 2, r.stdout);
    assert.equal(r.stderr, "pstlab: demo: --no-report needs --record\n");
    assert.equal(r.stdout, "");
    const file = path.join(tmpDir("pstlab-demo-nr-"), "live.cast");
    const ok = cli(["demo", "--no-report", "--tasks", "1", "--scale", "0.1", "--record", file]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(!/\$ pstlab report/.test(ok.stdout), ok.stdout);
    assert.ok(fs.statSync(file).size > 0);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
  test("no path to a temporary file it then deletes", () => {
    const r = cli(["demo", "--tasks", "1", "--scale", "0.1"], { timeout: 120000 });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(os.tmpdir().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    assert.match(r.stderr, /recorded live\.cast: /);
    assert.match(r.stdout, /^live\.cast: [0-9.]+ s/m);
  });
});

// The compiled binary in an empty folder: the bundled capture travels inside it.
describe("demo from the compiled binary", { skip: !process.versions.bun && "builds with Bun" }, () => {
  test("pstlab demo --no-live in an empty folder reports the bundled capture", () => {
    const dir = tmpDir("pstlab-bin-");
    try {
      const bin = path.join(dir, "pstlab");
      const b = spawnSync(process.execPath, [
        "build",
        "--compile",
        "--format=esm",
        path.join(ROOT, "main.ts"),
        ...WORKER_ENTRIES.map((w) => path.join(ROOT, w)),
        "--outfile",
        bin,
      ], { cwd: ROOT, encoding: "utf8", timeout: 300000 });
      assert.equal(b.status, 0, b.stderr);
      const empty = path.join(dir, "empty");
      fs.mkdirSync(empty);
      const r = spawnSync(bin, ["demo", "--no-live"], { cwd: empty, encoding: "utf8", timeout: 120000 });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^fake-claude\.cast: 710\.0 s, 25 blocked episodes \(truth: markers\)/m);
      assert.deepEqual(fs.readdirSync(empty), [], "nothing left behind");
      for (
        const args of [["help"], ["sim", "--help"], [
          "emit",
          "working",
          "Building",
          "--app",
          "make",
          "--progress",
          "40",
        ]]
      ) {
        const h = spawnSync(bin, args, { cwd: empty, encoding: "utf8", timeout: 60000 });
        assert.equal(h.status, 0, `${args.join(" ")}: ${h.stderr}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
