// One result model, many renderers (as hyperfine's exporters share one): pooled per-detector summaries
// plus per-file ones, the inputs, and the run's identity (tool, spec revision, truth).

import type { FileResult } from "../score/result.ts";
import { summarize, type Summary } from "../score/metrics.ts";
import { SPEC_REVISION } from "../osc7501/limits.ts";
import { VERSION } from "../version.ts";
import { round6 } from "../text.ts";
import { namesRow, poolName } from "../detect/kinds.ts";
import { type BaselineDoc, compare, type Comparison, otherFiles } from "./baseline.ts";

export interface Gate {
  detectors: string[];
  maxLatency?: number;
  maxMissed?: number;
  maxFalse?: number;
}

export interface GateResult {
  detector: string;
  failures: string[];
}

/** A summary, and in how many files this detector was itself the truth (its score there is perfect by construction). */
export type ReportSummary = Summary & { truthFiles: number };

export interface Report {
  tool: { name: string; version: string };
  spec: { osc7501_revision: string };
  /** Which truth the scores are against ("markers", "labels", "detector:protocol", or several joined by ","), and what that implies. */
  truth: { source: string; note: string };
  /** `--label-tolerance` in seconds (0: off). */
  labelTolerance: number;
  files: FileResult[];
  summaries: ReportSummary[];
  perFile: { path: string; summaries: ReportSummary[] }[];
  gates: GateResult[];
  argv: string[];
  /** `--baseline OLD.json`: each detector's change since that run. */
  baseline: Comparison | null;
}

export interface BuildOptions {
  labelTolerance?: number;
  /** The baseline report and how to judge it (lib/report/baseline.ts). */
  baseline?: { doc: BaselineDoc; tolerance: number; failOn: string[] };
}

export function buildReport(files: FileResult[], gate: Gate | null, argv: string[], opts: BuildOptions = {}): Report {
  // Files whose `auto` manifest differs pool under the name they were asked by (screen:auto@50ms).
  const names =
    files[0]?.scores.map((s, i) =>
      files.every((f) => f.scores[i]?.detector === s.detector) ? s.detector : poolName(s.detector)
    ) ?? [];
  const summaries = names.map((n, i) => ({
    ...summarize(n, files.map((f) => f.scores[i])),
    truthFiles: files.filter((f) => f.truth === `detector:${f.scores[i]?.detector}`).length,
  }));
  const perFile = files.map((f) => ({
    path: f.path,
    summaries: f.scores.map((s) => ({
      ...summarize(s.detector, [s]),
      truthFiles: f.truth === `detector:${s.detector}` ? 1 : 0,
    })),
  }));
  const truths = [...new Set(files.map((f) => f.truth.startsWith("labels:") ? "labels" : f.truth))];
  const gates: GateResult[] = [];
  if (gate) {
    for (const s of summaries) {
      if (!gate.detectors.some((g) => namesRow(g, s.detector))) continue;
      const failures: string[] = [];
      if (gate.maxMissed !== undefined && s.missed > gate.maxMissed) {
        failures.push(`missed ${s.missed} > ${gate.maxMissed}`);
      }
      if (gate.maxLatency !== undefined && s.latency.max !== null && s.latency.max > gate.maxLatency + 1e-9) {
        failures.push(`max latency ${s.latency.max.toFixed(3)} s > ${gate.maxLatency} s`);
      }
      const fa = s.falseAlarms.working.count + s.falseAlarms.idle.count;
      if (gate.maxFalse !== undefined && fa > gate.maxFalse) failures.push(`false alarms ${fa} > ${gate.maxFalse}`);
      gates.push({ detector: s.detector, failures });
    }
  }
  const source = truths.join(",");
  return {
    tool: { name: "pstlab", version: VERSION },
    spec: { osc7501_revision: SPEC_REVISION },
    truth: { source, note: truthStatement(source) },
    labelTolerance: opts.labelTolerance ?? 0,
    files,
    summaries,
    perFile,
    gates,
    argv,
    baseline: opts.baseline
      ? {
        ...compare(summaries, opts.baseline.doc, opts.baseline.tolerance, opts.baseline.failOn),
        otherFiles: otherFiles(files, opts.baseline.doc),
      }
      : null,
  };
}

// ---------------------------------------------------------------- shared formatting

export const round = (x: number | null) => (x === null ? null : round6(x));

export function fmtLatency(x: number | null): string {
  return x === null ? "–" : `${x.toFixed(2)} s`;
}

export function fmtLinger(x: number): string {
  return x < 0.05 ? "0 s" : `${x.toFixed(1)} s`;
}

/** Seconds as the tables print them: one decimal under 10 s (a 0.3 s false alarm is not "0 s"), whole seconds from 10. */
export function fmtSeconds(x: number): string {
  return x < 9.95 ? `${x.toFixed(1)} s` : `${Math.round(x)} s`;
}

/** "0", "31 / 78 s", "0 / 231 s", "1 / 0.3 s" — the reference table's style. */
export function fmtFalse(f: { count: number; seconds: number }): string {
  if (f.count === 0 && f.seconds < 0.05) return "0";
  return `${f.count} / ${fmtSeconds(f.seconds)}`;
}

