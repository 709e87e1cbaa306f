// The slices of input a rule's matchers see (Herdr's regions, docs/detection.md §4).
// Screen regions are computed from viewport rows only — never scrollback: an answered
// prompt scrolled out of view must not count (osFoundry: it "would report the agent as
// blocked forever").
//
// pstlab adds regions for the live part of the screen (issue 21, class 1: a dialog
// answered a moment ago stays on screen above a fresh input box, and its `❯ 1. Yes`
// still matched): `after_last_input_box` drops everything down to the last idle input
// box, and `cursor_line` / `to_cursor_non_empty_lines(N)` end at the cursor's row, so a
// question is found above a tmux status bar or a footer. Both manifest styles accept them.

export type RegionName =
  | "osc_title"
  | "osc_progress"
  | "whole_recent"
  | "bottom_lines"
  | "bottom_non_empty_lines"
  | "top_non_empty_lines"
  | "after_last_horizontal_rule"
  | "prompt_box_body"
  | "above_prompt_box"
  | "last_non_empty_above_prompt_box"
  | "after_last_prompt_marker"
  | "before_current_prompt_marker"
  | "whole_recent_without_current_prompt_marker"
  | "current_prompt_block_marker"
  | "after_current_prompt_block_marker"
  | "after_last_input_box"
  | "bottom_after_input_box"
  | "cursor_line"
  | "to_cursor_non_empty_lines";

export interface Region {
  name: RegionName;
  n?: number;
  /** Canonical spelling, e.g. "bottom_non_empty_lines(12)". */
  key: string;
}

const WITH_N = new Set<RegionName>([
  "bottom_lines",
  "bottom_non_empty_lines",
  "top_non_empty_lines",
  "to_cursor_non_empty_lines",
  "bottom_after_input_box",
]);
const PLAIN = new Set<RegionName>([
  "osc_title",
  "osc_progress",
  "whole_recent",
  "after_last_horizontal_rule",
  "prompt_box_body",
  "above_prompt_box",
  "last_non_empty_above_prompt_box",
  "after_last_prompt_marker",
  "before_current_prompt_marker",
  "whole_recent_without_current_prompt_marker",
  "current_prompt_block_marker",
  "after_current_prompt_block_marker",
  "after_last_input_box",
  "cursor_line",
]);

export function parseRegion(s: string): Region | null {
  const m = /^([a-z_]+)(?:\(([0-9]{1,4})\))?$/.exec(s.trim());
  if (!m) return null;
  const name = m[1] as RegionName;
  if (WITH_N.has(name)) {
    if (m[2] === undefined) return null;
    const n = Number(m[2]);
    if (n < 1) return null;
    return { name, n, key: `${name}(${n})` };
  }
  if (PLAIN.has(name) && m[2] === undefined) return { name, key: name };
  return null;
}

export interface RegionSource {
  rows(): readonly string[];
  title: string;
  osc9: string | null;
  /** The cursor (viewport row y); absent for views without one (the raw tail), read as the last row. */
  cursor?(): { x: number; y: number };
}

const blank = (l: string) => l.trim().length === 0;

/** A line made of `─` only (at least 3 of them, or the whole line): Claude's box edges. */
export function isHorizontalRule(line: string): boolean {
  const t = line.trim();
  return t.length > 0 && /^─+$/.test(t) && (t.length >= 3 || t.length === line.length);
}

/** Codex's prompt line: `›` alone or `› …`. */
export function isPromptMarker(line: string): boolean {
  const t = line.trimStart();
  return t === "›" || t.startsWith("› ");
}

const BLOCK_MARKERS = ["•", "■", "✗", "✓"];
function isBlockMarker(line: string): boolean {
  const t = line.trimStart();
  return BLOCK_MARKERS.some((m) => t.startsWith(m));
}

/** A prompt glyph an agent's input box starts with, then what the user typed or a placeholder. */
const INPUT_ROW = /^\s*(?:│\s*)?[❯›>▌]\s?(.*?)\s*(?:│\s*)?$/u;
/** A row that opens a box: a rule (`────`) or a box top (`╭──╮`, `┌──┐`). */
const BOX_TOP = /^\s*(?:[╭┌]─+[╮┐]|─{3,})\s*$/u;
/** A menu option (`❯ 1. Yes`): a selection mark, not an input box. */
const OPTION = /^\d+[.)]\s/;

/**
 * An idle input box: a prompt glyph row directly under a rule or a box top, or inside
 * box borders (`│ > … │`), holding nothing, a placeholder or what the user is typing;
 * or `❯` / `›` alone on a row. A selection mark on a numbered option is not one, nor a
 * transcript's echo of a sent prompt (`❯ run the tests`, unframed, with text).
 */
