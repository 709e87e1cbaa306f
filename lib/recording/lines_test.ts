// The line reader gathers lines across blocks, including lines longer than several
// blocks (one 64 MiB output event), without re-copying what it has gathered so far.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { lines } from "./lines.ts";

async function* chunked(bytes: Uint8Array, cuts: number[]) {
  let at = 0;
  for (const c of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    if (c <= at) continue;
    yield bytes.slice(at, c);
    at = c;
  }
}

async function read(text: string, cuts: number[]) {
  const out: [string, boolean][] = [];
  for await (const [, l, terminated] of lines(chunked(new TextEncoder().encode(text), cuts))) out.push([l, terminated]);
  return out;
}

function expected(text: string): [string, boolean][] {
  const parts = text.split("\n");
  const last = parts.pop()!;
  const out: [string, boolean][] = parts.map((l) => [l.replace(/\r$/, ""), true]);
  if (last.length) out.push([last, false]);
  return out;
}

describe("line reader", () => {
  test("lines across any chunking, with lines longer than many chunks (property)", async () => {
    const piece = fc.constantFrom("a", "é", "中", "😀", "\n", "\r\n", "x".repeat(300), "\n\n");
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (parts, cuts) => {
          const text = parts.join("");
          assert.deepEqual(await read(text, cuts), expected(text));
        },
      ),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 200) },
    );
  });
  test("a 3 MB line between short ones, read in 1 MiB blocks", async () => {
    const long = "y".repeat(3_000_000);
    const text = `first\n${long}\nlast`;
    const cuts = [1 << 20, 2 << 20, 3 << 20];
    assert.deepEqual(await read(text, cuts), [["first", true], [long, true], ["last", false]]);
  });
});
