// `pstlab record` for real: headless sessions in a real PTY (on Deno these run the FFI
// backend), SIGKILL durability, scripts, labels, and an interactive session under tmux.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { openRecording } from "../recording/open.ts";
import { type Event } from "../recording/model.ts";
import {
  cli,
  collect,
  concatOutput,
  MAIN,
  ROOT,
  runtimeArgv,
  spawnCli,
  tmpDir,
  tmuxSession,
  which,
  writeTmp,
} from "../testkit.ts";

const dir = tmpDir("pstlab-rec-");
let n = 0;
const castPath = () => path.join(dir, `r${n++}.cast`);
async function events(p: string): Promise<{ events: Event[]; warnings: string[]; header: Record<string, unknown> }> {
  const rec = await openRecording(p);
  const evs = await collect(rec.events);
  return { events: evs, warnings: rec.warnings, header: rec.header as unknown as Record<string, unknown> };
}
const record = (args: string[], opts: Parameters<typeof cli>[1] = {}) =>
  cli(["record", "-q", ...args], { timeout: 60000, ...opts });

describe("record (headless, real PTY)", () => {
  test("output bytes are exactly what the child wrote, including invalid UTF-8 and the last bytes", async () => {
    const payload = new Uint8Array(300_000);
    let x = 7;
    for (let i = 0; i < payload.length; i++) payload[i] = (x = (x * 1103515245 + 12345) & 0x7fffffff) % 256;
    payload.set(new TextEncoder().encode("\x1b]7501;state=working\x1b\\€\xe2"), 1000);
    const src = writeTmp(dir, "payload.bin", payload);
    const out = castPath();
    // -opost: the tty line discipline must not turn \n into \r\n, so the bytes compare 1:1.
    const r = record(["-o", out, "--", "sh", "-c", `stty -opost -echo; cat '${src}'; printf END`]);
    assert.equal(r.code, 0, r.stderr);
    const { events: evs } = await events(out);
    const got = concatOutput(evs);
    const want = new Uint8Array([...payload, ...new TextEncoder().encode("END")]);
    assert.equal(got.length, want.length);
    assert.deepEqual(got, want);
    assert.equal(evs.at(-1)?.kind, "exit");
  });
  test("exit status in the x event; --return propagates it; killed → 128+signal", async () => {
    const a = castPath();
    assert.equal(record(["-o", a, "--", "sh", "-c", "exit 5"]).code, 0);
    assert.deepEqual((await events(a)).events.at(-1), {
      t: (await events(a)).events.at(-1)!.t,
      kind: "exit",
      status: 5,
    });
    const b = castPath();
    assert.equal(record(["--return", "-o", b, "--", "sh", "-c", "exit 5"]).code, 5);
    const c = castPath();
    assert.equal(record(["--return", "-o", c, "--", "sh", "-c", "kill -9 $$"]).code, 137);
    assert.equal(((await events(c)).events.at(-1) as { status: number }).status, 137);
  });
  test("the header: size, command, SHELL only, provenance with query_answered", async () => {
    const p = castPath();
    record(["--size", "90x20", "--title", "T", "-o", p, "--", "true"], { env: { SECRET_TOKEN: "x" } });
    const { header } = await events(p);
    assert.equal(header.cols, 90);
    assert.equal(header.rows, 20);
    assert.equal(header.command, "true");
    assert.equal(header.title, "T");
    assert.deepEqual(Object.keys(header.env as object), ["SHELL"].filter((k) => process.env[k]));
    assert.equal((header.provenance as { query_answered: boolean }).query_answered, true);
  });
  test("a child that emits OSC 7501 only after a positive query reply: reports with the answer, none without", async () => {
    const gated = path.join(ROOT, "fixtures/emitters/gated.sh");
    const yes = castPath(), no = castPath();
    assert.equal(record(["-o", yes, "--", gated]).code, 0);
    assert.equal(record(["--no-answer", "-o", no, "--", gated]).code, 0);
    const scan = (p: string) => cli(["scan", "--json", p]).stdout.trim().split("\n").map((l) => JSON.parse(l));
    const a = scan(yes), b = scan(no);
    assert.deepEqual(a.filter((e) => e.type === "report").map((e) => e.state), ["working", "working", "done"]);
    assert.equal(b.filter((e) => e.type === "report").length, 0);
    assert.equal(a.filter((e) => e.type === "query").length, 1);
    assert.equal(
      (await events(no)).header.provenance &&
        ((await events(no)).header.provenance as { query_answered: boolean }).query_answered,
      false,
    );
  });
  test("the emulated screen answers DA1, cursor position and XTVERSION", async () => {
    const p = castPath();
    const probe =
      `stty raw -echo; printf '\\033[c'; IFS= read -r -s -d c a; printf '\\033[6n'; IFS= read -r -s -d R b; printf '\\033[>0q'; IFS= read -r -s -d '\\' v; stty sane; printf 'DA1=%q CPR=%q XTV=%q\\n' "$a" "$b" "$v"`;
    assert.equal(record(["-o", p, "--", "bash", "-c", probe]).code, 0);
    const text = new TextDecoder().decode(concatOutput((await events(p)).events));
    assert.match(text, /DA1=\$'\\E\[\?1;2'/);
    assert.match(text, /CPR=\$'\\E\[1;1'/);
    assert.match(text, /XTV=\$'\\EP>\|pstlab/);
  });
  test("a query after a flood of plain lines (the screen started only then) sees the cursor where it is", async () => {
    const p = castPath();
    const probe =
      `seq 1 400; stty raw -echo; printf 'abc\\033[6n'; IFS= read -r -s -d R b; stty sane; printf '\\nCPR=%q\\n' "$b"`;
    assert.equal(record(["-o", p, "--size", "40x6", "--", "bash", "-c", probe]).code, 0);
    const text = new TextDecoder().decode(concatOutput((await events(p)).events));
    assert.match(text, /CPR=\$'\\E\[6;4'/);
  });
  test("a resize mid-run is seen by the child and recorded", async () => {
    const p = castPath(), s = writeTmp(dir, "resize.txt", "wait /ready/\nresize 100x30\nwait /WINCH 30 100/\n");
    const program = "trap 'echo WINCH $(stty size)' WINCH; echo ready; for i in $(seq 50); do sleep 0.05; done";
    const r = record(["--script", s, "-o", p, "--", "bash", "-c", program]);
    assert.equal(r.code, 0, r.stderr);
    const evs = (await events(p)).events;
    assert.ok(evs.some((e) => e.kind === "resize" && e.cols === 100 && e.rows === 30));
    assert.match(new TextDecoder().decode(concatOutput(evs)), /WINCH 30 100/);
  });
  test("a scripted session waits for a prompt and answers it", async () => {
    const p = castPath();
    const s = writeTmp(
      dir,
      "answer.txt",
      '# answer the prompt\nwait /Proceed\\? \\[y\\/N\\]/ 5s\nlabel truth:blocked:permission\nsleep 100ms\nsend "y\\r"\nwait /answer=y/\nlabel truth:done\n',
    );
    const r = record([
      "--script",
      s,
      "-o",
      p,
      "--",
      "bash",
      "-c",
      "read -p 'Proceed? [y/N] ' a; echo answer=$a; sleep 0.2",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const evs = (await events(p)).events;
    assert.deepEqual(evs.filter((e) => e.kind === "marker").map((e) => (e as { label: string }).label), [
      "truth:blocked:permission",
      "truth:done",
    ]);
  });
  test("a failed wait ends the recording with exit 3 and keeps the file", async () => {
    const p = castPath(), s = writeTmp(dir, "fail.txt", "wait /never appears/ 300ms\n");
    const r = record(["--script", s, "-o", p, "--", "bash", "-c", "echo started; sleep 20"]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /fail\.txt:1: timed out after 0\.3 s waiting for \/never appears\//);
    const evs = (await events(p)).events;
    assert.match(new TextDecoder().decode(concatOutput(evs)), /started/);
    assert.equal(evs.at(-1)?.kind, "exit");
  });
  test("wait: Python's prompt with its trailing space; the second wait needs the new prompt; as labels", {
    skip: !which("python3") && "no python3",
  }, async () => {
    const p = castPath();
    const s = writeTmp(
      dir,
      "py.txt",
      'wait />>> $/ 10s as idle\nsend "import time; time.sleep(0.5); 6*7\\r"\nwait />>> $/ 10s as done\nsend "exit()\\r"\nwait-exit\n',
    );
    const r = record(["--script", s, "-o", p, "--", "python3", "-q"], { env: { PYTHONSTARTUP: "" } });
    assert.equal(r.code, 0, r.stderr);
    const evs = (await events(p)).events;
    const answer = evs.findIndex((e) => e.kind === "output" && new TextDecoder().decode(e.bytes).includes("42"));
    const done = evs.findIndex((e) => e.kind === "marker" && e.label === "truth:done");
    assert.ok(answer > 0, "the answer was printed");
    assert.ok(done > answer, "the second wait matched the old prompt (label before the answer)");
    assert.equal(evs.filter((e) => e.kind === "marker" && e.label === "truth:idle").length, 1);
  });
  test("a wait that times out prints the screen's last rows under the one-line error", () => {
    const s = writeTmp(dir, "shown.txt", "wait /never/ 300ms\n");
    const r = record([
      "--script",
      s,
      "-o",
      castPath(),
      "--",
      "bash",
      "-c",
      "printf 'menu\\n\\033]0;x\\007Choose> '; sleep 20",
    ]);
    assert.equal(r.code, 3);
    const lines = r.stderr.trimEnd().split("\n");
    assert.match(lines[0], /shown\.txt:1: timed out after 0\.3 s waiting for \/never\/ in text that appeared/);
    assert.deepEqual(lines.slice(1), ["pstlab: the screen's last rows:", "  | menu", "  | Choose>"]);
  });
  test("a script with a syntax error is refused before anything runs (file:line, exit 2)", () => {
    const s = writeTmp(dir, "bad.txt", "sleep 1s\nfrobnicate now\n");
    const r = record(["--script", s, "-o", castPath(), "--", "true"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.txt:2: unknown command "frobnicate"/);
  });
  test("a blocked label the script answers and never ends is named before the recording starts", () => {
    const prog = ["--", "sh", "-c", "printf 'Proceed? '; read a; echo ok"];
    const open = writeTmp(dir, "open.txt", 'wait /Proceed/ as blocked:permission\nsend "y\\r"\nwait-exit\n');
    const r = record(["--script", open, "-o", castPath(), ...prog]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /warning: .*open\.txt:1: truth:blocked:permission is the script's last truth label and is answered after it/,
    );
    const closed = writeTmp(
      dir,
      "closed.txt",
      'wait /Proceed/ as blocked:permission\nsend "y\\r"\nlabel truth:working\nwait-exit\n',
    );
    const c = record(["--script", closed, "-o", castPath(), ...prog]);
    assert.equal(c.code, 0, c.stderr);
    assert.doesNotMatch(c.stderr, /last truth label/);
  });
  test("a wait sees the output of a program that prints and exits at once", () => {
    const s = writeTmp(dir, "quick.txt", "wait /x/ 2s\n");
    for (let i = 0; i < 3; i++) {
      const r = record(["--script", s, "-o", castPath(), "--", "sh", "-c", "echo x"]);
      assert.equal(r.code, 0, r.stderr);
    }
    const never = writeTmp(dir, "never.txt", "wait /never/ 2s\n");
    const n = record(["--script", never, "-o", castPath(), "--", "sh", "-c", "echo x"]);
    assert.equal(n.code, 3);
    assert.match(n.stderr, /never\.txt:1: the program exited before \/never\//);
  });
  test("a script's misspelt truth label is refused at its line", () => {
    const s = writeTmp(dir, "typo.txt", "sleep 10ms\nlabel truth:nope\n");
    const r = record(["--script", s, "-o", castPath(), "--", "true"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /typo\.txt:2: "truth:nope" is not a truth label/);
  });
  test("a script's resize past what a reader takes is refused at its line", () => {
    for (const size of ["5000x5000", "2001x10", "10x2001", "1x1"]) {
      const s = writeTmp(dir, "big.txt", `sleep 10ms\nresize ${size}\n`);
      const r = record(["--script", s, "-o", castPath(), "--", "true"]);
      assert.equal(r.code, 2, size);
      assert.match(r.stderr, /big\.txt:2: resize needs COLSxROWS, each 2–2000/, size);
    }
  });
  test("truth labels from any process through $PSTLAB_LABELS", async () => {
    const p = castPath();
    record([
      "-o",
      p,
      "--",
      "sh",
      "-c",
      'echo truth:working > "$PSTLAB_LABELS"; echo busy; sleep 0.1; echo truth:blocked:question > "$PSTLAB_LABELS"; echo "Name?"; sleep 0.1',
    ]);
    const evs = (await events(p)).events;
    const marks = evs.filter((e) => e.kind === "marker") as { t: number; label: string }[];
    assert.deepEqual(marks.map((m) => m.label), ["truth:working", "truth:blocked:question"]);
    // The label was written before the prompt: it is recorded before it.
    const name = evs.findIndex((e) => e.kind === "output" && new TextDecoder().decode(e.bytes).includes("Name?"));
    assert.ok(evs.indexOf(marks[1] as unknown as Event) < name);
  });
  test("piped stdin is forwarded; --capture-input records it", async () => {
    const p = castPath();
    const r = record(["--capture-input", "-o", p, "--", "sh", "-c", "read a; echo got=$a"], { input: "hello\n" });
    assert.equal(r.code, 0, r.stderr);
    const evs = (await events(p)).events;
    assert.match(new TextDecoder().decode(concatOutput(evs)), /got=hello/);
    assert.ok(evs.some((e) => e.kind === "input"));
    const q = castPath();
    record(["-o", q, "--", "sh", "-c", "read a; echo got=$a"], { input: "hi\n" });
    assert.ok(!(await events(q)).events.some((e) => e.kind === "input"));
  });
  // The end of piped stdin must end a line-editing program as script(1)'s ^D does: python3
  // and bc take the terminal (readline, raw mode) after the queued ^D, which then no longer
  // reads as end of file; they hung until --timeout (exit 124).
  for (
    const [name, argv, input] of [
      ["python3", ["python3", "-q"], "print(6*7)\n"],
      ["bc", ["bc", "-q"], "6*7\n"],
      ["bc started late", ["bash", "-c", "sleep 1; exec bc -q"], "6*7\n"],
    ] as [string, string[], string][]
  ) {
    test(`piped stdin's end reaches ${name}: it exits by itself`, {
      skip: !which(argv[0] === "bash" ? "bc" : argv[0]) && `no ${argv[0] === "bash" ? "bc" : argv[0]}`,
    }, async () => {
      const p = castPath();
      const r = record(["--timeout", "30", "-o", p, "--", ...argv], { input, env: { PYTHONSTARTUP: "" } });
      assert.equal(r.code, 0, `exit ${r.code} (124: the end of stdin never reached it): ${r.stderr}`);
      const evs = (await events(p)).events;
      assert.match(new TextDecoder().decode(concatOutput(evs)), /\b42\b/);
      const last = evs.at(-1);
      assert.ok(last?.kind === "exit" && last.status === 0, JSON.stringify(last));
    });
  }
  test("refuses to overwrite; --append continues a v3 file; command not found is a clear error", async () => {
    const p = castPath();
    record(["-o", p, "--", "echo", "one"]);
    const again = record(["-o", p, "--", "echo", "two"]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /file exists/);
    assert.equal(record(["--append", "--size", "80x24", "-o", p, "--", "echo", "two"]).code, 0);
    const evs = (await events(p)).events;
    assert.match(new TextDecoder().decode(concatOutput(evs)), /one[\s\S]*two/);
    assert.ok(evs.some((e) => e.kind === "resize" && e.cols === 80));
    const missing = castPath();
    const nf = record(["-o", missing, "--", "/no/such/program"]);
    assert.equal(nf.code, 2);
    assert.match(nf.stderr, /command not found: \/no\/such\/program/);
    assert.equal(fs.existsSync(missing), false);
  });
});

describe("durability", () => {
  test("a recorder killed with SIGKILL leaves a file that reads back up to its last line", async () => {
    const p = castPath();
    const loop = "i=0; while true; do i=$((i+1)); echo line $i; sleep 0.02; done";
    const child = spawnCli(["record", "-q", "-o", p, "--", "sh", "-c", loop]);
    // Killed once ten lines are in the file, however fast the machine runs today.
    const deadline = Date.now() + 30000;
    while (!(fs.existsSync(p) && /line 10\b/.test(fs.readFileSync(p, "utf8"))) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGKILL");
    await new Promise((r) => child.on("exit", r));
    const { events: evs } = await events(p);
    const text = new TextDecoder().decode(concatOutput(evs));
    assert.ok((text.match(/line \d+/g) ?? []).length >= 10, text.slice(0, 200));
    assert.notEqual(evs.at(-1)?.kind, "exit");
    spawnSync("pkill", ["-f", "while true; do i=\\$\\(\\(i\\+1\\)\\)"]); // the orphaned child
    // The killed recorder's label FIFO folder (named by its pid) is left for the next
    // recorder to sweep; this test run leaves none behind.
    for (const n of fs.readdirSync(os.tmpdir())) {
      if (n.startsWith(`pstlab-labels-${child.pid}-`)) fs.rmSync(path.join(os.tmpdir(), n), { recursive: true });
    }
  });
});

describe("interactive, under tmux", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("raw input forwarded, size followed, Ctrl-C reaches the child, terminal restored", async () => {
    const sock = path.join(dir, "tmux.sock");
    const p = path.join(dir, "interactive.cast");
    const [cmd, ...pre] = runtimeArgv();
    const { tm, pane, wait, type } = tmuxSession(sock, "t");
    const shell = `${
      [cmd, ...pre, MAIN].map((s) => `'${s}'`).join(" ")
    } record -o '${p}' -- bash --norc --noprofile -i; stty -a > '${p}.stty'; echo RECORDER-DONE; sleep 30`;
    assert.equal(tm("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", shell).status, 0);
    try {
      assert.ok(await wait(() => /recording to/.test(pane())), pane());
      await new Promise((r) => setTimeout(r, 500));
      type("echo cols=$(tput cols) rows=$(tput lines)");
      assert.ok(await wait(() => /cols=100 rows=30/.test(pane())), pane());
      tm("resize-window", "-t", "t", "-x", "90", "-y", "25");
      await new Promise((r) => setTimeout(r, 500));
      type("echo now=$(tput cols)x$(tput lines)");
      assert.ok(await wait(() => /now=90x25/.test(pane())), pane());
      type("sleep 30");
      await new Promise((r) => setTimeout(r, 300));
      tm("send-keys", "-t", "t", "C-c");
      type("echo interrupted-ok");
      assert.ok(await wait(() => /^interrupted-ok$/m.test(pane())), pane());
      type("exit 6");
      assert.ok(await wait(() => /RECORDER-DONE/.test(pane())), pane());
    } finally {
      tm("kill-server");
    }
    const { events: evs } = await events(p);
    assert.ok(evs.some((e) => e.kind === "resize" && e.cols === 90 && e.rows === 25));
    assert.deepEqual(evs.at(-1)?.kind === "exit" && (evs.at(-1) as { status: number }).status, 6);
    // The outer terminal is back in cooked mode with echo.
    const stty = fs.readFileSync(`${p}.stty`, "utf8");
    assert.match(stty, /(^|\s)icanon(\s|$)/);
    assert.match(stty, /(^|\s)echo(\s|$)/);
  });
});

describe("interactive, recorder signalled", { skip: !which("tmux") && "tmux is not installed" }, () => {
  test("SIGTERM to the recorder ends the child, keeps the file and restores the terminal", async () => {
    const sock = path.join(dir, "tmux2.sock");
    const p = path.join(dir, "signalled.cast");
    const [cmd, ...pre] = runtimeArgv();
    const { tm, pane, wait, type } = tmuxSession(sock, "s");
    const shell = `${
      [cmd, ...pre, MAIN].map((s) => `'${s}'`).join(" ")
    } record -o '${p}' -- bash --norc --noprofile -i; stty -a > '${p}.stty'; echo RECORDER-DONE; sleep 30`;
    tm("new-session", "-d", "-s", "s", "-x", "100", "-y", "30", shell);
    try {
      assert.ok(await wait(() => /recording to/.test(pane())), pane());
      type("echo alive");
      assert.ok(await wait(() => /^alive$/m.test(pane())), pane());
      assert.equal(spawnSync("pkill", ["-TERM", "-f", `record -o ${p}`]).status, 0, "pkill found no recorder");
      assert.ok(await wait(() => /RECORDER-DONE/.test(pane())), pane());
    } finally {
      tm("kill-server");
    }
    const { events: evs } = await events(p);
    assert.match(new TextDecoder().decode(concatOutput(evs)), /alive/);
    assert.equal(evs.at(-1)?.kind, "exit");
    const stty = fs.readFileSync(`${p}.stty`, "utf8");
    assert.match(stty, /(^|\s)icanon(\s|$)/);
    assert.match(stty, /(^|\s)echo(\s|$)/);
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
