// The recorder under faults: a file that cannot grow (ulimit -f), a grandchild that
// ignores SIGTERM and SIGHUP, a recorder signalled from outside, piped stdin that ends,
// and --append after a recording that was cut mid-line.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  cli,
  collect,
  concatOutput,
  hasProc,
  MAIN,
  processRunning,
  runtimeArgv,
  spawnCli,
  tmpDir,
  tmuxSession,
  which,
} from "../testkit.ts";
import { openRecording } from "../recording/open.ts";

const dir = tmpDir("pstlab-faults-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const pstlab = () => runtimeArgv().concat(MAIN).map(quote).join(" ");
/** A process whose command line starts with `marker` (not the recorder, whose argv only contains it). */
const alive = processRunning;
const noProc = !hasProc && "no /proc: the tests cannot see which processes survive";

async function readBack(p: string) {
  const rec = await openRecording(p);
  const events = await collect(rec.events);
  return { events, warnings: rec.warnings, text: new TextDecoder().decode(concatOutput(events)) };
}

describe("recorder under faults: no process of the recorded command survives", { skip: noProc }, () => {
  test("the survivor check sees a running process and stops seeing it once it ends", async () => {
    const marker = `sleep 96.${process.pid}`;
    const child = spawn("sh", ["-c", `exec ${marker}`], { stdio: "ignore" });
    const deadline = Date.now() + 10000;
    while (!alive(marker) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(alive(marker), "a running sleep is not seen");
    assert.ok(!alive(`${marker}0`), "a prefix that no process has is seen");
    process.kill(child.pid!, "SIGKILL");
    await new Promise((r) => child.on("exit", r));
    assert.ok(!alive(marker), "an ended process is still seen");
  });
  test("a file that cannot grow (ulimit -f): one line, the program stopped, exit 1, the file readable", async () => {
    const p = path.join(dir, "full.cast");
    const marker = `sleep 97.${process.pid}`;
    const started = Date.now();
    // Deno writes its code cache at start-up, which the limit would hit first: no cache for this run.
    const argv = runtimeArgv();
    if ((globalThis as { Deno?: unknown }).Deno) argv.splice(2, 0, "--no-code-cache");
    const self = argv.concat(MAIN).map(quote).join(" ");
    const script = `i=0; while [ $i -lt 20000 ]; do echo line $i; i=$((i+1)); done; ${marker}`;
    const r = spawnSync("bash", ["-c", `ulimit -f 64; ${self} record -q -o ${quote(p)} -- sh -c ${quote(script)}`], {
      encoding: "utf8",
      timeout: 60000,
    });
    assert.equal(r.status, 1, r.stderr);
    assert.ok(Date.now() - started < 30000);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /full\.cast: cannot write: file too large .*the program was stopped/);
    // The limit is reached inside the loop, so the loop's shell is what must be gone.
    assert.ok(!alive(`sh -c ${script}`) && !alive(marker), "the recorded program survived");
    // Readable up to its last complete event (how much output fits before the limit depends on the reads).
    const back = await readBack(p);
    assert.ok(fs.statSync(p).size <= 64 * 1024); // bash counts ulimit -f in KiB
    assert.ok(!back.events.some((e) => e.kind === "exit"), "no exit event: the recording was cut");
  });
  test("a grandchild ignoring TERM and HUP is ended (--timeout)", () => {
    const marker = `sleep 98.${process.pid}`;
    const group = path.join(dir, "group.cast");
    const script = `trap "" TERM HUP; ${marker} & echo started; wait`;
    const r = cli(["record", "-q", "-o", group, "--timeout", "1", "--", "sh", "-c", script]);
    assert.equal(r.code, 124, r.stderr);
    assert.match(fs.readFileSync(group, "utf8"), /started/, "the grandchild was started");
    assert.ok(!alive(marker), "the grandchild survived");
  });
  test("SIGTERM to the recorder: the group ended, the file and its exit event kept, exit 143", async () => {
    const p = path.join(dir, "term.cast");
    const marker = `sleep 99.${process.pid}`;
    const child = spawnCli(["record", "-q", "-o", p, "--", "sh", "-c", `trap "" TERM HUP; echo started; ${marker}`]);
    const deadline = Date.now() + 20000;
    // The program's first output is in the file once the recorder runs its session (signal handlers included).
    const started = () => fs.existsSync(p) && fs.readFileSync(p, "utf8").includes("started") && alive(marker);
    while (!started() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(started(), "the recorded program never started");
    // process.kill, not child.kill: Deno's child_process reports a child it signalled itself as killed by that signal.
    process.kill(child.pid!, "SIGTERM");
    const code = await new Promise((r) => child.on("exit", (c) => r(c)));
    assert.equal(code, 143);
    assert.ok(!alive(marker), "the grandchild survived");
    const back = await readBack(p);
    assert.match(back.text, /started/);
    assert.equal(back.events.at(-1)?.kind, "exit");
  });
});

describe("record cannot hang CI", () => {
  test("no command and stdin not a terminal: one line, exit 2, no file", () => {
    const p = path.join(dir, "noshell.cast");
    const r = cli(["record", "-o", p], { timeout: 20000 });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^pstlab: record: no command, and stdin is not a terminal .*give -- COMMAND/);
    assert.equal(r.stderr.trim().split("\n").length, 1);
    assert.ok(!fs.existsSync(p));
  });
  test("stdin from /dev/null reaches a shell as its end of file, as with script(1)", {
    skip: (!which("bash") || !fs.existsSync("/dev/null")) && "no bash or /dev/null",
  }, () => {
    const p = path.join(dir, "devnull.cast");
    const fd = fs.openSync("/dev/null", "r");
    try {
      const r = spawnSync(runtimeArgv()[0], [
        ...runtimeArgv().slice(1),
        MAIN,
        "record",
        "-q",
        "--headless",
        "-o",
        p,
        "--",
        "bash",
        "--norc",
      ], {
        stdio: [fd, "pipe", "pipe"],
        timeout: 20000,
        env: { ...process.env, NO_COLOR: "1" },
      });
      assert.equal(r.status, 0, String(r.stderr));
    } finally {
      fs.closeSync(fd);
    }
    assert.match(fs.readFileSync(p, "utf8"), /"x", "0"\]\n$/);
  });
  test("an empty pipe ends python3's prompt too", { skip: !which("python3") && "no python3" }, () => {
    const p = path.join(dir, "py.cast");
    const r = cli(["record", "-q", "-o", p, "--", "python3", "-q"], { input: "", timeout: 20000 });
    assert.equal(r.code, 0, r.stderr);
  });
  test("--timeout: exit 124, the capture kept, its last events say why", async () => {
    const p = path.join(dir, "timeout.cast");
    const r = cli(["record", "-o", p, "--timeout", "0.5", "--", "sh", "-c", "echo begun; sleep 30"], {
      timeout: 20000,
    });
    assert.equal(r.code, 124, r.stderr);
    assert.match(r.stderr, /stopped after 0\.5 s \(--timeout\); exit 124/);
    const back = await readBack(p);
    assert.match(back.text, /begun/);
    assert.equal(back.events.at(-1)?.kind, "exit");
    const why = back.events.at(-2);
    assert.equal(why?.kind === "marker" && why.label, "pstlab: stopped by --timeout after 0.5 s");
  });
});

