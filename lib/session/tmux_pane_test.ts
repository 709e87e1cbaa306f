// `record --tmux-pane` on a real tmux server (its own socket, -L): a pane already
// running a script is recorded without restarting it — its current screen first, then
// what it prints, a resize as an event, until the pane exits; the header says where it
// came from; the pane is left unpiped. Bad targets and misuse are one line, exit 2.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { cli, collect, MAIN, runtimeArgv, tmpDir, which } from "../testkit.ts";
import { openRecording } from "../recording/open.ts";

const dir = tmpDir("pstlab-pane-");
const sock = `pstlab-test-${process.pid}`;
const tm = (...a: string[]) => spawnSync("tmux", ["-L", sock, ...a], { encoding: "utf8" });
after(() => {
  tm("kill-server");
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until(pred: () => boolean, what: string, ms = 20000) {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  assert.ok(pred(), `timed out waiting for ${what}`);
}

describe("record --tmux-pane", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("a running pane: its screen, then its output and a resize, until it exits", async () => {
    const go = path.join(dir, "go"), go2 = path.join(dir, "go2");
    const script = `printf '\\033[1mfirst\\033[0m line\\n'; while [ ! -e ${go} ]; do sleep 0.05; done; ` +
      `echo second; while [ ! -e ${go2} ]; do sleep 0.05; done; echo third; sleep 0.2`;
    assert.equal(tm("new-session", "-d", "-s", "work", "-x", "90", "-y", "20", "sh", "-c", script).status, 0);
    await until(() => /first line/.test(tm("capture-pane", "-p", "-t", "work").stdout), "the pane to print");
    const file = path.join(dir, "pane.cast");
    const [cmd, ...pre] = runtimeArgv();
    const rec = spawn(cmd, [...pre, MAIN, "record", "--tmux-pane", "work", "--tmux-socket", sock, "-o", file], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    rec.stderr!.on("data", (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((r) => rec.on("exit", (c) => r(c)));
    await until(() => /recording tmux pane/.test(stderr), "the recorder to start");
    fs.writeFileSync(go, "");
    const text = () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "");
    await until(() => text().includes("second"), "second in the recording");
    assert.equal(tm("resize-window", "-t", "work", "-x", "70", "-y", "15").status, 0);
    await until(() => text().includes('"r", "70x15"'), "the resize in the recording");
    fs.writeFileSync(go2, "");
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /the pane exited/);

    const r = await openRecording(file);
    const events = await collect(r.events);
    assert.equal(r.header.cols, 90);
    assert.equal(r.header.rows, 20);
    assert.match(r.header.title ?? "", /^tmux pane %\d+ \(work:0\.0\) on tmux -L /);
    assert.equal((r.header.provenance?.recorded_from as { where?: string })?.where, "work:0.0");
    const td = new TextDecoder();
    const outputs = events.flatMap((e) => (e.kind === "output" ? [td.decode(e.bytes)] : []));
    // The screen first, with its attributes as tmux keeps them (capture-pane -e).
    assert.match(outputs[0], /\x1b\[1mfirst\x1b\[0?m(\x1b\[[0-9;]*m)* line/);
    const rest = outputs.slice(1).join("");
    assert.ok(!rest.includes("first"), "the captured screen is not recorded twice");
    assert.match(rest, /second\r\n[^]*third\r\n/);
    const kinds = events.map((e) => e.kind === "resize" ? `r${e.cols}x${e.rows}` : e.kind);
    const second = events.findIndex((e) => e.kind === "output" && td.decode(e.bytes).includes("second"));
    const third = events.findIndex((e) => e.kind === "output" && td.decode(e.bytes).includes("third"));
    const resize = kinds.indexOf("r70x15");
    assert.ok(second < resize && resize < third, kinds.join(" "));
    // Played back, the screen ends as the pane did.
    const screen = cli(["screen", file]);
    assert.equal(screen.code, 0, screen.stderr);
    assert.match(screen.stdout, /first line\n(.*\n)*second\n(.*\n)*third/);
  });

  test("stopped by a signal with a prompt left on screen: the recording lasts until the stop", async () => {
    // What --tmux-pane is for: a program waiting at a prompt, nothing printed after it.
    // The file must hold that wait (else the prompt has no duration and no episode), and
    // the stop line must say what the file holds (its seconds and its output bytes).
    assert.equal(tm("new-session", "-d", "-s", "ask", "-x", "80", "-y", "12", "sh").status, 0);
    const file = path.join(dir, "ask.cast");
    const [cmd, ...pre] = runtimeArgv();
    const rec = spawn(cmd, [...pre, MAIN, "record", "--tmux-pane", "ask", "--tmux-socket", sock, "-o", file], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    rec.stderr!.on("data", (d) => (stderr += String(d)));
    // 130 as a shell says it: Deno's binary ends by the signal itself once the stop is handled
    // (the file and the stop line below tell a handled stop from one that killed the recorder).
    const exited = new Promise<number | null>((r) =>
      rec.on("exit", (c, sig) => r(c ?? (sig === "SIGINT" ? 130 : null)))
    );
    await until(() => /recording tmux pane/.test(stderr), "the recorder to start");
    assert.equal(tm("send-keys", "-t", "ask", `read -p 'Continue? [y/N] ' a`, "Enter").status, 0);
    const text = () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "");
    await until(() => text().includes("Continue? [y/N] "), "the prompt in the recording");
    // The prompt stays on screen for at least this long before the stop.
    await new Promise((r) => setTimeout(r, 1000));
    rec.kill("SIGINT");
    assert.equal(await exited, 130, stderr);
    tm("kill-session", "-t", "ask");

    const events = await collect((await openRecording(file)).events);
    const last = events[events.length - 1];
    const outputs = events.filter((e) => e.kind === "output");
    const lastOutput = outputs[outputs.length - 1];
    assert.ok(
      last.kind === "marker" && /^pstlab: recording stopped \(SIGINT\)/.test(last.label),
      `last event: ${last.kind} at ${last.t}`,
    );
    assert.ok(last.t - lastOutput.t >= 0.9, `the prompt's wait is kept: ${lastOutput.t} → ${last.t}`);
    const m = /recorded .*: ([\d.]+) s, (\d+) events, (\d+) bytes; stopped \(SIGINT\)/.exec(stderr);
    assert.ok(m, stderr);
    assert.equal(m[1], last.t.toFixed(1), "the stop line's seconds are the file's");
    assert.equal(Number(m[2]), events.length, "the stop line's events are the file's");
    const bytes = outputs.reduce((n, e) => n + (e.kind === "output" ? e.bytes.length : 0), 0);
    assert.equal(Number(m[3]), bytes, "the stop line's bytes count the opening screen too");
    const info = cli(["info", "--json", file]);
    assert.equal(info.code, 0, info.stderr);
    assert.equal(JSON.parse(info.stdout).duration_s.toFixed(1), m[1]);
  });

  test("a pane that is not there, a socket alone, a command too: one line, exit 2", () => {
    tm("new-session", "-d", "-s", "idle", "sleep 30");
    for (
      const [args, re] of [
        [["--tmux-pane", "nosuch", "--tmux-socket", sock], /no tmux pane "nosuch" on tmux server -L /],
        [["--tmux-socket", sock], /--tmux-socket/],
        [["--tmux-pane", "idle", "--tmux-socket", sock, "--", "sh"], /no COMMAND/],
        [["--tmux-pane", "idle", "--hooks"], /--hooks/],
        // A name from the command line cannot drive the terminal through the error.
        [["--tmux-pane", "x\x1b[31m", "--tmux-socket", "s\x1b]0;pwned\x07"], /no tmux pane "x\\u001b\[31m"/],
      ] as [string[], RegExp][]
    ) {
      const out = path.join(dir, "never.cast");
      const r = cli(["record", "-o", out, ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.match(r.stderr, re);
      assert.ok(!/[\x00-\x09\x0b-\x1f]/.test(r.stderr), JSON.stringify(r.stderr));
      assert.ok(!fs.existsSync(out), "no file for a recording that never started");
    }
    tm("kill-session", "-t", "idle");
  });
});
