// `check --matrix`: the terminal environments a scripted session is recorded in (one
// `--matrix DIM=V1,V2…` per dimension, the cells their product), the cells' results, the
// repetition statistics of `--repeat`, and the four outputs (text table, JSON, JUnit,
// markdown). Recording the cells is lib/cli/check_matrix.ts; this file is pure.

import { UsageError } from "../errors.ts";
import { parseDuration } from "../units.ts";
import { type CheckName, CHECKS, counts, type FileCheck, type Finding } from "./findings.ts";
import { jsonFinding } from "./render.ts";
import { median, percentile } from "../score/metrics.ts";
import { disarm, mdCode, mdCommand, paint, round6, xmlText } from "../text.ts";
import { TOOL, VERSION } from "../version.ts";

export const MATRIX_SCHEMA = 1;

/** Each dimension, its allowed values (a value is one of these or matches `pattern`) and what it does. */
export const DIMENSIONS = {
  query: {
    values: ["answered", "late:DURATION", "none"],
    help: "how pstlab, the outermost terminal, answers the OSC 7501 query: at once, after a delay, never",
  },
  tmux: {
    values: ["off", "passthrough", "plain"],
    help: "run the command in a private tmux server, allow-passthrough on (passthrough) or off (plain)",
  },
  term: {
    values: ["xterm-256color", "pst", "dumb"],
    help: "TERM for the program; pst is a private terminfo entry that advertises the Pst capability",
  },
  size: { values: ["COLSxROWS"], help: "the screen size, e.g. 80x24,120x32,200x50" },
} as const;

export type Dimension = keyof typeof DIMENSIONS;
export const DIMENSION_ORDER: Dimension[] = ["query", "tmux", "term", "size"];

export interface MatrixDim {
  name: Dimension;
  values: string[];
}

/** The longest query delay a cell may ask for (longer is "none"). */
export const MAX_QUERY_DELAY = 600;

/** A cell's query value as the recorder takes it: answered at once, `delay` s late, or never. */
export function queryAnswer(v: string | undefined): { answer: boolean; delay: number } {
  if (v === undefined || v === "answered") return { answer: true, delay: 0 };
  if (v === "none") return { answer: false, delay: 0 };
  return { answer: true, delay: parseDuration(v.slice("late:".length), "query=late") };
}

export function parseSize(v: string): { cols: number; rows: number } | null {
  const m = /^(\d{1,4})x(\d{1,4})$/.exec(v);
  if (!m) return null;
  const cols = Number(m[1]), rows = Number(m[2]);
  return cols >= 2 && cols <= 1000 && rows >= 2 && rows <= 1000 ? { cols, rows } : null;
}

function valueProblem(name: Dimension, v: string): string | null {
  switch (name) {
    case "query": {
      if (v === "answered" || v === "none") return null;
      if (!v.startsWith("late:")) return "answered, late:DURATION or none";
      try {
        const d = queryAnswer(v).delay;
        return d > 0 && d <= MAX_QUERY_DELAY ? null : `a delay above 0 and at most ${MAX_QUERY_DELAY} s`;
      } catch (e) {
        return (e as Error).message;
      }
    }
    case "tmux":
      return (DIMENSIONS.tmux.values as readonly string[]).includes(v) ? null : "off, passthrough or plain";
    case "term":
      return (DIMENSIONS.term.values as readonly string[]).includes(v) ? null : "xterm-256color, pst or dumb";
    case "size":
      return parseSize(v) ? null : "COLSxROWS, 2–1000 each (80x24)";
  }
}

/** One `--matrix DIM=V1,V2…` argument. */
export function parseMatrixArg(raw: string): MatrixDim {
  const eq = raw.indexOf("=");
  const name = raw.slice(0, eq) as Dimension;
  if (eq < 0 || !Object.hasOwn(DIMENSIONS, name)) {
    throw new UsageError(
      `--matrix "${disarm(raw.slice(0, 40))}": use DIM=V1,V2… with DIM one of ${DIMENSION_ORDER.join(", ")}`,
    );
  }
  const values = raw.slice(eq + 1).split(",").map((v) => v.trim());
  for (const v of values) {
    const problem = valueProblem(name, v);
    if (problem) throw new UsageError(`--matrix ${name}: "${disarm(v.slice(0, 40))}" is not ${problem}`);
  }
  if (new Set(values).size !== values.length) throw new UsageError(`--matrix ${name}: a value is given twice`);
  return { name, values };
}

