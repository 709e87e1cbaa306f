// `pstlab report`: the detector table — how fast each detector noticed that the program
// needed the user, what it missed, how long it lingered, how often it cried wolf.

import * as os from "node:os";
import { colorEnabled, defineCommand, err, ExitCode } from "./common.ts";
import {
  choice,
  DETECTORS,
  duration,
  flag,
  formatFor,
  INPUT_OPTIONS,
  JOBS,
  list,
  MANIFEST,
  number,
  OUTPUT,
  text,
  type Values,
} from "./options.ts";
import { openOptions } from "./input.ts";
import { writeText } from "./output.ts";
import { defaultDetectorNames } from "../detect/detectors.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { AUTO, usesAuto } from "../detect/choose.ts";
import { analyzeAll } from "../../replay/pool.ts";
import { castText } from "../../replay/embed.ts";
import { buildReport, type Gate, type Report } from "../report/model.ts";
import { renderMarkdown, renderTable } from "../report/text.ts";
import { renderCsv, renderJson, renderJunit } from "../report/data.ts";
import { renderHtml } from "../report/html.ts";
import { UsageError } from "../errors.ts";
import type { OpenOptions } from "../recording/open.ts";
import type { FileResult } from "../score/result.ts";
import { isSnapshotLabels, type Judged, parseSnapshotLabels, scoreSnapshots } from "../score/snapshots.ts";
import { instantDetectors, judgeSnapshot } from "../../replay/snapshots.ts";
import {
  renderSnapshotCsv,
  renderSnapshotHtml,
  renderSnapshotJson,
  renderSnapshotJunit,
  renderSnapshotMarkdown,
  renderSnapshotTable,
} from "../report/snapshots.ts";
import { resolve as pathResolve } from "node:path";
import { readTextFile } from "../recording/source.ts";
import { compareManifests } from "./compare_manifest.ts";

const FORMATS = ["table", "markdown", "json", "csv", "junit", "html"] as const;
type ReportFormat = (typeof FORMATS)[number];
const BY_EXTENSION: Record<string, ReportFormat> = {
  ".html": "html",
  ".htm": "html",
  ".json": "json",
  ".md": "markdown",
  ".csv": "csv",
  ".xml": "junit",
};

