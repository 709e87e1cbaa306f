// A simulated coding agent for demos, tests and the bundled capture — the osFoundry
// write-up's fake agent (detection.md §2), rebuilt:
//  - a spinner redrawn with \r at 10 Hz, ~60 bytes a frame, containing "esc to interrupt";
//  - tool calls that print nothing while they run (0.5–6 s);
//  - permission prompts in Claude Code's wording, the question placed word by word with
//    CSI n G as in the real captures, erased Ink-style (cursor up + CSI J) once answered;
//  - an idle prompt box with "? for shortcuts" after every turn, sometimes after a reply
//    ending "Would you like me to add a regression test?";
//  - blocked and idle both wait in a read on the tty;
//  - OSC 7501 reports like Claude Code 2.1.295+: only after the terminal answered the
//    query (query + DA1, spec §5.2), root record plus a child record per tool call;
//  - the true state written to $PSTLAB_LABELS before the screen shows it.
// `scale` multiplies every duration (0.25 = four times faster).

import * as fs from "node:fs";
import { between, pick, rng } from "./rng.ts";
import { encodeBase64 } from "../osc7501/base64.ts";

export interface AgentOptions {
  seed: number;
  tasks: number;
  scale: number;
  /** Prompts per task (probability of a permission prompt in a task). */
  promptRate: number;
  /** Emit OSC 7501 even without a positive query reply. */
  alwaysReport: boolean;
}

const te = new TextEncoder();
const VERBS = ["Reticulating", "Pondering", "Brewing", "Spelunking", "Percolating", "Noodling", "Synthesizing", "Marinating", "Conjuring", "Clauding"];
const FRAMES = ["·", "✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳", "✢"];
const TITLE_FRAMES = ["◐", "◓", "◑", "◒"];
const TOOLS = [["Read", "src/parser.ts"], ["Bash", "npm test"], ["Edit", "src/store.ts"], ["Grep", "\"attention\" lib/"], ["Bash", "git diff --stat"], ["Write", "test/store_test.ts"]];
const REPLIES = [
  "Updated the parser so split reads are reassembled before validation.",
  "The store now evicts the least recently updated record at the cap.",
  "Fixed the off-by-one in the sequence limit (BEL terminators count one byte).",
  "Added table-driven tests for every limit, at the limit and one past it.",
  "Renamed the helper and updated its three call sites.",
];
export const TASKS = [
  "fix the failing parser test", "add a test for the LRU cap", "explain the attention ranking", "make the scanner split-safe",
  "update the README quick start", "refactor the store API", "check the base64 padding rules", "speed up the tail buffer",
];

const sleep = (s: number) => new Promise((r) => setTimeout(r, Math.max(0, s * 1000)));

/** Runs the agent on this process's stdin/stdout; leaves stdin as it found it, so the process can exit by itself. */
export async function runAgent(o: AgentOptions): Promise<number> {
  const stdin = process.stdin as unknown as NodeJS.ReadStream & { setRawMode?: (b: boolean) => void };
  try {
    return await agent(o, stdin);
  } finally {
    stdin.removeAllListeners("data");
    stdin.pause();
    if (stdin.isTTY) stdin.setRawMode?.(false);
  }
}

