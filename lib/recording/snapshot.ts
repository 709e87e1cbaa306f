// Screen snapshots: whole screens without timing (tmux `capture-pane -e` saved as
// `.txt` or `.ansi`, claudeless `.ansi.txt`, codex-rs insta `.snap`). They are written
// with bare LF line endings, so LF becomes CR LF; an insta header (`---` … `---`) is
// dropped and `terminal.backend()` rows, which insta prints as JSON strings, are
// unquoted. Every command reads them this one way (issue 21: `screen` read a `.txt` as a
// raw stream, with LF staircases, while `report --labels` judged it as a snapshot).

import { DEFAULT_SIZE, type Event } from "./model.ts";

const SNAPSHOT_EXT = [".snap", ".txt", ".ansi"];

/** A pane capture by its name: `.txt` (tmux capture-pane), `.ansi`, `.ansi.txt`, `.screen.txt`, `.snap`. */
export function isSnapshotPath(p: string): boolean {
  const l = p.toLowerCase();
  return SNAPSHOT_EXT.some((e) => l.endsWith(e));
}

/** Terminal cells a code point takes: 0 for combining marks and joiners, 2 for wide (East Asian, emoji). */
function cells(c: number): number {
  if (c < 0x300) return 1;
  if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || (c >= 0xfe00 && c <= 0xfe0f)) return 0;
  if (
    (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) || (c >= 0x20000 && c <= 0x3fffd)
  ) return 2;
  return 1;
}

/** Escape sequences (CSI, OSC, two-byte ESC) and other control characters: no cells. */
const INVISIBLE = /\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|[\x00-\x1f\x7f]/g;

/** The size a snapshot's own text needs: its line count and its widest line, in cells. */
export function snapshotContentSize(bytes: Uint8Array): { cols: number; rows: number } {
  const lines = new TextDecoder().decode(bytes).split("\r\n");
  let cols = 0;
  for (const l of lines) {
    let w = 0;
    for (const ch of l.replace(INVISIBLE, "")) w += cells(ch.codePointAt(0)!);
    cols = Math.max(cols, w);
  }
  return { cols, rows: lines.length };
}

/**
 * The size to read a snapshot at: the one given (a labels file's size column, `--size`),
 * else at least the default and as large as its content. A given size smaller than the
 * content is kept (it may be the pane's real size) with a warning: rows would scroll off
 * the top, or long lines wrap — never silently (a 200x50 pane read at 120x32 lost its top).
 */
export function snapshotSize(
  path: string,
  bytes: Uint8Array,
  given: { cols: number; rows: number } | undefined,
  warnings: string[],
): { cols: number; rows: number } {
  const need = snapshotContentSize(bytes);
  if (!given) return { cols: Math.max(DEFAULT_SIZE.cols, need.cols), rows: Math.max(DEFAULT_SIZE.rows, need.rows) };
  if (need.cols > given.cols || need.rows > given.rows) {
    warnings.push(
      `${path}: its text is ${need.cols}x${need.rows} but is read at ${given.cols}x${given.rows}: ${
        need.cols > given.cols ? "long lines wrap and " : ""
      }rows scroll off the top (give its real size)`,
    );
  }
  return given;
}

export function snapshotBytes(raw: Uint8Array): Uint8Array {
  let text = new TextDecoder().decode(raw);
  const insta = /^---\n[\s\S]*?\n---\n/.exec(text);
  if (insta) {
    text = text.slice(insta[0].length);
    const lines = text.replace(/\n$/, "").split("\n");
    if (lines.length > 0 && lines.every((l) => /^".*"$/.test(l))) {
      try {
        text = lines.map((l) => JSON.parse(l) as string).join("\n");
      } catch { /* not JSON after all: keep the text */ }
    }
  }
  text = text.replace(/\r?\n$/, "").replace(/\r?\n/g, "\r\n");
  return new TextEncoder().encode(text);
}

/** A snapshot's bytes, whole (a screen is small), with its line endings already converted. */
export async function readSnapshot(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c.slice());
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return snapshotBytes(all);
}

export async function* snapshotEvents(bytes: Uint8Array): AsyncIterable<Event> {
  yield { t: 0, kind: "output", bytes };
}
