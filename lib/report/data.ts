// Machine formats: JSON (versioned, additive-only, units in key names, null where
// undefined), CSV, and JUnit for CI (one test case per detector; --max-* gates fail it).

import { type Report, round } from "./model.ts";
import type { Episode, Summary } from "../score/metrics.ts";
import { csvSafe, stripInvisible, xmlText } from "../text.ts";
import { REPORT_SCHEMA_VERSION } from "./schema.ts";
import { type Comparison, fmtChange, MEASURES } from "./baseline.ts";

/** The report JSON's version: 2 since the scoring definitions of docs/scoring.md (docs/schemas/report.json). */
export const JSON_SCHEMA = REPORT_SCHEMA_VERSION;

function fa(s: Summary) {
  const f = s.falseAlarms;
  const x = (v: { count: number; seconds: number }) => ({ count: v.count, seconds: round(v.seconds) });
  return { working: x(f.working), idle: x(f.idle), unlabeled: x(f.unlabeled) };
}

function detectorJson(s: Summary & { truthFiles?: number }) {
  const conf: Record<string, Record<string, number>> = {};
  for (const [t, row] of Object.entries(s.confusion)) {
    conf[t] = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, round(v)!]));
  }
  return {
    name: s.detector,
    episodes: s.episodes,
    detected: s.detected,
    latency_s: {
      median: round(s.latency.median),
      p95: round(s.latency.p95),
      max: round(s.latency.max),
      mean: round(s.latency.mean),
    },
    latency_not_carried_s: { median: round(s.freshLatency.median), max: round(s.freshLatency.max) },
    missed: s.missed,
    carried: s.carried,
    linger_s: round(s.linger.mean),
    linger_total_s: round(s.linger.total),
    linger_max_s: round(s.linger.max),
    linger_into_next: s.linger.intoNext,
    false_alarms: fa(s),
    confusion_s: conf,
    // Files in which this detector was the truth: its score there grades itself.
    truth_for_files: s.truthFiles ?? 0,
  };
}

const episodeJson = (path: string, e: Episode) => ({
  path,
  start_s: round(e.start),
  end_s: round(e.end),
  kind: e.kind,
  detected_at_s: round(e.detectedAt),
  latency_s: round(e.latency),
  carried: e.carried,
  linger_s: round(e.linger),
  linger_into_next: e.lingerIntoNext,
});

function baselineJson(c: Comparison) {
  return {
    path: c.file,
    worse_tolerance_s: round(c.tolerance),
    detectors: c.detectors.map((d) => ({
      name: d.detector,
      changes: d.changes.map((x) => ({
        measure: x.measure,
        old: x.old === null ? null : round(x.old),
        new: x.now === null ? null : round(x.now),
        delta: x.delta === null ? null : round(x.delta),
        verdict: x.verdict,
      })),
    })),
    failures: c.failures,
    other_files: c.otherFiles ?? null,
  };
}

