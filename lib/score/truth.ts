// Ground truth as a piecewise-constant timeline: from `truth:` markers in the capture
// (docs/fixture-format.md convention 3: a label applies until the next one), from a labels
// file (TSV `seconds<TAB>state[<TAB>kind]`), or from any detector's verdicts.

import type { Timeline } from "../detect/timeline.ts";
import { FixtureError } from "../errors.ts";

export type TruthState = "idle" | "working" | "blocked" | "unlabeled";
export const TRUTH_LABELS = ["idle", "working", "blocked", "done", "error"] as const;

export interface TruthSegment {
  start: number;
  state: TruthState;
  kind: string | null;
}

/** Change points; each segment lasts until the next one (the last until the end). */
export interface Truth {
  source: string;
  segments: TruthSegment[];
  /** A labels file's: what was read with a warning (out of order). */
  warnings?: string[];
  /** A labels file's: the time of its last label. */
  last?: number;
}

/** `done` and `error` are "finished, waiting for the user's next look": idle for scoring. */
export function truthStateOf(label: string): Exclude<TruthState, "unlabeled"> | null {
  switch (label) {
    case "idle":
    case "done":
    case "error":
      return "idle";
    case "working":
      return "working";
    case "blocked":
      return "blocked";
    default:
      return null;
  }
}

function push(segs: TruthSegment[], s: TruthSegment): void {
  const last = segs.at(-1);
  if (last && last.state === s.state && last.kind === s.kind) return;
  if (last && Math.abs(last.start - s.start) < 1e-9) segs.pop(); // two labels at the same time: the later wins
  segs.push(s);
}

/** `truth:blocked:permission` → blocked/permission; null for other markers. */
export function parseTruthLabel(label: string): { state: TruthState; kind: string | null } | null {
  if (!label.startsWith("truth:")) return null;
  const [st, kind] = label.slice(6).split(":");
  const state = truthStateOf(st);
  return state ? { state, kind: kind || null } : null;
}

/**
 * Why a `truth:` marker is no truth label ("truth:idel"), or null (it is one, or not a
 * truth marker at all). A misspelt label was skipped without a word, and the label before
 * it held on: the report scored the rest against the wrong truth.
 */
export function truthLabelProblem(label: string): string | null {
  if (!label.startsWith("truth:") || parseTruthLabel(label)) return null;
  return `"${label}" is not a truth label (use truth:${TRUTH_LABELS.join(", truth:")}, with :KIND after blocked)`;
}

/** One warning per distinct misspelt truth label, at its first time. */
export function truthMarkerWarnings(path: string, markers: { t: number; label: string }[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of markers) {
    if (seen.has(m.label)) continue;
    seen.add(m.label);
    const why = truthLabelProblem(m.label);
    if (why) out.push(`${path}: marker at ${m.t.toFixed(3)} s: ${why}; ignored, the label before it holds`);
  }
  return out;
}

export function truthFromMarkers(markers: { t: number; label: string }[]): Truth | null {
  const segs: TruthSegment[] = [];
  for (const m of markers) {
    const p = parseTruthLabel(m.label);
    if (p) push(segs, { start: m.t, ...p });
  }
  return segs.length ? { source: "markers", segments: segs } : null;
}

/**
 * Each line of a tab-separated labels file, as fields with its 1-based number and its
 * text; blank lines and # comments skipped, CR LF read as LF. Times and snapshot labels
 * share the format, not what the first field means.
 */
export function forEachLabelLine(text: string, fn: (fields: string[], line: number, l: string) => void): void {
  text.split("\n").forEach((raw, i) => {
    const l = raw.replace(/\r$/, "");
    if (l.trim() === "" || l.startsWith("#")) return;
    fn(l.split("\t"), i + 1, l);
  });
}

export function truthFromLabelsFile(text: string, file: string): Truth {
  const segs: TruthSegment[] = [];
  const lines: TruthSegment[] = [];
  let prev = -Infinity;
  let disorder = null as { line: number; t: number; prev: number } | null;
  forEachLabelLine(text, (f, line, l) => {
    const t = Number(f[0]);
    if (f.length < 2 || f[0].trim() === "" || !Number.isFinite(t) || t < 0) {
      throw new FixtureError(
        file,
        line,
        `expected "seconds<TAB>state[<TAB>kind]", got ${JSON.stringify(l.slice(0, 60))}`,
      );
    }
    const state = truthStateOf(f[1].trim());
    if (!state) throw new FixtureError(file, line, `unknown state "${f[1]}" (use ${TRUTH_LABELS.join(", ")})`);
    // Out of order is what a hand edit or a seek back while labelling gives: the labels
    // still mean what they say, so they are sorted (stably) and the report warns.
    if (t < prev && !disorder) disorder = { line, t, prev };
    prev = Math.max(prev, t);
    lines.push({ start: t, state, kind: f[2]?.trim() || null });
  });
  lines.sort((a, b) => a.start - b.start);
  for (const l of lines) push(segs, l);
  if (segs.length === 0) throw new FixtureError(file, null, "no labels");
  const warnings = disorder
    ? [`${file}:${disorder.line}: labels out of order (${disorder.t} s after ${disorder.prev} s): read sorted by time`]
    : [];
  return { source: `labels:${file}`, segments: segs, warnings, last: lines.at(-1)!.start };
}

/**
 * The labels file's warnings for one capture of `duration` seconds (one line each):
 * labels past its end label nothing, and usually mean the wrong file or a clock that ran on.
 */
export function labelWarnings(truth: Truth, duration: number, capture: string): string[] {
  const out = [...(truth.warnings ?? [])];
  if (truth.source.startsWith("labels:") && truth.last !== undefined && truth.last > duration + 1e-6) {
    const file = truth.source.slice("labels:".length);
    out.push(
      `${file}: labels past the end of ${capture} (${duration.toFixed(2)} s), the last at ${truth.last.toFixed(2)} s`,
    );
  }
  return out;
}

/** A detector as the truth (to compare two detectors directly): needs-you ⇒ blocked. */
export function truthFromTimeline(tl: Timeline): Truth {
  const segs: TruthSegment[] = [];
  for (const p of tl.points) {
    const v = p.verdict;
    const state: TruthState = v.needsYou
      ? "blocked"
      : v.state === "working"
      ? "working"
      : v.state === "idle"
      ? "idle"
      : "unlabeled";
    push(segs, { start: p.t, state, kind: v.kind ?? null });
  }
  return { source: `detector:${tl.detector}`, segments: segs };
}