export function isInputBoxRow(lines: readonly string[], i: number): boolean {
  const m = INPUT_ROW.exec(lines[i]);
  if (!m || OPTION.test(m[1])) return false;
  const t = lines[i].trim();
  if (t === "❯" || t === "›") return true;
  const framed = /^│.*│$/.test(t);
  return framed || (i > 0 && BOX_TOP.test(lines[i - 1]));
}

/** The rows from the n-th non-blank row above `end` (exclusive) to `end`, trailing blank rows dropped. */
function nonEmptyUpTo(rows: readonly string[], end: number, n: number): string[] {
  let stop = end;
  while (stop > 0 && blank(rows[stop - 1])) stop--;
  let seen = 0;
  for (let i = stop - 1; i >= 0; i--) if (!blank(rows[i]) && ++seen === n) return rows.slice(i, stop) as string[];
  return rows.slice(0, stop) as string[];
}

function lastIndex(lines: readonly string[], pred: (l: string) => boolean, before = lines.length): number {
  for (let i = Math.min(before, lines.length) - 1; i >= 0; i--) if (pred(lines[i])) return i;
  return -1;
}

/** isInputBoxRow's answers per stream (RegionView `stream`), by place: the rows they were for. */
const boxMemo = new WeakMap<object, { row: string[]; above: (string | undefined)[]; hit: boolean[] }>();

/** Region text, cached per input; `lines` are the screen rows without trailing blank rows. */
export class RegionView {
  private cache = new Map<string, string>();
  private lower = new Map<string, string>();
  private split = new Map<string, readonly string[]>();
  private rowCache = new Map<string, readonly string[]>();
  private _lines: string[] | null = null;
  /** Some source row holds a line break (not a screen's: a test's, a title): rows are then split. */
  private _rowsHoldBreaks: boolean | null = null;
  private _afterBox: string[] | null = null;

  /**
   * `stream`: an object standing for the sequence of inputs this one belongs to (an
   * observer's screens, a detector's tails): per-row memos keep each stream's last rows
   * by place under it. None: rows are looked up by text only.
   */
  constructor(readonly src: RegionSource, readonly stream: object | null = null) {}

  lines(): string[] {
    if (this._lines) return this._lines;
    const rows = this.src.rows();
    let end = rows.length;
    while (end > 0 && blank(rows[end - 1])) end--;
    return (this._lines = rows.slice(0, end) as string[]);
  }

  /**
   * The region as the rows it is made of, not joined (issue 25: rules evaluated per row
   * never pay for the join). `rows(r).join("\n") === text(r)` always; the rows are the
   * source's own strings, so an unchanged screen row is the same string from one screen
   * state to the next.
   */
  rows(r: Region): readonly string[] {
    let l = this.rowCache.get(r.key);
    if (l === undefined) {
      l = this.compute(r);
      this.rowCache.set(r.key, l);
    }
    return l;
  }

  text(r: Region): string {
    let t = this.cache.get(r.key);
    if (t === undefined) {
      const rows = this.rows(r);
      t = rows.length === 1 ? rows[0] : rows.join("\n");
      this.cache.set(r.key, t);
    }
    return t;
  }

  lowerText(r: Region): string {
    let t = this.lower.get(r.key);
    if (t === undefined) {
      t = this.text(r).toLowerCase();
      this.lower.set(r.key, t);
    }
    return t;
  }

  /**
   * The region's lines: its text split at line breaks (none for an empty text). The
   * rows themselves when no row holds a line break, as screen rows never do.
   */
  regionLines(r: Region): readonly string[] {
    let l = this.split.get(r.key);
    if (l === undefined) {
      const rows = this.rows(r);
      if (rows.length === 0 || (rows.length === 1 && rows[0] === "")) l = [];
      else if (!this.rowsHoldBreaks(r)) l = rows;
      else l = this.text(r).split("\n");
      this.split.set(r.key, l);
    }
    return l;
  }

  private rowsHoldBreaks(r: Region): boolean {
    if (r.name === "osc_title" || r.name === "osc_progress") return this.text(r).includes("\n");
    if (this._rowsHoldBreaks === null) {
      const rows = this.src.rows();
      let found = false;
      for (let i = 0; i < rows.length && !found; i++) found = rows[i].includes("\n");
      this._rowsHoldBreaks = found;
    }
    return this._rowsHoldBreaks;
  }

