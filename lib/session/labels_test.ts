// The labels/hooks FIFO: a line longer than MAX_LABEL_BYTES keeps its first bytes (cut
// at a character boundary), the rest of it is dropped, and the next line is whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { LabelChannel, MAX_LABEL_BYTES, UNTERMINATED_MS } from "./labels.ts";

/** Writes `data` into the FIFO without blocking, draining the channel whenever the pipe is full. */
function feed(ch: LabelChannel, data: Uint8Array): void {
  const fd = fs.openSync(ch.path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  try {
    let off = 0;
    while (off < data.length) {
      try {
        off += fs.writeSync(fd, data, off, Math.min(16384, data.length - off));
      } catch (e) {
        if ((e as { code?: string }).code !== "EAGAIN") throw e;
      }
      ch.poll();
    }
  } finally {
    fs.closeSync(fd);
  }
}

test("a label line over the cap is cut there, the rest dropped, the next line whole; each cut counted", (t) => {
  const labels: string[] = [];
  const ch = new LabelChannel((l) => labels.push(l));
  if (ch.unavailable) return t.skip(ch.unavailable);
  const te = new TextEncoder();
  // 1 MB of one line (over many reads), then a multi-byte line cut in the middle of a character.
  feed(ch, te.encode("x".repeat(1 << 20) + "\nok\n" + "a" + "é".repeat(3000) + "\r\nlast"));
  ch.close();
  assert.equal(labels.length, 4);
  assert.equal(labels[0], "x".repeat(MAX_LABEL_BYTES));
  assert.equal(labels[1], "ok");
  assert.equal(labels[2], "a" + "é".repeat((MAX_LABEL_BYTES - 1) >> 1)); // no half character
  assert.equal(labels[3], "last");
  assert.equal(ch.truncated, 2);
});

test("a line a writer left without its newline is a line once nothing more comes, not the start of the next", async (t) => {
  const labels: string[] = [];
  const ch = new LabelChannel((l) => labels.push(l));
  if (ch.unavailable) return t.skip(ch.unavailable);
  const te = new TextEncoder();
  try {
    feed(ch, te.encode("truth:blocked:question"));
    ch.poll();
    assert.deepEqual(labels, [], "a line being written is not cut at once");
    await new Promise((r) => setTimeout(r, UNTERMINATED_MS + 100));
    ch.poll();
    feed(ch, te.encode("truth:working\n"));
    ch.poll();
    assert.deepEqual(labels, ["truth:blocked:question", "truth:working"]);
  } finally {
    ch.close();
  }
});
