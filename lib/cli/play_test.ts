// `pstlab play`: real-time speed (a 10 s capture at --speed 4 takes 2.5 s ± 5 %), and
// the side-by-side panel under tmux (skipped when tmux is absent).
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { keyFor, Player } from "../../replay/player.ts";
import { markerStatus } from "./play.ts";
import type { Event } from "../recording/model.ts";
import { MAIN, runtimeArgv, tmpDir, which, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-play-");
const ten = writeTmp(
  dir,
  "ten.cast",
  '{"version":3,"term":{"cols":80,"rows":24}}\n[0,"o","start\\r\\n"]\n[2.5,"o","a\\r\\n"]\n[2.5,"m","truth:blocked"]\n[2.5,"o","b\\r\\n"]\n[2.5,"o","end\\r\\n"]\n',
);

describe("play timing", () => {
  test("a 10 s capture at --speed 4 takes 2.5 s ± 5 % (first byte to last)", async () => {
    const [cmd, ...pre] = runtimeArgv();
    const child = spawn(cmd, [...pre, MAIN, "play", ten, "--speed", "4"], { stdio: ["ignore", "pipe", "pipe"] });
    let first = 0, last = 0, text = "";
    child.stdout.on("data", (d: Uint8Array) => {
      const now = performance.now();
      if (!first) first = now;
      text += new TextDecoder().decode(d);
      if (text.includes("end")) last = now;
    });
    await new Promise((r) => child.on("exit", r));
    const took = (last - first) / 1000;
    assert.equal(text, "start\r\na\r\nb\r\nend\r\n");
    assert.ok(Math.abs(took - 2.5) <= 0.125, `took ${took.toFixed(3)} s`);
  });
  test("the player's keys: pause, step, next marker, speed, quit", async () => {
    assert.deepEqual([" ", ".", "]", "+", "-", "q", "\x03", "x"].map(keyFor), [
      "pause",
      "step",
      "marker",
      "faster",
      "slower",
      "quit",
      "quit",
      null,
    ]);
    const seen: number[] = [];
    const evs: Event[] = [0, 100, 200, 300].map((t) => ({ t, kind: "output", bytes: new Uint8Array([65]) }));
    evs.splice(2, 0, { t: 150, kind: "marker", label: "m" });
    const p = new Player({ speed: 1, pauseOnMarkers: true, onEvent: (e) => seen.push(e.t) }, evs);
    const done = p.play();
    await new Promise((r) => setTimeout(r, 50));
    p.key("marker"); // jump to the marker at 150 s: everything before it at once, then pause there
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(seen, [0, 100, 150]);
    assert.equal(p.state.paused, true);
    p.key("step");
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(seen, [0, 100, 150, 200]);
    p.key("faster");
    assert.equal(p.state.speed, 2);
    p.key("quit");
    await done;
    assert.deepEqual(seen, [0, 100, 150, 200]);
  });
  test("a pause on a marker is announced with its label, and the announcement cleared on resume", async () => {
    const evs: Event[] = [
      { t: 0, kind: "output", bytes: new Uint8Array([65]) },
      { t: 0.01, kind: "marker", label: "truth:blocked" },
      { t: 0.02, kind: "output", bytes: new Uint8Array([66]) },
    ];
    const said: (string | null)[] = [];
    const p = new Player({
      speed: 1,
      pauseOnMarkers: true,
      onEvent: () => {},
      onMarkerPause: (m) => said.push(m ? m.label : null),
    }, evs);
    const done = p.play();
    while (!p.state.paused) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(said, ["truth:blocked"]);
    p.key("pause");
    await done;
    assert.deepEqual(said, ["truth:blocked", null]);
  });
  test("the marker status line: bottom row, cursor kept, label sanitised and cut to the width", () => {
    const line = markerStatus("evil\x1b]0;pwned\x07\x1b[2J label", 12.34, 60, 30);
    assert.ok(line.startsWith("\x1b7\x1b[30;1H\x1b[2K\x1b[7m") && line.endsWith("\x1b[m\x1b8"), JSON.stringify(line));
    const text = line.slice("\x1b7\x1b[30;1H\x1b[2K\x1b[7m".length, -"\x1b[m\x1b8".length);
    assert.ok(!/[\x00-\x1f\x7f-\x9f]/.test(text), JSON.stringify(text));
    assert.ok([...text].length <= 59);
    assert.match(text, /^pstlab: paused at marker "evil\\\\e\]0;pwned/);
    assert.equal(markerStatus(null, 0, 60, 30), "\x1b7\x1b[30;1H\x1b[2K\x1b8");
  });
});

describe("side by side, under tmux", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("the panel shows truth, OSC 7501 records and each detector's verdict as it plays", async () => {
    const cast = writeTmp(
      dir,
      "sbs.cast",
      [
        '{"version":3,"term":{"cols":80,"rows":20}}',
        '[0,"m","truth:working"]',
        '[0,"o","\\u001b]7501;state=working:app=claude-code\\u001b\\\\working on it · esc to interrupt\\r\\n"]',
        '[1,"m","truth:blocked:permission"]',
        '[0,"o","\\u001b]7501;state=blocked:kind=permission:msg=UnVuIHRlc3RzPw==\\u001b\\\\Do you want to proceed?\\r\\n❯ 1. Yes\\r\\n"]',
        '[30,"o","later\\r\\n"]',
      ].join("\n") + "\n",
    );
    const sock = path.join(dir, "tmux.sock");
    const [cmd, ...pre] = runtimeArgv();
    const tm = (...a: string[]) => spawnSync("tmux", ["-S", sock, ...a], { encoding: "utf8" });
    tm(
      "new-session",
      "-d",
      "-s",
      "p",
      "-x",
      "170",
      "-y",
      "40",
      `NO_COLOR=1 ${
        [cmd, ...pre, MAIN].map((s) => `'${s}'`).join(" ")
      } play '${cast}' --side-by-side --detectors 'protocol,screen:claude@50ms,quiet>=1s'; sleep 30`,
    );
    try {
      let pane = "";
      const deadline = Date.now() + 15000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        pane = tm("capture-pane", "-p", "-t", "p").stdout;
        if (/truth +blocked \(permission\)/.test(pane) && /● screen:claude@50ms +NEEDS YOU/.test(pane)) break;
      }
      assert.match(pane, /Do you want to proceed\?/); // the recording, on the left
      assert.match(pane, /truth +blocked \(permission\)/);
      assert.match(pane, /osc 7501 +root blocked permission "Run tests\?"/);
      assert.match(pane, /● protocol +NEEDS YOU/);
      assert.match(pane, /● screen:claude@50ms +NEEDS YOU permission_prompt/);
      assert.match(pane, /pstlab play +[0-9.]+ \/ 31\.0 s/);
      tm("send-keys", "-t", "p", "q");
      await new Promise((r) => setTimeout(r, 800));
      assert.doesNotMatch(tm("capture-pane", "-p", "-t", "p").stdout, /pstlab play/); // left the alternate screen
    } finally {
      tm("kill-server");
    }
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("a capture bigger than the terminal, under tmux", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("play says so once before it starts; one that fits gets no such line", async () => {
    const sock = path.join(dir, "tmux-size.sock");
    const [cmd, ...pre] = runtimeArgv();
    const tm = (...a: string[]) => spawnSync("tmux", ["-S", sock, ...a], { encoding: "utf8" });
    const run = async (cols: number, rows: number) => {
      const cast = writeTmp(
        dir,
        `size${cols}.cast`,
        `{"version":3,"term":{"cols":${cols},"rows":${rows}}}\n[0.1,"o","hi"]\n`,
      );
      const errFile = path.join(dir, `size${cols}.err`);
      tm(
        "new-session",
        "-d",
        "-s",
        `s${cols}`,
        "-x",
        "80",
        "-y",
        "20",
        `${[cmd, ...pre, MAIN].map((s) => `'${s}'`).join(" ")} play '${cast}' --to 0.2 2>'${errFile}'; sleep 30`,
      );
      const deadline = Date.now() + 15000;
      let text = "";
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        text = fs.existsSync(errFile) ? fs.readFileSync(errFile, "utf8") : "";
        if (tm("capture-pane", "-p", "-t", `s${cols}`).stdout.includes("hi")) break;
      }
      return text;
    };
    try {
      assert.match(await run(120, 32), /warning: the capture is 120x32 and this terminal 80x20/);
      assert.doesNotMatch(await run(80, 20), /warning: the capture is/);
    } finally {
      tm("kill-server");
    }
  });
});
