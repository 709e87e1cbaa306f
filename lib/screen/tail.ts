// The naive observer (docs/detection.md §2.2): the last 8 KB of output with escape sequences
// stripped and only the text after the last `\r` on each line. Claude places words
// with `CSI n G` and writes no `\n` at all, which is exactly what this gets wrong.

import { knownText } from "../recording/utf8.ts";

export const TAIL_BYTES = 8192;

const ESCAPES =
  /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[P^_X][^\x1b]*(?:\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]/g;

// A U+FEFF at the start of a read or of the window is a character of the output like any
// other (reads are cut anywhere), so it is kept: an asciicast reader's string keeps it too.
const DECODER = new TextDecoder("utf-8", { ignoreBOM: true });

/** Escapes stripped; per line, only the text after the last \r. */
export function stripTail(bytes: Uint8Array): string {
  const text = DECODER.decode(bytes).replace(ESCAPES, "");
  return text.split("\n").map((l) => {
    // A line ending "\r\n" (or "\r\r\n": a program's "\r\n" through the tty's onlcr)
    // keeps its text: the \r that ends it is not a redraw.
    const body = l.replace(/\r+$/, "");
    const r = body.lastIndexOf("\r");
    return r < 0 ? body : body.slice(r + 1);
  }).join("\n");
}

// ---- the same, maintained as output arrives -------------------------------------------
//
// Stripping the whole 8 KB at every sample after every write was a tenth of a dense
// analysis. Each read is stripped once, when it arrives, into the lines it completes;
// a sample joins the pieces of the window. That join equals stripping the window at
// once only when no escape sequence and no UTF-8 character crosses a read boundary
// inside the window, which is what `cleanEnd` records per read; otherwise (rare: a
// program that splits an escape across writes) the window is stripped at once, as before.

const lastLine = (l: string) => {
  let end = l.length;
  while (end > 0 && l.charCodeAt(end - 1) === 13) end--;
  const body = end === l.length ? l : l.slice(0, end);
  const r = body.lastIndexOf("\r");
  return r < 0 ? body : body.slice(r + 1);
};

/**
 * A piece of a line, for appending in O(1): lastLine(A + B) needs only lastLine(A), A's
 * text after its last \r, and these facts about B.
 */
interface Segment {
  /** B without its trailing \r run is empty. */
  allCR: boolean;
  /** B's core (without trailing \r) holds a \r: then lastLine(A + B) is B's alone. */
  crInCore: boolean;
  core: string;
  /** lastLine(B) (meaningful when crInCore). */
  own: string;
  /** B after its last \r ("" when B ends with \r); B itself when it has none. */
  after: string;
  hasCR: boolean;
}

function segment(b: string): Segment {
  let end = b.length;
  while (end > 0 && b.charCodeAt(end - 1) === 13) end--;
  const core = end === b.length ? b : b.slice(0, end);
  const r = core.lastIndexOf("\r");
  const last = b.lastIndexOf("\r");
  return {
    allCR: end === 0,
    crInCore: r >= 0,
    core,
    own: r >= 0 ? core.slice(r + 1) : core,
    after: last < 0 ? b : b.slice(last + 1),
    hasCR: last >= 0,
  };
}

/** A line being assembled from segments: its lastLine and its text after the last \r. */
interface LineState {
  ll: string;
  after: string;
}

function append(a: LineState, b: Segment): LineState {
  if (b.allCR) return { ll: a.ll, after: b.hasCR ? "" : a.after };
  if (b.crInCore) return { ll: b.own, after: b.after };
  return { ll: a.after + b.core, after: b.hasCR ? "" : a.after + b.after };
}

const EMPTY: LineState = { ll: "", after: "" };

interface Piece {
  bytes: Uint8Array;
  /** Whether a \n byte is anywhere in it, escapes included (a cut may expose one an escape hid). */
  rawNewline?: boolean;
  /** Stripped text before the first \n, the \r-processed lines it completes, the text after the last \n. */
  head?: Segment;
  lines?: string[];
  tail?: Segment;
  hasNewline?: boolean;
  cleanEnd?: boolean;
}

const STICKY = new RegExp(ESCAPES.source, "y");

