import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IN_FLIGHT, RemoteScreen } from "./remote_screen.ts";

const te = new TextEncoder();
const td = new TextDecoder();
for (const inProcess of [false, true]) {
  describe(`recorder screen (${inProcess ? "in-process fallback" : "worker"})`, () => {
    test("replies in stream order: our OSC 7501 answer before xterm's DA1 reply", async () => {
      const replies: string[] = [];
      const s = new RemoteScreen(80, 24, (d) => replies.push(typeof d === "string" ? d : td.decode(d)), { inProcess });
      const chunk = te.encode("hello\x1b]7501;?\x1b\\\x1b[c\x1b[6n");
      s.write(chunk, [{ at: 15, reply: te.encode("\x1b]7501;?\x1b\\") }]);
      assert.deepEqual(await s.rows().then((r) => r[0]), "hello");
      await s.close();
      assert.deepEqual(replies, ["\x1b]7501;?\x1b\\", "\x1b[?1;2c", "\x1b[1;6R"]);
    });
  });
}

describe("recorder screen: a bounded queue to the worker (issue 25)", () => {
  test("a flood never leaves more than IN_FLIGHT bytes posted and unparsed, and the screen sees every byte", async () => {
    const s = new RemoteScreen(80, 24, () => {});
    await s.rows(); // the worker runs (the bound holds from then on)
    const line = te.encode("x".repeat(70) + "\r\n");
    const chunk = new Uint8Array(line.length * 900);
    for (let i = 0; i < 900; i++) chunk.set(line, i * line.length);
    let most = 0;
    // 64 × 65 KB: four times the bound, faster than a worker parses it.
    for (let k = 0; k < 64; k++) {
      s.write(chunk.slice(), []);
      most = Math.max(most, s.inFlight());
      assert.ok(s.inFlight() <= IN_FLIGHT, `${s.inFlight()} bytes in flight after write ${k}`);
    }
    s.write(te.encode("\x1b[2J\x1b[Hdone"), []);
    assert.equal((await s.rows())[0], "done");
    await s.close();
    assert.ok(most > 0, "the worker was behind at least once (else the bound was never tested)");
  });
});

describe("recorder screen: started when needed (issue 25)", () => {
  for (const inProcess of [false, true]) {
    test(
      `plain text starts nothing; the first query starts it and it answers as if it had seen everything (${
        inProcess ? "in-process" : "worker"
      })`,
      async () => {
        const replies: string[] = [];
        const s = new RemoteScreen(20, 4, (d) => replies.push(typeof d === "string" ? d : td.decode(d)), {
          inProcess,
          lazy: true,
        });
        const lines = te.encode(Array.from({ length: 300 }, (_, i) => `line ${i}\r\n`).join("") + "tail");
        for (let i = 0; i < lines.length; i += 97) s.write(lines.subarray(i, i + 97), []);
        assert.equal(s.started, false);
        s.write(te.encode("\x1b[6n"), []);
        assert.equal(s.started, true);
        assert.deepEqual(await s.rows(), ["line 297", "line 298", "line 299", "tail"]);
        await s.close();
        assert.deepEqual(replies, ["\x1b[4;5R"]);
      },
    );
  }

  test("a screen nobody needed closes at once; asking for its rows starts it", async () => {
    const idle = new RemoteScreen(20, 4, () => {}, { lazy: true });
    idle.write(te.encode("hello\r\n"), []);
    await idle.close();
    assert.equal(idle.started, false);
    const asked = new RemoteScreen(20, 4, () => {}, { lazy: true });
    asked.write(te.encode("hello\r\nworld"), []);
    assert.deepEqual(await asked.rows(), ["hello", "world", "", ""]);
    assert.equal(asked.started, true);
    await asked.close();
  });
});

describe("recorder screen: a read given away moves to the worker (issue 25)", () => {
  test("once the worker runs, a given read's buffer is transferred, not copied; before, it is kept for a fallback", async () => {
    const s = new RemoteScreen(20, 4, () => {});
    const early = te.encode("early\r\n");
    s.write(early, [], true);
    assert.equal(early.length, 7, "not transferred before the worker said it runs");
    await s.rows();
    const given = te.encode("given"), kept = te.encode(" kept");
    s.write(given, [], true);
    s.write(kept, []);
    assert.equal(given.length, 0, "the buffer moved to the worker");
    assert.equal(kept.length, 5);
    assert.deepEqual(await s.rows(), ["early", "given kept", "", ""]);
    await s.close();
  });
});
