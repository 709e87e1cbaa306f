// What the HTML report embeds for its player, and when it gives up.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { castText } from "./embed.ts";
import { tmpDir } from "../lib/testkit.ts";

const dir = tmpDir("embed");
const file = path.join(dir, "c.cast");
fs.writeFileSync(file, '{"version":3,"term":{"cols":80,"rows":24}}\n' + '[0.1,"o","hello world\\r\\n"]\n'.repeat(100));

test("a recording under the limit is embedded as v3 text", async () => {
  const text = await castText(file, {}, 1 << 20);
  assert.ok(text?.startsWith('{"version":3'));
  assert.equal(text!.split("\n").filter((l) => l.includes("hello world")).length, 100);
});

test("over the limit it is not embedded: while building the text, and at once for a file over twice the limit", async () => {
  const size = fs.statSync(file).size;
  assert.equal(await castText(file, {}, Math.floor(size / 1.5)), null); // read, then given up
  assert.equal(await castText(file, {}, Math.floor(size / 3)), null); // refused by size
  // Refused unread: not even opened (garbage that reading would reject).
  const junk = path.join(dir, "junk.cast");
  fs.writeFileSync(junk, "not a recording\n".repeat(100));
  assert.equal(await castText(junk, {}, 100), null);
  await assert.rejects(castText(junk, {}, 1 << 20));
  assert.equal(await castText("-", {}), null);
});
