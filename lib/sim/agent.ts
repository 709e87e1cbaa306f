// A simulated coding agent for demos, tests and the bundled capture — the osFoundry
// write-up's fake agent (docs/detection.md §6.3), rebuilt:
//  - a spinner redrawn with \r at 10 Hz, ~60 bytes a frame, containing "esc to interrupt";
//  - tool calls that print nothing while they run (0.5–6 s);
//  - permission prompts in Claude Code's wording, the question placed word by word with
//    CSI n G as in the real captures, erased Ink-style (cursor up + CSI J) once answered;
//  - an idle prompt box with "? for shortcuts" after every turn, sometimes after a reply
//    ending "Would you like me to add a regression test?";
//  - blocked and idle both wait in a read on the tty;
//  - OSC 7501 reports like Claude Code 2.1.295+: only after the terminal answered the
//    query (query + DA1, docs/osc7501.md §5.2), root record plus a child record per tool call;
//  - the true state written to $PSTLAB_LABELS before the screen shows it.
// `scale` multiplies every duration (0.25 = four times faster).

import * as fs from "node:fs";
import { spawn } from "node:child_process";
import { raw } from "../stdio.ts";
import { between, pick, rng } from "./rng.ts";
import { encodeBase64 } from "../osc7501/base64.ts";
import { parseQueryReplyBody } from "../osc7501/parse.ts";
import type { HookMode, ProtocolMode } from "./modes.ts";
import { later, sleep as sleepMs } from "../timers.ts";

export interface AgentOptions {
  seed: number;
  tasks: number;
  scale: number;
  /** Prompts per task (probability of a permission prompt in a task). */
  promptRate: number;
  /** Emit OSC 7501 even without a positive query reply. */
  alwaysReport: boolean;
  /** How the agent reports (a correct emitter, or one of the regressions `check` must catch). */
  protocol?: ProtocolMode;
  /** Call `pstlab hook` (by `hookArgv`) as Claude Code's hooks would; absent: no hooks. */
  hooks?: HookMode;
  /** The pstlab that `hook` runs with (this one, started the same way). */
  hookArgv?: string[];
}

const te = new TextEncoder();

/** Whether the terminal's replies before DA1 hold a 7501 query reply (`?` or `?:pairs…`, D15 of docs/osc7501.md). */
function answered(replies: string): boolean {
  for (const m of replies.matchAll(/\x1b\]7501;([^\x07\x1b]*)(?:\x07|\x1b\\)/g)) {
    if (parseQueryReplyBody(te.encode(m[1])) !== null) return true;
  }
  return false;
}

const VERBS = [
  "Reticulating",
  "Pondering",
  "Brewing",
  "Spelunking",
  "Percolating",
  "Noodling",
  "Synthesizing",
  "Marinating",
  "Conjuring",
  "Clauding",
];
const FRAMES = ["·", "✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳", "✢"];
const TITLE_FRAMES = ["◐", "◓", "◑", "◒"];
const TOOLS = [
  ["Read", "src/parser.ts"],
  ["Bash", "npm test"],
  ["Edit", "src/store.ts"],
  ["Grep", '"attention" lib/'],
  ["Bash", "git diff --stat"],
  ["Write", "test/store_test.ts"],
];
const REPLIES = [
  "Updated the parser so split reads are reassembled before validation.",
  "The store now evicts the least recently updated record at the cap.",
  "Fixed the off-by-one in the sequence limit (BEL terminators count one byte).",
  "Added table-driven tests for every limit, at the limit and one past it.",
  "Renamed the helper and updated its three call sites.",
];
export const TASKS = [
  "fix the failing parser test",
  "add a test for the LRU cap",
  "explain the attention ranking",
  "make the scanner split-safe",
  "update the README quick start",
  "refactor the store API",
  "check the base64 padding rules",
  "speed up the tail buffer",
];

const sleep = (s: number) => sleepMs(s * 1000);