export const spec = {
  name: "report",
  summary: "score every detector against the truth: latency, missed, linger, false alarms",
  usage:
    "pstlab report FILE… [--truth …] [--labels FILE] [--detectors LIST] [--manifest NAME|PATH|auto] [--format FORMAT] [-o OUT] [--export-FORMAT OUT…]",
  options: {
    truth: text(
      "SOURCE",
      "markers (the capture's truth: labels), labels (--labels FILE), or a\ndetector to compare against (protocol, screen:claude@50ms, …);\ndefault: markers, else --labels, else the protocol's reports",
    ),
    labels: text(
      "FILE",
      "TSV truth: seconds<TAB>state[<TAB>kind] (label a capture without editing it);\nor PATH<TAB>state[<TAB>kind] per screen snapshot: accuracy and confusion per detector",
    ),
    detectors: DETECTORS,
    manifest: MANIFEST,
    format: choice(
      "FORMAT",
      FORMATS,
      "table (default), markdown, json, csv, junit, html (default: from -o's extension)",
    ),
    output: OUTPUT,
    "export-json": text("FILE", "also write the JSON report here (any --export-* combine; one analysis)"),
    "export-markdown": text("FILE", "also write the markdown report here"),
    "export-html": text("FILE", "also write the HTML report here"),
    "export-junit": text("FILE", "also write the JUnit XML here"),
    "export-csv": text("FILE", "also write the CSV here"),
    episodes: flag("list every truth episode with each detector's detection time"),
    "per-file": flag("also one table per file (JSON always has per_input)"),
    jobs: JOBS,
    shard: text(
      "K/N",
      "analyse only the K-th of N slices of the files (every N-th, from the K-th) and\nwrite a shard file for --merge (JSON), for a corpus split across machines",
    ),
    merge: flag("FILE… are shard files: print the report one run over all their files would print"),
    gate: list("LIST", "detectors the --max-* thresholds apply to (default protocol)"),
    "max-latency": duration("S", "fail (exit 1) when a gated detector's max latency is above S"),
    "max-missed": number("N", "fail when a gated detector missed more than N episodes", { min: 0, integer: true }),
    "max-false": number("N", "fail when a gated detector raised more than N false alarms", { min: 0, integer: true }),
    "compare-manifest": text(
      "NAME|PATH",
      "with --labels on pane captures: judge every file with this (old) manifest too,\nprint both accuracies and every file whose verdict changed (old → new, each rule)",
    ),
    "fail-on-worse": list("LIST", "detectors (or all): exit 1 when a file right with --compare-manifest is wrong now"),
    ...INPUT_OPTIONS,
  },
  positionals: { min: 0 },
  notes: [
    "Detectors: protocol, screen:<m>@<interval>, tail8k:<m>, question, quiet>=<N>s, title:<m>,",
    "hash@500ms, combined:<m>, herdr:<m>; <m> is claude, codex, generic, auto or a .toml path.",
    "Latency: from the truth turning blocked to the detector's first needs-you. Linger: how",
    "long it keeps saying needs-you after the truth leaves blocked (mean per episode).",
    'Exit 1 when a --max-* gate fails (criterion\'s "regressed"), 2 for bad input.',
  ],
  examples: [
    "pstlab report fixtures/captures/fake-claude.cast",
    "pstlab report corpus/*.cast --shard 2/4 -o part2.json   # on machine 2 of 4",
    "pstlab report --merge part*.json --format markdown",
    "pstlab report session.cast --format markdown > report.md",
    "pstlab report runs/*.cast --format json -o report.json --jobs 4",
    "pstlab report ci.cast --export-junit junit.xml --export-html report.html --export-json report.json",
    "pstlab report session.cast --truth protocol --detectors screen:claude@300ms,herdr:claude",
    "pstlab report build.cast --labels truth.tsv --manifest generic --gate protocol --max-missed 0",
    "pstlab report --labels corpus/labels.tsv --manifest new.toml --compare-manifest old.toml --fail-on-worse all",
  ],
};

type V = Values<typeof spec.options>;

function gateFrom(v: V): Gate | null {
  if (v["max-latency"] === undefined && v["max-missed"] === undefined && v["max-false"] === undefined) return null;
  return {
    detectors: v.gate ?? ["protocol"],
    maxLatency: v["max-latency"],
    maxMissed: v["max-missed"],
    maxFalse: v["max-false"],
  };
}

/** Progress on stderr: a line redrawn in place on a terminal; elsewhere one line per file, and only for several files. */
function progressLine(): (done: number, total: number, path: string, t?: number) => void {
  const tty = !!(process.stderr as { isTTY?: boolean }).isTTY;
  let lastLine = 0;
  return (done, total, path, t) => {
    if (total < 2 && (t === undefined || !tty)) return;
    if (!tty && t !== undefined) return;
    const now = performance.now();
    if (now - lastLine < 250 && done < total) return;
    lastLine = now;
    const msg = done >= total
      ? `analysed ${total} file${total === 1 ? "" : "s"}`
      : `analysing ${done + 1}/${total} ${path}${t !== undefined ? ` (${t.toFixed(0)} s of capture)` : ""}`;
    err(tty ? `\r\x1b[K${msg}${done >= total ? "\n" : ""}` : `${msg}\n`);
  };
}

async function render(
  format: ReportFormat,
  built: Report,
  argv: string[],
  v: V,
  open: OpenOptions,
  color: boolean,
): Promise<string> {
  const report = { ...built, argv: reproduceArgv(argv, format) };
  switch (format) {
    case "markdown":
      return renderMarkdown(report, { perFile: v["per-file"], episodes: v.episodes });
    case "json":
      return renderJson(report, { episodes: v.episodes });
    case "csv":
      return renderCsv(report);
    case "junit":
      return renderJunit(report);
    case "html": {
      const casts = [];
      for (const f of report.files) casts.push(await castText(f.path, open));
      return renderHtml(report, casts);
    }
    default:
      return renderTable(report, { color, perFile: v["per-file"], episodes: v.episodes });
  }
}