/** The cells: the product of the dimensions, in the order the dimensions are listed. */
export function cellsOf(dims: MatrixDim[]): Record<string, string>[] {
  const seen = new Set<string>();
  for (const d of dims) {
    if (seen.has(d.name)) throw new UsageError(`--matrix ${d.name} is given twice (one --matrix per dimension)`);
    seen.add(d.name);
  }
  const ordered = [...dims].sort((a, b) => DIMENSION_ORDER.indexOf(a.name) - DIMENSION_ORDER.indexOf(b.name));
  let cells: Record<string, string>[] = [{}];
  for (const d of ordered) cells = cells.flatMap((c) => d.values.map((v) => ({ ...c, [d.name]: v })));
  return cells;
}

/** The cell's file name stem: `query-late-2s_tmux-plain` (only [A-Za-z0-9.-]), `default` for no dimension. */
export function cellName(cell: Record<string, string>): string {
  const parts = Object.entries(cell).map(([k, v]) => `${k}-${v.replace(/[^A-Za-z0-9.]+/g, "-")}`);
  return parts.length ? parts.join("_") : "default";
}

export const cellLabel = (cell: Record<string, string>) =>
  Object.entries(cell).map(([k, v]) => `${k}=${v}`).join(" ") || "(one cell)";

/** Summary of one run's latencies and the repeat statistics over a cell's runs. */
export interface LatencyStats {
  samples: number;
  median: number | null;
  p95: number | null;
  max: number | null;
  spread: number | null;
}

export function latencyStats(values: number[]): LatencyStats {
  const s = [...values].sort((a, b) => a - b);
  return {
    samples: s.length,
    median: median(s),
    p95: percentile(s, 95),
    max: s.length ? s[s.length - 1] : null,
    spread: s.length ? s[s.length - 1] - s[0] : null,
  };
}

export interface CellRun {
  check: FileCheck;
  capture: string;
  /** Protocol latency relative to the screen, one per prompt the protocol reported (s; negative = before). */
  latencies: number[];
  /** How the query went, seen from the outermost terminal (pstlab). */
  query: string;
}

export interface CellResult {
  cell: Record<string, string>;
  name: string;
  runs: CellRun[];
  /** Findings about the cell as a whole (the --repeat medians against a golden folder). */
  findings: Finding[];
  exit: number;
}

export interface MatrixRun {
  cells: CellResult[];
  dims: MatrixDim[];
  repeat: number;
  strict: boolean;
  tolerance: number;
  dir: string;
  argv: string[];
}

const failing = (f: Finding, strict: boolean) => f.severity === "violation" || (strict && f.severity === "warning");

/** 1 when any run of the cell fails, or the cell's own findings do. */
export function cellExit(runs: CellRun[], strict: boolean, cellFindings: Finding[] = []): number {
  return runs.some((r) => r.check.findings.some((f) => failing(f, strict))) ||
      cellFindings.some((f) => failing(f, strict))
    ? 1
    : 0;
}

export const matrixExit = (m: MatrixRun) => (m.cells.some((c) => c.exit !== 0) ? 1 : 0);