describe("recorder under faults", () => {
  test("piped stdin that ends is the program's end of file", () => {
    const p = path.join(dir, "eof.cast");
    const r = cli(["record", "-q", "-o", p, "--", "cat"], { input: "echo hi\n", timeout: 20000 });
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(p, "utf8");
    assert.match(text, /echo hi/);
    assert.match(text, /"x", "0"\]/);
  });
  test("piped stdin without a final newline still ends the program", () => {
    const r = cli(["record", "-q", "-o", path.join(dir, "eof2.cast"), "--", "cat"], {
      input: "no newline",
      timeout: 20000,
    });
    assert.equal(r.code, 0, r.stderr);
  });
  test("--append after a recording cut mid-line drops the partial line, says so, and stays readable", async () => {
    const p = path.join(dir, "cut.cast");
    fs.writeFileSync(p, '{"version":3,"term":{"cols":80,"rows":24}}\n[0.1, "o", "before\\r\\n"]\n[0.2, "o", "cut of');
    const r = cli(["record", "-o", p, "--append", "--", "echo", "after"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /dropped a partial last line \(\d+ bytes\) left by an interrupted recording/);
    const back = await readBack(p);
    assert.deepEqual(back.warnings, []);
    assert.match(back.text, /before\r\n.*after/s);
  });
});

