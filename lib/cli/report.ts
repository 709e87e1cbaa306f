// `pstlab report`: the detector table — how fast each detector noticed that the program
// needed the user, what it missed, how long it lingered, how often it cried wolf.

import * as os from "node:os";
import { colorEnabled, type CommandSpec, err, ExitCode, parseDuration, parseFlags, parseNumber, UsageError } from "./common.ts";
import { INPUT_HELP, INPUT_OPTIONS, openOptions } from "./input.ts";
import { defaultDetectorNames } from "../detect/detectors.ts";
import { analyzeAll } from "../../replay/pool.ts";
import { buildReport, type Gate } from "../report/model.ts";
import { renderMarkdown, renderTable } from "../report/text.ts";
import { renderCsv, renderJson, renderJunit } from "../report/data.ts";
import { OutputFile } from "../recording/sink.ts";
import { loadManifestFlag } from "./detect_common.ts";

export const spec: CommandSpec = {
  name: "report",
  summary: "score every detector against the truth: latency, missed, linger, false alarms",
  usage: "pstlab report FILE… [--truth …] [--labels FILE] [--detectors LIST] [--manifest NAME|PATH] [--format FORMAT] [-o OUT]",
  options: [
    "  --truth SOURCE      markers (the capture's truth: labels), labels (--labels FILE), or a",
    "                      detector to compare against (protocol, screen:claude@50ms, …);",
    "                      default: markers, else --labels, else the protocol's reports",
    "  --labels FILE       TSV truth: seconds<TAB>state[<TAB>kind] (label a capture without editing it)",
    "  --detectors LIST    comma-separated detector names (default: the full set for --manifest)",
    "  --manifest NAME     manifest for the default detector set (default claude)",
    "  --format FORMAT     table (default), markdown, json, csv, junit, html",
    "  -o, --output OUT    write here (default stdout; `-` is stdout)",
    "  --episodes          list every truth episode with each detector's detection time",
    "  --per-file          also one table per file (JSON always has per_input)",
    "  --jobs N            analyse files in parallel on N worker threads (default: cores)",
    "  --gate LIST         detectors the --max-* thresholds apply to (default protocol)",
    "  --max-latency S     fail (exit 1) when a gated detector's max latency is above S",
    "  --max-missed N      fail when a gated detector missed more than N episodes",
    "  --max-false N       fail when a gated detector raised more than N false alarms",
    ...INPUT_HELP,
  ],
  notes: [
    "Detectors: protocol, screen:<m>@<interval>, tail8k:<m>, question, quiet>=<N>s, title:<m>,",
    "hash@500ms, combined:<m>, herdr:<m>; <m> is claude, codex, generic or a .toml path.",
    "Latency: from the truth turning blocked to the detector's first needs-you. Linger: how",
    "long it keeps saying needs-you after the truth leaves blocked (mean per episode).",
    "Exit 1 when a --max-* gate fails (criterion's \"regressed\"), 2 for bad input.",
  ],
  examples: [
    "pstlab report fixtures/captures/fake-claude.cast",
    "pstlab report session.cast --format markdown > report.md",
    "pstlab report runs/*.cast --format json -o report.json --jobs 4",
    "pstlab report session.cast --truth protocol --detectors screen:claude@300ms,herdr:claude",
    "pstlab report build.cast --labels truth.tsv --manifest generic --gate protocol --max-missed 0",
  ],
};

const FORMATS = ["table", "markdown", "json", "csv", "junit", "html"];

