import { parseDuration, SIZE_MAX, SIZE_MIN } from "../units.ts";
import { FixtureError } from "../errors.ts";
import { LABEL_KEYS } from "./label_keys.ts";
import { compilePattern, matchesOnlyEmpty, type Pattern, RegexError } from "../regex/pattern.ts";
import type { ScreenChanges } from "./screen_worker.ts";
import { changedSince, type ScreenMark } from "../screen/screen.ts";
import { sleep } from "../timers.ts";
import { parseTruthLabel, truthLabelProblem } from "../score/truth.ts";
// A scripted driver for headless recordings in CI (after VHS's tapes and expect):
//
//   wait /Do you want to proceed/ 30s   # a regex (Rust syntax, ^ $ per row) on the emulated
//                                       # screen, matching text that appeared since the
//                                       # previous step (after a wait: since the end of its
//                                       # match, as expect); default timeout 10 s
//   wait /\$ $/ or /Password:/          # alternatives
//   wait screen /ready/                 # anywhere on the screen, old text included
//   wait /Allow\?/ as blocked:permission # and a truth label at the moment it appeared
//   wait-quiet 500ms [timeout]          # no output for that long, counted from the later of
//                                       # the last output and the step's start
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
  | {
    line: number;
    op: "wait";
    patterns: Pattern[];
    /** `wait screen`: anywhere on the screen (old text too), not only what appeared since the previous step. */
    anywhere: boolean;
    timeout: number;
    src: string;
    /** `as STATE[:KIND]`: the truth label written at the moment the match appeared. */
    label: string | null;
  }
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

/**
 * A blocked truth label the script never ends: its last truth label is a blocked one and
 * the script answers after it (a `send`), so the episode it marks runs to the end of the
 * recording and hides whatever happened after the answer. Null when there is none.
 */
