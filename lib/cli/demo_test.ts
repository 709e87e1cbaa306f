// The README's first command: `npm run demo` is `pstlab demo`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, ROOT } from "../testkit.ts";

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
});
