// Parsing the units users type: durations, bounded numbers, window sizes. Each rejects
// with one UsageError line that names the flag and the accepted form.

import { UsageError } from "./errors.ts";

/** The one window-size range, for every --size and every size a reader accepts from a flag. */
export const SIZE_MIN = 2;
export const SIZE_MAX = 1000;

/** Seconds from "12", "1.5", "500ms", "2s", "1m30s", "1h". */
export function parseDuration(s: string, what = "duration"): number {
  const t = s.trim();
  let total = 0;
  if (/^[0-9]+(\.[0-9]+)?$/.test(t)) total = Number(t);
  else {
    const re = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/gy;
    let matched = 0, m: RegExpExecArray | null;
    while ((m = re.exec(t))) {
      const n = Number(m[1]);
      total += m[2] === "ms" ? n / 1000 : m[2] === "s" ? n : m[2] === "m" ? n * 60 : n * 3600;
      matched = re.lastIndex;
    }
    if (matched !== t.length || t.length === 0) total = NaN;
  }
  if (!Number.isFinite(total)) throw new UsageError(`bad ${what} "${s}" (use seconds, or e.g. 500ms, 2s, 1m30s)`);
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