export function renderJson(r: Report): string {
  const doc = {
    schema: JSON_SCHEMA,
    tool: r.tool,
    spec: r.spec,
    truth: r.truth,
    label_tolerance_s: round(r.labelTolerance),
    inputs: r.files.map((f) => ({
      path: f.path,
      sha256: f.sha256,
      format: f.format,
      cols: f.cols,
      rows: f.rows,
      duration_s: round(f.duration),
      output_bytes: f.outputBytes,
      truth: f.truth,
      blocked_episodes: f.blockedEpisodes,
      manifest: f.manifest,
    })),
    detectors: r.summaries.map((s, i) => ({
      ...detectorJson(s),
      per_input: r.perFile.map((p) => ({ path: p.path, ...detectorJson(p.summaries[i]) })),
      episode_list: r.files.flatMap((f) => f.scores[i].episodes.map((e) => episodeJson(f.path, e))),
    })),
    gates: r.gates,
    baseline: r.baseline ? baselineJson(r.baseline) : null,
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

const csvCell = (v: string | number | null) => {
  const s = v === null ? "" : typeof v === "number" ? String(v) : csvSafe(stripInvisible(v));
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function renderCsv(r: Report): string {
  const head = [
    "file",
    "detector",
    "episodes",
    "detected",
    "missed",
    "carried",
    "latency_median_s",
    "latency_p95_s",
    "latency_max_s",
    "linger_mean_s",
    "linger_into_next",
    "false_working_count",
    "false_working_s",
    "false_idle_count",
    "false_idle_s",
    "truth_for_files",
  ];
  const line = (file: string, s: Summary & { truthFiles?: number }) =>
    [
      file,
      s.detector,
      s.episodes,
      s.detected,
      s.missed,
      s.carried,
      round(s.latency.median),
      round(s.latency.p95),
      round(s.latency.max),
      round(s.linger.mean),
      s.linger.intoNext,
      s.falseAlarms.working.count,
      round(s.falseAlarms.working.seconds),
      s.falseAlarms.idle.count,
      round(s.falseAlarms.idle.seconds),
      s.truthFiles ?? 0,
    ].map(csvCell).join(",");
  // With --baseline, each pooled row also gets its change per measure and whether it got worse.
  const base = r.baseline;
  const changeHead = base ? [...MEASURES.map((m) => `change_${m.replace(/ /g, "_")}`), "worse"] : [];
  const changes = (detector: string) => {
    if (!base) return "";
    const d = base.detectors.find((x) => x.detector === detector);
    const cells = MEASURES.map((m) => {
      const c = d?.changes.find((x) => x.measure === m);
      return c?.delta == null ? null : round(c.delta);
    });
    const worse = d?.changes.filter((c) => c.verdict === "worse").map((c) => c.measure).join(";") ?? "";
    return "," + [...cells, worse].map(csvCell).join(",");
  };
  const out = [[...head, ...changeHead].join(",")];
  for (const s of r.summaries) out.push(line("*", s) + changes(s.detector));
  const blank = base ? ",".repeat(changeHead.length) : "";
  if (r.files.length > 1) {
    for (const p of r.perFile) for (const s of p.summaries) out.push(line(p.path, s) + blank);
  }
  return out.join("\n") + "\n";
}

export function renderJunit(r: Report): string {
  const failing = new Map(r.gates.filter((g) => g.failures.length).map((g) => [g.detector, g.failures]));
  // --fail-on-worse: a detector that got worse since the baseline fails like a gate.
  for (const f of r.baseline?.failures ?? []) {
    failing.set(f.detector, [
      ...(failing.get(f.detector) ?? []),
      `worse than ${r.baseline!.file}: ${f.worse.join(", ")}`,
    ]);
  }
  const gated = new Set([...r.gates.map((g) => g.detector), ...(r.baseline?.checked ?? [])]);
  // A detector no --max-* gate covers is reported as skipped, so a green run never looks like a pass it was not.
  const NOT_GATED =
    "not gated: give --max-latency, --max-missed or --max-false (and --gate) to fail CI on this detector";
  const cases = r.summaries.map((s) => {
    const f = failing.get(s.detector);
    const isTruth = s.truthFiles >= r.files.length;
    const verdict = f
      ? `\n      <failure message="${xmlText(f.join("; "))}"/>`
      : isTruth
      ? `\n      <skipped message="the truth of this report: scored against itself it cannot fail"/>`
      : gated.has(s.detector)
      ? ""
      : `\n      <skipped message="${NOT_GATED}"/>`;
    const body = `episodes=${s.episodes} missed=${s.missed} latency_median_s=${round(s.latency.median)} latency_max_s=${
      round(s.latency.max)
    } linger_s=${
      round(s.linger.mean)
    } false_working=${s.falseAlarms.working.count} false_idle=${s.falseAlarms.idle.count} carried=${s.carried}${
      baselineOut(r, s.detector)
    }`;
    return `    <testcase classname="pstlab.detectors" name="${xmlText(s.detector)}">${verdict}\n      <system-out>${
      xmlText(body)
    }</system-out>\n    </testcase>`;
  });
  const skipped =
    r.summaries.filter((s) => !failing.has(s.detector) && (s.truthFiles >= r.files.length || !gated.has(s.detector)))
      .length;
  const counts = `tests="${cases.length}" failures="${failing.size}" skipped="${skipped}"`;
  // The truth, stated where CI shows the suite: a report graded by the emitter cannot judge it.
  const props = `    <properties>\n      <property name="truth" value="${xmlText(r.truth.note)}"/>${
    r.labelTolerance > 0 ? `\n      <property name="label_tolerance_s" value="${round(r.labelTolerance)}"/>` : ""
  }\n    </properties>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="pstlab report" ${counts}>\n  <testsuite name="${
    xmlText(r.files.map((f) => f.path).join(", "))
  }" ${counts}>\n${props}\n${cases.join("\n")}\n  </testsuite>\n</testsuites>\n`;
}

/** The comparison with the baseline, in a test case's output. */
function baselineOut(r: Report, detector: string): string {
  const d = r.baseline?.detectors.find((x) => x.detector === detector);
  if (!d) return "";
  return `\nvs ${r.baseline!.file}: ${d.changes.map((c) => `${c.measure} ${fmtChange(c)}`).join(", ")}`;
}
