// `report --baseline OLD.json`: each detector's change since an earlier run (hyperfine's
// relative comparison), marked better or worse, and `--fail-on-worse` to make CI fail
// when a listed detector got worse. How a user compares two builds of an emitter, or two
// versions of a manifest, over the same corpus.

import type { Summary } from "../score/metrics.ts";
import { InputError, UsageError } from "../errors.ts";
import { parseForeign, validator } from "../foreign_json.ts";
import { REPORT_JSON_SCHEMA, REPORT_SCHEMA_VERSION } from "./schema.ts";
import { namesRow } from "../detect/kinds.ts";

/** What a baseline report must hold (a `report --format json`, also of a merged run). */
export interface BaselineDoc {
  file: string;
  /** The captures the baseline was made from (the report JSON's inputs). */
  inputs: { path: string; sha256: string }[];
  detectors: {
    name: string;
    latency_s: { median: number | null; max: number | null };
    missed: number;
    carried: number;
    linger_s: number;
    false_alarms: Record<"working" | "idle" | "unlabeled", { count: number }>;
  }[];
}

const checkReport = validator<Omit<BaselineDoc, "file">>(REPORT_JSON_SCHEMA, "pstlab report (JSON)");

export function parseBaseline(text: string, file: string): BaselineDoc {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new InputError(`${file}: not a pstlab report (not JSON; use report --format json)`);
  }
  if ((doc as { pstlab_shard?: unknown })?.pstlab_shard !== undefined) {
    throw new UsageError(
      `report --baseline: ${file} is a shard file; give a report (report --merge … --format json -o OLD.json)`,
    );
  }
  const schema = (doc as { schema?: unknown })?.schema;
  if (typeof schema === "number" && schema !== REPORT_SCHEMA_VERSION) {
    throw new UsageError(
      `report --baseline: ${file} was made with other scoring definitions (report schema ${schema}; this pstlab writes ${REPORT_SCHEMA_VERSION}): make the baseline again with this version`,
    );
  }
  return { ...parseForeign(text, file, checkReport, "pstlab report (JSON)"), file };
}

export type Measure = "median latency" | "max latency" | "missed" | "carried" | "linger" | "false alarms";
export const MEASURES: Measure[] = ["median latency", "max latency", "missed", "carried", "linger", "false alarms"];
/** Durations compare within the tolerance; counts compare exactly. */
const IS_TIME: Record<Measure, boolean> = {
  "median latency": true,
  "max latency": true,
  missed: false,
  carried: false,
  linger: true,
  "false alarms": false,
};

export interface Change {
  measure: Measure;
  old: number | null;
  now: number | null;
  /** now − old (null when either is undefined: every episode missed). */
  delta: number | null;
  verdict: "better" | "worse" | "same";
}

export interface DetectorChange {
  detector: string;
  changes: Change[];
}

export interface Comparison {
  file: string;
  /** Seconds a duration may grow before it counts as worse (--worse-tolerance). */
  tolerance: number;
  detectors: DetectorChange[];
  /** The detectors `--fail-on-worse` covers (checked, so not "skipped" in JUnit). */
  checked: string[];
  /** `--fail-on-worse` detectors that got worse, with what got worse. */
  failures: { detector: string; worse: Measure[] }[];
  /** Set when the baseline was made from other captures (otherFiles). */
  otherFiles?: string | null;
}

type Measured = Pick<Summary, "missed" | "carried"> & {
  median: number | null;
  max: number | null;
  linger: number;
  falseCount: number;
};

function fromSummary(s: Summary): Measured {
  const f = s.falseAlarms;
  return {
    median: s.latency.median,
    max: s.latency.max,
    missed: s.missed,
    carried: s.carried,
    linger: s.linger.mean,
    falseCount: f.working.count + f.idle.count + f.unlabeled.count,
  };
}

function fromBaseline(d: BaselineDoc["detectors"][number]): Measured {
  const f = d.false_alarms;
  return {
    median: d.latency_s.median,
    max: d.latency_s.max,
    missed: d.missed,
    carried: d.carried,
    linger: d.linger_s,
    falseCount: f.working.count + f.idle.count + f.unlabeled.count,
  };
}

const VALUE: Record<Measure, (m: Measured) => number | null> = {
  "median latency": (m) => m.median,
  "max latency": (m) => m.max,
  missed: (m) => m.missed,
  carried: (m) => m.carried,
  linger: (m) => m.linger,
  "false alarms": (m) => m.falseCount,
};