/** Whether a text cut here strips as it would with more after it: no escape left open. */
function escapesClosed(text: string): boolean {
  const esc = text.lastIndexOf("\x1b");
  if (esc < 0) return true;
  if (text.charCodeAt(esc + 1) === 0x5b) {
    // A CSI (most last escapes: a colour reset) is closed once its final byte came:
    // parameters 0x30–0x3F, intermediates 0x20–0x2F, a final 0x40–0x7E, as ESCAPES reads it.
    let i = esc + 2, c = text.charCodeAt(i);
    while (c >= 0x30 && c <= 0x3f) c = text.charCodeAt(++i);
    while (c >= 0x20 && c <= 0x2f) c = text.charCodeAt(++i);
    return c >= 0x40 && c <= 0x7e;
  }
  STICKY.lastIndex = esc;
  const m = STICKY.exec(text);
  if (!m || m[0].length < 2) return false; // a lone ESC, or ESC + intermediates without a final
  const intro = text[esc + 1];
  if (intro === "]") return /(\x07|\x1b\\)$/.test(m[0]);
  if ("P^_X".includes(intro)) return m[0].endsWith("\x1b\\");
  return true;
}

/** Whether bytes end on a whole UTF-8 character (a lead byte waiting for more is not). */
function utf8Closed(b: Uint8Array): boolean {
  for (let i = b.length - 1, k = 0; i >= 0 && k < 4; i--, k++) {
    const c = b[i];
    if ((c & 0xc0) === 0x80) continue;
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return b.length - i >= need;
  }
  return true;
}

/** The read as text: the reader's own string when it has one (asciicast: no second decode). */
function textOf(bytes: Uint8Array): string {
  const known = knownText.get(bytes);
  // A lone surrogate in the JSON was encoded as U+FFFD: only a well-formed string is the bytes' text.
  return known !== undefined && known.isWellFormed() ? known : DECODER.decode(bytes);
}

const NO_SEGMENT = segment("");
const NO_LINES: string[] = [];

function describe(p: Piece): Required<Piece> {
  if (p.lines !== undefined) return p as Required<Piece>;
  const decoded = textOf(p.bytes);
  p.rawNewline = p.bytes.indexOf(10) >= 0;
  // No \n byte (a spinner redraw, most reads of a TUI): one segment, nothing to split.
  const stripped = decoded.replace(ESCAPES, "");
  const parts = p.rawNewline ? stripped.split("\n") : [stripped];
  p.hasNewline = parts.length > 1;
  p.head = segment(parts[0]);
  p.tail = parts.length > 1 ? segment(parts[parts.length - 1]) : NO_SEGMENT;
  p.lines = parts.length > 2 ? parts.slice(1, -1).map(lastLine) : NO_LINES;
  p.cleanEnd = utf8Closed(p.bytes) && escapesClosed(decoded);
  return p as Required<Piece>;
}

/** A row of the output as a whole: where it starts and ends (piece numbers), and the last piece that decided its text. */
interface Row {
  text: string;
  end: number;
  /** Its text depends on no piece before this one (a \r redraw, or the \n it starts after); -1: unknown. */
  reset: number;
}

/**
 * The stripped tail, kept up to date as output arrives: each read is described once, and
 * the rows of the output as a whole are kept (with the piece that last reset each one).
 * A sample then recomputes only what the window's cut changes: the piece it cuts, and
 * the row running across the cut unless a later \r redraw decided it. A 10 ms spinner
 * that redraws its line with \r costs O(1) per sample instead of a join of every read
 * in the 8 KB (bench/analysis.ts).
 */
export class IncrementalTail {
  private pieces: Piece[] = [];
  /** The number (since the start) of pieces[0]. */
  private base = 0;
  private total = 0;
  private cache: { version: number; rows: string[] } | null = null;
  /** The first piece as cut by the window's start, described once per cut. */
  private firstCut: { cut: number; source: Piece; piece: Piece } | null = null;
  /** Pieces up to this number are folded into `done` and `cur`. */
  private folded = 0;
  private done: Row[] = [];
  private doneHead = 0;
  private cur: { state: LineState; reset: number } = { state: EMPTY, reset: -1 };
  /** Numbers of pieces that end inside an escape or a UTF-8 character, ascending. */
  private unclean: number[] = [];
  version = 0;

  constructor(readonly size = TAIL_BYTES) {}

  push(b: Uint8Array): void {
    if (b.length === 0) return;
    this.version++;
    this.pieces.push({ bytes: b });
    this.total += b.length;
    while (this.pieces.length > 1 && this.total - this.pieces[0].bytes.length >= this.size) {
      this.total -= this.pieces.shift()!.bytes.length;
      this.base++;
    }
  }

  /** The window's bytes (the last `size` bytes of output). */
  bytes(): Uint8Array {
    const out = new Uint8Array(Math.min(this.total, this.size));
    let o = out.length;
    for (let i = this.pieces.length - 1; i >= 0 && o > 0; i--) {
      const b = this.pieces[i].bytes;
      const n = Math.min(o, b.length);
      out.set(b.subarray(b.length - n), o - n);
      o -= n;
    }
    return out;
  }

