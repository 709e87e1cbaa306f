// `play` under a real terminal (tmux) with a capture that queries the terminal: the
// terminal's replies (device attributes, cursor position, background colour) arrive on
// play's stdin and must not be read as keys — their leading ESC once quit playback at
// 0.1 s. Arrows still seek, and Esc pressed alone still quits.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { MAIN, runtimeArgv, tmpDir, tmuxSession, which, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-play-queries-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const QUERIES = [
  '{"version":3,"term":{"cols":80,"rows":20}}',
  '[0.05,"o","start\\r\\n\\u001b[c"]',
  '[0.05,"o","\\u001b[6n"]',
  '[0.05,"o","\\u001b]11;?\\u0007"]',
  '[0.05,"o","\\u001b[>c\\u001b[c\\u001b[6n"]',
];

describe("play under tmux, with a capture that queries the terminal", {
  skip: !which("tmux") && "tmux is not installed",
}, () => {
  const play = (cast: string) =>
    `NO_COLOR=1 ${[...runtimeArgv(), MAIN].map((s) => `'${s}'`).join(" ")} play '${cast}'; echo "rc=$?"; sleep 30`;

  test("the replies are not keys: playback runs to the end", async () => {
    const cast = writeTmp(dir, "q.cast", [...QUERIES, '[1.5,"o","END-MARK\\r\\n"]'].join("\n") + "\n");
    const t = tmuxSession(path.join(dir, "a.sock"), "p");
    t.start(play(cast), 80, 24);
    try {
      assert.ok(await t.wait(() => /rc=\d/.test(t.pane()), 20000), t.pane());
      const pane = t.pane();
      assert.doesNotMatch(pane, /playback stopped/);
      assert.match(pane, /END-MARK/);
      assert.match(pane, /rc=0/);
    } finally {
      t.tm("kill-server");
    }
  });

  test("arrows still seek and a lone Esc still quits", async () => {
    const cast = writeTmp(
      dir,
      "long.cast",
      [...QUERIES, '[20,"o","LATE-MARK\\r\\n"]', '[20,"o","end\\r\\n"]'].join("\n") + "\n",
    );
    const t = tmuxSession(path.join(dir, "b.sock"), "p");
    t.start(play(cast), 80, 24);
    try {
      assert.ok(await t.wait(() => /start/.test(t.pane())), t.pane());
      await new Promise((r) => setTimeout(r, 500)); // the replies have come back
      for (let i = 0; i < 5; i++) t.tm("send-keys", "-t", "p", "Right");
      assert.ok(await t.wait(() => /LATE-MARK/.test(t.pane()), 10000), t.pane());
      assert.doesNotMatch(t.pane(), /rc=/);
      t.tm("send-keys", "-t", "p", "Escape");
      assert.ok(await t.wait(() => /rc=0/.test(t.pane()), 10000), t.pane());
      assert.match(t.pane(), /playback stopped at 2\d\.\d s/);
    } finally {
      t.tm("kill-server");
    }
  });
});

describe("play --pause-on-markers under tmux", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("the pause says so on the bottom row, with the sanitised label; resuming clears it", async () => {
    const cast = writeTmp(
      dir,
      "m.cast",
      [
        '{"version":3,"term":{"cols":80,"rows":20}}',
        '[0.05,"o","before\\r\\n"]',
        '[0.1,"m","truth:\\u001b[31mblocked"]',
        '[0.3,"o","after\\r\\n"]',
      ].join("\n") + "\n",
    );
    const t = tmuxSession(path.join(dir, "c.sock"), "p");
    t.start(
      `NO_COLOR=1 ${
        [...runtimeArgv(), MAIN].map((s) => `'${s}'`).join(" ")
      } play '${cast}' --pause-on-markers; echo "rc=$?"; sleep 30`,
      80,
      24,
    );
    try {
      assert.ok(await t.wait(() => /paused at marker/.test(t.pane())), t.pane());
      const rows = t.pane().split("\n");
      assert.match(rows[23], /^pstlab: paused at marker "truth:\\\\e\[31mblocked" \(0\.1 s\); space resumes/);
      assert.doesNotMatch(t.pane(), /after/);
      t.tm("send-keys", "-t", "p", " ");
      assert.ok(await t.wait(() => /rc=0/.test(t.pane())), t.pane());
      assert.match(t.pane(), /after/);
      assert.doesNotMatch(t.pane(), /paused at marker/);
    } finally {
      t.tm("kill-server");
    }
  });
});