/** For each check, in how many of the cell's runs it was found. */
export function findingRuns(c: CellResult): Partial<Record<CheckName, number>> {
  const out: Partial<Record<CheckName, number>> = {};
  for (const r of c.runs) {
    for (const name of new Set(r.check.findings.map((f) => f.check))) out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

const allFindings = (c: CellResult) => [...c.findings, ...c.runs.flatMap((r) => r.check.findings)];

/** The cell's own findings, by check, as "golden-timing ×2". */
function cellOwn(c: CellResult): string[] {
  const n = new Map<string, number>();
  for (const f of c.findings) n.set(f.check, (n.get(f.check) ?? 0) + 1);
  // golden-none is about the golden folder, not the runs' medians: its own words.
  return [...n].map(([k, v]) =>
    k === "golden-none" ? "golden-none (no golden run for this cell)" : `${k} (medians)${v > 1 ? ` ×${v}` : ""}`
  );
}

const ms = (s: number | null) => (s === null ? "—" : `${Math.round(s * 1000)} ms`);

function findingsSummary(c: CellResult): string {
  const runs = findingRuns(c);
  const names = Object.keys(runs) as CheckName[];
  if (!names.length && !c.findings.length) return "no findings";
  const sev = { violation: 0, warning: 1, info: 2 };
  names.sort((a, b) => sev[CHECKS[a].severity] - sev[CHECKS[b].severity]);
  return [...cellOwn(c), ...names.map((n) => (c.runs.length > 1 ? `${n} ${runs[n]}/${c.runs.length}` : n))].join(", ");
}

function latencySummary(c: CellResult): string {
  const s = latencyStats(c.runs.flatMap((r) => r.latencies));
  if (!s.samples) return "—";
  if (s.samples === 1) return ms(s.median);
  return `median ${ms(s.median)}, p95 ${ms(s.p95)}, max ${ms(s.max)}, spread ${ms(s.spread)} (${s.samples})`;
}

/** The CHECK column: check's verdict on the cell (its exit status 0 or 1 in JSON's `exit`). */
const verdictWord = (exit: number) => (exit === 0 ? "pass" : "FAIL");

const COLOR = { 0: "32", 1: "1;31" } as Record<number, string>;

export function renderMatrixText(m: MatrixRun, color = false, detail = false): string {
  // CHECK is check's verdict on the cell, not the recorded program's exit code (a program that
  // exits 0 can fail the cell): "EXIT" read as the latter.
  const rows = [["CELL", "CHECK", "V/W/I", "QUERY", "LATENCY", "FINDINGS"]];
  for (const c of m.cells) {
    const n = counts(allFindings(c));
    rows.push([
      cellLabel(c.cell),
      verdictWord(c.exit),
      `${n.violation}/${n.warning}/${n.info}`,
      [...new Set(c.runs.map((r) => r.query))].join("; "),
      latencySummary(c),
      findingsSummary(c),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const out = rows.map((r, j) =>
    r.map((x, i) => {
      const cell = i === r.length - 1 ? disarm(x) : disarm(x).padEnd(widths[i]);
      return j > 0 && i === 1 ? paint(color, x === "pass" ? COLOR[0] : COLOR[1], cell) : cell;
    }).join("  ").trimEnd()
  );
  if (detail) {
    for (const c of m.cells) {
      if (c.findings.length) {
        const what = c.findings.every((f) => f.check === "golden-none") ? "the golden folder" : "the runs' medians";
        out.push("", `${cellLabel(c.cell)}: ${what}`);
      }
      for (const f of c.findings) out.push(`  ${f.severity.padEnd(9)} ${f.check}: ${disarm(f.message)}`);
      for (const r of c.runs) {
        out.push("", `${cellLabel(c.cell)}: ${disarm(r.capture)}`);
        for (const f of r.check.findings) {
          out.push(`  ${f.severity.padEnd(9)} ${f.start.toFixed(2)} s  ${f.check}: ${disarm(f.message)}`);
        }
        if (!r.check.findings.length) out.push("  no findings");
      }
    }
  }
  const bad = m.cells.filter((c) => c.exit !== 0).length;
  out.push(
    "",
    paint(
      color,
      bad ? "1;31" : "32",
      `check --matrix ${bad ? "FAILED" : "passed"}: ${bad} of ${m.cells.length} cell${
        m.cells.length === 1 ? "" : "s"
      } failed${m.repeat > 1 ? ` (${m.repeat} runs each)` : ""}${m.strict ? ", --strict" : ""}; captures in ${
        disarm(m.dir)
      }`,
    ),
  );
  return out.join("\n") + "\n";
}

const r6 = (x: number | null) => (x === null ? null : round6(x));

export function renderMatrixJson(m: MatrixRun): string {
  return JSON.stringify(
    {
      schema: MATRIX_SCHEMA,
      tool: { name: TOOL, version: VERSION },
      passed: matrixExit(m) === 0,
      strict: m.strict,
      tolerance_s: m.tolerance,
      repeat: m.repeat,
      dimensions: Object.fromEntries(m.dims.map((d) => [d.name, d.values])),
      cells: m.cells.map((c) => {
        const s = latencyStats(c.runs.flatMap((r) => r.latencies));
        return {
          cell: c.cell,
          name: c.name,
          exit: c.exit,
          // The first run's findings and capture (the issue's shape); every run below.
          findings: c.runs[0].check.findings.map(jsonFinding),
          capture: c.runs[0].capture,
          query: c.runs[0].query,
          latency: {
            samples: s.samples,
            median_s: r6(s.median),
            p95_s: r6(s.p95),
            max_s: r6(s.max),
            spread_s: r6(s.spread),
          },
          finding_runs: findingRuns(c),
          cell_findings: c.findings.map(jsonFinding),
          runs: c.runs.map((r) => ({
            capture: r.capture,
            query: r.query,
            reports: r.check.reports,
            duration_s: round6(r.check.duration),
            latencies_s: r.latencies.map(round6),
            findings: r.check.findings.map(jsonFinding),
          })),
        };
      }),
    },
    null,
    2,
  ) + "\n";
}

export function renderMatrixJunit(m: MatrixRun): string {
  const cases = m.cells.map((c) => {
    const fs = c.findings.map((f) =>
      `${f.check === "golden-none" ? "golden" : "medians"}: ${f.severity} ${f.check}: ${f.message}`
    ).concat(
      c.runs.flatMap((r, i) =>
        r.check.findings.map((f) =>
          `${c.runs.length > 1 ? `run ${i + 1}: ` : ""}${f.severity} ${f.check}: ${f.message}`
        )
      ),
    );
    const bad = allFindings(c).filter((f) => failing(f, m.strict));
    const out = fs.length
      ? `<system-out>${xmlText(fs.join("\n") + `\ncapture: ${c.runs[0].capture}`)}</system-out>`
      : "";
    const failure = bad.length
      ? `<failure message="${
        xmlText(`${bad.length} failing finding${bad.length === 1 ? "" : "s"}: ${bad[0].check}: ${bad[0].message}`)
      }" type="${bad[0].severity}"/>`
      : "";
    return `    <testcase classname="pstlab.check.matrix" name="${
      xmlText(cellLabel(c.cell))
    }">${failure}${out}</testcase>`;
  });
  const failures = m.cells.filter((c) => c.exit !== 0).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="pstlab check --matrix" tests="${m.cells.length}" failures="${failures}">\n  <testsuite name="matrix" tests="${m.cells.length}" failures="${failures}">\n${
    cases.join("\n")
  }\n  </testsuite>\n</testsuites>\n`;
}

const md = (s: string) => disarm(s).replace(/[\\`*_{}[\]<>|#!]/g, (c) => `\\${c}`);

export function renderMatrixMarkdown(m: MatrixRun): string {
  const bad = m.cells.filter((c) => c.exit !== 0).length;
  const out = [
    `**check --matrix ${bad ? "FAILED" : "passed"}: ${bad} of ${m.cells.length} cells failed${
      m.repeat > 1 ? ` (${m.repeat} runs each)` : ""
    }**`,
    "",
    "| Cell | Check | Query | Latency | Findings |",
    "|:---|---:|:---|:---|:---|",
  ];
  for (const c of m.cells) {
    out.push(
      `| ${mdCode(cellLabel(c.cell))} | ${verdictWord(c.exit)} | ${
        md([...new Set(c.runs.map((r) => r.query))].join("; "))
      } | ${md(latencySummary(c))} | ${md(findingsSummary(c))} |`,
    );
  }
  out.push(
    "",
    `<sub>pstlab ${VERSION} · reproduce: ${mdCommand(["pstlab", ...m.argv])}</sub>`,
  );
  return out.join("\n") + "\n";
}
