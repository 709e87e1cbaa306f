// Scoring single instants: a folder of labelled screen snapshots (tmux capture-pane,
// test fixtures, .ansi.txt, insta .snap) judged by every detector that can judge one
// instant — accuracy, the confusion matrix (truth × verdict) and the misjudged files
// with the rule that fired. How a manifest author checks rules against a hundred panes.

import * as fs from "node:fs";
import * as path from "node:path";
import { FixtureError } from "../errors.ts";
import { forEachLabelLine, TRUTH_LABELS, truthStateOf } from "./truth.ts";
import { parseResizeData } from "../recording/model.ts";
import { SIZE_MAX, SIZE_MIN } from "../units.ts";

export interface SnapshotLabel {
  /** Resolved against the labels file's folder (for reading). */
  path: string;
  /** As written in the labels file (for printing: no absolute paths in shared tables). */
  given: string;
  state: "idle" | "working" | "blocked";
  kind: string | null;
  line: number;
  /** The pane's size (`size` column, COLSxROWS): read at it, not at a default. */
  size?: { cols: number; rows: number };
  /** The program on screen (`program` column): `--manifest auto` chooses by it. */
  program?: string;
  /** Every other named column (version, source, …), as written. */
  meta: Record<string, string>;
}

/** The columns of a labels file without a header. */
export const DEFAULT_COLUMNS = ["path", "state", "kind"];
const COLUMN = /^[a-z][a-z0-9_]*$/;

/**
 * Whether a labels file labels snapshots (`PATH<TAB>state`) rather than times
 * (`seconds<TAB>state`), from its first label. A first field that starts like a number
 * but is none ("1O.5", "-3", "12s") and names no file beside `file` is a mistyped time:
 * read as times, the file's own line is what the error names (as a snapshot label it
 * said only that the capture had no label).
 */
export function isSnapshotLabels(text: string, file?: string): boolean {
  const first = text.split("\n").find((l) => l.trim() !== "" && !l.startsWith("#"));
  if (first === undefined) return false;
  const field = first.split("\t")[0].trim();
  if (/^[0-9.]+$/.test(field) && first.includes("\t")) return false;
  if (file !== undefined && /^[-+0-9.]/.test(field)) {
    return fs.existsSync(path.resolve(path.dirname(file), field));
  }
  return true;
}

/**
 * The header comment naming the columns (`# path state kind size program version source`):
 * the first comment line before any label whose words are all column names and include
 * path and state. Other comments are comments.
 */
export function labelColumns(text: string): string[] {
  for (const raw of text.split("\n")) {
    const l = raw.replace(/\r$/, "");
    if (l.trim() === "") continue;
    if (!l.startsWith("#")) break;
    const words = l.slice(1).trim().split(/[\s]+/);
    if (words.includes("path") && words.includes("state") && words.every((w) => COLUMN.test(w))) {
      return words;
    }
  }
  return DEFAULT_COLUMNS;
}

/** The most a pane capture named by a labels file may hold (a screen is a few KiB; a log is not a screen). */
export const MAX_SNAPSHOT_BYTES = 16 << 20;

/**
 * A labels line names a file to read: it must be inside the labels file's folder (a path
 * relative to it, without `..`: a corpus from elsewhere cannot make pstlab read ~/.ssh),
 * and, when it exists, a regular file of at most MAX_SNAPSHOT_BYTES (`/dev/zero` or a
 * FIFO would be read for ever).
 */
/** The real path of `p`, or of its nearest existing parent plus the rest (a file not made yet). */
function realOrNearest(p: string): string {
  const rest: string[] = [];
  let at = path.resolve(p);
  while (true) {
    try {
      return path.join(fs.realpathSync(at), ...rest);
    } catch {
      if (path.dirname(at) === at) return path.join(at, ...rest);
      rest.unshift(path.basename(at));
      at = path.dirname(at);
    }
  }
}

function snapshotPath(base: string, given: string, file: string, line: number): string {
  if (path.isAbsolute(given) || given.split(/[\\/]/).includes("..")) {
    throw new FixtureError(
      file,
      line,
      `${
        JSON.stringify(given)
      }: a path must be relative to the labels file's folder and stay inside it (no absolute path, no ..)`,
    );
  }
  const p = path.resolve(base, given);
  // A symlink in the folder (`s.txt -> /etc/passwd`, `rootdir -> /`) leads out of it as
  // surely as `..`: the resolved path of what exists must still be inside the folder.
  const real = realOrNearest(p), realBase = realOrNearest(base);
  const rel = path.relative(realBase, real);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    throw new FixtureError(
      file,
      line,
      `${JSON.stringify(given)}: leads out of the labels file's folder through a symbolic link (to ${real})`,
    );
  }
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(p);
  } catch { /* missing: the reader says so, naming it */ }
  if (st && !st.isFile()) throw new FixtureError(file, line, `${JSON.stringify(given)} is not a regular file`);
  if (st && st.size > MAX_SNAPSHOT_BYTES) {
    throw new FixtureError(
      file,
      line,
      `${JSON.stringify(given)} is over ${MAX_SNAPSHOT_BYTES} bytes, not a pane capture`,
    );
  }
  return p;
}