export async function run(argv: string[]): Promise<number> {
  const p = parseFlags(argv, spec, {
    ...INPUT_OPTIONS, truth: { type: "string" }, labels: { type: "string" }, detectors: { type: "string" }, manifest: { type: "string" },
    format: { type: "string" }, output: { type: "string", short: "o" }, episodes: { type: "boolean" }, "per-file": { type: "boolean" },
    jobs: { type: "string" }, gate: { type: "string" }, "max-latency": { type: "string" }, "max-missed": { type: "string" }, "max-false": { type: "string" },
  }, { minPositionals: 1 });
  if (!p) return 0;
  const v = p.values;
  const format = v.format ?? (v.output?.endsWith(".html") ? "html" : v.output?.endsWith(".json") ? "json" : v.output?.endsWith(".md") ? "markdown" : v.output?.endsWith(".csv") ? "csv" : v.output?.endsWith(".xml") ? "junit" : "table");
  if (!FORMATS.includes(format)) throw new UsageError(`report: unknown format "${format}" (use ${FORMATS.join(", ")})`);
  const manifest = v.manifest ?? "claude";
  loadManifestFlag(manifest);
  const detectors = v.detectors ? v.detectors.split(",").map((s) => s.trim()).filter(Boolean) : defaultDetectorNames(manifest);
  if (detectors.length === 0) throw new UsageError("report: --detectors is empty");
  const truth = v.truth ?? "auto";
  if (truth === "labels" && !v.labels) throw new UsageError("report: --truth labels needs --labels FILE");
  const jobs = v.jobs ? parseNumber(v.jobs, "--jobs", 1, 64) : Math.max(1, Math.min(os.cpus().length, p.positionals.length));
  const gate: Gate | null = v["max-latency"] || v["max-missed"] || v["max-false"]
    ? {
      detectors: (v.gate ?? "protocol").split(",").map((s) => s.trim()),
      maxLatency: v["max-latency"] ? parseDuration(v["max-latency"], "--max-latency") : undefined,
      maxMissed: v["max-missed"] ? parseNumber(v["max-missed"], "--max-missed", 0) : undefined,
      maxFalse: v["max-false"] ? parseNumber(v["max-false"], "--max-false", 0) : undefined,
    }
    : null;

  const tty = !!(process.stderr as { isTTY?: boolean }).isTTY;
  let lastLine = 0;
  const progress = (done: number, total: number, path: string, t?: number) => {
    if (total < 2 && t === undefined) return;
    const now = performance.now();
    if (now - lastLine < 250 && done < total) return;
    lastLine = now;
    const msg = done >= total ? `analysed ${total} file${total === 1 ? "" : "s"}` : `analysing ${done + 1}/${total} ${path}${t !== undefined ? ` (${t.toFixed(0)} s of capture)` : ""}`;
    err(tty ? `\r\x1b[K${msg}${done >= total ? "\n" : ""}` : `${msg}\n`);
  };
  const files = await analyzeAll(p.positionals, { detectors, truth, labels: v.labels, open: openOptions(v) }, jobs, progress);
  for (const f of files) for (const w of f.warnings) err(`pstlab: warning: ${w}\n`);
  const report = buildReport(files, gate, ["report", ...argv.filter((a) => a !== "-o" && a !== v.output)]);
  let text: string;
  switch (format) {
    case "markdown":
      text = renderMarkdown(report, { perFile: v["per-file"], episodes: v.episodes });
      break;
    case "json":
      text = renderJson(report, { episodes: v.episodes });
      break;
    case "csv":
      text = renderCsv(report);
      break;
    case "junit":
      text = renderJunit(report);
      break;
    case "html": {
      const { renderHtml } = await import("../report/html.ts");
      text = await renderHtml(report);
      break;
    }
    default:
      text = renderTable(report, { color: !v.output && colorEnabled(1), perFile: v["per-file"], episodes: v.episodes });
  }
  const out = OutputFile.open(v.output ?? "-", { overwrite: true });
  out.write(text);
  out.close();
  if (v.output && v.output !== "-") err(`pstlab: wrote ${v.output}\n`);
  if (report.gates.some((g) => g.failures.length)) throw new ExitCode(1, report.gates.filter((g) => g.failures.length).map((g) => `${g.detector}: ${g.failures.join("; ")}`).join("; "));
  return 0;
}
