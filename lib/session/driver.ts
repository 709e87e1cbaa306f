import { parseDuration } from "../units.ts";
import { FixtureError } from "../errors.ts";
import { LABEL_KEYS } from "./label_keys.ts";
// A scripted driver for headless recordings in CI (after VHS's tapes and expect):
//
//   wait /Do you want to proceed/ 30s   # a JS regex on the emulated screen; default timeout 10 s
//   wait-quiet 500ms [timeout]          # no output for that long
//   wait-exit [timeout]                 # the program ended
//   sleep 2s
//   send "yes\r"                        # JSON-style string; \e and \xHH also work
//   key ctrl-c | enter | esc | up …     # one or more named keys
//   label truth:blocked:permission      # a marker now; as while recording by hand, the
//   label p                             # keys w p q a b i d e and the state names
//   label blocked:permission            # (working, blocked:question, idle, …) write truth: labels
//   resize 100x30
//
// A wait that times out ends the recording (the file is kept) and pstlab exits 3.

export type Step =
  | { line: number; op: "wait"; re: RegExp; timeout: number; src: string }
  | { line: number; op: "wait-quiet"; quiet: number; timeout: number }
  | { line: number; op: "wait-exit"; timeout: number }
  | { line: number; op: "sleep"; seconds: number }
  | { line: number; op: "send"; data: string }
  | { line: number; op: "label"; label: string }
  | { line: number; op: "resize"; cols: number; rows: number };

export const DEFAULT_TIMEOUT = 10;

const KEYS: Record<string, string> = {
  enter: "\r",
  return: "\r",
  tab: "\t",
  esc: "\x1b",
  escape: "\x1b",
  backspace: "\x7f",
  space: " ",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pgup: "\x1b[5~",
  pgdn: "\x1b[6~",
  delete: "\x1b[3~",
  "shift-tab": "\x1b[Z",
  f1: "\x1bOP",
  f2: "\x1bOQ",
  f3: "\x1bOR",
  f4: "\x1bOS",
};

export function keyBytes(name: string): string | null {
  const k = name.toLowerCase();
  if (KEYS[k]) return KEYS[k];
  const m = /^ctrl-([a-z@\[\\\]^_])$/.exec(k);
  if (m) return String.fromCharCode(m[1].toUpperCase().charCodeAt(0) & 0x1f);
  const alt = /^alt-(.)$/.exec(name);
  if (alt) return "\x1b" + alt[1];
  return null;
}

/** A JSON-style string literal, plus \e (ESC) and \xHH. */
export function parseStringLiteral(s: string): string | null {
  if (!/^".*"$/s.test(s)) return null;
  const json = s.replace(/\\e/g, "\\u001b").replace(/\\x([0-9a-fA-F]{2})/g, "\\u00$1");
  try {
    return JSON.parse(json) as string;
  } catch {
    return null;
  }
}

