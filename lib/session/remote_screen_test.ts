import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { RemoteScreen } from "./remote_screen.ts";

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
