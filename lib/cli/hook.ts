// `pstlab hook`: one agent hook event into the recording session (`record --hooks`
// exports the FIFO as $PSTLAB_HOOKS), and `pstlab hooks claude`: the Claude Code
// settings that call it. What a line holds is docs/fixture-format.md convention 8.

import { summaryOf } from "./commands.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { defineCommand, err, out } from "./common.ts";
import { flag, text } from "./options.ts";
import { UsageError } from "../errors.ts";
import { formatHook, type Hook, HOOK_STATES, MAX_HOOK_MSG, parseHook } from "../recording/sources.ts";
import { selfArgv } from "../runtime.ts";
import { shellQuote } from "../session/recorder.ts";
import { later, type Timer } from "../timers.ts";

/** How long a hook waits for its payload: an agent's hook must not hang on a pipe nobody closes. */
export const PAYLOAD_WAIT_MS = 5000;

/**
 * Standard input, at most `cap` bytes and for at most `ms` (a hook payload is small and
 * written at once; a writer that never closes the pipe left the hook, and the agent that
 * ran it, waiting for ever): what was read by then is the payload.
 */
async function readStdin(cap: number, ms = PAYLOAD_WAIT_MS): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let have = 0;
  const it = (process.stdin as unknown as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
  let timer: Timer | null = null;
  const expired = new Promise<"expired">((r) => (timer = later(() => r("expired"), ms)));
  try {
    while (have < cap) {
      const r = await Promise.race([it.next(), expired]);
      if (r === "expired") {
        // Bun lets the process end once stdin is destroyed (below); Deno keeps waiting on the
        // pending read whatever is done to the stream, so the process ends here, once the
        // command's code is set (main.ts sets it when the command returns).
        later(() => process.exit(), 100);
        break;
      }
      if (r.done) break;
      const b = typeof r.value === "string" ? new TextEncoder().encode(r.value) : r.value;
      parts.push(b.subarray(0, cap - have));
      have += Math.min(b.length, cap - have);
    }
  } finally {
    (timer as Timer | null)?.clear();
    (process.stdin as { destroy?: () => void }).destroy?.(); // nothing more is read: the process may end
  }
  const out = new Uint8Array(have);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The line a hook writes: one line, no control characters (they would split or forge
 * events), the message cut at MAX_HOOK_MSG characters so the line stays one atomic
 * write (under PIPE_BUF) and hooks fired at once never interleave.
 */
export function hookLine(h: Hook): string {
  const msg = h.msg === null
    ? null
    : [...h.msg.replace(/[\x00-\x1f\x7f-\x9f]+/g, " ").trim()].slice(0, MAX_HOOK_MSG).join("") || null;
  return formatHook({ ...h, msg });
}

/** Writes one line to the session's FIFO without ever blocking: no reader means no session. */
export function sendHook(fifo: string, line: string): void {
  let fd: number;
  try {
    const st = fs.statSync(fifo);
    if (!st.isFIFO()) throw new UsageError(`hook: ${fifo} ($PSTLAB_HOOKS) is not a pstlab session's FIFO`);
    fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as { code?: string }).code;
    throw new UsageError(
      code === "ENXIO" || code === "ENOENT"
        ? `hook: the recording session is gone ($PSTLAB_HOOKS=${fifo} has no reader)`
        : `hook: cannot open $PSTLAB_HOOKS (${fifo}): ${code ?? (e as Error).message}`,
    );
  }
  try {
    // One write of less than PIPE_BUF bytes is atomic: hooks fired at once never interleave.
    fs.writeSync(fd, line + "\n");
  } catch (e) {
    throw new UsageError(`hook: cannot write to $PSTLAB_HOOKS: ${(e as { code?: string }).code ?? e}`);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Claude Code's Notification payload (its hooks documentation: `notification_type`,
 * `message`) as a hook: a permission notification is blocked:permission, any other
 * (waiting for input, …) idle. Not checked against a live Claude Code build.
 * null when the payload cannot be read (not a JSON object, or one with neither field):
 * guessing "idle" would invent a state the agent never reported.
 */
export function claudeNotification(payload: string): Hook | null {
  let p: Record<string, unknown>;
  try {
    const v = JSON.parse(payload);
    if (!v || typeof v !== "object" || Array.isArray(v)) return null;
    p = v;
  } catch {
    return null;
  }
  const message = typeof p.message === "string" ? p.message.slice(0, 300) : null;
  const type = typeof p.notification_type === "string" ? p.notification_type : null;
  if (message === null && type === null) return null;
  const permission = type !== null ? type === "permission_prompt" : /\bpermission\b/i.test(message ?? "");
  return permission
    ? { state: "blocked", kind: "permission", msg: message }
    : { state: "idle", kind: null, msg: message };
}

export const spec = {
  name: "hook",
  summary: summaryOf("hook"),
  synopsis: "STATE[:KIND]",
  args: [["STATE[:KIND]", `${HOOK_STATES.join(", ")}; blocked:permission, blocked:question, blocked:auth`]],
  options: {
    msg: text("TEXT", "a message to record with it (one line)"),
    "claude-notification": flag(
      "read Claude Code's Notification payload on stdin: permission → blocked:permission, else idle;\nan unreadable payload records nothing (one line on stderr, exit 0)",
    ),
  },
  positionals: { min: 0, max: 1 },
  notes: [
    "Writes one line to the FIFO named by $PSTLAB_HOOKS, which `pstlab record --hooks`",
    "exports; the recorder stores it as a hook event with its time. Without a session it",
    "exits 2 with one line (a hook command should end in `|| true`). Plain",
    '`echo "blocked:permission Allow Bash?" > "$PSTLAB_HOOKS"` does the same.',
  ],
  examples: [
    "pstlab hook working",
    'pstlab hook blocked:permission --msg "Bash(npm test)"',
    "pstlab record --hooks -o s.cast -- my-agent",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const [said] = p.positionals;
  let h: Hook | null;
  if (v["claude-notification"]) {
    if (said !== undefined) throw new UsageError("hook: --claude-notification takes no STATE (the payload decides)");
    // A person trying it at a terminal has no payload to give: not a read that waits forever.
    const tty = !!(process.stdin as { isTTY?: boolean }).isTTY;
    h = claudeNotification(tty ? "" : new TextDecoder().decode(await readStdin(1 << 20)));
    if (!h) {
      // Nothing is recorded (no state is invented) and the agent is not disturbed: exit 0.
      err(
        "pstlab: hook: unreadable Notification payload on stdin (want a JSON object with message or notification_type): nothing recorded\n",
      );
      return 0;
    }
  } else {
    if (said === undefined) throw new UsageError("hook: give STATE[:KIND], e.g. pstlab hook working");
    h = parseHook(said.includes(" ") ? "" : said);
    if (!h) {
      throw new UsageError(
        `hook: ${JSON.stringify(said)} is not STATE[:KIND] (${
          HOOK_STATES.join(", ")
        }; blocked:permission|question|auth)`,
      );
    }
    if (v.msg !== undefined) h = { ...h, msg: v.msg };
  }
  const fifo = process.env.PSTLAB_HOOKS;
  if (!fifo) {
    throw new UsageError("hook: no recording session ($PSTLAB_HOOKS is unset: run under pstlab record --hooks)");
  }
  sendHook(fifo, hookLine(h));
  return 0;
});

/** This pstlab as a command line a hook can run from anywhere: absolute paths, shell-quoted. */
export function selfCommand(): string {
  return selfArgv().map((a, i) => shellQuote(i === 0 || a.endsWith(".ts") ? path.resolve(a) : a)).join(" ");
}

/** Claude Code `--settings` JSON mapping its hooks as the osFoundry write-up does. */
export function claudeSettings(self = selfCommand()): Record<string, unknown> {
  const run = (args: string) => ({ type: "command", command: `${self} hook ${args} || true` });
  return {
    hooks: {
      UserPromptSubmit: [{ hooks: [run("working")] }],
      PreToolUse: [{ matcher: "*", hooks: [run("working")] }],
      Notification: [{ hooks: [run("--claude-notification")] }],
      Stop: [{ hooks: [run("done")] }],
    },
  };
}

export const hooksSpec = {
  name: "hooks",
  summary: summaryOf("hooks"),
  synopsis: "AGENT",
  args: [["AGENT", "claude"]],
  options: {},
  positionals: { min: 1, max: 1 },
  notes: [
    "claude: UserPromptSubmit and PreToolUse → working; Notification → blocked:permission",
    "for a permission notification, else idle; Stop → done. Each command calls this pstlab",
    "by its absolute path and ends in `|| true`, so a failing hook never disturbs the agent.",
    "The Notification mapping follows Claude Code's documented payload; it was not checked",
    "against a live Claude Code build.",
  ],
  examples: ['pstlab record --hooks -o s.cast -- claude --settings "$(pstlab hooks claude)"'],
};

export const hooksCommand = defineCommand(hooksSpec, (p) => {
  const [agent] = p.positionals;
  if (agent !== "claude") throw new UsageError(`hooks: unknown agent ${JSON.stringify(agent)} (known: claude)`);
  out(JSON.stringify(claudeSettings(), null, 2) + "\n");
  return 0;
});
