// The outputs of scoring labelled snapshots: accuracy per detector, the confusion
// matrix (truth × verdict) and the misjudged files with the rule that fired.

import type { SnapshotScore } from "../score/snapshots.ts";
import { alignRows, csvSafe, disarm, mdCode, stripInvisible, xmlText } from "../text.ts";
import { TOOL, VERSION } from "../version.ts";
import { markup, trusted } from "./markup.ts";

const STATES = ["blocked", "working", "idle", "unknown"];
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

function matrix(s: SnapshotScore): string[][] {
  const truths = STATES.filter((t) => s.confusion[t]);
  return [
    ["truth \\ verdict", ...STATES],
    ...truths.map((t) => [t, ...STATES.map((v) => String(s.confusion[t]?.[v] ?? 0))]),
  ];
}

export function renderSnapshotTable(scores: SnapshotScore[], files: number, dropped: string[]): string {
  const out = [`${files} labelled snapshot${files === 1 ? "" : "s"}`, ""];
  out.push(
    ...alignRows([
      ["Detector", "Accuracy", "Correct", "Misjudged"],
      ...scores.map((
        s,
      ) => [disarm(s.detector), pct(s.accuracy), `${s.correct} / ${s.total}`, String(s.total - s.correct)]),
    ], new Set([1, 2, 3])),
  );
  for (const s of scores) {
    out.push("", `${disarm(s.detector)}:`, ...alignRows(matrix(s), new Set([1, 2, 3, 4])).map((l) => `  ${l}`));
    for (const m of s.misjudged) {
      out.push(
        `  misjudged ${disarm(m.path)}: ${m.truth} read as ${m.verdict}${
          m.rule ? ` (rule ${disarm(m.rule)})` : " (no rule matched)"
        }`,
      );
    }
  }
  if (dropped.length) out.push("", `not scored (they need time, not an instant): ${dropped.map(disarm).join(", ")}`);
  return out.join("\n") + "\n";
}

export function renderSnapshotMarkdown(scores: SnapshotScore[], files: number, dropped: string[]): string {
  const out = [
    `**${files} labelled snapshots**`,
    "",
    "| Detector | Accuracy | Correct | Misjudged |",
    "|:---|---:|---:|---:|",
  ];
  for (const s of scores) {
    out.push(`| ${mdCode(s.detector)} | ${pct(s.accuracy)} | ${s.correct} / ${s.total} | ${s.total - s.correct} |`);
  }
  for (const s of scores) {
    const m = matrix(s);
    out.push(
      "",
      `${mdCode(s.detector)}:`,
      "",
      `| ${m[0].join(" | ")} |`,
      `|:---|${STATES.map(() => "---:").join("|")}|`,
      ...m.slice(1).map((r) => `| ${r.join(" | ")} |`),
    );
    if (s.misjudged.length) {
      out.push(
        "",
        ...s.misjudged.map((x) =>
          `- ${mdCode(x.path)}: ${x.truth} read as ${x.verdict}${x.rule ? ` (rule ${mdCode(x.rule)})` : ""}`
        ),
      );
    }
  }
  if (dropped.length) out.push("", `Not scored (they need time, not an instant): ${dropped.map(mdCode).join(", ")}`);
  out.push("", `<sub>pstlab ${VERSION}</sub>`);
  return out.join("\n") + "\n";
}

export function renderSnapshotJson(scores: SnapshotScore[], files: number, dropped: string[]): string {
  return JSON.stringify(
    {
      schema: 1,
      tool: { name: TOOL, version: VERSION },
      kind: "snapshots",
      snapshots: files,
      not_scored: dropped,
      detectors: scores.map((s) => ({
        name: s.detector,
        total: s.total,
        correct: s.correct,
        accuracy: Math.round(s.accuracy * 1e6) / 1e6,
        confusion: s.confusion,
        misjudged: s.misjudged,
      })),
    },
    null,
    2,
  ) + "\n";
}

export function renderSnapshotCsv(scores: SnapshotScore[]): string {
  const cell = (v: string | number) => {
    const s = typeof v === "number" ? String(v) : csvSafe(stripInvisible(v));
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const out = ["detector,total,correct,accuracy,truth,verdict,count"];
  for (const s of scores) {
    for (const [t, row] of Object.entries(s.confusion)) {
      for (const [v, n] of Object.entries(row)) {
        out.push([s.detector, s.total, s.correct, Math.round(s.accuracy * 1e6) / 1e6, t, v, n].map(cell).join(","));
      }
    }
  }
  return out.join("\n") + "\n";
}

/** One testcase per detector and snapshot: a misjudged snapshot is a failure. */
export function renderSnapshotJunit(scores: SnapshotScore[], paths: string[]): string {
  const suites = scores.map((s) => {
    const bad = new Map(s.misjudged.map((m) => [m.path, m]));
    const cases = paths.map((p) => {
      const m = bad.get(p);
      return `    <testcase classname="pstlab.snapshots" name="${xmlText(p)}">${
        m
          ? `<failure message="${xmlText(`${m.truth} read as ${m.verdict}${m.rule ? ` (rule ${m.rule})` : ""}`)}"/>`
          : ""
      }</testcase>`;
    });
    return `  <testsuite name="${xmlText(s.detector)}" tests="${s.total}" failures="${s.total - s.correct}">\n${
      cases.join("\n")
    }\n  </testsuite>`;
  });
  const failures = scores.reduce((n, s) => n + s.total - s.correct, 0), tests = scores.reduce((n, s) => n + s.total, 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="pstlab snapshots" tests="${tests}" failures="${failures}">\n${
    suites.join("\n")
  }\n</testsuites>\n`;
}

export function renderSnapshotHtml(scores: SnapshotScore[], files: number, dropped: string[]): string {
  const rows = scores.map((s) =>
    markup`<tr><td>${s.detector}</td><td>${pct(s.accuracy)}</td><td>${s.correct} / ${s.total}</td></tr>`
  );
  const details = scores.map((s, k) =>
    markup`${k ? "\n" : ""}<h2>${s.detector}</h2><table>${
      matrix(s).map((r, i) =>
        markup`<tr>${r.map((c) => (i === 0 ? markup`<th>${c}</th>` : markup`<td>${c}</td>`))}</tr>`
      )
    }</table><ul>${
      s.misjudged.map((m) =>
        markup`<li>${m.path}: ${m.truth} read as ${m.verdict}${m.rule ? markup` (rule ${m.rule})` : ""}</li>`
      )
    }</ul>`
  );
  const head = trusted(
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
  );
  return [
    markup`${head}<title>pstlab — ${files} snapshots</title><style>${SNAPSHOT_CSS}</style></head><body>`,
    markup`<h1>${files} labelled snapshots</h1><table><tr><th>Detector</th><th>Accuracy</th><th>Correct</th></tr>${rows}</table>`,
    markup`${details}`,
    markup`${dropped.length ? markup`<p>Not scored (they need time, not an instant): ${dropped.join(", ")}</p>` : ""}`,
    trusted("</body></html>\n"),
  ].join("\n");
}

const SNAPSHOT_CSS = trusted(
  "body{font:14px system-ui,sans-serif;margin:24px}td,th{padding:2px 10px;text-align:right}td:first-child{text-align:left}",
);
