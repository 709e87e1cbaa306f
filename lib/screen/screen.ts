// An @xterm/headless screen fed at virtual time: deterministic, no wall-clock waits.
// The state at time T is exactly the result of every chunk written with time ≤ T,
// because writes are parsed synchronously: xterm's write() is async, parsed in 12 ms
// slices; its core's writeSync parses at once and is only unreliable with async parser
// handlers, of which we register none.

import xterm from "@xterm/headless";
// The addon's named export works on Bun, Deno and in `bun build` (whose bundler picks
// the package's .mjs, which has no default export); xterm itself needs the default import.
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { installResponder } from "./responder.ts";
import { SCROLLBACK } from "./scrollback.ts";

// The default import is the only form that works on Bun, Deno and Node alike.
const { Terminal } = xterm as unknown as { Terminal: new (o: Record<string, unknown>) => XTerm };

interface XBuffer {
  type: "normal" | "alternate";
  baseY: number;
  cursorX: number;
  cursorY: number;
  length: number;
  getLine(y: number): XLine | undefined;
}

/** A buffer line: the public view, and the line it wraps with its cell array (xterm 6 internals). */
interface XLine {
  translateToString(trimRight?: boolean): string;
  _line?: XLine;
  _data?: Uint32Array;
  _combined?: Record<number, string>;
  getTrimmedLength?(): number;
}

// Cell layout of xterm's BufferLine (src/common/buffer/Constants.ts, Content): the
// code point in the low 21 bits, a flag for cells holding a string (combining marks,
// ZWJ sequences), the width above it.
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED = 0x200000;
const WIDTH_SHIFT = 22;
/** A row's UTF-16 code units, reused; grown for a wider row. */
let units = new Uint16Array(1024);
// Native decoding of the code units: half the time of String.fromCharCode.apply on a
// 100-cell row (the jumpy bench shape re-reads ten rows per 50 ms sample). ignoreBOM: a
// row may start with U+FEFF; a lone surrogate (which the decoder would replace) takes
// fromCharCode instead.
const utf16 = new TextDecoder("utf-16le", { ignoreBOM: true });

function unitsText(n: number, lone: boolean): string {
  return lone
    ? String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[])
    : utf16.decode(units.subarray(0, n));
}

/**
 * translateToString(true), without building the row one cell at a time: xterm appends
 * each cell to a string, which was a fifth of analysing the demo capture. Read through
 * the public method when the internals are not what this expects; the dirty-row
 * property test compares both on random screens.
 */