describe("writers never leave half a file", () => {
  test("cat with an input as its output is refused and the input is untouched", () => {
    const a = path.join(dir, "big.cast");
    fs.writeFileSync(
      a,
      `{"version":3,"term":{"cols":80,"rows":24}}\n${
        Array.from({ length: 5000 }, (_, i) => `[0.001, "o", "line ${i}\\r\\n"]`).join("\n")
      }\n`,
    );
    const before = fs.readFileSync(a, "utf8");
    const r = cli(["cat", a, a, "-o", a, "--overwrite"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /refusing to write over the input/);
    assert.equal(fs.readFileSync(a, "utf8"), before);
  });
  test("a conversion that fails half-way leaves the old output as it was and no temporary file", () => {
    const out = path.join(dir, "keep.cast");
    fs.writeFileSync(out, "precious\n");
    const bad = path.join(dir, "bad.cast");
    fs.writeFileSync(
      bad,
      `{"version":3,"term":{"cols":80,"rows":24}}\n${
        Array.from({ length: 3000 }, () => '[0.001, "o", "x"]').join("\n")
      }\n[0.1, "o", 42]\n`,
    );
    const r = cli(["convert", bad, out, "--overwrite"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.cast:3002: "o" data must be a string/);
    assert.equal(fs.readFileSync(out, "utf8"), "precious\n");
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes(".pstlab-")), []);
  });
  test("a device is written in place, never replaced by a renamed file (/dev/null)", {
    skip: !fs.existsSync("/dev/null") && "no /dev/null",
  }, () => {
    const DEPLOY = path.join(import.meta.dirname ?? ".", "../../fixtures/captures/deploy.cast");
    assert.equal(cli(["report", DEPLOY, "--format", "json", "-o", "/dev/null"]).code, 0);
    assert.equal(cli(["convert", DEPLOY, "/dev/null", "--overwrite"]).code, 0);
    assert.ok(fs.statSync("/dev/null").isCharacterDevice());
  });
  test(
    "a full device is one line naming the file (/dev/full)",
    { skip: !fs.existsSync("/dev/full") && "no /dev/full" },
    () => {
      const r = cli(["record", "-q", "-o", "/dev/full", "--overwrite", "--", "true"]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.trim(), /^pstlab: \/dev\/full: cannot write: no space left on device$/);
    },
  );
});

describe("interactive recorder, signalled from outside", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("SIGINT in raw mode: the exit event and the summary are written, exit 130", async () => {
    const sock = path.join(dir, "int.sock");
    const p = path.join(dir, "int.cast");
    const { tm, start, pane, wait } = tmuxSession(sock, "i");
    start(`${pstlab()} record -o ${quote(p)} -- bash --norc --noprofile -i; echo "RC=$?"; sleep 30`);
    try {
      assert.ok(await wait(() => /recording to/.test(pane())), pane());
      tm("send-keys", "-t", "i", "-l", "echo alive");
      tm("send-keys", "-t", "i", "Enter");
      assert.ok(await wait(() => /^alive$/m.test(pane())), pane());
      assert.equal(spawnSync("pkill", ["-INT", "-f", `record -o ${p}`]).status, 0, "pkill found no recorder");
      assert.ok(await wait(() => /RC=\d+/.test(pane())), pane());
      assert.match(pane(), /pstlab: recorded .*int\.cast/);
      assert.match(pane(), /RC=130/);
    } finally {
      tm("kill-server");
    }
    const back = await readBack(p);
    assert.equal(back.events.at(-1)?.kind, "exit");
  });
});