const WHERE_FLAGS = new Set([
  "-o",
  "--output",
  "--format",
  "--export-json",
  "--export-markdown",
  "--export-html",
  "--export-junit",
  "--export-csv",
]);

/**
 * The command line a report prints to reproduce itself: without where it was written
 * and with the format it is in, so an export reads the same as a separate run would.
 */
function reproduceArgv(argv: string[], format: ReportFormat): string[] {
  const kept = argv.filter((a, i) =>
    !WHERE_FLAGS.has(a) && !WHERE_FLAGS.has(argv[i - 1]) && !/^(--(output|format|export-[a-z]+)=|-o.)/.test(a)
  );
  return ["report", ...kept, ...(format === "table" ? [] : ["--format", format])];
}

/**
 * Half the cores: one analysis keeps about 1.4 of them busy (Bun compiles and collects
 * on helper threads: 1.95 s of CPU in 1.42 s for 100 captures, bench/analysis.ts), and
 * on 2 cores a second worker made the same run 6 % slower.
 */
function defaultJobs(files: number): number {
  return Math.max(1, Math.min(Math.floor(os.cpus().length / 2), files));
}

/** A shard file: the analysis of some files of a list, with what is needed to pool them exactly. */
interface Shard {
  pstlab_shard: 1;
  shard: string;
  total: number;
  detectors: string[];
  truth: string;
  files: { index: number; result: FileResult }[];
}

function parseShard(s: string): { k: number; n: number } {
  const m = /^([0-9]+)\/([0-9]+)$/.exec(s);
  const k = m ? Number(m[1]) : 0, n = m ? Number(m[2]) : 0;
  if (!m || n < 1 || n > 100000 || k < 1 || k > n) {
    throw new UsageError(`report: bad --shard "${s}" (use K/N with 1 ≤ K ≤ N, e.g. 2/4)`);
  }
  return { k, n };
}

/** The files of all shards in their original order; every index exactly once, the same detectors everywhere. */
function mergeShards(paths: string[]): { files: FileResult[]; detectors: string[] } {
  const parts: Shard[] = paths.map((p) => {
    let doc: Shard;
    try {
      doc = JSON.parse(readTextFile(p));
    } catch {
      throw new UsageError(`report --merge: ${p} is not a shard file (JSON from report --shard)`);
    }
    if (doc?.pstlab_shard !== 1 || !Array.isArray(doc.files)) {
      throw new UsageError(`report --merge: ${p} is not a shard file (JSON from report --shard)`);
    }
    return doc;
  });
  const first = parts[0];
  for (const [i, part] of parts.entries()) {
    if (
      part.total !== first.total || part.truth !== first.truth || part.detectors.join(",") !== first.detectors.join(",")
    ) {
      throw new UsageError(
        `report --merge: ${paths[i]} comes from a different run (files, detectors or truth differ from ${paths[0]})`,
      );
    }
  }
  const files: (FileResult | undefined)[] = new Array(first.total);
  for (const part of parts) {
    for (const f of part.files) {
      if (files[f.index]) {
        throw new UsageError(`report --merge: file ${f.index + 1} (${f.result.path}) is in two shards`);
      }
      files[f.index] = f.result;
    }
  }
  const missing: number[] = [];
  for (let i = 0; i < files.length; i++) if (!files[i]) missing.push(i + 1); // (flatMap would skip the holes)
  if (missing.length) {
    throw new UsageError(
      `report --merge: ${missing.length} of ${first.total} files missing (file ${missing.slice(0, 5).join(", ")}${
        missing.length > 5 ? ", …" : ""
      }): a shard is missing`,
    );
  }
  return { files: files as FileResult[], detectors: first.detectors };
}

