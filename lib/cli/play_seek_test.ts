// `play` that a person can label with: the clock stops at the end, seeking both ways
// rebuilds the screen, `,` steps back, the panel shows capture time with --from and the
// labels around now, `x` deletes the nearest label, and a narrow side-by-side panel
// keeps the cursor's and the bottom rows. Keys are driven through tmux where interactive.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Player } from "../../replay/player.ts";
import { visibleRows } from "../../replay/side_by_side.ts";
import { LabelFile } from "../../replay/label_file.ts";
import { forgetInputs } from "../inputs.ts";
import type { Event } from "../recording/model.ts";
import { MAIN, runtimeArgv, tmpDir, tmuxSession, which, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-seek-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const pstlab = () => runtimeArgv().concat(MAIN).map(quote).join(" ");
const settle = () => new Promise((r) => setTimeout(r, 30));

function player(times: number[], o: { holdAtEnd?: boolean } = {}) {
  const screen: number[] = [];
  const evs: Event[] = times.map((t) => ({ t, kind: "output", bytes: new Uint8Array([65]) }));
  const p = new Player({
    speed: 1,
    pauseOnMarkers: false,
    holdAtEnd: o.holdAtEnd,
    onEvent: (e) => screen.push(e.t),
    onReset: () => (screen.length = 0),
  }, evs);
  return { p, screen };
}

describe("the player seeks", () => {
  test("the clock stops at the end; held there, it stays until quit", async () => {
    const { p, screen } = player([0, 0.01], { holdAtEnd: true });
    const done = p.play();
    while (!p.state.ended) await settle();
    assert.deepEqual(screen, [0, 0.01]);
    await settle();
    assert.equal(p.vt(), 0.01, "the clock ran on past the end");
    assert.equal(p.state.paused, true);
    p.key("quit");
    await done;
  });
  test("forward and back by 5 s and 30 s, the screen rebuilt from the start on the way back", async () => {
    const times = Array.from({ length: 100 }, (_, i) => i);
    const { p, screen } = player(times, { holdAtEnd: true });
    const done = p.play();
    p.key("pause");
    p.key("right30");
    await settle();
    assert.equal(screen.length, 31);
    assert.equal(screen.at(-1), 30);
    p.key("left");
    await settle();
    assert.deepEqual(screen, times.slice(0, 26), "rebuilt: every event up to 25 once, in order");
    assert.ok(Math.abs(p.vt() - 25) < 0.01, `at ${p.vt()}`);
    p.key("left30");
    await settle();
    assert.deepEqual(screen, [0]);
    p.seek(1000);
    await settle();
    assert.equal(screen.length, 100);
    assert.equal(p.vt(), 99);
    p.key("quit");
    await done;
  });
  test("`,` steps back one event, `.` forward one, paused", async () => {
    const { p, screen } = player([0, 10, 20, 30], { holdAtEnd: true });
    const done = p.play();
    p.seek(25);
    await settle();
    assert.deepEqual(screen, [0, 10, 20]);
    p.key("back");
    await settle();
    assert.deepEqual(screen, [0, 10]);
    assert.equal(p.state.paused, true);
    assert.equal(p.vt(), 10);
    p.key("step");
    await settle();
    assert.deepEqual(screen, [0, 10, 20]);
    p.key("quit");
    await done;
  });
});

describe("labels while watching", () => {
  test("x deletes the nearest label, not only the last; around() marks the one in force; each change is on disk", () => {
    // Other tests in this process noted their inputs (the output gate's registry); a reused inode must not read as one.
    forgetInputs();
    const f = writeTmp(dir, "near.tsv", "# hand labels\n0\tidle\n10\tworking\n");
    const l = new LabelFile(f);
    l.key("p", 20);
    assert.match(fs.readFileSync(f, "utf8"), /^# hand labels\n0\tidle\n10\tworking\n20\tblocked\tpermission\n$/);
    assert.equal(l.key("x", 11), "deleted working at 10.00 s");
    assert.equal(fs.readFileSync(f, "utf8"), "# hand labels\n0\tidle\n20\tblocked\tpermission\n");
    assert.deepEqual(l.around(5), ["▸     0.00  idle", "     20.00  blocked:permission"]);
    assert.equal(l.key("x", 100), "deleted blocked:permission at 20.00 s");
    assert.equal(l.key("u", 100), null, "the undone label is gone from the undo list too");
  });
});

describe("visibleRows keeps the cursor and the bottom", () => {
  const rows = Array.from({ length: 40 }, (_, i) => `row ${i}`);
  test("everything written fits: from the top", () => {
    const few = [...rows.slice(0, 5), ...Array(35).fill("")];
    assert.deepEqual(visibleRows(few, 10, 4), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
  test("the cursor near the bottom: the bottom rows", () => {
    assert.deepEqual(visibleRows(rows, 8, 38), [32, 33, 34, 35, 36, 37, 38, 39]);
  });
  test("the cursor far above a status line: rows around it, a gap, the bottom", () => {
    const v = visibleRows(rows, 12, 10);
    assert.ok(v.includes(10), "the cursor's row");
    assert.ok(v.includes(39), "the bottom row");
    assert.equal(v.length, 12);
    assert.ok(v.includes(-1));
  });
});

describe("play under tmux", { skip: !which("tmux") && "tmux is not installed" }, () => {
  // Markers every second, each with its time on screen; a prompt at the bottom of a tall screen.
  const lines = ['{"version":3,"term":{"cols":120,"rows":40}}', '[0,"o","\\u001b[40;1Hbottom-prompt>\\u001b[1;1H"]'];
  for (let i = 1; i <= 20; i++) lines.push(`[1,"o","\\u001b[2K\\rnow-${i}"]`);
  const cast = writeTmp(dir, "seek.cast", lines.join("\n") + "\n");

  test("seek with arrows, step back with `,`, jump with g; the clock stops at the end; Esc leaves", async () => {
    const { tm, start, pane, wait } = tmuxSession(path.join(dir, "a.sock"), "a");
    start(
      `NO_COLOR=1 ${pstlab()} play ${quote(cast)} --side-by-side --detectors protocol; echo "RC=$?"; sleep 30`,
      160,
      30,
    );
    try {
      assert.ok(await wait(() => /now-1\b/.test(pane())), pane());
      tm("send-keys", "-t", "a", " "); // pause
      tm("send-keys", "-t", "a", "Right");
      assert.ok(await wait(() => /now-6\b/.test(pane())), pane());
      tm("send-keys", "-t", "a", "Left");
      assert.ok(await wait(() => /now-1\b/.test(pane())), `back 5 s: ${pane()}`);
      tm("send-keys", "-t", "a", "-l", "g12");
      tm("send-keys", "-t", "a", "Enter");
      assert.ok(await wait(() => /now-12\b/.test(pane()) && /12\.0 \/ 20\.0 s/.test(pane())), pane());
      tm("send-keys", "-t", "a", "-l", ",");
      assert.ok(await wait(() => /now-11\b/.test(pane())), `step back: ${pane()}`);
      tm("send-keys", "-t", "a", "S-Right");
      assert.ok(await wait(() => /now-20\b/.test(pane()) && /■ end/.test(pane())), pane());
      await new Promise((r) => setTimeout(r, 500));
      assert.match(pane(), /20\.0 \/ 20\.0 s/, "the clock ran on past the end");
      tm("send-keys", "-t", "a", "-l", "w"); // not a quit key: the player stays
      await new Promise((r) => setTimeout(r, 300));
      assert.doesNotMatch(pane(), /RC=/);
      tm("send-keys", "-t", "a", "Escape");
      assert.ok(await wait(() => /RC=0/.test(pane())), pane());
    } finally {
      tm("kill-server");
    }
  });

  test("a 120-column capture side by side in 160 columns; the bottom prompt kept in 30 rows; capture time with --from", async () => {
    const { tm, start, pane, wait } = tmuxSession(path.join(dir, "b.sock"), "b");
    start(`NO_COLOR=1 ${pstlab()} play ${quote(cast)} --side-by-side --detectors protocol --from 5; sleep 30`, 160, 30);
    try {
      assert.ok(await wait(() => /now-7\b/.test(pane())), pane());
      const p = pane();
      const row = p.split("\n").find((l) => l.includes("pstlab play"))!;
      assert.ok(row, p);
      assert.ok(row.indexOf("pstlab play") >= 100, `the panel is beside the screen: ${row}`);
      assert.match(p, /bottom-prompt>/, "the bottom row was cropped away");
      assert.match(p, /pstlab play +[6-9]\.\d \/ 20\.0 s/, "capture time, not time since --from");
    } finally {
      tm("kill-server");
    }
  });

  test("--label: a closed terminal (SIGHUP) loses no label, and the continued file keeps its comments", async () => {
    const out = writeTmp(dir, "hup.tsv", "# by hand\n0\tidle\n");
    const { tm, start, pane, wait } = tmuxSession(path.join(dir, "d.sock"), "d");
    start(`${pstlab()} play ${quote(cast)} --label ${quote(out)}`, 160, 30);
    try {
      assert.ok(await wait(() => /now-2\b/.test(pane())), pane());
      tm("send-keys", "-t", "d", "-l", "p");
      assert.ok(await wait(() => fs.readFileSync(out, "utf8").includes("blocked")), "the label reached the file");
      tm("kill-session", "-t", "d"); // the terminal closes: SIGHUP
    } finally {
      tm("kill-server");
    }
    const lines = fs.readFileSync(out, "utf8").split("\n");
    assert.equal(lines[0], "# by hand");
    assert.equal(lines[1], "0\tidle");
    assert.match(lines[2], /^[2-4](\.\d+)?\tblocked\tpermission$/);
  });

  test("--label: x deletes the label nearest now; the panel lists the labels around now", async () => {
    const out = writeTmp(dir, "x.tsv", "3\tidle\n9\tworking\n");
    const { tm, start, pane, wait } = tmuxSession(path.join(dir, "c.sock"), "c");
    start(
      `NO_COLOR=1 ${pstlab()} play ${quote(cast)} --side-by-side --detectors protocol --label ${
        quote(out)
      }; echo "RC=$?"; sleep 30`,
      160,
      30,
    );
    try {
      assert.ok(await wait(() => /now-1\b/.test(pane())), pane());
      tm("send-keys", "-t", "c", " ");
      tm("send-keys", "-t", "c", "-l", "g8");
      tm("send-keys", "-t", "c", "Enter");
      assert.ok(await wait(() => /now-8\b/.test(pane())), pane());
      assert.match(pane(), /▸ +3\.00 +idle/);
      assert.match(pane(), / +9\.00 +working/);
      tm("send-keys", "-t", "c", "-l", "x");
      assert.ok(await wait(() => /deleted working at 9\.00 s/.test(pane())), pane());
      assert.equal(fs.readFileSync(out, "utf8"), "3\tidle\n", "written at once");
      tm("send-keys", "-t", "c", "Escape");
      assert.ok(await wait(() => /RC=0/.test(pane())), pane());
    } finally {
      tm("kill-server");
    }
  });
});
