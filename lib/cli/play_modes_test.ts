// `play` gives the terminal back as it found it: the modes a capture set (alternate
// screen, application keypad and cursor keys, a hidden cursor, mouse reports, colours)
// are undone however playback stops, and a capture that set none gets nothing appended.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { ModeTracker } from "./term_modes.ts";
import { MAIN, runtimeArgv, tmpDir, tmuxSession, which, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-modes-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const pstlab = () => runtimeArgv().concat(MAIN).map(quote).join(" ");

const undo = (...writes: string[]) => {
  const m = new ModeTracker();
  for (const w of writes) m.feed(new TextEncoder().encode(w));
  return m.restore();
};

describe("the modes a capture left set", () => {
  test("nothing changed, nothing undone (no cursor move, no bytes)", () => {
    assert.equal(undo("hello\r\n\x1b[2J\x1b[Hx\x1b]0;title\x07\x1b[1;31mred\x1b[0m"), "");
    assert.equal(undo("\x1b[?1049h\x1b=\x1b[?1h vim \x1b[?1l\x1b>\x1b[?1049l"), "", "vim left cleanly");
  });
  test("vim stopped on screen: leave the alternate screen, keypad and cursor keys back, cursor shown, pen reset", () => {
    assert.equal(
      undo("\x1b[?1049h\x1b[?1h\x1b=\x1b[?25l\x1b[?1000;1006h\x1b[?2004h\x1b[1;7mvim"),
      "\x1b[?1049l\x1b[?1l\x1b[?1000l\x1b[?1006l\x1b[?2004l\x1b>\x1b[?25h\x1b[m",
    );
  });
  test("a sequence split across writes is followed; one cut mid-way is aborted first", () => {
    assert.equal(undo("\x1b[?10", "49h"), "\x1b[?1049l");
    assert.equal(undo("\x1b[?1049h\x1b[3"), "\x18\x1b[?1049l");
    assert.equal(undo("\x1b]0;a title that never ends"), "\x18");
  });
  test("strings are skipped, an ESC in one ends it as in a terminal; RIS and DECSTR reset", () => {
    assert.equal(undo("\x1b]0;[?1049h\x07\x1bP[?25l\x1b\\"), "");
    assert.equal(undo("\x1b]0;\x1b[?1049h\x07"), "\x1b[?1049l");
    assert.equal(undo("\x1b[?1049h\x1b=\x1b[1m\x1bc"), "");
    assert.equal(undo("\x1b[?1049h\x1b=\x1b[?25l\x1b[!p"), "\x1b[?1049l", "a soft reset keeps the screen buffer");
  });
  test("a scroll region is reset without moving the cursor; the tracker starts afresh after restore", () => {
    const m = new ModeTracker();
    m.feed("\x1b[5;20r");
    assert.equal(m.restore(), "\x1b7\x1b[r\x1b8");
    assert.equal(m.restore(), "");
  });
});

describe("play under tmux gives the terminal back", { skip: !which("tmux") && "tmux is not installed" }, () => {
  // "vim" enters the alternate screen with the keypad in application mode at 0.1 s and
  // leaves it only at 30 s.
  const cast = writeTmp(
    dir,
    "vim.cast",
    [
      '{"version":3,"term":{"cols":80,"rows":24}}',
      '[0,"o","before-play\\r\\n"]',
      '[0.1,"o","\\u001b[?1049h\\u001b[?1h\\u001b=\\u001b[?25l\\u001b[?2004h\\u001b[1;31m\\u001b[H\\u001b[2JVIM-SCREEN"]',
      '[30,"o","\\u001b[?1049l"]',
    ].join("\n") + "\n",
  );
  const flags = "#{alternate_on} #{keypad_flag} #{keypad_cursor_flag} #{cursor_flag}";
  for (
    const [name, args, keys, rc] of [
      ["to", "--to 1", null, 0],
      ["q", "", "q", 0],
      // stdin not a terminal: no raw mode, Ctrl-C is SIGINT
      ["int", "< /dev/null", "C-c", 130],
    ] as const
  ) {
    test(`stopped by ${name} while the capture is in the alternate screen`, async () => {
      const { tm, start, pane, wait } = tmuxSession(path.join(dir, `${name}.sock`), name);
      start(`${pstlab()} play ${quote(cast)} ${args}; echo "RC=$?"; sleep 30`, 80, 24);
      try {
        if (keys) {
          assert.ok(await wait(() => /VIM-SCREEN/.test(pane())), pane());
          if (name === "int") await new Promise((r) => setTimeout(r, 300)); // the handler armed
          tm("send-keys", "-t", name, ...(name === "q" ? ["-l", keys] : [keys]));
        }
        assert.ok(await wait(() => new RegExp(`RC=${rc}\\b`).test(pane())), pane());
        const shown = pane();
        assert.match(shown, /before-play/, "back on the screen play started on");
        assert.doesNotMatch(shown, /VIM-SCREEN/);
        assert.equal(tm("display", "-p", "-t", name, flags).stdout.trim(), "0 0 0 1");
      } finally {
        tm("kill-server");
      }
    });
  }
});
