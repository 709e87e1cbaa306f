// The line reader gathers lines across blocks, including lines longer than several
// blocks (one 64 MiB output event), without re-copying what it has gathered so far.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ByteLineReader, lines } from "./lines.ts";
import { concat } from "./source.ts";

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

/** ByteLineReader's lines, decoded, from blocks in one reused buffer (as a file source gives them). */
async function readBytes(bytes: Uint8Array, cuts: number[]) {
  async function* reused() {
    const buf = new Uint8Array(bytes.length);
    for await (const c of chunked(bytes, cuts)) {
      buf.fill(0x0a); // what a reader kept a view of is overwritten
      buf.set(c);
      yield buf.subarray(0, c.length);
    }
  }
  const dec = new TextDecoder("utf-8", { ignoreBOM: true });
  const r = new ByteLineReader(reused());
  const out: [string, boolean][] = [];
  for (let l; (l = r.ready() ?? await r.next());) {
    assert.equal(r.no, out.length + 1);
    out.push([dec.decode(l), r.terminated]);
  }
  return out;
}

describe("line reader", () => {
  test("byte lines are the text reader's lines, in any blocks (property)", async () => {
    const piece = fc.oneof(
      fc.constantFrom("a", "é", "中", "😀", "\n", "\r\n", "\r", "x".repeat(300), "\n\n", "\uFEFF"),
      fc.uint8Array({ maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (parts, cuts) => {
          // Not at the very start: the text reader drops a BOM there (the header line's business).
          const bytes = concat([
            new TextEncoder().encode("h\n"),
            ...parts.map((p) => typeof p === "string" ? new TextEncoder().encode(p) : p),
          ]);
          const want: [string, boolean][] = [];
          for await (const [, l, terminated] of lines(chunked(bytes, []))) want.push([l, terminated]);
          assert.deepEqual(await readBytes(bytes, cuts), want);
        },
      ),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 200) },
    );
  });

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