  /** stripTail(bytes()).split("\n"), computed from the pieces. */
  rows(): string[] {
    if (this.cache?.version === this.version) return this.cache.rows;
    const rows = this.join() ?? stripTail(this.bytes()).split("\n");
    this.cache = { version: this.version, rows };
    return rows;
  }

  /** Folds the pieces not folded yet into the rows of the whole output. */
  private fold(): void {
    // The window's first piece, when cut, is never trusted (rows are recomputed from the
    // cut), so it need not be read whole: one 64 MiB write must not be decoded at every
    // sample, nor its rows kept.
    const from = this.total > this.size ? this.base + 1 : this.base;
    if (this.folded < from) {
      // Pieces that left the window unread: what follows is not known to be whole.
      this.folded = from;
      this.cur = { state: EMPTY, reset: -1 };
    }
    for (let g = this.folded; g < this.base + this.pieces.length; g++) {
      const p = describe(this.pieces[g - this.base]);
      this.cur.state = append(this.cur.state, p.head);
      if (p.head.crInCore) this.cur.reset = g;
      if (p.hasNewline) {
        this.done.push({ text: this.cur.state.ll, end: g, reset: this.cur.reset });
        for (const l of p.lines) this.done.push({ text: l, end: g, reset: g });
        this.cur = { state: append(EMPTY, p.tail), reset: g };
      }
      if (!p.cleanEnd) this.unclean.push(g);
    }
    this.folded = this.base + this.pieces.length;
  }

  private join(): string[] | null {
    if (this.pieces.length === 0) return [""];
    this.fold();
    const k = this.base, last = k + this.pieces.length - 1;
    // Rows that ended in or before the first piece are recomputed from the cut, or gone.
    while (this.doneHead < this.done.length && this.done[this.doneHead].end <= k) this.doneHead++;
    if (this.doneHead > 1024 && this.doneHead * 2 > this.done.length) {
      this.done = this.done.slice(this.doneHead);
      this.doneHead = 0;
    }
    while (this.unclean.length && this.unclean[0] <= k) this.unclean.shift();
    // A read ending mid-escape or mid-character: the pieces do not strip as the whole does.
    if (this.unclean.length && this.unclean[0] < last) return null;
    // The row running across the end of the first piece: the whole output's, when a
    // later piece decided it.
    const across: Row | null = this.doneHead < this.done.length ? this.done[this.doneHead] : null;
    const reset = across ? across.reset : this.cur.reset;
    // The first piece is cut where the window starts: described afresh from the cut.
    const cut = this.total - this.size;
    let first = this.pieces[0];
    if (cut > 0) {
      if (this.firstCut?.cut !== cut || this.firstCut.source !== this.pieces[0]) {
        this.firstCut = { cut, source: this.pieces[0], piece: { bytes: this.pieces[0].bytes.subarray(cut) } };
      }
      first = this.firstCut.piece;
    }
    // Facts about the first piece whole hold for any cut of it (no \n byte stays none; a
    // clean end stays clean), and the whole is described once, not once per cut; a piece
    // bigger than the window is read only as cut.
    const p0 = describe(this.pieces[0].bytes.length <= this.size ? this.pieces[0] : first);
    if (reset > k && !p0.rawNewline && p0.cleanEnd) {
      // Then the first row is the row across the first piece's end, decided later: the
      // spinner's case, with no strip at all.
      return this.rest([across ? across.text : this.cur.state.ll], across);
    }
    const f = describe(first);
    if (last > k && !f.cleanEnd) return null;
    const rows: string[] = [];
    let line = append(EMPTY, f.head);
    if (f.hasNewline) {
      rows.push(line.ll);
      for (const l of f.lines) rows.push(l);
      line = append(EMPTY, f.tail);
    }
    // The row across the first piece's end: the whole output's, or folded from the cut.
    if (reset > k) rows.push(across ? across.text : this.cur.state.ll);
    else {
      const upTo = across ? across.end : last;
      for (let g = k + 1; g <= upTo; g++) line = append(line, describe(this.pieces[g - k]).head);
      rows.push(line.ll);
    }
    return this.rest(rows, across);
  }

  /** The rows after the one across the first piece's end: all the whole output's. */
  private rest(rows: string[], across: Row | null): string[] {
    if (across) {
      for (let i = this.doneHead + 1; i < this.done.length; i++) rows.push(this.done[i].text);
      rows.push(this.cur.state.ll);
    }
    return rows;
  }
}
