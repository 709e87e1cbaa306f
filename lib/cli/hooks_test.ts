// Hooks as a recorded source, end to end on real ptys: `record --hooks` records each
// `pstlab hook` (and a plain echo into $PSTLAB_HOOKS) in order, at its moment between
// the outputs around it; `pstlab hook` without a session is one line and exit 2;
// `pstlab hooks claude` is JSON whose commands run (and never fail the agent); the
// simulated agent's hook modes are each caught by `check`; `report` adds the hooks and
// process rows only for captures that have them.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { cli, collect, fromArray, hasProc, MAIN, ROOT, runtimeArgv, tmpDir } from "../testkit.ts";
import { runDetectors } from "../../replay/clock.ts";
import { createDetector } from "../detect/kinds.ts";
import { openRecording } from "../recording/open.ts";
import { HOOK_CODE, parseHook } from "../recording/sources.ts";
import { claudeNotification, claudeSettings, hookLine } from "./hook.ts";
import { shellQuote } from "../session/recorder.ts";

const dir = tmpDir("pstlab-hooks-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const self = [...runtimeArgv(), MAIN].map(shellQuote).join(" ");
let n = 0;

async function events(file: string) {
  const rec = await openRecording(file);
  return { header: rec.header, events: await collect(rec.events) };
}

/** Records `sh -c script` with --hooks; the script gets $P, this pstlab. */
function recordHooks(script: string) {
  const file = path.join(dir, `r${n++}.cast`);
  const r = cli(["record", "--hooks", "--headless", "-q", "-o", file, "--", "sh", "-c", script], {
    env: { P: self },
    timeout: 60000,
  });
  assert.equal(r.code, 0, r.stderr);
  return file;
}

describe("pstlab hook and record --hooks", () => {
  test("each hook is recorded in order, at its moment between the outputs around it", async () => {
    // The pty and the FIFO are two channels read at different moments: a pause between
    // an output and the next hook keeps their order a fact of the program, not a race.
    const file = recordHooks(
      `echo one; sleep 0.3; $P hook working; sleep 0.3; echo two; sleep 0.3; $P hook blocked:permission --msg 'Bash(rm -rf /)'; ` +
        `sleep 0.3; echo three; sleep 0.3; echo 'done finished' > "$PSTLAB_HOOKS"; echo 'not a hook' > "$PSTLAB_HOOKS"; ` +
        `sleep 0.3; echo four`,
    );
    const { header, events: evs } = await events(file);
    assert.deepEqual(header.provenance?.sources?.includes("hooks"), true);
    const seq = evs.flatMap((e) =>
      e.kind === "other" && e.code === HOOK_CODE
        ? [`h:${e.data}`]
        : e.kind === "output"
        ? new TextDecoder().decode(e.bytes).split(/\r?\n/).filter(Boolean).map((l) => `o:${l}`)
        : []
    );
    assert.deepEqual(seq, [
      "o:one",
      "h:working",
      "o:two",
      "h:blocked:permission Bash(rm -rf /)",
      "o:three",
      "h:done finished",
      "h:not a hook",
      "o:four",
    ]);
    const times = evs.map((e) => e.t);
    assert.deepEqual(times, [...times].sort((a, b) => a - b), "times in order");
    // Scored: the hooks detector follows them; the malformed line is kept, judged by none.
    const { timelines } = await runDetectors(header, fromArray(evs), [createDetector("hooks")]);
    assert.deepEqual(timelines[0].points.map((p) => p.verdict.rule), [
      null,
      "hook:working",
      "hook:blocked",
      "hook:done",
      "process-exited",
    ]);
    assert.equal(timelines[0].points[2].verdict.kind, "permission");
  });

  test("no session: one line, exit 2; a session that is gone: one line, exit 2; a bad state: one line", () => {
    const env = { PSTLAB_HOOKS: "" };
    const none = cli(["hook", "working"], { env });
    assert.equal(none.code, 2);
    assert.equal(
      none.stderr,
      "pstlab: hook: no recording session ($PSTLAB_HOOKS is unset: run under pstlab record --hooks)\n",
    );
    const gone = cli(["hook", "working"], { env: { PSTLAB_HOOKS: path.join(dir, "nothing-here") } });
    assert.equal(gone.code, 2);
    assert.equal(gone.stderr.split("\n").length, 2, gone.stderr);
    assert.match(gone.stderr, /session is gone/);
    for (const bad of ["sleeping", "idle:permission", "blocked:\x1b[31m", "working extra"]) {
      const r = cli(["hook", bad], { env: { PSTLAB_HOOKS: "/tmp/x" } });
      assert.equal(r.code, 2, bad);
      assert.equal(r.stderr.split("\n").length, 2, r.stderr);
      assert.ok(!r.stderr.includes("\x1b"), "no escape reaches the terminal");
    }
  });

  test("an unreadable Notification payload records nothing: one line on stderr, exit 0", () => {
    for (const input of ["not json", "{}", "[1]"]) {
      const r = cli(["hook", "--claude-notification"], { input, env: { PSTLAB_HOOKS: path.join(dir, "no-fifo") } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /^pstlab: hook: unreadable Notification payload .*nothing recorded\n$/);
      assert.ok(!fs.existsSync(path.join(dir, "no-fifo")));
    }
  });

  test("a payload pipe nobody closes does not hold the hook (nor the agent that ran it)", async () => {
    const [cmd, ...pre] = runtimeArgv();
    const child = spawn(cmd, [...pre, MAIN, "hook", "--claude-notification"], {
      env: { ...process.env, PSTLAB_HOOKS: path.join(dir, "no-fifo-2") },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.write("not json"); // and never closed
    const code = await new Promise<number | null>((resolve) => {
      const guard = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(null);
      }, 30000);
      child.on("exit", (c) => {
        clearTimeout(guard);
        resolve(c);
      });
    });
    child.stdin.destroy();
    assert.equal(code, 0, `the hook did not end by itself: ${stderr}`);
    assert.match(stderr, /unreadable Notification payload/);
  });

  test("a message is one line without control characters", () => {
    const line = hookLine({ state: "blocked", kind: "question", msg: "a\nb\x1b[2Jc\u009b" });
    assert.equal(line, "blocked:question a b [2Jc");
    assert.deepEqual(parseHook(line), { state: "blocked", kind: "question", msg: "a b [2Jc" });
    assert.equal(parseHook("blocked:nope"), null);
    assert.equal(parseHook("done:permission"), null);
  });
});

describe("pstlab hooks claude", () => {
  test("JSON with absolute commands ending || true; Notification mapped by its payload", async () => {
    const r = cli(["hooks", "claude"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j.hooks), ["UserPromptSubmit", "PreToolUse", "Notification", "Stop"]);
    const commands: string[] = Object.values(j.hooks as Record<string, { hooks: { command: string }[] }[]>)
      .flatMap((m) => m.flatMap((x) => x.hooks.map((h) => h.command)));
    for (const c of commands) {
      assert.match(c, /^'?\//, `absolute: ${c}`);
      assert.match(c, / \|\| true$/);
    }
    assert.equal(cli(["hooks", "codex"]).code, 2);

    // The commands run: inside a session they record, outside it they still exit 0.
    const [prompt, , notification, stop] = commands;
    const payload = JSON.stringify({
      hook_event_name: "Notification",
      message: "Claude needs your permission to use Bash",
      notification_type: "permission_prompt",
    });
    const file = recordHooks(
      `${prompt}; echo '${payload}' | ${notification}; echo 'not json' | ${notification}; ` +
        `echo '{"message":"waiting"}' | ${notification}; ${stop}`,
    );
    const hooks = (await events(file)).events.flatMap((e) =>
      e.kind === "other" && e.code === HOOK_CODE ? [e.data] : []
    );
    assert.deepEqual(hooks, [
      "working",
      "blocked:permission Claude needs your permission to use Bash",
      "idle waiting",
      "done",
    ]);
    for (const c of commands) {
      const out = spawnSync("sh", ["-c", c], { env: { ...process.env, PSTLAB_HOOKS: "" }, input: "{}" });
      assert.equal(out.status, 0, `${c} outside a session`);
    }
  });

  test("the Notification payload: notification_type first, else the message", () => {
    assert.equal(claudeNotification('{"notification_type":"idle_prompt","message":"permission"}')?.state, "idle");
    assert.equal(claudeNotification('{"message":"Claude needs your permission to use Bash"}')?.kind, "permission");
    assert.equal(claudeNotification('{"message":"waiting"}')?.state, "idle");
    for (const bad of ["not json", "", "[]", "null", '"idle"', "{}", '{"message":3}', '{"message":"x"']) {
      assert.equal(claudeNotification(bad), null, `${bad}: unreadable, no state invented`);
    }
    assert.deepEqual(Object.keys(claudeSettings("pstlab").hooks as object).length, 4);
  });
});

describe("the simulated agent's hook modes, each caught by check", () => {
  /** A short live session (demo's recorder and simulated user) with this hook mode. */
  function live(mode: string) {
    const file = path.join(dir, `sim-${mode.replace(/\W/g, "_")}.cast`);
    const r = cli(
      ["demo", "--no-report", "--record", file, "--tasks", "2", "--scale", "0.2", "--hooks", mode],
      { timeout: 120000 },
    );
    assert.equal(r.code, 0, r.stderr);
    // A generous tolerance: a hook is a process started at the event (a runtime starting
    // under a loaded test run can take most of a second); late=2s is later still.
    const c = cli(["check", file, "--format", "json", "--tolerance", "1.5"]);
    assert.ok(c.code === 0 || c.code === 1, c.stderr);
    const found = JSON.parse(c.stdout).files[0].findings.map((f: { check: string }) => f.check) as string[];
    return { file, found };
  }
  const hookChecks = (found: string[]) =>
    found.filter((c) => /^(hook|protocol-missed|hooks-silent)/.test(c) && c !== "hook-agree");

  test("correct: hooks and protocol agree on every prompt", () => {
    const { found } = live("correct");
    assert.deepEqual(hookChecks(found), []);
    assert.ok(found.includes("hook-agree"), found.join(" "));
  });
  test("late=2s: the hooks are late (or missed the prompt altogether)", () => {
    const { found } = live("late=2s");
    assert.ok(found.some((c) => c === "hook-lag" || c === "hook-missed"), found.join(" "));
  });
  test("silent: a hook failing without a word", () => {
    const { found } = live("silent");
    assert.deepEqual(hookChecks(found), ["hooks-silent"]);
  });
  test("no-notification: the hooks never say blocked", () => {
    const { found, file } = live("no-notification");
    assert.ok(found.includes("hook-missed"), found.join(" "));
    assert.ok(!found.includes("protocol-missed"));
    // report's default set has the hooks row (and the process row where /proc exists); an import has neither.
    const r = cli(["report", file, "--format", "json"]);
    const names = JSON.parse(r.stdout).detectors.map((d: { name: string }) => d.name);
    assert.ok(names.includes("hooks"), names.join(" "));
    assert.equal(names.includes("process"), hasProc);
    const bundled = cli(["report", path.join(ROOT, "fixtures/captures/fake-claude.cast"), "--format", "json"]);
    const plain = JSON.parse(bundled.stdout).detectors.map((d: { name: string }) => d.name);
    assert.ok(!plain.includes("hooks") && !plain.includes("process"), plain.join(" "));
  });
});