type Stdin = NodeJS.ReadStream & { setRawMode?: (b: boolean) => void };

/** Runs the agent on this process's stdin/stdout; leaves stdin as it found it, so the process can exit by itself. */
export async function runAgent(o: AgentOptions): Promise<number> {
  const stdin = process.stdin as unknown as Stdin;
  try {
    const tty = new Tty(stdin);
    try {
      return await new Agent(o, tty).run();
    } catch (e) {
      if (!(e instanceof EndOfInput)) throw e;
      tty.label("truth:idle");
      return 0;
    }
  } finally {
    stdin.removeAllListeners("data");
    stdin.pause();
    if (stdin.isTTY) stdin.setRawMode?.(false);
  }
}

/** A read after the end of the input. */
class EndOfInput extends Error {}

/** The agent's terminal: output, reads queued as they arrive, truth labels. */
class Tty {
  private readonly queue: string[] = [];
  private waiter: (() => void) | null = null;
  private readonly labelsPath = process.env.PSTLAB_LABELS;

  constructor(stdin: Stdin) {
    if (stdin.isTTY) stdin.setRawMode?.(true);
    stdin.on("data", (d: Uint8Array | string) => {
      this.queue.push(typeof d === "string" ? d : new TextDecoder().decode(d));
      this.waiter?.();
    });
    // The end of the input (the terminal closed, `</dev/null`): reads fail from then on and
    // the agent exits, as a real one does, instead of waiting for keys that never come.
    const end = () => {
      this.ended = true;
      this.waiter?.();
    };
    stdin.on("end", end);
    stdin.on("close", end);
  }

  private ended = false;

  atEnd(): boolean {
    return this.ended && this.queue.length === 0;
  }

  out(s: string): void {
    raw("sim agent", s);
  }

  /** The true state, to $PSTLAB_LABELS when recorded by pstlab (before the screen shows it). */
  label(l: string): void {
    if (this.labelsPath) fs.appendFileSync(this.labelsPath, l + "\n");
  }

  /** Gives back what a read held past the end of a line. */
  unread(rest: string): void {
    this.queue.unshift(rest);
  }

  /** The next read from the terminal (one or more keys). */
  async read(): Promise<string> {
    while (this.queue.length === 0) {
      if (this.ended) throw new EndOfInput();
      await new Promise<void>((res) => (this.waiter = res));
    }
    this.waiter = null;
    return this.queue.shift()!;
  }
}

/** Claude Code's screen, drawn Ink-style: a transcript above, a bottom region redrawn in place. */
class View {
  private drawn = 0;
  readonly rule: string;

  constructor(private readonly tty: Tty, cols: number) {
    this.rule = "─".repeat(cols);
  }

