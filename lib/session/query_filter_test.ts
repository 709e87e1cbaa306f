import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { QueryFilter } from "./query_filter.ts";

const te = new TextEncoder(), td = new TextDecoder();
function run(chunks: Uint8Array[]): string {
  const f = new QueryFilter();
  let out = "";
  for (const c of chunks) out += td.decode(f.push(c));
  return out + td.decode(f.flush());
}

describe("the query never reaches the outer terminal", () => {
  const input = "a\x1b]7501;?\x1b\\b\x1b]7501;?\x07c\x1b]7501;state=idle\x1b\\\x1b[1md\x1b]7501;?";
  const want = "abc\x1b]7501;state=idle\x1b\\\x1b[1md\x1b]7501;?";
  test("whole", () => assert.equal(run([te.encode(input)]), want));
  test("split at every offset", () => {
    const b = te.encode(input);
    for (let k = 0; k <= b.length; k++) assert.equal(run([b.subarray(0, k), b.subarray(k)]), want, `split at ${k}`);
  });
  test("one byte at a time", () => assert.equal(run([...te.encode(input)].map((x) => new Uint8Array([x]))), want));
  test("reports and other OSCs pass through unchanged", () => {
    const s = "\x1b]0;title\x07\x1b]7501;state=working:msg=SGk=\x1b\\\x1b]7501;??\x07";
    assert.equal(run([te.encode(s)]), s);
  });
});