/**
 * `PATH<TAB>state[<TAB>kind]`, or the columns a header comment names; PATH relative to
 * the labels file's folder. An empty cell or `-` is no value.
 */
export function parseSnapshotLabels(text: string, file: string): SnapshotLabel[] {
  const base = path.dirname(file);
  const columns = labelColumns(text);
  const dup = columns.find((c, i) => columns.indexOf(c) !== i);
  if (dup) throw new FixtureError(file, null, `the header names the column "${dup}" twice`);
  const out: SnapshotLabel[] = [];
  forEachLabelLine(text, (f, line, l) => {
    const cell: Record<string, string> = {};
    columns.forEach((c, i) => {
      const v = f[i]?.trim() ?? "";
      if (v !== "" && v !== "-") cell[c] = v;
    });
    if (f.length > columns.length && f.slice(columns.length).some((x) => x.trim() !== "")) {
      throw new FixtureError(
        file,
        line,
        `${f.length} columns, the header names ${columns.length} (${columns.join(" ")})`,
      );
    }
    if (!cell.path || !cell.state) {
      throw new FixtureError(
        file,
        line,
        `expected "${columns.map((c) => c.toUpperCase()).join("<TAB>")}", got ${JSON.stringify(l.slice(0, 60))}`,
      );
    }
    const state = truthStateOf(cell.state);
    if (!state) throw new FixtureError(file, line, `unknown state "${cell.state}" (use ${TRUTH_LABELS.join(", ")})`);
    let size: { cols: number; rows: number } | undefined;
    if (cell.size !== undefined) {
      const sz = parseResizeData(cell.size);
      if (!sz || sz.cols < SIZE_MIN || sz.rows < SIZE_MIN || sz.cols > SIZE_MAX || sz.rows > SIZE_MAX) {
        throw new FixtureError(file, line, `bad size "${cell.size}" (COLSxROWS, each ${SIZE_MIN}–${SIZE_MAX})`);
      }
      size = sz;
    }
    const meta: Record<string, string> = {};
    for (const [k, v] of Object.entries(cell)) {
      if (!["path", "state", "kind", "size", "program"].includes(k)) meta[k] = v;
    }
    out.push({
      path: snapshotPath(base, cell.path, file, line),
      given: cell.path,
      state,
      kind: cell.kind ?? null,
      line,
      size,
      program: cell.program,
      meta,
    });
  });
  if (out.length === 0) throw new FixtureError(file, null, "no labels");
  // One file labelled twice: the same state is a harmless repeat; two states cannot both be
  // the truth (the later would silently win or be counted twice).
  const first = new Map<string, SnapshotLabel>();
  for (const l of out) {
    const k = realOrNearest(l.path);
    const seen = first.get(k);
    if (!seen) first.set(k, l);
    else if (seen.state !== l.state) {
      throw new FixtureError(
        file,
        l.line,
        `${JSON.stringify(l.given)} is labelled ${l.state} here and ${seen.state} at ${file}:${seen.line}${
          seen.given === l.given ? "" : ` (as ${JSON.stringify(seen.given)})`
        }: one file, one truth`,
      );
    }
  }
  return out;
}

export interface Judged {
  /** As the labels file gives it. */
  path: string;
  /** Reading the file (a size smaller than its text, …), paths as given. */
  warnings: string[];
  truth: SnapshotLabel;
  /** detector name → its verdict on the snapshot. */
  verdicts: { detector: string; state: string; needsYou: boolean; rule: string | null }[];
}

export interface SnapshotScore {
  detector: string;
  total: number;
  correct: number;
  accuracy: number;
  /** truth state → verdict state → count. */
  confusion: Record<string, Record<string, number>>;
  misjudged: { path: string; truth: string; verdict: string; rule: string | null }[];
}

const verdictState = (v: { state: string; needsYou: boolean }) => (v.needsYou ? "blocked" : v.state);

export function scoreSnapshots(judged: Judged[]): SnapshotScore[] {
  const names = judged[0]?.verdicts.map((v) => v.detector) ?? [];
  return names.map((detector, i) => {
    const confusion: Record<string, Record<string, number>> = {};
    const misjudged: SnapshotScore["misjudged"] = [];
    let correct = 0;
    for (const j of judged) {
      const v = j.verdicts[i];
      const got = verdictState(v);
      const row = (confusion[j.truth.state] ??= {});
      row[got] = (row[got] ?? 0) + 1;
      if (got === j.truth.state) correct++;
      else {misjudged.push({
          path: j.path,
          truth: `${j.truth.state}${j.truth.kind ? `:${j.truth.kind}` : ""}`,
          verdict: got,
          rule: v.rule,
        });}
    }
    return {
      detector,
      total: judged.length,
      correct,
      accuracy: judged.length ? correct / judged.length : 0,
      confusion,
      misjudged,
    };
  });
}
