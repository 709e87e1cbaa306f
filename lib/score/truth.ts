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
  let prev = -Infinity;
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
    if (t < prev) throw new FixtureError(file, line, `time ${t} is before the previous line's ${prev}`);
    prev = t;
    push(segs, { start: t, state, kind: f[2]?.trim() || null });
  });
  if (segs.length === 0) throw new FixtureError(file, null, "no labels");
  return { source: `labels:${file}`, segments: segs };
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