  /**
   * The rows below the last idle input box at or above the cursor's row (all rows when
   * there is none). A box below the cursor was drawn before what the cursor ended after:
   * a dialog drawn over a screen whose box is still shown (pstlab's simulated agent) is
   * the newest thing on it, and live.
   */
  private afterInputBox(): string[] {
    if (this._afterBox) return this._afterBox;
    const lines = this.lines();
    const top = this.src.cursor ? Math.min(this.cursorRow(), lines.length - 1) : lines.length - 1;
    // Per stream, each row's answer is kept by place with the two rows it was read from
    // (the row and the one above): an unchanged row is the same string from one screen
    // state to the next (a spinner redraw changes one row of 32).
    let memo = this.stream ? boxMemo.get(this.stream) : undefined;
    if (this.stream && !memo) boxMemo.set(this.stream, memo = { row: [], above: [], hit: [] });
    for (let i = top; i >= 0; i--) {
      let hit: boolean;
      const above = i > 0 ? lines[i - 1] : undefined;
      if (memo && memo.row[i] === lines[i] && memo.above[i] === above) hit = memo.hit[i];
      else {
        hit = isInputBoxRow(lines, i);
        if (memo) {
          memo.row[i] = lines[i];
          memo.above[i] = above;
          memo.hit[i] = hit;
        }
      }
      if (hit) return (this._afterBox = lines.slice(i + 1));
    }
    return (this._afterBox = lines);
  }

  /** The cursor's row; without a cursor, the last row (the raw tail's current line). */
  private cursorRow(): number {
    const rows = this.src.rows();
    const y = this.src.cursor ? this.src.cursor().y : rows.length - 1;
    return Math.min(Math.max(0, y), Math.max(0, rows.length - 1));
  }

  private compute(r: Region): readonly string[] {
    const L = () => this.lines();
    switch (r.name) {
      case "osc_title":
        return [this.src.title];
      case "osc_progress":
        return [this.src.osc9 ?? ""];
      case "whole_recent":
        return L();
      case "bottom_lines":
        return L().slice(-r.n!);
      case "bottom_non_empty_lines":
        return nonEmptyUpTo(L(), L().length, r.n!);
      case "to_cursor_non_empty_lines": {
        // A blank cursor row (a program between lines, a TUI that parks its cursor) reads as the bottom.
        const rows = this.src.rows(), y = this.cursorRow();
        return blank(rows[y] ?? "") ? nonEmptyUpTo(L(), L().length, r.n!) : nonEmptyUpTo(rows, y + 1, r.n!);
      }
      case "cursor_line":
        return [this.src.rows()[this.cursorRow()] ?? ""];
      case "after_last_input_box":
        return this.afterInputBox();
      case "bottom_after_input_box": {
        const below = this.afterInputBox();
        return nonEmptyUpTo(below, below.length, r.n!);
      }
      case "top_non_empty_lines": {
        const lines = L();
        let seen = 0;
        for (let i = 0; i < lines.length; i++) {
          if (!blank(lines[i]) && ++seen === r.n) return lines.slice(0, i + 1);
        }
        return lines;
      }
      case "after_last_horizontal_rule": {
        const lines = L();
        const i = lastIndex(lines, isHorizontalRule);
        return i < 0 ? [] : lines.slice(i + 1);
      }
      case "prompt_box_body":
      case "above_prompt_box":
      case "last_non_empty_above_prompt_box": {
        const lines = L();
        const last = lastIndex(lines, isHorizontalRule);
        const prev = last < 0 ? -1 : lastIndex(lines, isHorizontalRule, last);
        if (prev < 0) return [];
        if (r.name === "prompt_box_body") return lines.slice(prev + 1, last);
        const above = lines.slice(0, prev);
        if (r.name === "above_prompt_box") return above;
        const j = lastIndex(above, (l) => !blank(l));
        return j < 0 ? [] : [above[j]];
      }
      case "after_last_prompt_marker": {
        const lines = L();
        const i = lastIndex(lines, isPromptMarker);
        return i < 0 ? [] : lines.slice(i + 1);
      }
      case "before_current_prompt_marker": {
        const lines = L();
        const i = lastIndex(lines, isPromptMarker);
        return i < 0 ? lines : lines.slice(0, i);
      }
      case "whole_recent_without_current_prompt_marker": {
        const lines = L();
        const i = lastIndex(lines, isPromptMarker);
        return i < 0 ? lines : [...lines.slice(0, i), ...lines.slice(i + 1)];
      }
      case "current_prompt_block_marker":
      case "after_current_prompt_block_marker": {
        const lines = L();
        const p = lastIndex(lines, isPromptMarker);
        const b = lastIndex(lines, isBlockMarker, p < 0 ? lines.length : p);
        if (b < 0) return [];
        if (r.name === "current_prompt_block_marker") return lines.slice(b, p < 0 ? lines.length : p);
        return lines.slice(b + 1);
      }
    }
  }
}