function change(measure: Measure, old: Measured, now: Measured, tolerance: number): Change {
  const a = VALUE[measure](old), b = VALUE[measure](now);
  if (a === null || b === null) return { measure, old: a, now: b, delta: null, verdict: "same" };
  const delta = b - a;
  // Times come rounded to microseconds from JSON: compare on that grid.
  const margin = IS_TIME[measure] ? tolerance + 1e-6 : 0;
  const verdict = delta > margin ? "worse" : delta < -margin ? "better" : "same";
  return { measure, old: a, now: b, delta, verdict };
}

/** Each detector of this run against the baseline's; refuses a baseline of other detectors. */
export function compare(
  summaries: Summary[],
  baseline: BaselineDoc,
  tolerance: number,
  failOn: string[],
): Comparison {
  const old = new Map(baseline.detectors.map((d) => [d.name, d]));
  const names = summaries.map((s) => s.detector);
  const missing = names.filter((n) => !old.has(n));
  const extra = [...old.keys()].filter((n) => !names.includes(n));
  if (missing.length || extra.length) {
    throw new UsageError(
      `report --baseline: ${baseline.file} was made with other detectors (${
        [
          missing.length ? `not in it: ${missing.join(", ")}` : "",
          extra.length ? `only in it: ${extra.join(", ")}` : "",
        ].filter(Boolean).join("; ")
      })`,
    );
  }
  // `screen:auto@50ms` names the row auto resolved to (screen:generic@50ms when every file chose generic).
  const bad = failOn.find((d) => d !== "all" && !names.some((n) => namesRow(d, n)));
  if (bad) throw new UsageError(`report: --fail-on-worse ${bad} is not a detector of this run (${names.join(", ")})`);
  const detectors = summaries.map((s) => {
    const was = fromBaseline(old.get(s.detector)!), is = fromSummary(s);
    return { detector: s.detector, changes: MEASURES.map((m) => change(m, was, is, tolerance)) };
  });
  const checked = names.filter((n) => failOn.includes("all") || failOn.some((d) => namesRow(d, n)));
  const failures = detectors
    .filter((d) => checked.includes(d.detector))
    .map((d) => ({ detector: d.detector, worse: d.changes.filter((c) => c.verdict === "worse").map((c) => c.measure) }))
    .filter((f) => f.worse.length > 0);
  return { file: baseline.file, tolerance, detectors, checked, failures };
}

/**
 * The captures of this run and of the baseline that have no counterpart on the other side (a
 * capture counts as the same when its path or its sha256 is: a re-recorded corpus keeps its
 * paths, a moved one its contents), as one warning; null when the two cover the same files.
 * A baseline of other files compares other corpora: every row moves for reasons no build made.
 */
export function otherFiles(files: { path: string; sha256: string }[], baseline: BaselineDoc): string | null {
  const same = (a: { path: string; sha256: string }, b: { path: string; sha256: string }) =>
    a.path === b.path || (a.sha256 !== "" && a.sha256 === b.sha256);
  const here = files.filter((f) => !baseline.inputs.some((b) => same(f, b)));
  const there = baseline.inputs.filter((b) => !files.some((f) => same(f, b)));
  if (!here.length && !there.length) return null;
  const list = (fs: { path: string; sha256: string }[]) => {
    const shown = fs.slice(0, 3).map((f) => `${f.path} (sha256 ${f.sha256.slice(0, 12) || "unknown"})`);
    return shown.join(", ") + (fs.length > 3 ? ` and ${fs.length - 3} more` : "");
  };
  return `--baseline ${baseline.file} was made from other files, so the changes compare different captures (${
    [
      here.length ? `only here: ${list(here)}` : "",
      there.length ? `only in the baseline: ${list(there)}` : "",
    ].filter(Boolean).join("; ")
  })`;
}

/** "+0.12 s worse", "−1 better", "=" — one cell of the comparison table. */
export function fmtChange(c: Change): string {
  if (c.delta === null) return c.old === c.now ? "=" : `${c.old === null ? "–" : "…"} → ${c.now === null ? "–" : "…"}`;
  const time = IS_TIME[c.measure];
  const mag = time ? `${Math.abs(c.delta).toFixed(2)} s` : String(Math.abs(c.delta));
  if (c.verdict === "same") return time && Math.abs(c.delta) >= 0.005 ? `${c.delta > 0 ? "+" : "−"}${mag}` : "=";
  return `${c.delta > 0 ? "+" : "−"}${mag} ${c.verdict}`;
}
