// `record --side-by-side` in a real terminal (a tmux pane): the live panel shows the
// program's screen beside its OSC 7501 record, its hook, the process in front and the
// verdicts as they happen; keys still reach the program; the panel itself is never
// recorded, and the terminal gets its screen back at the end.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { cli, MAIN, runtimeArgv, tmpDir, which } from "../testkit.ts";
import { shellQuote } from "../session/recorder.ts";
import { PANEL } from "../../replay/side_by_side.ts";

const dir = tmpDir("pstlab-sbs-");
const sock = `pstlab-sbs-${process.pid}`;
const tm = (...a: string[]) => spawnSync("tmux", ["-L", sock, ...a], { encoding: "utf8" });
after(() => {
  tm("kill-server");
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until(pred: () => boolean, what: string, ms = 30000) {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  assert.ok(pred(), `timed out waiting for ${what}`);
}

describe("record --side-by-side", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("the live panel under tmux: the four sources as they happen, never recorded", async () => {
    const file = path.join(dir, "live.cast");
    const script = path.join(dir, "agent.sh");
    fs.writeFileSync(
      script,
      [
        "echo hello there",
        "printf '\\033]7501;state=blocked:kind=permission\\033\\\\'",
        'echo "blocked:question may I" > "$PSTLAB_HOOKS"',
        "read answer",
        'echo "got $answer"',
        "sleep 0.3",
      ].join("\n") + "\n",
    );
    const record = [...runtimeArgv(), MAIN, "record", "--side-by-side", "--hooks", "-o", file, "--", "sh", script]
      .map(shellQuote).join(" ");
    assert.equal(tm("new-session", "-d", "-s", "s", "-x", "150", "-y", "36", `${record}; sleep 60`).status, 0);
    const pane = () => tm("capture-pane", "-p", "-t", "s").stdout;
    // The panel is narrow: its lines are matched by their start (the rest may be clipped).
    await until(() => /● hooks\s+NEEDS YOU/.test(pane()), "the panel to show the hook");
    const shown = pane();
    assert.match(shown, /hello there\s+│ pstlab record/);
    assert.match(shown, /osc 7501\s+root blocked/);
    assert.match(shown, /hooks\s+blocked question/);
    assert.match(shown, /process\s+sh/);
    assert.match(shown, /● protocol\s+NEEDS YOU/);
    tm("send-keys", "-t", "s", "yes", "Enter");
    await until(() => /pstlab: recorded /.test(pane()), "the recording to end");
    const after = pane();
    assert.ok(!/│ pstlab record/.test(after), "the terminal got its screen back");

    const text = fs.readFileSync(file, "utf8");
    assert.match(text, /hello there/);
    assert.match(text, /got yes/);
    assert.match(text, /\["?[0-9.]+, "h", "blocked:question may I"\]/);
    for (const panelText of ["pstlab record", "NEEDS YOU", "osc 7501 ", "detectors"]) {
      assert.ok(!text.includes(panelText), `the panel was recorded: ${panelText}`);
    }
    // The program had the window beside the panel.
    assert.equal(JSON.parse(text.split("\n")[0]).term.cols, 150 - PANEL - 3);
  });

  test("without a terminal: one line, exit 2", () => {
    const r = cli(["record", "--side-by-side", "--headless", "-o", path.join(dir, "x.cast"), "--", "true"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--side-by-side/);
    const piped = cli(["record", "--side-by-side", "-o", path.join(dir, "y.cast"), "--", "true"]);
    assert.equal(piped.code, 2);
    assert.equal(piped.stderr, "pstlab: record: --side-by-side needs a terminal (stdout is not one)\n");
  });
});