export function unendedBlockedLabel(steps: Step[], file: string): string | null {
  let last: { line: number; label: string } | null = null;
  let answeredAfter = false;
  for (const s of steps) {
    const label = s.op === "label" ? s.label : s.op === "wait" ? s.label : null;
    if (label && parseTruthLabel(label)) {
      last = { line: s.line, label };
      answeredAfter = false;
    } else if (s.op === "send" && last) answeredAfter = true;
  }
  if (!last || parseTruthLabel(last.label)?.state !== "blocked" || !answeredAfter) return null;
  return `${file}:${last.line}: ${last.label} is the script's last truth label and is answered after it: it holds to the end of the recording (add \`label truth:working\` after the answer)`;
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
        steps.push({ line, op, ...parseWait(rest, fail, dur) });
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
        {
          const label = labelOf(rest);
          const why = truthLabelProblem(label);
          if (why) fail(why);
          steps.push({ line, op, label });
        }
        return;
      case "resize": {
        const m = /^([0-9]+)x([0-9]+)$/.exec(rest);
        if (!m || [m[1], m[2]].some((n) => Number(n) < SIZE_MIN || Number(n) > SIZE_MAX)) {
          fail(`resize needs COLSxROWS, each ${SIZE_MIN}–${SIZE_MAX}`);
        }
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
  /** The emulated screen, with what changed since `markScreen`. */
  screen(): Promise<ScreenChanges>;
  /** Called between steps: "since the previous step" starts here. */
  markScreen(): void;
  lastOutputAt(): number;
  exited(): boolean;
  send(data: string): void;
  /** A marker now, or at `at` (seconds, never before an event already written). */
  label(label: string, at?: number): void;
  resize(cols: number, rows: number): void;
}

export class ScriptFailed extends Error {
  /** The screen's rows around the cursor when it failed (to print under the one-line error). */
  constructor(readonly step: Step, message: string, readonly screen: string[] = []) {
    super(message);
  }
}

const POLL_MS = 10;

export async function runScript(steps: Step[], host: ScriptHost, file: string, stop: () => boolean): Promise<void> {
  // No mark before the first step: everything the program wrote since the recording
  // started is new to it. A mark taken here raced the program: a prompt written before
  // the mark reached the screen worker counted as old, and the first wait timed out
  // with the prompt on the screen (record_test on a loaded machine).
  //
  // After a satisfied wait the driver keeps a mark of its own, covering the screen only
  // up to the end of the match: text written after the match (in the same write, or
  // before the host's mark reached the screen) stays new for the next wait, as in expect.
  // Two prompts arriving in one write failed the second wait when the whole screen was
  // marked. Every other step marks the whole screen, as before.
  let own: ScreenMark | null = null;
  for (const s of steps) {
    if (stop()) return;
    const where = `${file}:${s.line}`;
    let next: ScreenMark | null = null;
    switch (s.op) {
      case "wait": {
        const deadline = host.now() + s.timeout;
        for (;;) {
          // The time of the last output the screen had seen when asked: the match
          // appeared with it (or earlier, in output an earlier poll already saw).
          const at = host.lastOutputAt();
          // Whether the program had ended (its output all read) when the screen was asked
          // for: only then does a screen without the match mean it never came. Asked first,
          // the screen could predate the last output of a program that printed and exited
          // within one poll (`sh -c 'echo x'` failed its `wait /x/`).
          const ended = host.exited();
          const got = await host.screen();
          const screen = own && got.view ? { ...got, changedFrom: changedSince(own, got.rows, got.view) } : got;
          const end = waitMatch(s, screen);
          if (end) {
            if (s.label) host.label(s.label, Math.max(at, 0));
            if (!s.anywhere && screen.view) next = markUpTo(screen, end);
            break;
          }
          const what = `${s.src}${s.anywhere ? " on the screen" : " in text that appeared since the previous step"}`;
          if (ended) {
            throw new ScriptFailed(s, `${where}: the program exited before ${what}`, lastRows(screen));
          }
          if (host.exited()) continue; // ended meanwhile: one more look, at everything it wrote
          if (host.now() > deadline) {
            throw new ScriptFailed(s, `${where}: timed out after ${s.timeout} s waiting for ${what}`, lastRows(screen));
          }
          await sleep(POLL_MS);
        }
        break;
      }
      case "wait-quiet": {
        // Quiet counts from the later of the last output and this step's start: a
        // program quiet before a `send` has not yet answered it, so the step always
        // waits at least `quiet` (it went out at once, keys 0 ms apart, when counted
        // from the last output only).
        const start = host.now();
        const deadline = start + s.timeout;
        while (host.now() - Math.max(host.lastOutputAt(), start) < s.quiet) {
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
    host.markScreen();
    own = next;
  }
}

/** Whether a wait's pattern matches, touching a row's text that appeared since the mark unless `wait screen`. */
export function waitMatches(s: { patterns: Pattern[]; anywhere: boolean }, screen: ScreenChanges): boolean {
  return waitMatch(s, screen) !== null;
}

/**
 * Where the wait's match ends (row, column), or null: of the matches that touch new
 * text (any match with `wait screen`), the one that ends first, so the least is used up.
 */
export function waitMatch(
  s: { patterns: Pattern[]; anywhere: boolean },
  screen: ScreenChanges,
): { row: number; col: number } | null {
  const text = screen.rows.join("\n");
  const starts: number[] = [];
  for (let y = 0, at = 0; y < screen.rows.length; at += screen.rows[y].length + 1, y++) starts.push(at);
  let best = -1;
  const qualifies = (m: { index: number; end: number }) => {
    if (s.anywhere) return true;
    for (let y = 0; y < starts.length; y++) {
      const from = starts[y], to = from + screen.rows[y].length;
      if (m.end <= from || m.index > to) continue;
      const changed = screen.changedFrom[y];
      // The match reaches past the first changed character of this row.
      if (changed >= 0 && Math.min(m.end, to) - from > changed) return true;
    }
    return false;
  };
  for (const p of s.patterns) {
    for (const m of p.all(text)) {
      if (best >= 0 && m.end >= best) continue;
      if (qualifies(m)) best = m.end;
    }
  }
  if (best < 0) return null;
  let row = 0;
  while (row + 1 < starts.length && starts[row + 1] <= best) row++;
  return { row, col: best - (starts[row] ?? 0) };
}

/**
 * A mark of the screen up to `end`: rows before it, and its row up to it, count as seen;
 * what was new after it stays new (its row's text from the later of the match's end and
 * the first new character; later rows from their first new character). Text that was
 * already old stays old.
 */
export function markUpTo(screen: ScreenChanges, end: { row: number; col: number }): ScreenMark {
  const rows = screen.rows.map((row, y) => {
    const cf = screen.changedFrom[y];
    if (y < end.row || cf < 0) return row;
    return row.slice(0, y === end.row ? Math.max(cf, end.col) : cf);
  });
  return { rows, ...screen.view! };
}

/** A few rows around the cursor (and the last non-blank one), as the screen showed them. */
export function lastRows(screen: ScreenChanges, around = 3): string[] {
  const rows = screen.rows.map((r) => r.trimEnd());
  let last = rows.length - 1;
  while (last > 0 && rows[last] === "") last--;
  const y = Math.min(screen.cursor.y, rows.length - 1);
  const from = Math.max(0, Math.min(y, last) - around), to = Math.max(y, last);
  return rows.slice(Math.max(from, to - 2 * around), to + 1);
}

/**
 * `wait [screen] /re/[flags] [or /re/…] [timeout] [as STATE[:KIND]]`. Patterns are the
 * manifests' (Rust syntax, compiled by the one regex runner so none can hang the
 * recorder), with ^ and $ at each row's ends; flags i and s.
 */
function parseWait(
  rest: string,
  fail: (m: string) => never,
  dur: (s: string, what: string) => number,
): { patterns: Pattern[]; anywhere: boolean; timeout: number; src: string; label: string | null } {
  const usage = "wait needs /regex/ (e.g. wait /Do you want to proceed/ 30s, wait /a/ or /b/, wait screen /a/)";
  let r = rest;
  let anywhere = false;
  if (/^screen\s/.test(r)) {
    anywhere = true;
    r = r.slice(6).trimStart();
  }
  const patterns: Pattern[] = [];
  const srcs: string[] = [];
  for (;;) {
    if (!r.startsWith("/")) fail(usage);
    // The closing slash: not escaped, not inside a [class].
    let i = 1, inClass = false;
    for (; i < r.length; i++) {
      const c = r[i];
      if (c === "\\") i++;
      else if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) break;
    }
    if (i >= r.length) fail(`${usage}: no closing /`);
    const body = r.slice(1, i);
    const flags = /^[a-z]*/.exec(r.slice(i + 1))![0];
    if (/[^is]/.test(flags)) fail(`unknown regex flag in "${flags}" (use i, s)`);
    try {
      patterns.push(compilePattern(body, "m" + flags));
    } catch (e) {
      if (!(e instanceof RegexError)) throw e;
      fail(`bad regex /${body}/: ${(e as Error).message}`);
    }
    // `wait /^/`, `wait //`: an empty match reaches no new text, so the wait could only time out.
    if (matchesOnlyEmpty(patterns[patterns.length - 1], body)) {
      fail(`/${body}/ matches only the empty string: a wait for it can never see it appear`);
    }
    srcs.push(`/${body}/${flags}`);
    r = r.slice(i + 1 + flags.length).trimStart();
    if (/^or(\s|$)/.test(r)) {
      r = r.slice(2).trimStart();
      continue;
    }
    break;
  }
  let timeout = DEFAULT_TIMEOUT;
  let label: string | null = null;
  const words = r ? r.split(/\s+/) : [];
  if (words.length && words[0] !== "as") timeout = dur(words.shift()!, "timeout");
  if (words.length) {
    if (words[0] !== "as" || words.length !== 2) fail(`after the regex: [timeout] [as STATE[:KIND]], got "${r}"`);
    const m = /^(?:truth:)?(working|blocked|idle|done|error)(?::([A-Za-z0-9_.-]+))?$/.exec(words[1]);
    if (!m) fail(`as needs a truth state (working, blocked[:KIND], idle, done, error), got "${words[1]}"`);
    label = `truth:${m![1]}${m![2] ? `:${m![2]}` : ""}`;
  }
  return { patterns, anywhere, timeout, src: srcs.join(" or "), label };
}

const TRUTH_NAMES = new Set(Object.values(LABEL_KEYS).map((l) => l.slice("truth:".length)));

/** A script's label: a key letter or a state name is a truth label, anything else a marker as written. */
export function labelOf(text: string): string {
  if (LABEL_KEYS[text]) return LABEL_KEYS[text];
  if (TRUTH_NAMES.has(text)) return `truth:${text}`;
  return text;
}
