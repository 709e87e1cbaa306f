// The analysis is the same whether the capture is read on a worker (lib/recording/ahead.ts,
// big files) or in-process: every field of the result, the file's hash included.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { analyzeFile } from "./analyze.ts";
import { defaultDetectorNames } from "../lib/detect/kinds.ts";
import { ROOT } from "../lib/testkit.ts";

async function analyze(file: string, min: string) {
  const before = process.env.PSTLAB_READ_AHEAD_MIN;
  process.env.PSTLAB_READ_AHEAD_MIN = min;
  try {
    return await analyzeFile(file, { detectors: defaultDetectorNames("auto"), truth: "auto", open: {} });
  } finally {
    if (before === undefined) delete process.env.PSTLAB_READ_AHEAD_MIN;
    else process.env.PSTLAB_READ_AHEAD_MIN = before;
  }
}

const dir = path.join(ROOT, "fixtures/captures");
for (const name of fs.readdirSync(dir).sort()) {
  test(`report on ${name}: the same read ahead as in-process`, async () => {
    const file = path.join(dir, name);
    const ahead = await analyze(file, "0");
    const inProcess = await analyze(file, "999999999999");
    assert.deepEqual(ahead, inProcess);
    assert.match(ahead.sha256, /^[0-9a-f]{64}$/);
  });
}
