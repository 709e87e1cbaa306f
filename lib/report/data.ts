// Machine formats: JSON (versioned, additive-only, units in key names, null where
// undefined), CSV, and JUnit for CI (one test case per detector; --max-* gates fail it).

import { type Report, round } from "./model.ts";
import type { Summary } from "../score/metrics.ts";
import { csvSafe, stripInvisible, xmlText } from "../text.ts";

export const JSON_SCHEMA = 1;

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
    missed: s.missed,
    linger_s: round(s.linger.mean),
    linger_total_s: round(s.linger.total),
    linger_max_s: round(s.linger.max),
    false_alarms: fa(s),
    confusion_s: conf,
    // Files in which this detector was the truth: its score there grades itself.
    truth_for_files: s.truthFiles ?? 0,
  };
}

export function renderJson(r: Report, opts: { episodes?: boolean } = {}): string {
  const doc = {
    schema: JSON_SCHEMA,
    tool: r.tool,
    spec: r.spec,
    truth: r.truth,
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
      ...(opts.episodes
        ? {
          episode_list: r.files.flatMap((f) =>
            f.scores[i].episodes.map((e) => ({
              path: f.path,
              start_s: round(e.start),
              end_s: round(e.end),
              kind: e.kind,
              detected_at_s: round(e.detectedAt),
              latency_s: round(e.latency),
              linger_s: round(e.linger),
            }))
          ),
        }
        : {}),
    })),
    gates: r.gates,
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
    "latency_median_s",
    "latency_p95_s",
    "latency_max_s",
    "linger_mean_s",
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
      round(s.latency.median),
      round(s.latency.p95),
      round(s.latency.max),
      round(s.linger.mean),
      s.falseAlarms.working.count,
      round(s.falseAlarms.working.seconds),
      s.falseAlarms.idle.count,
      round(s.falseAlarms.idle.seconds),
      s.truthFiles ?? 0,
    ].map(csvCell).join(",");
  const out = [head.join(",")];
  for (const s of r.summaries) out.push(line("*", s));
  if (r.files.length > 1) { for (const p of r.perFile) for (const s of p.summaries) out.push(line(p.path, s)); }
  return out.join("\n") + "\n";
}

export function renderJunit(r: Report): string {
  const failing = new Map(r.gates.filter((g) => g.failures.length).map((g) => [g.detector, g.failures]));
  const gated = new Set(r.gates.map((g) => g.detector));
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
    } false_working=${s.falseAlarms.working.count} false_idle=${s.falseAlarms.idle.count}`;
    return `    <testcase classname="pstlab.detectors" name="${xmlText(s.detector)}">${verdict}\n      <system-out>${
      xmlText(body)
    }</system-out>\n    </testcase>`;
  });
  const skipped =
    r.summaries.filter((s) => !failing.has(s.detector) && (s.truthFiles >= r.files.length || !gated.has(s.detector)))
      .length;
  const counts = `tests="${cases.length}" failures="${failing.size}" skipped="${skipped}"`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="pstlab report" ${counts}>\n  <testsuite name="${
    xmlText(r.files.map((f) => f.path).join(", "))
  }" ${counts}>\n${cases.join("\n")}\n  </testsuite>\n</testsuites>\n`;
}