export function parseScript(text: string, file: string): Step[] {
  const steps: Step[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    const l = raw.replace(/\r$/, "").trim();
    if (l === "" || l.startsWith("#")) return;
    const sp = l.indexOf(" ");
    const op = sp < 0 ? l : l.slice(0, sp);
    const rest = sp < 0 ? "" : l.slice(sp + 1).trim();
    const fail = (msg: string): never => {
      throw new FixtureError(file, line, msg);
    };
    const dur = (s: string, what: string) => {
      try {
        return parseDuration(s, what);
      } catch (e) {
        return fail((e as Error).message);
      }
    };
    switch (op) {
      case "wait": {
        const m = /^\/(.*)\/([a-z]*)(?:\s+(\S+))?$/.exec(rest);
        if (!m) fail("wait needs /regex/ (e.g. wait /Do you want to proceed/ 30s)");
        let re: RegExp;
        try {
          re = new RegExp(m![1], m![2].replace("g", ""));
        } catch (e) {
          return fail(`bad regex: ${(e as Error).message}`);
        }
        steps.push({
          line,
          op,
          re,
          src: `/${m![1]}/${m![2]}`,
          timeout: m![3] ? dur(m![3], "timeout") : DEFAULT_TIMEOUT,
        });
        return;
      }
      case "wait-quiet": {
        const [q, to] = rest.split(/\s+/);
        if (!q) fail("wait-quiet needs a duration (e.g. wait-quiet 500ms)");
        steps.push({ line, op, quiet: dur(q, "duration"), timeout: to ? dur(to, "timeout") : DEFAULT_TIMEOUT });
        return;
      }
      case "wait-exit":
        steps.push({ line, op, timeout: rest ? dur(rest, "timeout") : DEFAULT_TIMEOUT });
        return;
      case "sleep":
        if (!rest) fail("sleep needs a duration");
        steps.push({ line, op, seconds: dur(rest, "duration") });
        return;
      case "send": {
        const s = parseStringLiteral(rest);
        if (s === null) fail('send needs a quoted string, e.g. send "yes\\r"');
        steps.push({ line, op, data: s! });
        return;
      }
      case "key": {
        if (!rest) fail("key needs a key name (enter, esc, ctrl-c, up, …)");
        let data = "";
        for (const name of rest.split(/\s+/)) {
          const b = keyBytes(name);
          if (b === null) {
            fail(
              `unknown key "${name}" (use enter, tab, esc, backspace, space, up/down/left/right, home, end, pgup, pgdn, ctrl-X, alt-X, f1–f4)`,
            );
          }
          data += b;
        }
        steps.push({ line, op: "send", data });
        return;
      }
      case "label":
        if (!rest) fail("label needs text (e.g. label truth:blocked)");
        steps.push({ line, op, label: labelOf(rest) });
        return;
      case "resize": {
        const m = /^([0-9]+)x([0-9]+)$/.exec(rest);
        if (!m || Number(m[1]) < 2 || Number(m[2]) < 2) fail("resize needs COLSxROWS");
        steps.push({ line, op, cols: Number(m![1]), rows: Number(m![2]) });
        return;
      }
      default:
        fail(`unknown command "${op}" (wait, wait-quiet, wait-exit, sleep, send, key, label, resize)`);
    }
  });
  return steps;
}

export interface ScriptHost {
  now(): number;
  screenText(): Promise<string>;
  lastOutputAt(): number;
  exited(): boolean;
  send(data: string): void;
  label(label: string): void;
  resize(cols: number, rows: number): void;
}

export class ScriptFailed extends Error {
  constructor(readonly step: Step, message: string) {
    super(message);
  }
}

const POLL_MS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runScript(steps: Step[], host: ScriptHost, file: string, stop: () => boolean): Promise<void> {
  for (const s of steps) {
    if (stop()) return;
    const where = `${file}:${s.line}`;
    switch (s.op) {
      case "wait": {
        const deadline = host.now() + s.timeout;
        while (!s.re.test(await host.screenText())) {
          if (host.exited()) {
            throw new ScriptFailed(s, `${where}: the program exited before the screen matched ${s.src}`);
          }
          if (host.now() > deadline) {
            throw new ScriptFailed(s, `${where}: timed out after ${s.timeout} s waiting for ${s.src} on the screen`);
          }
          await sleep(POLL_MS);
        }
        break;
      }
      case "wait-quiet": {
        const deadline = host.now() + s.timeout;
        while (host.now() - Math.max(host.lastOutputAt(), 0) < s.quiet) {
          if (host.now() > deadline) {
            throw new ScriptFailed(s, `${where}: output never went quiet for ${s.quiet} s within ${s.timeout} s`);
          }
          await sleep(POLL_MS);
        }
        break;
      }
      case "wait-exit": {
        const deadline = host.now() + s.timeout;
        while (!host.exited()) {
          if (host.now() > deadline) {
            throw new ScriptFailed(s, `${where}: the program did not exit within ${s.timeout} s`);
          }
          await sleep(POLL_MS);
        }
        break;
      }
      case "sleep":
        await sleep(s.seconds * 1000);
        break;
      case "send":
        host.send(s.data);
        break;
      case "label":
        host.label(s.label);
        break;
      case "resize":
        host.resize(s.cols, s.rows);
        break;
    }
  }
}

const TRUTH_NAMES = new Set(Object.values(LABEL_KEYS).map((l) => l.slice("truth:".length)));

/** A script's label: a key letter or a state name is a truth label, anything else a marker as written. */
export function labelOf(text: string): string {
  if (LABEL_KEYS[text]) return LABEL_KEYS[text];
  if (TRUTH_NAMES.has(text)) return `truth:${text}`;
  return text;
}
