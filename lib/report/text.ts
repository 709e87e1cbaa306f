// Terminal table and markdown (for bug reports: it ends with what is needed to
// reproduce it — fixture hash, pstlab version, spec revision, the command).

import { COLUMNS, footnotes, type Report, type ReportSummary, row, totals, truthNotes } from "./model.ts";
import { alignRows, disarm, mdCode, mdCommand, paint } from "../text.ts";
import { fmtChange, MEASURES } from "./baseline.ts";

const RIGHT = new Set([1, 2, 3, 4, 5, 6, 7]);

// Every string from a capture or a file name (paths, truth sources and kinds, rule and
// detector names from manifests) goes through disarm before it reaches a terminal or a
// document: no escape sequence, control or bidi override gets through.

function heading(r: Report): string {
  const t = totals(r);
  const files = r.files.length === 1 ? disarm(r.files[0].path) : `${r.files.length} files`;
  return `${files}: ${t.duration.toFixed(1)} s, ${t.episodes} blocked episode${t.episodes === 1 ? "" : "s"} (truth: ${
    disarm(r.truth.source)
  })`;
}

const safeRow = (files: number) => (s: ReportSummary) => row(s, files).map(disarm);

/** Which rules `--manifest auto` chose, and why (the why quotes capture text: disarmed). */
export function manifestLine(r: Report): string | null {
  const chosen = r.files.filter((f) => f.manifest);
  if (chosen.length === 0) return null;
  const names = new Set(chosen.map((f) => f.manifest!.name));
  if (chosen.length === 1) return `manifest: ${chosen[0].manifest!.name} (auto: ${disarm(chosen[0].manifest!.why)})`;
  if (names.size === 1) return `manifest: ${[...names][0]} (auto, for all ${chosen.length} files)`;
  return `manifests (auto): ${chosen.map((f) => `${disarm(f.path)} ${f.manifest!.name}`).join(", ")}`;
}

export function renderTable(r: Report, opts: { color?: boolean; perFile?: boolean; episodes?: boolean } = {}): string {
  const m = manifestLine(r);
  const out: string[] = [heading(r), ...(m ? [m] : []), ""];
  const table = (sums: ReportSummary[], files = r.files.length) => {
    const rows = sums.map(safeRow(files));
    const lines = alignRows([COLUMNS, ...rows], RIGHT);
    lines[0] = paint(!!opts.color, "1", lines[0]);
    return lines;
  };
  out.push(...table(r.summaries));
  if (opts.perFile && r.files.length > 1) {
    for (const f of r.perFile) out.push("", `${disarm(f.path)}:`, ...table(f.summaries, 1));
  }
  const notes = truthNotes(r).map(disarm);
  if (notes.length) out.push("", ...notes);
  if (opts.episodes) out.push("", ...episodeLines(r));
  if (r.baseline) {
    const b = r.baseline;
    out.push("", `compared with ${disarm(b.file)} (durations: worse or better past ${b.tolerance.toFixed(2)} s):`);
    if (b.otherFiles) out.push(paint(!!opts.color, "33", `warning: ${disarm(b.otherFiles)}`));
    out.push(...alignRows(baselineRows(r).map((cells) => cells.map(disarm)), RIGHT));
  }
  for (const line of failLines(r)) out.push(paint(!!opts.color, "31", disarm(line)));
  out.push("", ...footnotes(r).map(disarm));
  return out.join("\n") + "\n";
}

/** The comparison with the baseline as rows (header first): one cell per measure. */
export function baselineRows(r: Report): string[][] {
  const head = ["Detector", ...MEASURES.map((m) => m[0].toUpperCase() + m.slice(1))];
  return [head, ...(r.baseline?.detectors ?? []).map((d) => [d.detector, ...d.changes.map(fmtChange)])];
}

/** FAIL lines: --max-* gates, then --fail-on-worse. */
export function failLines(r: Report): string[] {
  const out = r.gates.filter((g) => g.failures.length).map((g) => `FAIL ${g.detector}: ${g.failures.join("; ")}`);
  for (const f of r.baseline?.failures ?? []) {
    out.push(`FAIL ${f.detector}: worse than ${r.baseline!.file}: ${f.worse.join(", ")}`);
  }
  return out;
}

