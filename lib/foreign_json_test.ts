// The gate for JSON from outside: the size cap at the limit and one past it (a regular
// file refused before it is read, a pipe as it is read), and one line naming the file.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_FOREIGN_JSON_BYTES, readCapped, readForeign, validator } from "./foreign_json.ts";
import { tmpDir, writeTmp } from "./testkit.ts";
import { UserError } from "./errors.ts";

const dir = tmpDir("pstlab-foreign-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the size cap: at the limit read, one byte past it refused naming the file", () => {
  assert.equal(readCapped(writeTmp(dir, "at.json", "0123456789"), 10), "0123456789");
  assert.throws(() => readCapped(writeTmp(dir, "past.json", "01234567890"), 10), /past\.json: over 10 bytes/);
  assert.ok(MAX_FOREIGN_JSON_BYTES >= 100 << 20, "a shard of a large corpus fits");
});

test("a file that is not there, a directory, invalid JSON, a wrong shape: one UserError line each", () => {
  const check = validator<{ n: number }>(
    { type: "object", required: ["n"], properties: { n: { type: "integer" } } },
    "thing",
  );
  const cases: [string, RegExp][] = [
    [path.join(dir, "missing.json"), /missing\.json: no such file/],
    [dir, /is a directory/],
    [writeTmp(dir, "text.json", "{"), /text\.json: not a thing \(not JSON\)/],
    [writeTmp(dir, "shape.json", '{"n":"1"}'), /shape\.json: not a valid thing: n must be integer/],
    [writeTmp(dir, "inf.json", '{"n":1e999}'), /inf\.json: not a valid thing: n must be integer/],
  ];
  for (const [file, want] of cases) {
    assert.throws(() => readForeign(file, check, "thing"), (e: unknown) => {
      assert.ok(e instanceof UserError, String(e));
      assert.match(e.oneLine(), want);
      assert.ok(!e.oneLine().includes("\n"));
      return true;
    });
  }
  assert.deepEqual(readForeign(writeTmp(dir, "ok.json", '{"n":3}'), check, "thing"), { n: 3 });
});
