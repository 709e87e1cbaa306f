// README's reference table, side by side with the write-up's: pstlab's half is what
// `report fixtures/captures/fake-claude.cast --manifest osfoundry` prints (the write-up's
// own rules), so it cannot go stale.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, ROOT } from "../testkit.ts";

const NAMES: Record<string, string> = {
  "screen, 50 ms": "screen:osfoundry@50ms",
  "screen, 700 ms": "screen:osfoundry@700ms",
  "stripped 8 KB tail": "tail8k:osfoundry",
  "line ending in `?`": "question",
  "quiet ≥ 0.5 s": "quiet>=0.5s",
  "quiet ≥ 1 s": "quiet>=1s",
  "quiet ≥ 2 s": "quiet>=2s",
  "quiet ≥ 3 s": "quiet>=3s",
  "quiet ≥ 5 s": "quiet>=5s",
  "quiet ≥ 8 s": "quiet>=8s",
};

test("README: pstlab's side of the reference table is the report on fake-claude.cast", () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const from = readme.indexOf("### The reference table, side by side");
  const section = readme.slice(from, readme.indexOf("Each difference in one line", from));
  const rows = section.split("\n").filter((l) => l.startsWith("| ") && !/^\| (Detector|-)/.test(l))
    .map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
  assert.equal(rows.length, Object.keys(NAMES).length);
  const r = cli(["report", "fixtures/captures/fake-claude.cast", "--manifest", "osfoundry"]);
  assert.equal(r.code, 0, r.stderr);
  for (const row of rows) {
    const name = NAMES[row[0]];
    assert.ok(name, `unknown row ${row[0]}`);
    const line = r.stdout.split("\n").find((l) => l.startsWith(name + " "));
    assert.ok(line, `${name} in the report`);
    const cells = line.slice(name.length).trim().split(/ {2,}/);
    assert.deepEqual(row.slice(1, 8), cells, row[0]);
  }
});
