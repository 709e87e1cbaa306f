// The outputs of comparing two manifests on a labelled corpus (lib/score/compare.ts):
// both accuracies per detector and every flipped file with the rule on each side, in
// every report format.

import type { Comparison, Flip } from "../score/compare.ts";
import { alignRows, csvSafe, disarm, mdCode, stripInvisible, xmlText } from "../text.ts";
import { TOOL, VERSION } from "../version.ts";
import { escapeHtml } from "./html.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const delta = (a: number, b: number) => {
  const d = (b - a) * 100;
  return `${d > 0 ? "+" : d < 0 ? "−" : "±"}${Math.abs(d).toFixed(1)} pt`;
};
const rule = (r: string | null) => r ?? "no rule";
const sentence = (f: Flip, code: (s: string) => string = disarm) =>
  `${code(f.path)}: ${f.detector} ${f.kind} (truth ${f.truth}): ${f.old.verdict} by ${
    code(rule(f.old.rule))
  } → ${f.new.verdict} by ${code(rule(f.new.rule))}`;

export function renderCompareTable(c: Comparison): string {
  const out = [
    `${c.files} labelled snapshot${c.files === 1 ? "" : "s"}: ${disarm(c.newManifest)} (new) against ${
      disarm(c.oldManifest)
    } (old)`,
    "",
    ...alignRows([
      ["Detector", "Old", "New", "Change", "Fixed", "Broken"],
      ...c.pairs.map((p) => [
        p.kind,
        `${pct(p.old.accuracy)} (${p.old.correct}/${p.old.total})`,
        `${pct(p.new.accuracy)} (${p.new.correct}/${p.new.total})`,
        delta(p.old.accuracy, p.new.accuracy),
        String(c.flips.filter((f) => f.detector === p.kind && f.kind === "fixed").length),
        String(c.flips.filter((f) => f.detector === p.kind && f.kind === "broken").length),
      ]),
    ], new Set([1, 2, 3, 4, 5])),
    "",
  ];
  out.push(
    c.flips.length ? `${c.flips.length} verdict${c.flips.length === 1 ? "" : "s"} changed:` : "No verdict changed.",
  );
  for (const f of c.flips) out.push(`  ${sentence(f)}`);
  return out.join("\n") + "\n";
}

export function renderCompareMarkdown(c: Comparison): string {
  const out = [
    `**${c.files} labelled snapshots: ${mdCode(c.newManifest)} (new) against ${mdCode(c.oldManifest)} (old)**`,
    "",
    "| Detector | Old | New | Change | Fixed | Broken |",
    "|:---|---:|---:|---:|---:|---:|",
    ...c.pairs.map((p) =>
      `| ${mdCode(p.kind)} | ${pct(p.old.accuracy)} (${p.old.correct}/${p.old.total}) | ${
        pct(p.new.accuracy)
      } (${p.new.correct}/${p.new.total}) | ${delta(p.old.accuracy, p.new.accuracy)} | ${
        c.flips.filter((f) => f.detector === p.kind && f.kind === "fixed").length
      } | ${c.flips.filter((f) => f.detector === p.kind && f.kind === "broken").length} |`
    ),
    "",
    c.flips.length ? "Changed verdicts:" : "No verdict changed.",
    ...(c.flips.length ? ["", ...c.flips.map((f) => `- ${sentence(f, mdCode)}`)] : []),
    "",
    `<sub>pstlab ${VERSION}</sub>`,
  ];
  return out.join("\n") + "\n";
}

export function renderCompareJson(c: Comparison): string {
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  return JSON.stringify(
    {
      schema: 1,
      tool: { name: TOOL, version: VERSION },
      kind: "manifest-comparison",
      snapshots: c.files,
      old_manifest: c.oldManifest,
      new_manifest: c.newManifest,
      detectors: c.pairs.map((p) => ({
        kind: p.kind,
        old: { name: p.old.detector, correct: p.old.correct, total: p.old.total, accuracy: round(p.old.accuracy) },
        new: { name: p.new.detector, correct: p.new.correct, total: p.new.total, accuracy: round(p.new.accuracy) },
      })),
      flips: c.flips,
    },
    null,
    2,
  ) + "\n";
}

export function renderCompareCsv(c: Comparison): string {
  const cell = (v: string | number) => {
    const s = typeof v === "number" ? String(v) : csvSafe(stripInvisible(v));
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const out = ["path,truth,detector,change,old_verdict,old_rule,new_verdict,new_rule"];
  for (const f of c.flips) {
    out.push(
      [f.path, f.truth, f.detector, f.kind, f.old.verdict, f.old.rule ?? "", f.new.verdict, f.new.rule ?? ""].map(cell)
        .join(","),
    );
  }
  return out.join("\n") + "\n";
}

/** One testcase per detector and flipped file: a file made wrong is a failure. */
export function renderCompareJunit(c: Comparison): string {
  const suites = c.pairs.map((p) => {
    const flips = c.flips.filter((f) => f.detector === p.kind);
    const broken = flips.filter((f) => f.kind === "broken").length;
    const cases = flips.map((f) =>
      `    <testcase classname="pstlab.compare" name="${xmlText(f.path)}">${
        f.kind === "broken"
          ? `<failure message="${xmlText(sentence(f))}"/>`
          : `<system-out>${xmlText(sentence(f))}</system-out>`
      }</testcase>`
    );
    return `  <testsuite name="${xmlText(p.kind)}: ${xmlText(c.oldManifest)} → ${
      xmlText(c.newManifest)
    }" tests="${flips.length}" failures="${broken}">\n${cases.join("\n")}\n  </testsuite>`;
  });
  const broken = c.flips.filter((f) => f.kind === "broken").length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="pstlab manifest comparison" tests="${c.flips.length}" failures="${broken}">\n${
    suites.join("\n")
  }\n</testsuites>\n`;
}

export function renderCompareHtml(c: Comparison): string {
  const rows = c.pairs.map((p) =>
    `<tr><td>${escapeHtml(p.kind)}</td><td>${pct(p.old.accuracy)}</td><td>${pct(p.new.accuracy)}</td><td>${
      delta(p.old.accuracy, p.new.accuracy)
    }</td></tr>`
  ).join("");
  const flips = c.flips.map((f) => `<li>${escapeHtml(sentence(f))}</li>`).join("");
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>pstlab — ${
    escapeHtml(c.newManifest)
  } against ${
    escapeHtml(c.oldManifest)
  }</title><style>body{font:14px system-ui,sans-serif;margin:24px}td,th{padding:2px 10px;text-align:right}td:first-child{text-align:left}</style></head><body>\n<h1>${c.files} labelled snapshots: ${
    escapeHtml(c.newManifest)
  } (new) against ${
    escapeHtml(c.oldManifest)
  } (old)</h1><table><tr><th>Detector</th><th>Old</th><th>New</th><th>Change</th></tr>${rows}</table>\n<h2>${
    c.flips.length ? "Changed verdicts" : "No verdict changed"
  }</h2><ul>${flips}</ul>\n</body></html>\n`;
}