  /** Up to the region's first row, erase below. */
  erase(): void {
    if (this.drawn > 0) this.tty.out(`\r${this.drawn > 1 ? `\x1b[${this.drawn - 1}A` : ""}\x1b[J`);
    this.drawn = 0;
  }

  region(lines: string[]): void {
    this.erase();
    this.tty.out(lines.map((l) => `\x1b[2K${l}`).join("\r\n"));
    this.drawn = lines.length;
  }

  transcript(lines: string[]): void {
    this.erase();
    this.tty.out(lines.map((l) => l + "\r\n").join(""));
  }

  idleBox(text = ""): string[] {
    return [this.rule, `\x1b[38;5;246m❯\x1b[0m ${text}`, this.rule, "  \x1b[2m? for shortcuts\x1b[0m"];
  }

  spinnerLine(frame: number, verb: string, started: number): string {
    return `\x1b[38;5;174m${FRAMES[frame % FRAMES.length]}\x1b[0m ${verb}… (${
      Math.floor((performance.now() - started) / 1000)
    }s · ↑ ${(frame * 37 % 900 + 100)} tokens · esc to interrupt)`;
  }

  workBox(frame: number, verb: string, started: number): string[] {
    return [
      this.spinnerLine(frame, verb, started),
      this.rule,
      "\x1b[38;5;246m❯\x1b[0m ",
      this.rule,
      "  \x1b[2m⏵⏵ accept edits on (shift+tab to cycle)\x1b[0m",
    ];
  }

  /** The permission dialog; the question placed word by word with CSI n G, as in real captures. */
  permission(tool: string, arg: string): string[] {
    let col = 2, words = "";
    for (const w of ["Do", "you", "want", "to", "proceed?"]) {
      words += `\x1b[${col}G${w}`;
      col += w.length + 1;
    }
    return [
      ` \x1b[1m${tool} command\x1b[0m`,
      "",
      `   ${arg}`,
      `   \x1b[2mRun ${arg} for this task\x1b[0m`,
      "",
      words,
      ` \x1b[38;2;177;185;249m❯\x1b[0m 1. Yes`,
      `   2. Yes, and don't ask again for ${tool} commands in this project`,
      "   3. No, and tell Claude what to do differently (esc)",
      "",
      "\x1b[2G\x1b[2mEsc\x1b[6Gto\x1b[9Gcancel\x1b[16G·\x1b[18GTab\x1b[22Gto\x1b[25Gamend\x1b[0m",
      "  \x1b[2mesc to interrupt\x1b[0m",
    ];
  }
}

/** Ctrl-C from the user: the agent exits 130. */
const INTERRUPT = Symbol("interrupt");

class Agent {
  private readonly r: () => number;
  private readonly view: View;
  private supported = false;
  private frame = 0;

  constructor(private readonly o: AgentOptions, private readonly tty: Tty) {
    this.r = rng(o.seed);
    this.view = new View(tty, Math.min((process.stdout as { columns?: number }).columns || 120, 200));
  }

  private reportCount = 0;

  /** A report, as the protocol mode has it (the random draws of the scenario are untouched). */
  private report(body: string): void {
    const mode = this.o.protocol ?? { mode: "correct" };
    if (!this.supported || mode.mode === "none") return;
    if (mode.mode === "no-blocked" && body.startsWith("state=blocked")) return;
    let b = body;
    if (mode.mode === "malformed" && ++this.reportCount % 4 === 0) {
      const bad = ["msg=A", `msg=${b64("x".repeat(2100))}`, `msg=${b64("tab\there")}`][(this.reportCount / 4) % 3];
      b = `${body.replace(/:msg=[^:]*/, "")}:${bad}`;
    }
    const seq = `\x1b]7501;${b}\x1b\\`;
    if (mode.mode === "late") later(() => this.tty.out(seq), mode.delay * 1000);
    else this.tty.out(seq);
  }

  /**
   * A hook, as Claude Code runs one: a separate process (`pstlab hook STATE`) started
   * at the event and not waited for, its failure ignored (`|| true`). The write-up's
   * mapping: UserPromptSubmit and PreToolUse → working, Notification (permission) →
   * blocked:permission, Stop → done.
   */
  private hook(event: "UserPromptSubmit" | "PreToolUse" | "Notification" | "Stop", said: string, msg?: string): void {
    const mode = this.o.hooks;
    const argv = this.o.hookArgv;
    if (!mode || !argv || !process.env.PSTLAB_HOOKS) return;
    if (mode.mode === "no-notification" && event === "Notification") return;
    const env = { ...process.env };
    // silent: the hook's command fails (here: it cannot reach the session) and says nothing.
    if (mode.mode === "silent") env.PSTLAB_HOOKS = "/nonexistent/pstlab-hooks";
    const run = () => {
      const args = [...argv.slice(1), "hook", said, ...(msg ? ["--msg", msg] : [])];
      const child = spawn(argv[0], args, { stdio: "ignore", env });
      child.on("error", () => {}); // a hook that cannot start is a failed hook: never the agent's problem
      child.unref();
    };
    if (mode.mode === "late") later(run, mode.delay * 1000);
    else run();
  }

