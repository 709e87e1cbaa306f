// Parsing the units users type: durations, bounded numbers, window sizes. Each rejects
// with one UsageError line that names the flag and the accepted form.

import { UsageError } from "./errors.ts";

/**
 * The one window-size range, for every --size and every size a reader accepts from a flag.
 * 2000: a tmux window resized to 1200 columns was recorded and then refused by every
 * reader (at 1000); a screen of 2000x2000 with its scrollback is ~50 MB of cells.
 */
export const SIZE_MIN = 2;
export const SIZE_MAX = 2000;

/**
 * A window size as pstlab records it: 1–SIZE_MAX each way, so that every recording reads
 * back. A larger terminal gives its program this size (the recorder says so in a marker).
 */
export function fitSize(cols: number, rows: number): { cols: number; rows: number } {
  const fit = (n: number) => Math.min(Math.max(1, Math.floor(n) || 1), SIZE_MAX);
  return { cols: fit(cols), rows: fit(rows) };
}

/**
 * The longest time pstlab takes or writes, in seconds (~3 years): a capture's times
 * (recording/model.ts MAX_TIME) and every duration typed. A gap or a timeout past it
 * would only fail later — a writer refusing the time it makes, a timer overflowing.
 */
export const MAX_SECONDS = 1e8;

/** Seconds from "12", "1.5", "500ms", "2s", "1m30s", "1h"; at most MAX_SECONDS. */
export function parseDuration(s: string, what = "duration"): number {
  const t = s.trim();
  let total = 0;
  if (/^[0-9]+(\.[0-9]+)?$/.test(t)) total = Number(t);
  else {
    const re = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/gy;
    // Each unit once, largest first ("1m30s", not "1s1s" or "30s1m": a typo, not a sum).
    const RANK = { h: 4, m: 3, s: 2, ms: 1 } as const;
    let matched = 0, last = 5, m: RegExpExecArray | null;
    while ((m = re.exec(t))) {
      const n = Number(m[1]), unit = m[2] as keyof typeof RANK;
      if (RANK[unit] >= last) {
        matched = -1;
        break;
      }
      last = RANK[unit];
      total += unit === "ms" ? n / 1000 : unit === "s" ? n : unit === "m" ? n * 60 : n * 3600;
      matched = re.lastIndex;
    }
    if (matched !== t.length || t.length === 0) total = NaN;
  }
  if (!Number.isFinite(total)) throw new UsageError(`bad ${what} "${s}" (use seconds, or e.g. 500ms, 2s, 1m30s)`);
  if (total > MAX_SECONDS) throw new UsageError(`bad ${what} "${s}" (at most ${MAX_SECONDS} s, about 3 years)`);
  return total;
}

export function parseNumber(s: string, what: string, min = -Infinity, max = Infinity, integer = false): number {
  const n = Number(s);
  if (s.trim() === "" || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    const range = min > -Infinity && max < Infinity
      ? ` (expected ${integer ? "an integer " : ""}${min}–${max})`
      : min > -Infinity
      ? ` (expected ${integer ? "an integer" : "a number"} ≥ ${min})`
      : integer
      ? " (expected an integer)"
      : " (expected a number)";
    throw new UsageError(`bad ${what} "${s}"${range}`);
  }
  return n;
}

export function parseSize(s: string, what = "size"): { cols: number; rows: number } {
  const m = /^([0-9]{1,5})x([0-9]{1,5})$/.exec(s);
  const cols = m ? Number(m[1]) : 0, rows = m ? Number(m[2]) : 0;
  if (!m || cols < SIZE_MIN || rows < SIZE_MIN || cols > SIZE_MAX || rows > SIZE_MAX) {
    throw new UsageError(`bad ${what} "${s}" (use COLSxROWS, each ${SIZE_MIN}–${SIZE_MAX}, e.g. 120x32)`);
  }
  return { cols, rows };
}
