// The version-neutral recording model (after asciinema 3.x's asciicast.rs): a header
// and a time-ordered stream of events. Time is seconds from the start, as a float,
// everywhere inside pstlab; only readers and writers convert.

import { FixtureError } from "../errors.ts";
import { MAX_SECONDS, SIZE_MAX } from "../units.ts";

export interface Header {
  cols: number;
  rows: number;
  termType?: string;
  termVersion?: string;
  theme?: unknown;
  /** Unix seconds. */
  timestamp?: number;
  idleTimeLimit?: number;
  command?: string;
  title?: string;
  env?: Record<string, string>;
  /** env entries whose values are not strings: not an environment, but in the file, so written back (and scrubbed by redact). */
  envExtra?: Record<string, unknown>;
  tags?: string[];
  /** Our namespaced header key (`pstlab`): tool, spec revision, fixture schema, … */
  provenance?: Provenance;
  /** Header keys we do not know, kept so v3 → v3 passes them through. */
  extra?: Record<string, unknown>;
}

export interface Provenance {
  tool: string;
  version: string;
  osc7501_revision: string;
  fixture_schema: number;
  /** Whether the recorder answered `OSC 7501;?` (null: unknown, e.g. converted). */
  query_answered?: boolean | null;
  emitter?: string | null;
  /** How truth labels were produced ("labels-fifo", "script", "hand", …). */
  truth?: string | null;
  /** The sources beyond the bytes the recorder captured: "process", "hooks" (docs/fixture-format.md convention 9). */
  sources?: string[];
  [k: string]: unknown;
}

export type Event =
  | { t: number; kind: "output"; bytes: Uint8Array }
  | { t: number; kind: "input"; bytes: Uint8Array }
  | { t: number; kind: "resize"; cols: number; rows: number }
  | { t: number; kind: "marker"; label: string }
  | { t: number; kind: "exit"; status: number }
  /** Codes we do not know (single character), passed through. */
  | { t: number; kind: "other"; code: string; data: string };

export type Format = "v3" | "v2" | "raw" | "ttyrec" | "script" | "snapshot";

export interface Recording {
  format: Format;
  path: string;
  header: Header;
  events: AsyncIterable<Event>;
  /** Filled while `events` is consumed (a truncated last line, a dropped `b`…). */
  warnings: string[];
  /**
   * A pipe's (stdin, a FIFO) sha256 of every byte read, once `events` was consumed to
   * the end (null before). A regular file is hashed by its path (source.ts sha256File):
   * a pipe can be read only once, by the analysis.
   */
  digest?: () => string | null;
}

/**
 * Events handed over in runs, one await per run instead of one per event: a reader that
 * has many at once (lib/recording/ahead.ts's batches). A consumer reads either `runs` or
 * the recording's `events`, not both: they drain the same reader.
 */
export interface EventRuns {
  runs: AsyncIterable<readonly Event[]>;
}

export const FIXTURE_SCHEMA = 1;

/**
 * The marker (`m` event) the recorder writes when it sends a late answer to the OSC 7501 query
 * (`record --answer-delay`), at the time it is sent: the header is written before the session,
 * so it cannot say whether the answer went out before the program ended; these markers do.
 * A query with no such marker was never answered.
 */
export const QUERY_ANSWERED_MARKER = "pstlab:query-answered";
/**
 * The markers the recorder writes when it ends the session itself (a script wait that
 * timed out, `--timeout`), followed by why: `check` reads them as the session's failure,
 * not the program's.
 */
export const SESSION_STOP_MARKERS = {
  script: "pstlab: script failed: ",
  timeout: "pstlab: stopped by --timeout ",
} as const;
export const DEFAULT_SIZE = { cols: 120, rows: 32 };

// The limits every reader applies, in one place, so a hostile or corrupt file ends in
// one clear `file:line` error instead of a 19 GB screen or an endless analysis.

/** The largest window a reader accepts, each way (the same as --size). */
export const MAX_DIMENSION = SIZE_MAX;
/** The latest time a reader accepts, in seconds (~3 years): beyond it a time field is corrupt. */
export const MAX_TIME = MAX_SECONDS;

/** A size a reader found: 1–MAX_DIMENSION each way, or a FixtureError naming where. */
export function checkedSize(
  file: string,
  line: number | null,
  cols: number,
  rows: number,
  what = "size",
): { cols: number; rows: number } {
  if (
    !Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1 || cols > MAX_DIMENSION ||
    rows > MAX_DIMENSION
  ) {
    throw new FixtureError(file, line, `${what} ${cols}x${rows} is out of range (1–${MAX_DIMENSION} each way)`);
  }
  return { cols, rows };
}

/** A time a reader computed (seconds from the start): finite and at most MAX_TIME. */
export function checkedTime(file: string, line: number | null, t: number, what = "time"): number {
  if (!Number.isFinite(t) || t > MAX_TIME) {
    throw new FixtureError(
      file,
      line,
      `${what} ${t} s is beyond the limit (${MAX_TIME} s): the file's times are corrupt`,
    );
  }
  return t;
}

/** An `r` event's `COLSxROWS`; null when malformed (not a size at all). Its bounds are checkedSize's; --size is units.ts parseSize. */
export function parseResizeData(s: string): { cols: number; rows: number } | null {
  const m = /^([0-9]{1,9})x([0-9]{1,9})$/.exec(s);
  return m ? { cols: Number(m[1]), rows: Number(m[2]) } : null;
}

/**
 * The keys that label the truth, the same wherever a person labels (record's prefix
 * key, play --label, record --script's `label`), and the `truth:` marker each writes
 * (fixture convention 4).
 */
export const LABEL_KEYS: Record<string, string> = {
  w: "truth:working",
  p: "truth:blocked:permission",
  q: "truth:blocked:question",
  a: "truth:blocked:auth",
  b: "truth:blocked",
  i: "truth:idle",
  d: "truth:done",
  e: "truth:error",
};
