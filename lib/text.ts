// Text helpers shared by every human-readable output: making capture text safe for a
// terminal, aligning columns, colour, and the one rounding rule for times in output.

/** Text from a capture, safe to print on a terminal: controls made visible. */
export function visible(s: string): string {
  return s.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => {
    if (c === "\x1b") return "\\e";
    if (c === "\x07") return "\\a";
    return "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0");
  });
}

/** docs/osc7501.md §7 (presentation): bidi overrides and invisible formatting removed (for documents: HTML, XML). */
export function stripInvisible(s: string): string {
  return s.replace(/[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, "");
}

/**
 * The one sanitiser for text from a capture (or a file name) on a terminal or in a
 * text document: invisible formatting removed, controls made visible.
 */
export function disarm(s: string): string {
  return visible(stripInvisible(s));
}

/** A markdown code span fit for a table cell: sanitised, backticks (a span cannot hold one) made quotes, pipes escaped. */
export function mdCode(s: string): string {
  return `\`${disarm(s).replace(/`/g, "'").replace(/\|/g, "\\|")}\``;
}

/**
 * A command line as a markdown code span that pastes back into a shell: each argument
 * quoted for sh (single quotes, `'\''` for a quote), the span fenced with one backtick
 * more than the longest run inside it (CommonMark), so a file name with a backtick stays
 * as it is instead of being rewritten. Controls are removed (disarm) as everywhere.
 */
export function mdCommand(argv: string[], opts: { pipes?: boolean } = {}): string {
  let text = argv.map((a) => {
    const s = disarm(a);
    return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
  }).join(" ");
  if (opts.pipes) text = text.replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Text for an XML document (JUnit): markup escaped, invisible formatting and the controls XML 1.0 forbids removed. */
export function xmlText(s: string): string {
  return stripInvisible(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, "");
}

/** A CSV cell that a spreadsheet will not run as a formula (OWASP: a leading = + - @ tab or CR gets a quote). */
export function csvSafe(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

/**
 * pstlab's own terminal sequences, written as a private-use character and a token chosen
 * per process: the terminal writer (lib/stdio.ts) turns `token + "1;31m"` into
 * `ESC [ 1;31m` and escapes every other control, so capture text (which cannot know the
 * token) can never style, move or retitle the user's terminal, even if a caller forgot to
 * disarm it. `r` is a carriage return (the progress line), `K` erases the line.
 */
export const OWN_SEQUENCE = {
  token: `\ue000${Math.random().toString(36).slice(2, 10)}`,
  code: /^([0-9;]*m|K|r)/,
};

/** A style (SGR parameters) around `s` when `on`. */
export function paint(on: boolean, code: string, s: string): string {
  return on ? `${OWN_SEQUENCE.token}${code}m${s}${OWN_SEQUENCE.token}0m` : s;
}

/** The start of a redrawn status line: carriage return, erase the line. */
export const REDRAW_LINE = `${OWN_SEQUENCE.token}r${OWN_SEQUENCE.token}K`;

/** A character as \uXXXX (C1 controls and bidi formatting: visible, and still valid inside a JSON string). */
export function uEscape(c: string): string {
  return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
}

/**
 * A copy of `s` that shares no memory with the string it was cut from. JavaScriptCore and
 * V8 both keep slices as views of their parent: a 120-character piece of evidence kept in
 * a timeline kept the whole screen text alive with it, and on a 33-hour capture the
 * timelines' evidence held 200 MB of old screens (bench/memory.ts).
 */
export function detached(s: string): string {
  return JSON.parse(JSON.stringify(s));
}

/** Times in output and in sample schedules: microseconds, so float noise never shows. */
export function round6(t: number): number {
  return Math.round(t * 1e6) / 1e6;
}

/** Columns padded to their widest cell (cells may contain colour codes). */
export function alignRows(rows: string[][], rightAlign: Set<number> = new Set()): string[] {
  const own = new RegExp(`${OWN_SEQUENCE.token}[0-9;]*m`, "g");
  const w = (s: string) => [...s.replace(own, "")].length;
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, w(c))));
  return rows.map((r) =>
    r.map((c, i) => {
      if (i === r.length - 1 && !rightAlign.has(i)) return c;
      const pad = " ".repeat(widths[i] - w(c));
      return rightAlign.has(i) ? pad + c : c + pad;
    }).join("  ").trimEnd()
  );
}

/** "1 event", "2 events": a count with its noun, singular for one ("queries" needs its plural given). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