describe("labelling the truth while recording, under tmux", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("prefix + w/p/i between typed text: three markers in order; no ^] reaches cat -v; the prefix twice sends one", async () => {
    const sock = path.join(dir, "lbl.sock");
    const p = path.join(dir, "labelled.cast");
    const { tm, start, pane, wait } = tmuxSession(sock, "l");
    const send = (...keys: string[]) => tm("send-keys", "-t", "l", ...keys);
    start(`${pstlab()} record -o ${quote(p)} -- cat -v; echo "RC=$?"; sleep 30`);
    try {
      assert.ok(await wait(() => /label the truth with Ctrl-\]/.test(pane())), pane());
      for (const [text, key] of [["one", "w"], ["two", "p"], ["three", "i"]]) {
        send("-l", text);
        send("Enter");
        assert.ok(await wait(() => new RegExp(`^${text}$`, "m").test(pane())), pane());
        await new Promise((r) => setTimeout(r, 150));
        send("C-]");
        send("-l", key);
        await new Promise((r) => setTimeout(r, 150));
      }
      send("C-]");
      send("C-]");
      send("Enter");
      assert.ok(await wait(() => /\^\]$/m.test(pane())), pane());
      send("C-d");
      assert.ok(await wait(() => /RC=0/.test(pane())), pane());
    } finally {
      tm("kill-server");
    }
    const back = await readBack(p);
    const markers = back.events.filter((e) => e.kind === "marker").map((e) => (e as { label: string }).label);
    assert.deepEqual(markers, ["truth:working", "truth:blocked:permission", "truth:idle"]);
    // Each marker comes after the echo of the text typed before it, and before the next text.
    const at = (pred: (e: (typeof back.events)[number]) => boolean) => back.events.findIndex(pred);
    const out = (s: string) => at((e) => e.kind === "output" && new TextDecoder().decode(e.bytes).includes(s));
    const mark = (l: string) => at((e) => e.kind === "marker" && e.label === l);
    assert.ok(out("one") < mark("truth:working") && mark("truth:working") < out("two"));
    assert.ok(out("two") < mark("truth:blocked:permission") && mark("truth:blocked:permission") < out("three"));
    assert.ok(out("three") < mark("truth:idle"));
    // cat -v shows a control byte as ^]: exactly one, from the doubled prefix.
    assert.equal((back.text.match(/\^\]/g) ?? []).length, 2); // the tty echoes it, then cat -v prints it
    assert.ok(!/\^\]w|\^\]p|\^\]i|\x1d/.test(back.text));
  });
});

describe("labelling the truth while replaying, under tmux", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("play --label at --speed 2: labels at the capture time shown; u removes the last; the file continues and scores", async () => {
    const cast = path.join(dir, "marks.cast");
    fs.writeFileSync(
      cast,
      '{"version":3,"term":{"cols":80,"rows":24}}\n[0,"o","start\\r\\n"]\n[2,"o","mark-one\\r\\n"]\n[2,"o","mark-two\\r\\n"]\n[2,"o","mark-three\\r\\n"]\n[2,"o","end\\r\\n"]\n',
    );
    const out = path.join(dir, "marks.tsv");
    fs.writeFileSync(out, "0\tidle\n");
    const sock = path.join(dir, "play.sock");
    const { tm, start, pane, wait } = tmuxSession(sock, "pl");
    start(`${pstlab()} play ${quote(cast)} --speed 2 --label ${quote(out)}; echo "RC=$?"; sleep 30`);
    try {
      assert.ok(await wait(() => /mark-one/.test(pane())), pane());
      tm("send-keys", "-t", "pl", "-l", "w");
      assert.ok(await wait(() => /mark-two/.test(pane())), pane());
      tm("send-keys", "-t", "pl", "-l", "p");
      await new Promise((r) => setTimeout(r, 100));
      tm("send-keys", "-t", "pl", "-l", "u");
      assert.ok(await wait(() => /mark-three/.test(pane())), pane());
      tm("send-keys", "-t", "pl", "-l", "i");
      assert.ok(await wait(() => /end/.test(pane())), pane());
      // At the end the player stays (to seek back or label the last moment) until Esc.
      await new Promise((r) => setTimeout(r, 300));
      assert.doesNotMatch(pane(), /RC=/);
      tm("send-keys", "-t", "pl", "Escape");
      assert.ok(await wait(() => /RC=0/.test(pane())), pane());
      assert.match(pane(), /wrote .*marks\.tsv: 3 labels \(2 new\)/);
    } finally {
      tm("kill-server");
    }
    const lines = fs.readFileSync(out, "utf8").trim().split("\n").map((l) => l.split("\t"));
    assert.deepEqual(lines.map((l) => l[1]), ["idle", "working", "idle"]);
    const [, w, i] = lines.map((l) => Number(l[0]));
    // Each key was pressed while its mark was the last shown: the label lands after that
    // mark's capture time and before the next one's (how late within that depends on load).
    assert.ok(w >= 2 && w < 4, `working at ${w}, expected after mark-one (2 s), before mark-two (4 s)`);
    assert.ok(i >= 6 && i < 8, `idle at ${i}, expected after mark-three (6 s), before the end (8 s)`);
    const r = cli(["report", cast, "--labels", out, "--detectors", "quiet>=1s", "--format", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).inputs[0].truth, `labels:${out}`);
  });
});