export function episodeLines(r: Report): string[] {
  // A heading over nothing reads as a rendering bug: say there are none instead.
  if (r.files.every((f) => !f.scores[0]?.episodes.length)) return ["Episodes (truth blocked): none"];
  const out: string[] = ["Episodes (truth blocked):"];
  for (const f of r.files) {
    f.scores[0]?.episodes.forEach((e, i) => {
      out.push(
        `  ${r.files.length > 1 ? `${disarm(f.path)} ` : ""}#${i + 1} ${e.start.toFixed(3)}–${e.end.toFixed(3)} s${
          e.kind ? ` (${disarm(e.kind)})` : ""
        }`,
      );
      const rows = f.scores.map((s) => {
        const ep = s.episodes[i];
        return [
          `    ${disarm(s.detector)}`,
          ep.detectedAt === null ? "missed" : `+${ep.latency!.toFixed(3)} s${ep.carried ? " (carried)" : ""}`,
          ep.linger > 0 ? `linger ${ep.linger.toFixed(2)} s${ep.lingerIntoNext ? " (into the next episode)" : ""}` : "",
        ];
      });
      out.push(...alignRows(rows));
    });
  }
  return out;
}

/** Text in markdown prose: disarmed, then markup made literal (a file named `<img onerror=…>` stays text). */
const mdEscape = (s: string) => disarm(s).replace(/[\\`*_{}\[\]<>|#!]/g, (c) => (c === "`" ? "'" : `\\${c}`));

export function renderMarkdown(r: Report, opts: { perFile?: boolean; episodes?: boolean } = {}): string {
  const m = manifestLine(r);
  const out: string[] = [`**${mdEscape(heading(r))}**`, ...(m ? ["", mdEscape(m)] : []), ""];
  const table = (sums: ReportSummary[], files = r.files.length) => {
    out.push(`| ${COLUMNS.join(" | ")} |`, `|:---|${COLUMNS.slice(1).map(() => "---:").join("|")}|`);
    for (const s of sums) {
      const cells = row(s, files);
      out.push(`| ${mdCode(cells[0])} | ${cells.slice(1).join(" | ")} |`);
    }
  };
  table(r.summaries);
  if (opts.perFile && r.files.length > 1) {
    for (const f of r.perFile) {
      out.push("", `${mdCode(f.path)}:`, "");
      table(f.summaries, 1);
    }
  }
  for (const n of truthNotes(r)) out.push("", mdEscape(n));
  if (opts.episodes) out.push("", "```", ...episodeLines(r).map((l) => l.replace(/`/g, "'")), "```");
  if (r.baseline) {
    const [head, ...rows] = baselineRows(r);
    out.push(
      "",
      `Compared with ${mdCode(r.baseline.file)} (durations: worse or better past ${
        r.baseline.tolerance.toFixed(2)
      } s):`,
      ...(r.baseline.otherFiles ? ["", `**Warning:** ${mdEscape(r.baseline.otherFiles)}`] : []),
      "",
      `| ${head.join(" | ")} |`,
      `|:---|${head.slice(1).map(() => "---:").join("|")}|`,
      ...rows.map(([d, ...cells]) => `| ${mdCode(d)} | ${cells.join(" | ")} |`),
    );
  }
  for (const g of r.gates) {
    if (g.failures.length) out.push("", `**FAIL** ${mdCode(g.detector)}: ${g.failures.join("; ")}`);
  }
  for (const f of r.baseline?.failures ?? []) {
    out.push("", `**FAIL** ${mdCode(f.detector)}: worse than ${mdCode(r.baseline!.file)}: ${f.worse.join(", ")}`);
  }
  out.push("", ...footnotes(r).map((n) => `- ${mdEscape(n)}`), "");
  const fixtures = r.files.map((f) => `${mdCode(f.path)} sha256 \`${f.sha256.slice(0, 16)}…\``).join(", ");
  out.push(
    `<sub>pstlab ${r.tool.version} · OSC 7501 revision ${r.spec.osc7501_revision} · truth: ${
      mdEscape(r.truth.source)
    } · ${fixtures} · reproduce: ${mdCommand(["pstlab", ...r.argv], { pipes: true })}</sub>`,
  );
  return out.join("\n") + "\n";
}