/**
 * `report SNAPSHOT… --labels FILE` where FILE labels files, not times: every detector
 * that can judge one instant, scored on the snapshots' labels.
 */
async function snapshotReport(
  paths: string[],
  labelsFile: string,
  text: string,
  v: V,
  format: ReportFormat,
  open: OpenOptions,
): Promise<number> {
  const labels = parseSnapshotLabels(text, labelsFile);
  const byPath = new Map(labels.map((l) => [l.path, l]));
  const chosen = paths.length
    ? paths.map((p) => {
      const l = byPath.get(pathResolve(p));
      if (!l) throw new UsageError(`report: ${p} has no label in ${labelsFile}`);
      return l;
    })
    : labels;
  const manifest = v.manifest ?? AUTO;
  const { kept, dropped } = instantDetectors(
    v.detectors ??
      [`screen:${manifest}`, `tail8k:${manifest}`, "question", `title:${manifest}`, `combined:${manifest}`],
  );
  if (kept.length === 0) {
    throw new UsageError(
      `report: none of ${
        dropped.join(", ")
      } can judge a single instant (use screen, tail8k, question, title or combined)`,
    );
  }
  if (v["compare-manifest"]) {
    return await compareManifests({
      labels: chosen,
      kept,
      manifest,
      old: v["compare-manifest"],
      open,
      format,
      output: v.output,
      exports: [
        [v["export-json"], "json"],
        [v["export-markdown"], "markdown"],
        [v["export-html"], "html"],
        [v["export-junit"], "junit"],
        [v["export-csv"], "csv"],
      ],
      failOnWorse: v["fail-on-worse"],
    });
  }
  const judged: Judged[] = [];
  for (const l of chosen) judged.push(await judgeSnapshot(l, kept, manifest, open));
  for (const j of judged) for (const w of j.warnings) err(`pstlab: warning: ${w}\n`);
  // Files whose `auto` manifest differs pool under the name they were asked by.
  for (let i = 0; i < kept.length; i++) {
    if (!judged.every((j) => j.verdicts[i].detector === judged[0].verdicts[i].detector)) {
      for (const j of judged) j.verdicts[i].detector = kept[i];
    }
  }
  const scores = scoreSnapshots(judged);
  const n = judged.length;
  const render = (f: ReportFormat) =>
    f === "json"
      ? renderSnapshotJson(scores, n, dropped)
      : f === "markdown"
      ? renderSnapshotMarkdown(scores, n, dropped)
      : f === "csv"
      ? renderSnapshotCsv(scores)
      : f === "junit"
      ? renderSnapshotJunit(scores, judged.map((j) => j.path))
      : f === "html"
      ? renderSnapshotHtml(scores, n, dropped)
      : renderSnapshotTable(scores, n, dropped);
  const exports: [string | undefined, ReportFormat][] = [
    [v["export-json"], "json"],
    [v["export-markdown"], "markdown"],
    [v["export-html"], "html"],
    [v["export-junit"], "junit"],
    [v["export-csv"], "csv"],
  ];
  for (const [path, f] of exports) if (path) writeText(path, render(f));
  writeText(v.output ?? "-", render(format));
  return 0;
}

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  if (v.merge && v.shard) throw new UsageError("report: --shard and --merge cannot be used together");
  if (v.labels && !v.merge) {
    const text = readTextFile(v.labels);
    if (isSnapshotLabels(text)) {
      return await snapshotReport(
        p.positionals,
        v.labels,
        text,
        v,
        formatFor(v.format, v.output, BY_EXTENSION, "table"),
        openOptions(v),
      );
    }
  }
  if (v["compare-manifest"] || v["fail-on-worse"]) {
    throw new UsageError(
      v["compare-manifest"]
        ? "report: --compare-manifest needs --labels FILE labelling pane captures (PATH<TAB>state)"
        : "report: --fail-on-worse needs --compare-manifest OLD and --labels FILE",
    );
  }
  if (p.positionals.length === 0) throw new UsageError(`report: missing argument (usage: ${spec.usage})`);
  const format = formatFor(v.format, v.output, BY_EXTENSION, "table");
  const manifest = v.manifest ?? AUTO;
  if (manifest !== AUTO) resolveManifest(manifest);
  const merged = v.merge ? mergeShards(p.positionals) : null;
  const detectors = merged?.detectors ?? v.detectors ?? defaultDetectorNames(manifest);
  const truth = v.truth ?? "auto";
  if (truth === "labels" && !v.labels) throw new UsageError("report: --truth labels needs --labels FILE");
  const gate = gateFrom(v);
  // A gate must name a detector of the run (or one `auto` becomes): a typo must not pass CI silently.
  const gateable = (g: string) =>
    detectors.includes(g) ||
    detectors.some((d) =>
      usesAuto(d) && d.split(":")[0] === g.split(":")[0] && (d.split("@")[1] ?? "") === (g.split("@")[1] ?? "")
    );
  const badGate = gate?.detectors.find((g) => !gateable(g));
  if (badGate) {
    throw new UsageError(`report: --gate ${badGate} is not a detector of this run (${detectors.join(", ")})`);
  }
  const open = openOptions(v);
  if (v.shard) {
    const { k, n } = parseShard(v.shard);
    const mine = p.positionals.map((path, index) => ({ path, index })).filter(({ index }) => index % n === k - 1);
    const jobs = v.jobs ?? defaultJobs(mine.length);
    const results = await analyzeAll(
      mine.map((m) => m.path),
      { detectors, truth, labels: v.labels, open },
      jobs,
      progressLine(),
    );
    const shard: Shard = {
      pstlab_shard: 1,
      shard: v.shard,
      total: p.positionals.length,
      detectors,
      truth,
      files: results.map((result, i) => ({ index: mine[i].index, result })),
    };
    writeText(v.output ?? "-", JSON.stringify(shard) + "\n");
    return 0;
  }
  const jobs = v.jobs ?? defaultJobs(p.positionals.length);
  const files = merged
    ? merged.files
    : await analyzeAll(p.positionals, { detectors, truth, labels: v.labels, open }, jobs, progressLine());
  for (const f of files) for (const w of f.warnings) err(`pstlab: warning: ${w}\n`);
  const report = buildReport(files, gate, reproduceArgv(p.argv, format));
  const unknownGate = gate?.detectors.find((d) => !report.summaries.some((s) => s.detector === d));
  if (unknownGate) {
    throw new UsageError(
      `report: --gate ${unknownGate} is not a detector of this run (${
        report.summaries.map((s) => s.detector).join(", ")
      })`,
    );
  }
  // Gating the truth against itself always passes: a gate that cannot fail is refused.
  const selfGraded = gate?.detectors.find((d) =>
    report.summaries.some((s) => s.detector === d && s.truthFiles >= files.length)
  );
  if (selfGraded) {
    throw new UsageError(
      `report: --gate ${selfGraded} is this report's truth (no truth markers or --labels), so it cannot fail; give --labels FILE, or gate another detector`,
    );
  }
  const exports: [string | undefined, ReportFormat][] = [
    [v["export-json"], "json"],
    [v["export-markdown"], "markdown"],
    [v["export-html"], "html"],
    [v["export-junit"], "junit"],
    [v["export-csv"], "csv"],
  ];
  for (const [path, f] of exports) if (path) writeText(path, await render(f, report, p.argv, v, open, false));
  writeText(v.output ?? "-", await render(format, report, p.argv, v, open, !v.output && colorEnabled(1)));
  if (report.gates.some((g) => g.failures.length)) {
    throw new ExitCode(
      1,
      report.gates.filter((g) => g.failures.length).map((g) => `${g.detector}: ${g.failures.join("; ")}`).join("; "),
    );
  }
  return 0;
});