  private mode(): ProtocolMode["mode"] {
    return (this.o.protocol ?? { mode: "correct" }).mode;
  }

  private title(t: string): void {
    this.tty.out(`\x1b]0;${t}\x07`);
  }

  /** Feature detection, as Claude Code does: the query, then DA1; a 7501 reply first = supported. */
  private async detect(): Promise<void> {
    this.tty.out("\x1b]7501;?\x1b\\\x1b[c");
    let reply = "";
    const deadline = Date.now() + 1000;
    while (!/\x1b\[\?[0-9;]*c/.test(reply) && Date.now() < deadline) {
      reply += await Promise.race([this.tty.read(), sleep(0.05).then(() => "")]).catch((e) => {
        if (e instanceof EndOfInput) return ""; // no terminal to answer: not supported
        throw e;
      });
      if (this.tty.atEnd()) break;
    }
    this.supported = this.o.alwaysReport || answered(reply.split(/\x1b\[\?[0-9;]*c/)[0] ?? "");
  }

  /** The spinner for `secs`, redrawn with \r on its own line (4 lines above the box bottom). */
  private async spin(secs: number, verb: string, started: number): Promise<void> {
    this.view.region(this.view.workBox(this.frame, verb, started));
    const end = performance.now() + secs * this.o.scale * 1000;
    while (performance.now() < end) {
      await sleep(0.1);
      this.frame++;
      // Up to the spinner line, redraw it, back down: ~60 visible bytes a frame.
      this.tty.out(`\x1b[4A\r\x1b[2K${this.view.spinnerLine(this.frame, verb, started)}\x1b[4B\r`);
      if (this.frame % 5 === 0) this.title(`${TITLE_FRAMES[(this.frame / 5) % 4]} Claude Code`);
    }
  }

  private idle(): void {
    this.tty.label("truth:idle");
    this.report("state=idle:app=claude-code");
  }

  /**
   * Idle: wait in a read for the next task, typed key by key or pasted, echoed in the box.
   * Like a real line editor it submits on \r or \n wherever it falls in a read
   * (`send "fix the bug\r"` arrives as one read); what follows stays for the next read.
   */
  private async readTask(): Promise<string | typeof INTERRUPT> {
    let text = "";
    while (true) {
      const k = await this.tty.read();
      for (let i = 0; i < k.length; i++) {
        const ch = k[i];
        if (ch === "\x03") return INTERRUPT;
        if (ch === "\r" || ch === "\n") {
          if (i + 1 < k.length) this.tty.unread(k.slice(i + 1));
          return text;
        }
        text = ch === "\x7f" ? text.slice(0, -1) : text + ch;
      }
      this.view.region(this.view.idleBox(text));
    }
  }

  /** A permission prompt: the truth first, then the report, then the dialog; waits for an answer. */
  private async askPermission(
    tool: string,
    arg: string,
    text: string,
    verb: string,
    started: number,
  ): Promise<typeof INTERRUPT | null> {
    this.tty.label("truth:blocked:permission");
    const blocked = `state=blocked:kind=permission:app=claude-code:msg=${b64(`${tool}(${arg})`)}`;
    this.report(blocked);
    this.hook("Notification", "blocked:permission", `Claude needs your permission to use ${tool}`);
    this.title("✳ Claude Code");
    this.view.region(this.view.permission(tool, arg));
    if (this.mode() === "flap") {
      // A redraw that re-reports: working for a moment while the prompt stays up.
      await sleep(0.03);
      this.report(`state=working:app=claude-code:msg=${b64(text)}`);
      await sleep(0.03);
      this.report(blocked);
    }
    const k = await this.tty.read();
    if (k === "\x03") return INTERRUPT;
    this.view.erase();
    this.tty.label("truth:working");
    this.report(`state=working:app=claude-code:msg=${b64(text)}`);
    this.hook("PreToolUse", "working", tool);
    this.view.transcript([
      `\x1b[38;5;114m⏺\x1b[0m ${tool}(${arg})`,
      `  ⎿  ${k.startsWith("3") || k === "\x1b" ? "Rejected" : "Allowed"}`,
    ]);
    await this.spin(between(this.r, 0.5, 2), verb, started);
    return null;
  }

  /** One task: spinner, one or two tool calls (one may ask permission), a reply. */
  private async runTask(task: number, text: string): Promise<typeof INTERRUPT | null> {
    const r = this.r;
    const started = performance.now();
    this.tty.label("truth:working");
    this.report(`state=working:app=claude-code:msg=${b64(text)}`);
    this.hook("UserPromptSubmit", "working");
    if (this.mode() === "children") this.report(`state=working:id=task/${task}:title=${b64(text)}`);
    this.view.transcript([`\x1b[2m> ${text}\x1b[0m`, ""]);
    const verb = pick(r, VERBS);
    await this.spin(between(r, 1, 3), verb, started);
    const steps = 1 + Math.floor(r() * 2);
    const promptAt = r() < this.o.promptRate ? Math.floor(r() * steps) : -1;
    for (let s = 0; s < steps; s++) {
      const [tool, arg] = pick(r, TOOLS);
      const id = `task_${task}.${String.fromCharCode(97 + s)}`;
      if (s === promptAt && (await this.askPermission(tool, arg, text, verb, started)) === INTERRUPT) return INTERRUPT;
      // The tool runs silently (no output at all), then its line appears.
      this.report(`state=working:id=${id}:app=claude-code:title=${b64(tool)}`);
      if (s !== promptAt) this.hook("PreToolUse", "working", tool);
      await sleep(between(r, 0.5, 6) * this.o.scale);
      this.report(`state=clear:id=${id}`);
      this.view.transcript([`\x1b[38;5;114m⏺\x1b[0m ${tool}(${arg})`, `  ⎿  ${1 + Math.floor(r() * 40)} lines`]);
      await this.spin(between(r, 0.5, 2.5), verb, started);
    }
    const lines = [`\x1b[38;5;114m⏺\x1b[0m ${pick(r, REPLIES)}`];
    if (r() < 0.3) lines.push("", "  Would you like me to add a regression test?");
    lines.push("", `\x1b[2m✻ Worked for ${Math.round((performance.now() - started) / 1000)}s\x1b[0m`, "");
    if (this.mode() === "children") this.report(`state=done:id=task/${task}`);
    this.idle();
    this.hook("Stop", "done");
    this.title("✳ Claude Code");
    this.view.transcript(lines);
    this.view.region(this.view.idleBox());
    return null;
  }

  async run(): Promise<number> {
    await this.detect();
    this.tty.out("\x1b[2J\x1b[H");
    this.view.transcript([
      "\x1b[38;5;174m✻\x1b[0m Welcome to \x1b[1mClaude Code\x1b[0m (simulated by pstlab)",
      "",
      `  /help for help · cwd: /work/demo${this.supported ? " · OSC 7501 on" : ""}`,
      "",
    ]);
    this.idle();
    this.title("✳ Claude Code");
    this.view.region(this.view.idleBox());
    for (let task = 1;; task++) {
      const text = await this.readTask();
      if (text === INTERRUPT) return 130;
      if (text.trim() === "/exit" || task > this.o.tasks) {
        this.tty.label("truth:idle");
        this.view.transcript([`\x1b[2m> ${text}\x1b[0m`, "Bye!"]);
        // stale: the regression where the program exits still saying it works.
        this.report(this.mode() === "stale" ? "state=working:app=claude-code" : "state=idle:app=claude-code");
        this.tty.out("\x1b]0;\x07");
        return 0;
      }
      if ((await this.runTask(task, text)) === INTERRUPT) return 130;
    }
  }
}

const b64 = (s: string) => encodeBase64(te.encode(s));