async function agent(o: AgentOptions, stdin: NodeJS.ReadStream & { setRawMode?: (b: boolean) => void }): Promise<number> {
  const r = rng(o.seed);
  const cols = Math.min((process.stdout as { columns?: number }).columns || 120, 200);
  const out = (s: string) => fs.writeSync(1, te.encode(s));
  const labelsPath = process.env.PSTLAB_LABELS;
  const label = (l: string) => {
    if (labelsPath) fs.appendFileSync(labelsPath, l + "\n");
  };
  if (stdin.isTTY) stdin.setRawMode?.(true);
  const queue: string[] = [];
  let waiter: (() => void) | null = null;
  stdin.on("data", (d: Uint8Array | string) => {
    queue.push(typeof d === "string" ? d : new TextDecoder().decode(d));
    waiter?.();
  });
  const nextInput = async (): Promise<string> => {
    while (queue.length === 0) await new Promise<void>((res) => (waiter = res));
    waiter = null;
    return queue.shift()!;
  };

  // Feature detection, as Claude Code does: the query, then DA1; a 7501 reply first = supported.
  out("\x1b]7501;?\x1b\\\x1b[c");
  let reply = "";
  const deadline = Date.now() + 1000;
  while (!/\x1b\[\?[0-9;]*c/.test(reply) && Date.now() < deadline) {
    const got = await Promise.race([nextInput(), sleep(0.05).then(() => "")]);
    reply += got;
  }
  const supported = o.alwaysReport || /\x1b\]7501;\?/.test(reply.split(/\x1b\[\?[0-9;]*c/)[0] ?? "");
  const report = (body: string) => {
    if (supported) out(`\x1b]7501;${body}\x1b\\`);
  };
  const b64 = (s: string) => encodeBase64(te.encode(s));
  const title = (t: string) => out(`\x1b]0;${t}\x07`);

  const rule = "─".repeat(cols);
  const drawn = { lines: 0 };
  // The bottom region is redrawn Ink-style: up to its first row, erase below, redraw.
  const erase = () => {
    if (drawn.lines > 0) out(`\r${drawn.lines > 1 ? `\x1b[${drawn.lines - 1}A` : ""}\x1b[J`);
    drawn.lines = 0;
  };
  const region = (lines: string[]) => {
    erase();
    out(lines.map((l) => `\x1b[2K${l}`).join("\r\n"));
    drawn.lines = lines.length;
  };
  const transcript = (lines: string[]) => {
    const keep = drawn.lines;
    erase();
    out(lines.map((l) => l + "\r\n").join(""));
    void keep;
  };
  const idleBox = (text = "") => [rule, `\x1b[38;5;246m❯\x1b[0m ${text}`, rule, "  \x1b[2m? for shortcuts\x1b[0m"];
  const spinnerLine = (frame: number, verb: string, started: number) =>
    `\x1b[38;5;174m${FRAMES[frame % FRAMES.length]}\x1b[0m ${verb}… (${Math.floor((performance.now() - started) / 1000)}s · ↑ ${(frame * 37 % 900 + 100)} tokens · esc to interrupt)`;
  const workBox = (frame: number, verb: string, started: number) => [spinnerLine(frame, verb, started), rule, "\x1b[38;5;246m❯\x1b[0m ", rule, "  \x1b[2m⏵⏵ accept edits on (shift+tab to cycle)\x1b[0m"];

  let frame = 0;
  /** The spinner for `secs`, redrawn with \r on its own line (5 lines above the box bottom). */
  const spin = async (secs: number, verb: string, started: number) => {
    region(workBox(frame, verb, started));
    const end = performance.now() + secs * o.scale * 1000;
    while (performance.now() < end) {
      await sleep(0.1);
      frame++;
      // Up to the spinner line, redraw it, back down: ~60 visible bytes a frame.
      out(`\x1b[4A\r\x1b[2K${spinnerLine(frame, verb, started)}\x1b[4B\r`);
      if (frame % 5 === 0) title(`${TITLE_FRAMES[(frame / 5) % 4]} Claude Code`);
    }
  };

  out("\x1b[2J\x1b[H");
  transcript(["\x1b[38;5;174m✻\x1b[0m Welcome to \x1b[1mClaude Code\x1b[0m (simulated by pstlab)", "", `  /help for help · cwd: /work/demo${supported ? " · OSC 7501 on" : ""}`, ""]);
  label("truth:idle");
  report("state=idle:app=claude-code");
  title("✳ Claude Code");
  region(idleBox());

  for (let task = 1; ; task++) {
    // Idle: wait in a read for the next task (typed char by char) or /exit.
    let text = "";
    while (true) {
      const k = await nextInput();
      if (k === "\x03") return 130;
      if (k === "\r" || k === "\n") break;
      text += k === "\x7f" ? "" : k;
      if (k === "\x7f") text = text.slice(0, -1);
      region(idleBox(text));
    }
    if (text.trim() === "/exit" || task > o.tasks) {
      label("truth:idle");
      transcript([`\x1b[2m> ${text}\x1b[0m`, "Bye!"]);
      report("state=idle:app=claude-code");
      out("\x1b]0;\x07");
      return 0;
    }
    const started = performance.now();
    label("truth:working");
    report(`state=working:app=claude-code:msg=${b64(text)}`);
    transcript([`\x1b[2m> ${text}\x1b[0m`, ""]);
    const verb = pick(r, VERBS);
    await spin(between(r, 1, 3), verb, started);
    const steps = 1 + Math.floor(r() * 2);
    const promptAt = r() < o.promptRate ? Math.floor(r() * steps) : -1;
    for (let s = 0; s < steps; s++) {
      const [tool, arg] = pick(r, TOOLS);
      const id = `task_${task}.${String.fromCharCode(97 + s)}`;
      if (s === promptAt) {
        // Permission prompt: the truth first, then the report, then the dialog.
        label("truth:blocked:permission");
        report(`state=blocked:kind=permission:app=claude-code:msg=${b64(`${tool}(${arg})`)}`);
        title("✳ Claude Code");
        const q = ["Do", "you", "want", "to", "proceed?"];
        let col = 2, words = "";
        for (const w of q) {
          words += `\x1b[${col}G${w}`;
          col += w.length + 1;
        }
        region([
          ` \x1b[1m${tool} command\x1b[0m`, "", `   ${arg}`, `   \x1b[2mRun ${arg} for this task\x1b[0m`, "",
          words,
          ` \x1b[38;2;177;185;249m❯\x1b[0m 1. Yes`,
          `   2. Yes, and don't ask again for ${tool} commands in this project`,
          "   3. No, and tell Claude what to do differently (esc)",
          "",
          "\x1b[2G\x1b[2mEsc\x1b[6Gto\x1b[9Gcancel\x1b[16G·\x1b[18GTab\x1b[22Gto\x1b[25Gamend\x1b[0m",
          "  \x1b[2mesc to interrupt\x1b[0m",
        ]);
        const k = await nextInput();
        if (k === "\x03") return 130;
        erase();
        label("truth:working");
        report(`state=working:app=claude-code:msg=${b64(text)}`);
        transcript([`\x1b[38;5;114m⏺\x1b[0m ${tool}(${arg})`, `  ⎿  ${k.startsWith("3") || k === "\x1b" ? "Rejected" : "Allowed"}`]);
        await spin(between(r, 0.5, 2), verb, started);
      }
      // The tool runs silently (no output at all), then its line appears.
      report(`state=working:id=${id}:app=claude-code:title=${b64(tool)}`);
      await sleep(between(r, 0.5, 6) * o.scale);
      report(`state=clear:id=${id}`);
      transcript([`\x1b[38;5;114m⏺\x1b[0m ${tool}(${arg})`, `  ⎿  ${1 + Math.floor(r() * 40)} lines`]);
      await spin(between(r, 0.5, 2.5), verb, started);
    }
    // The reply, then idle.
    const lines = [`\x1b[38;5;114m⏺\x1b[0m ${pick(r, REPLIES)}`];
    if (r() < 0.3) lines.push("", "  Would you like me to add a regression test?");
    lines.push("", `\x1b[2m✻ Worked for ${Math.round((performance.now() - started) / 1000)}s\x1b[0m`, "");
    label("truth:idle");
    report("state=idle:app=claude-code");
    title("✳ Claude Code");
    transcript(lines);
    region(idleBox());
  }
}