export function fmtMissed(s: Summary): string {
  return `${s.missed} / ${s.episodes}`;
}

export const COLUMNS = [
  "Detector",
  "Median latency",
  "Max",
  "Missed",
  "Carried",
  "Linger",
  "False, working",
  "False, idle",
];

export function row(s: Summary & { truthFiles?: number }, files = 1): string[] {
  // The truth graded against itself is perfect by construction: it is named, not scored.
  if (s.truthFiles && s.truthFiles >= files) return [`${s.detector} (the truth)`, "–", "–", "–", "–", "–", "–", "–"];
  const name = s.truthFiles ? `${s.detector} *` : s.detector;
  return [
    name,
    fmtLatency(s.latency.median),
    fmtLatency(s.latency.max),
    fmtMissed(s),
    String(s.carried),
    fmtLinger(s.linger.mean),
    fmtFalse(s.falseAlarms.working),
    fmtFalse(s.falseAlarms.idle),
  ];
}

/** The lines that say where the truth came from when it is a detector or differs between files. */
export function truthNotes(r: Report): string[] {
  const out: string[] = [];
  // Herdr publishes nothing for 3 s after a program appears: a reader must not take that for a miss.
  if (r.summaries.some((s) => s.detector.startsWith("herdr:"))) {
    out.push(
      "herdr:<m> says unknown for the first 3 s after the program's first output (Herdr's startup grace), as Herdr does",
    );
  }
  // The process table cannot see waiting: its missed episodes are what it is, not a fault.
  if (r.summaries.some((s) => s.detector === "process")) {
    out.push(
      "process never says blocked: the process table tells which program holds the terminal, not whether it waits for you",
    );
  }
  const partial = r.summaries.filter((s) => s.truthFiles > 0 && s.truthFiles < r.files.length);
  for (const s of partial) {
    out.push(`* ${s.detector} is the truth of ${s.truthFiles} of ${r.files.length} files: there it grades itself`);
  }
  const sources = new Set(r.files.map((f) => f.truth));
  if (sources.size > 1) {
    out.push(`truth per file: ${r.files.map((f) => `${f.path} ${describeTruth(f.truth)}`).join("; ")}`);
  }
  return out;
}

export function describeTruth(t: string): string {
  if (t === "markers") return "truth markers";
  if (t.startsWith("labels:")) return `labels ${t.slice(7)}`;
  if (t === "detector:protocol") return "the protocol's reports";
  return t.replace(/^detector:/, "detector ");
}

export function totals(r: Report): { duration: number; episodes: number; bytes: number } {
  return {
    duration: r.files.reduce((n, f) => n + f.duration, 0),
    episodes: r.files.reduce((n, f) => n + f.blockedEpisodes, 0),
    bytes: r.files.reduce((n, f) => n + f.outputBytes, 0),
  };
}

/**
 * What the truth is and what it implies, in every format: a report whose truth is the
 * program's own reports cannot judge that program (a late emitter looks perfect and
 * correct screen rules look late), and it must say so where the table is read.
 */
export function truthStatement(source: string): string {
  if (source.includes(",")) {
    return "truth: differs per file (listed below); where a detector is a file's truth, that file cannot judge it";
  }
  if (source === "markers") return "truth: the capture's truth markers (labels recorded with it); every row is judged";
  if (source === "labels") return "truth: labels from --labels; every row is judged";
  if (source === "detector:protocol") {
    return "truth: the program's own OSC 7501 reports — the protocol row cannot be judged here; use `--truth screen:<m>` or labels to judge the emitter";
  }
  if (source.startsWith("detector:")) {
    const d = source.slice(9);
    return `truth: detector ${d}'s verdicts — the ${d} row cannot be judged here; use truth markers or --labels to judge it`;
  }
  return `truth: ${source}`;
}

/** One line per definition (docs/scoring.md), under every table: what each column measures. */
export const DEFINITION_NOTES = [
  "latency: from the episode's start to the first sample at or after it that says needs-you (median, max); carried: episodes detected by an alarm already up before they began",
  "linger: from the episode's end to the end of the alarm then in force, never cut at the next episode (mean per episode)",
  "false alarms: alarms that begin while the truth is working / idle: count where they begin / seconds by the truth state at each instant",
  'definitions: README "How pstlab scores" (docs/scoring.md)',
];

/** The lines under the table: the truth, the tolerance, lingers that ran into the next episode, then the definitions. */
export function footnotes(r: Report): string[] {
  const out = [r.truth.note];
  if (r.labelTolerance > 0) {
    out.push(
      `label tolerance ${
        round6(r.labelTolerance)
      } s: an alarm that leads a label by at most this counts as on time (latency 0, no false alarm)`,
    );
  }
  const into = r.summaries.filter((s) => s.linger.intoNext > 0 && !(s.truthFiles >= r.files.length));
  if (into.length) {
    out.push(
      `lingers still going when the next episode began: ${
        into.map((s) => `${s.detector} ${s.linger.intoNext} of ${s.episodes}`).join(", ")
      }`,
    );
  }
  return [...out, ...DEFINITION_NOTES];
}
