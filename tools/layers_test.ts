import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { layerViolations, unusedPairs, USES } from "./layers.ts";

const root = path.resolve(import.meta.dirname ?? ".", "..");

test("layers: every import in the project points downstream", () => {
  assert.deepEqual(layerViolations(root), []);
});

test("layers: the table lists only the pairs in use", () => {
  assert.deepEqual(unusedPairs(root), []);
  assert.match(
    unusedPairs(root, { ...USES, "lib/score": [...USES["lib/score"], "lib/osc7501"] }).join("\n"),
    /USES lists lib\/score → lib\/osc7501, which nothing uses/,
  );
});

test("layers: a pair pointing downstream cannot be listed", () => {
  const v = layerViolations(root, { ...USES, "lib/score": [...USES["lib/score"], "lib/report"] });
  assert.match(v.join("\n"), /USES lets lib\/score import lib\/report, which is not upstream of it in ORDER/);
});

test("layers: a worker started by path from a downstream layer is found", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-layers-"));
  try {
    for (const d of ["lib/score", "lib/cli"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
    fs.writeFileSync(
      path.join(dir, "lib/score/w.ts"),
      'import { workerUrl } from "../runtime.ts";\nnew Worker(workerUrl("lib/cli/worker.ts"));\n',
    );
    const v = layerViolations(dir);
    assert.deepEqual(v, ['lib/score/w.ts: imports workerUrl("lib/cli/worker.ts") (lib/score may not import lib/cli)']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("layers: an import from score into replay or cli is found", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-layers-"));
  try {
    for (const d of ["lib/score", "lib/cli", "replay", "lib/odd"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
    fs.writeFileSync(
      path.join(dir, "lib/score/a.ts"),
      'import type { T } from "../../replay/clock.ts";\nimport { x } from "../cli/common.ts";\nimport { y } from "../errors.ts";\n',
    );
    fs.writeFileSync(path.join(dir, "lib/score/a_test.ts"), 'import { z } from "../cli/common.ts";\n');
    fs.writeFileSync(path.join(dir, "lib/odd/b.ts"), "export const b = 1;\n");
    const v = layerViolations(dir);
    assert.equal(v.length, 3, v.join("\n"));
    assert.match(
      v.join("\n"),
      /lib\/score\/a\.ts: imports \.\.\/\.\.\/replay\/clock\.ts \(lib\/score may not import replay\)/,
    );
    assert.match(v.join("\n"), /lib\/score may not import lib\/cli/);
    assert.match(v.join("\n"), /lib\/odd has no layer/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