function rowText(view: XLine): string {
  const line = view._line ?? view;
  const data = line._data;
  if (!(data instanceof Uint32Array) || typeof line.getTrimmedLength !== "function") {
    return view.translateToString(true);
  }
  const end = line.getTrimmedLength();
  if (units.length < 2 * end) units = new Uint16Array(2 * end);
  let out = "", n = 0, lone = false;
  for (let x = 0; x < end;) {
    const content = data[3 * x];
    if (content & IS_COMBINED) {
      if (n) out += unitsText(n, lone);
      n = 0;
      lone = false;
      out += line._combined?.[x] ?? "";
    } else {
      const cp = content & CODEPOINT_MASK;
      if (cp === 0) units[n++] = 32;
      else if (cp > 0xffff) {
        if (cp > 0x10ffff) lone = true; // not a code point: its units as fromCharCode truncates them
        units[n++] = 0xd800 + ((cp - 0x10000) >> 10);
        units[n++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
      } else {
        if (cp >= 0xd800 && cp <= 0xdfff) lone = true;
        units[n++] = cp;
      }
    }
    x += content >> WIDTH_SHIFT || 1;
  }
  if (n) out += unitsText(n, lone);
  return out;
}

interface XTerm {
  cols: number;
  rows: number;
  buffer: { active: XBuffer };
  unicode: { activeVersion: string };
  parser: {
    registerOscHandler(id: number, cb: (data: string) => boolean): { dispose(): void };
    registerCsiHandler(id: { prefix?: string; final: string }, cb: (params: (number | number[])[]) => boolean): unknown;
    registerDcsHandler(
      id: { intermediates?: string; final: string },
      cb: (data: string, params: (number | number[])[]) => boolean,
    ): unknown;
  };
  loadAddon(a: unknown): void;
  onTitleChange(cb: (t: string) => void): void;
  onScroll(cb: () => void): void;
  onData(cb: (d: string) => void): void;
  resize(cols: number, rows: number): void;
  write(data: Uint8Array | string, cb?: () => void): void;
  input(data: string, wasUserInput?: boolean): void;
  dispose(): void;
  _core?: {
    writeSync?(data: Uint8Array | string): void;
    _inputHandler?: { onRequestRefreshRows?(cb: (range: { start: number; end: number } | undefined) => void): unknown };
  };
}

export interface ScreenOptions {
  /**
   * Replies the terminal sends back to the program (DA1, DSR…, plus responder.ts's
   * XTVERSION, colours, …); the headless recorder writes them to the pty.
   */
  onReply?: (data: string) => void;
  /** Snapshots written with bare LF line endings. */
  convertEol?: boolean;
}

/** A screen remembered for `changes()`: its rows as written, and where the view was. */
export interface ScreenMark extends ScreenView {
  rows: string[];
}
/** Lines scrolled so far, the width and the buffer shown: what follows rows across scrolls. */
export interface ScreenView {
  scrolls: number;
  cols: number;
  alt: boolean;
}
export interface ScreenChanges {
  rows: string[];
  changedFrom: number[];
  cursor: { x: number; y: number };
  /** Where the view was (absent from a screen that has none to tell). */
  view?: ScreenView;
}

/**
 * For each row, the first character that differs from what that line held in the mark
 * (-1: unchanged). Shared by `Screen.changes` and the script driver, which keeps marks
 * of its own (a wait's mark covers the screen only up to the end of its match).
 */
export function changedSince(m: ScreenMark | null, rows: string[], now: ScreenView): number[] {
  const all = !m || m.cols !== now.cols || m.alt !== now.alt || m.rows.length !== rows.length;
  const shift = m ? now.scrolls - m.scrolls : 0;
  return rows.map((row, y) => {
    if (all) return 0;
    const before = m!.rows[y + shift];
    if (before === undefined) return 0;
    if (before === row) return -1;
    let i = 0;
    while (i < row.length && i < before.length && row[i] === before[i]) i++;
    return i;
  });
}

export class Screen {
  private term: XTerm;
  private writeSync: (b: Uint8Array | string) => void;
  /** Last OSC 0/2 title; "" when none or when the program cleared it. */
  title = "";
  /** Last OSC 9 payload without the leading `9;` (e.g. `4;0`), or null. */
  osc9: string | null = null;
  /** Bumped on every write and resize: cached reads are valid for one version. */
  version = 0;
  bytes = 0;
  lastOutputAt = -Infinity;
  private rowsCache: { version: number; rows: string[] } | null = null;
  /**
   * Viewport rows changed since the last read: xterm's input handler reports the dirty
   * row range of each write (all rows on a scroll, a buffer switch, a reset); "all"
   * also after a resize, or when this xterm build does not report ranges.
   */
  private dirty: { start: number; end: number } | "all" = "all";
  private tracksDirty = false;
  /** Lines scrolled so far (each one moves every row up by one). */
  private scrolls = 0;
  /** The screen at the last `mark()`: what `changes()` compares against. */
  private marked: ScreenMark | null = null;

  constructor(cols: number, rows: number, opts: ScreenOptions = {}) {
    this.term = new Terminal({
      cols,
      rows,
      // Detection reads the viewport only, but a little scrollback is kept anyway:
      // with none, xterm copies every line on each scroll and line-feed-heavy output
      // parses at half the speed (16 vs 31 MB/s for `seq`, measured).
      scrollback: SCROLLBACK,
      allowProposedApi: true,
      logLevel: "off",
      convertEol: !!opts.convertEol,
    });
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = "11";
    this.term.onTitleChange((t) => (this.title = t));
    this.term.onScroll(() => this.scrolls++);
    this.term.parser.registerOscHandler(9, (data) => {
      this.osc9 = data;
      return false; // let xterm do its own (nothing) with it
    });
    if (opts.onReply) {
      const reply = opts.onReply;
      this.term.onData((d) => d && reply(d));
      installResponder(this.term, reply);
    }
    const core = this.term._core;
    const refresh = core?._inputHandler?.onRequestRefreshRows;
    if (refresh) {
      this.tracksDirty = true;
      refresh.call(core!._inputHandler, (r) => this.markDirty(r));
    }
    if (core?.writeSync) this.writeSync = (b) => core.writeSync!(b);
    else {
      // Public-API fallback: an empty "user input" makes the next write parse at once.
      this.writeSync = (b) => {
        this.term.input("", true);
        this.term.write(b);
      };
    }
  }

  get cols(): number {
    return this.term.cols;
  }
  get rowCount(): number {
    return this.term.rows;
  }

  write(bytes: Uint8Array, t: number): void {
    if (bytes.length === 0) return;
    this.writeSync(bytes);
    this.version++;
    this.bytes += bytes.length;
    this.lastOutputAt = t;
  }

  resize(cols: number, rows: number): void {
    if (cols === this.term.cols && rows === this.term.rows) return;
    this.term.resize(cols, rows);
    this.version++;
    this.dirty = "all";
  }

  private markDirty(r: { start: number; end: number } | undefined): void {
    if (this.dirty === "all") return;
    if (!r) this.dirty = "all";
    else this.dirty = { start: Math.min(this.dirty.start, r.start), end: Math.max(this.dirty.end, r.end) };
  }

  /**
   * Viewport rows, right-trimmed (written spaces too: a TUI that paints whole rows with
   * spaces must read like one that does not). Never scrollback. Cached until the next write.
   */
  rows(): string[] {
    if (this.rowsCache && this.rowsCache.version === this.version) return this.rowsCache.rows;
    const b = this.term.buffer.active;
    const n = this.term.rows;
    const prev = this.rowsCache?.rows;
    // Only the rows a write touched are translated again (a spinner redraw: one row of 32).
    const reuse = this.tracksDirty && this.dirty !== "all" && prev && prev.length === n ? this.dirty : null;
    if (reuse && reuse.start > reuse.end) {
      // No row touched (a title, an OSC report, a cursor move): the very same array, so
      // readers can tell "same text" by identity (detectors' memoText).
      this.rowsCache = { version: this.version, rows: prev! };
      return prev!;
    }
    const out: string[] = reuse ? prev!.slice() : new Array(n);
    const from = reuse ? Math.max(0, reuse.start) : 0, to = reuse ? Math.min(n - 1, reuse.end) : n - 1;
    for (let y = from; y <= to; y++) {
      const line = b.getLine(b.baseY + y);
      out[y] = line ? rowText(line).trimEnd() : "";
    }
    this.rowsCache = { version: this.version, rows: out };
    this.dirty = { start: Infinity, end: -Infinity };
    return out;
  }

  /**
   * Not used by the product: the reference screen_test.ts compares rows() with, every
   * viewport row read afresh through xterm's own reader (it needs the private terminal).
   */
  rowsFull(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      out.push((b.getLine(b.baseY + y)?.translateToString(true) ?? "").trimEnd());
    }
    return out;
  }

  /**
   * Viewport rows as written: trailing spaces the program wrote are kept (a prompt's
   * `>>> `), cells never written are not.
   */
  rowsAsWritten(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      const line = b.getLine(b.baseY + y);
      out.push(line ? rowText(line) : "");
    }
    return out;
  }

  /** Remembers the screen as it is now, for `changes()`. */
  mark(): void {
    this.marked = { rows: this.rowsAsWritten(), scrolls: this.scrolls, cols: this.cols, alt: this.altScreen };
  }

  /**
   * The rows as written, and for each the first character that differs from what that
   * line held at the last mark (-1: unchanged). Lines are followed as they scroll, so a
   * line that only moved up is unchanged and a line scrolled in is new from column 0;
   * a resize or a switch of screen buffer makes every row new. Text redrawn identically
   * in place is unchanged: it did not appear.
   */
  changes(): ScreenChanges {
    const rows = this.rowsAsWritten();
    const view = { scrolls: this.scrolls, cols: this.cols, alt: this.altScreen };
    return { rows, changedFrom: changedSince(this.marked, rows, view), cursor: this.cursor(), view };
  }

  get altScreen(): boolean {
    return this.term.buffer.active.type === "alternate";
  }

  cursor(): { x: number; y: number } {
    const b = this.term.buffer.active;
    return { x: b.cursorX, y: b.cursorY };
  }

  dispose(): void {
    this.term.dispose();
  }
}
