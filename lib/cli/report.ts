// `pstlab report`: the detector table — how fast each detector noticed that the program
// needed the user, what it missed, how long it lingered, how often it cried wolf. Three
// modes, dispatched here: labelled snapshots, one shard of a split run, and the report
// (of captures, or of merged shards). The scoring, the shard format and the renderers
// live below (lib/score, lib/report); this file reads, dispatches and writes.

import { Buffer } from "node:buffer";
import * as os from "node:os";
import { colorEnabled, defineCommand, err, ExitCode } from "./common.ts";
import {
  choice,
  DETECTOR_NOTES,
  DETECTORS,
  duration,
  flag,
  formatFor,
  INPUT_OPTIONS,
  inputFile,
  JOBS,
  list,
  MANIFEST,
  missingArgument,
  number,
  type Opt,
  OUTPUT,
  outputFile,
  text,
  type Values,
} from "./options.ts";
import { openOptions } from "./input.ts";
import { writeText } from "./output.ts";
import { canonicalIfValid, defaultDetectorNames, namesRow, sameDetector } from "../detect/kinds.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { AUTO } from "../detect/choose.ts";
import { analyzeAll } from "../../replay/pool.ts";
import { castText, TOTAL_EMBED_BYTES } from "../../replay/embed.ts";
import type { AnalyzeOptions } from "../../replay/analyze.ts";
import { sha256File } from "../recording/source.ts";
import { buildReport, type Gate, type Report } from "../report/model.ts";
import {
  BY_EXTENSION,
  FORMAT_NAMES,
  type RenderContext,
  REPORT_EXPORTERS,
  REPORT_FORMATS,
  type ReportFormat,
} from "../report/exporters.ts";
import { parseBaseline } from "../report/baseline.ts";
import { UsageError } from "../errors.ts";
import type { OpenOptions } from "../recording/open.ts";
import type { FileResult } from "../score/result.ts";
import { isSnapshotLabels } from "../score/snapshots.ts";
import { snapshotReport } from "./report_snapshots.ts";
import {
  makeShard,
  type Merged,
  mergeShards,
  parseShard,
  parseShardSpec,
  recordingBeside,
  shardSlice,
} from "../score/shard.ts";
import { MAX_LABEL_TOLERANCE } from "../score/shard_schema.ts";
import * as fs from "node:fs";
import { readTextFile } from "../recording/source.ts";
import { declaredSourcesOfFile } from "../recording/sources.ts";
import { readCapped } from "../foreign_json.ts";
import { refuseSameInputs } from "../inputs.ts";
import { disarm, REDRAW_LINE } from "../text.ts";
import { summaryOf } from "./commands.ts";

const EXPORTS = REPORT_FORMATS.filter((f) => f !== "table");
/** --export-FORMAT for every format but the terminal table, from the exporter table. */
const EXPORT_OPTIONS = Object.fromEntries(
  EXPORTS.map((f, i) => [
    `export-${f}`,
    outputFile(
      "FILE",
      `also write the ${FORMAT_NAMES[f]} here${i === 0 ? " (any --export-* combine; one analysis)" : ""}`,
    ),
  ]),
) as Record<`export-${Exclude<ReportFormat, "table">}`, Opt<string>>;

const PLAYER_CHOICES = ["all", "first", "none"] as const;
type PlayerChoice = (typeof PLAYER_CHOICES)[number];

export const spec = {
  name: "report",
  summary: summaryOf("report"),
  synopsis: "FILE…",
  options: {
    truth: text(
      "SOURCE",
      "markers (the capture's truth: labels), labels (--labels FILE), or a\ndetector to compare against (protocol, screen:claude@50ms, …);\ndefault: markers, else --labels, else the protocol's reports",
    ),
    labels: inputFile(
      "FILE",
      "TSV truth: seconds<TAB>state[<TAB>kind] (label a capture without editing it);\nor PATH<TAB>state[<TAB>kind] per screen snapshot: accuracy and confusion per detector",
    ),
    "label-tolerance": {
      ...duration(
        "DURATION",
        "hand labels land late: an alarm that leads a label by at most this counts as\non time (latency 0, no false alarm); default off, e.g. 500ms",
      ),
      conflicts: ["merge"],
      reason: "it is the shards' own: give it to --shard; --merge takes theirs",
    },
    detectors: DETECTORS,
    manifest: MANIFEST,
    format: choice(
      "FORMAT",
      REPORT_FORMATS,
      `${REPORT_FORMATS.map((f, i) => (i === 0 ? `${f} (default)` : f)).join(", ")} (default: from -o's extension)`,
    ),
    output: OUTPUT,
    ...EXPORT_OPTIONS,
    episodes: flag("list every truth episode with each detector's detection time (JSON always lists them)"),
    "per-file": flag("also one table per file (JSON always has per_input)"),
    player: choice(
      "WHICH",
      PLAYER_CHOICES,
      `HTML: which captures get a player: all (default: until ${
        TOTAL_EMBED_BYTES >> 20
      } MB of recordings,\nthen none, the page says so), first, or none`,
    ),
    jobs: JOBS,
    shard: text(
      "K/N",
      "analyse only the K-th of N slices of the files (every N-th, from the K-th) and\nwrite a shard file for --merge (JSON), for a corpus split across machines",
    ),
    merge: {
      ...flag("FILE… are shard files: print the report one run over all their files would print"),
      conflicts: ["shard"],
    },
    baseline: {
      ...inputFile(
        "OLD.json",
        "compare with an earlier `report --format json` (also of --merge): each\ndetector's change in latency, missed, carried, linger and false alarms",
      ),
      conflicts: ["shard"],
      reason: "--baseline compares reports; a --shard writes none",
    },
    "fail-on-worse": {
      ...list(
        "LIST",
        "detectors (or all) that fail (exit 1) when worse than --baseline, or (with\n--compare-manifest) when a labelled file right with the old manifest is wrong now",
      ),
      requires: ["baseline", "compare-manifest"],
    },
    "worse-tolerance": {
      ...duration(
        "DURATION",
        "how much a median/max latency or mean linger may grow before it is worse\n(default 50ms); counts are worse when they grow at all",
      ),
      requires: ["baseline"],
    },
    gate: {
      ...list("LIST", "detectors the --max-* thresholds apply to (default protocol)"),
      requires: ["max-latency", "max-missed", "max-false"],
    },
    "max-latency": duration("S", "fail (exit 1) when a gated detector's max latency is above S"),
    "max-missed": number("N", "fail when a gated detector missed more than N episodes", { min: 0, integer: true }),
    "max-false": number("N", "fail when a gated detector raised more than N false alarms", { min: 0, integer: true }),
    "compare-manifest": {
      ...inputFile(
        "NAME|PATH",
        "with --labels on pane captures: judge every file with this (old) manifest too,\nprint both accuracies and every file whose verdict changed (old → new, each rule)",
      ),
      requires: ["labels"],
    },
    ...INPUT_OPTIONS,
  },
  positionals: { min: 0, files: ["in"] as const },
  notes: [
    ...DETECTOR_NOTES,
    "",
    "Latency: from the episode's start to the first sample at or after it that says needs-you.",
    "Carried: episodes detected by an alarm already up before they began (a stale alarm).",
    "Linger: from the episode's end to the end of the alarm then in force, never cut at the next.",
    "False alarms: alarms that begin outside blocked, counted where they begin, seconds by the",
    'truth state at each instant. README "How pstlab scores" (docs/scoring.md) has the details.',
    'Exit 1 when a --max-* gate or --fail-on-worse fails (criterion\'s "regressed"), 2 for bad input.',
  ],
  examples: [
    "pstlab report fixtures/captures/fake-claude.cast",
    "pstlab report corpus/*.cast --shard 2/4 -o part2.json   # on machine 2 of 4",
    "pstlab report --merge part*.json --format markdown",
    "pstlab report session.cast --format markdown > report.md",
    "pstlab report runs/*.cast --format json -o report.json --jobs 4",
    "pstlab report runs/*.cast --baseline report.json --fail-on-worse screen:auto@50ms",
    "pstlab report ci.cast --export-junit junit.xml --export-html report.html --export-json report.json",
    "pstlab report session.cast --truth protocol --detectors screen:claude@300ms,herdr:claude",
    "pstlab report live.cast --labels hand.tsv --label-tolerance 500ms",
    "pstlab report build.cast --labels truth.tsv --manifest generic --gate protocol --max-missed 0",
    "pstlab report --labels corpus/labels.tsv --manifest new.toml --compare-manifest old.toml --fail-on-worse all",
  ],
};

type V = Values<typeof spec.options>;

/** Default --worse-tolerance: a 50 ms sampling step is noise, not a regression. */
export const DEFAULT_WORSE_TOLERANCE = 0.05;

function gateFrom(v: V): Gate | null {
  if (v["max-latency"] === undefined && v["max-missed"] === undefined && v["max-false"] === undefined) return null;
  return {
    // As the detectors name themselves (`screen:claude` is `screen:claude@50ms`).
    detectors: (v.gate ?? ["protocol"]).map(canonicalIfValid),
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
    err(tty ? `${REDRAW_LINE}${disarm(msg)}${done >= total ? "\n" : ""}` : `${disarm(msg)}\n`);
  };
}

const WHERE_FLAGS = new Set(["-o", "--output", "--format", ...EXPORTS.map((f) => `--export-${f}`)]);

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

/** Every output asked for: the --export-* files, then -o (or stdout) in the main format. */
function outputs(v: V, format: ReportFormat): [string, ReportFormat][] {
  const out: [string, ReportFormat][] = [];
  for (const f of EXPORTS) {
    const path = v[`export-${f}`];
    if (path) out.push([path, f]);
  }
  out.push([v.output ?? "-", format]);
  return out;
}

function labelTolerance(v: V): number {
  const t = v["label-tolerance"] ?? 0;
  if (t > MAX_LABEL_TOLERANCE) {
    throw new UsageError(`report: --label-tolerance ${t} s is more than ${MAX_LABEL_TOLERANCE} s`);
  }
  return t;
}

/** Shard files, each read with the size cap and checked against the shard schema. */
function readShards(paths: string[]): Merged {
  return mergeShards(paths.map((file) => ({ file, shard: parseShard(readCapped(file), file) })));
}

/**
 * The recordings the HTML page embeds. A capture named on the command line is read as
 * analysed; a merged shard's is looked for only beside its shard file (recordingBeside)
 * and embedded only when its sha256 is the one the shard recorded.
 */
export async function castsFor(
  files: FileResult[],
  merged: Merged | null,
  open: OpenOptions,
  player: PlayerChoice = "all",
  budget = TOTAL_EMBED_BYTES,
): Promise<{ casts: (string | null)[]; why: (string | null)[] }> {
  const casts: (string | null)[] = [], why: (string | null)[] = [];
  // --player all (the default) embeds until the page's budget is spent, then none: a
  // page of many captures stays one a browser opens, and says what it left out.
  let left = budget, spent = false;
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    if (player === "none" || (player === "first" && i > 0)) {
      casts.push(null);
      why.push(`no player (--player ${player}); pstlab play FILE replays it`);
      continue;
    }
    if (spent) {
      casts.push(null);
      why.push(budgetNote);
      continue;
    }
    let path: string | null = f.path;
    if (merged) {
      const beside = recordingBeside(merged.from[i], f.path);
      const ok = beside !== null && fs.existsSync(beside) && fs.statSync(beside).isFile() && f.sha256 !== "" &&
        sha256File(beside) === f.sha256;
      if (!ok) {
        // Said which of the reasons it is: the shard names a pipe, or no copy lies beside it.
        casts.push(null);
        why.push(
          f.path === "-" || beside === null
            ? "not embedded: the shard's capture was read from a pipe; pstlab play a saved copy"
            : `not embedded: no copy of the capture with the shard's sha256 beside it (${beside})`,
        );
        continue;
      }
      path = beside;
    } else if (path === "-" || !fs.statSync(path).isFile()) {
      // stdin, a FIFO, a process substitution: read once, by the analysis; opening it again would wait for ever.
      casts.push(null);
      why.push("not embedded: read from a pipe (read once, for the analysis); pstlab play a saved copy");
      continue;
    }
    const cast = path === null ? null : await castText(path, open);
    // What it costs the page: the text as embedded (a JSON string: quotes and escapes
    // double a capture's size), in UTF-8 bytes.
    const size = cast === null ? 0 : Buffer.byteLength(JSON.stringify(cast));
    if (cast !== null && size > budget) {
      // Too big for any page on its own: said as such (no capture above spent anything,
      // and --player first would change nothing), and the ones after it still get theirs.
      casts.push(null);
      why.push(
        `not embedded: its recording (${
          (size / (1 << 20)).toFixed(0)
        } MB in the page) is bigger than the page's player budget (${budget >> 20} MB); pstlab play FILE replays it`,
      );
      continue;
    }
    if (cast !== null && size > left) {
      spent = true;
      casts.push(null);
      why.push(budgetNote);
      continue;
    }
    left -= size;
    casts.push(cast);
    why.push(null);
  }
  return { casts, why };
}

const budgetNote = `not embedded: the page's player budget (${
  TOTAL_EMBED_BYTES >> 20
} MB of recordings) was spent on the captures above; --player first for a lighter page, or pstlab play FILE`;

/**
 * `--merge … --detectors LIST`: the shards' rows of those detectors only (the shards were
 * analysed with their own set; a name none of them has is refused, not ignored).
 */
function onlyDetectors(m: Merged, names: string[] | undefined): Merged {
  if (!names) return m;
  const keep = new Set<number>();
  for (const name of names) {
    const hits = m.detectors.flatMap((d, i) =>
      namesRow(name, d) || m.files.some((f) => f.scores[i] && namesRow(name, f.scores[i].detector)) ? [i] : []
    );
    if (!hits.length) {
      throw new UsageError(
        `report: --detectors ${name} is not a detector of the shards (${
          m.detectors.join(", ")
        }): --merge reports only theirs`,
      );
    }
    hits.forEach((i) => keep.add(i));
  }
  const idx = [...keep]; // in the order asked, as a run with --detectors LIST lists them
  return {
    ...m,
    detectors: idx.map((i) => m.detectors[i]),
    files: m.files.map((f) => {
      const scores = idx.map((i) => f.scores[i]);
      const kept = new Set(scores.map((s) => s.detector));
      return { ...f, scores, timelines: f.timelines.filter((t) => kept.has(t.detector)) };
    }),
  };
}

/** `--gate` names must be detectors of the run (or one `auto` becomes): a typo must not pass CI silently. */
function checkGate(gate: Gate | null, failOn: string[], detectors: string[]): void {
  // Before the analysis: a name no asked detector builds (`auto` on either side stands for any manifest).
  const known = (g: string) => detectors.some((d) => sameDetector(g, d) || namesRow(g, d));
  const badGate = gate?.detectors.find((g) => !known(g));
  if (badGate) {
    throw new UsageError(`report: --gate ${badGate} is not a detector of this run (${detectors.join(", ")})`);
  }
  const badWorse = failOn.find((g) => g !== "all" && !known(g));
  if (badWorse) {
    throw new UsageError(`report: --fail-on-worse ${badWorse} is not a detector of this run (${detectors.join(", ")})`);
  }
}

/** After pooling: a gate on a name no summary has, or on the report's own truth, is refused. */
function checkGateAfter(gate: Gate | null, report: Report): void {
  const unknownGate = gate?.detectors.find((d) => !report.summaries.some((s) => namesRow(d, s.detector)));
  if (unknownGate) {
    throw new UsageError(
      `report: --gate ${unknownGate} is not a detector of this run (${
        report.summaries.map((s) => s.detector).join(", ")
      })`,
    );
  }
  // Gating the truth against itself always passes: a gate that cannot fail is refused.
  const selfGraded = gate?.detectors.find((d) =>
    report.summaries.some((s) => namesRow(d, s.detector) && s.truthFiles >= report.files.length)
  );
  if (selfGraded) {
    throw new UsageError(
      `report: --gate ${selfGraded} is this report's truth (no truth markers or --labels), so it cannot fail; give --labels FILE, or gate another detector`,
    );
  }
}

/** `--shard K/N`: analyse this machine's slice and write its shard file. */
async function writeShard(
  spec: string,
  paths: string[],
  analysis: AnalyzeOptions,
  jobs: number | undefined,
  output: string | undefined,
): Promise<number> {
  const { k, n } = parseShardSpec(spec);
  const mine = shardSlice(paths, k, n);
  const results = await analyzeAll(mine.map((m) => m.item), analysis, jobs ?? defaultJobs(mine.length), progressLine());
  const shard = makeShard(
    spec,
    paths.length,
    analysis.detectors,
    analysis.truth,
    analysis.labelTolerance ?? 0,
    results.map((result, i) => ({ index: mine[i].index, result })),
  );
  writeText(output ?? "-", JSON.stringify(shard) + "\n");
  return 0;
}

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const format = formatFor(v.format, v.output, BY_EXTENSION, "table");
  // What report scores is a capture: a file it could only guess is raw bytes is refused (give --raw).
  const open: OpenOptions = { ...openOptions(v), captureOnly: true };
  if (v.labels && !v.merge) {
    const text = readTextFile(v.labels);
    if (isSnapshotLabels(text, v.labels)) {
      return await snapshotReport(p.positionals, v.labels, text, v, outputs(v, format), open);
    }
  }
  if (v["compare-manifest"]) {
    throw new UsageError("report: --compare-manifest needs --labels FILE labelling pane captures (PATH<TAB>state)");
  }
  if (p.positionals.length === 0) throw missingArgument(spec);
  if (!v.merge) refuseSameInputs(p.positionals);
  const manifest = v.manifest ?? AUTO;
  if (manifest !== AUTO) resolveManifest(manifest);
  const merged = v.merge ? onlyDetectors(readShards(p.positionals), v.detectors) : null;
  // process and hooks join the default set when a capture carries them (its recorder says so).
  const detectors = merged?.detectors ?? v.detectors ??
    defaultDetectorNames(manifest, new Set(p.positionals.flatMap((f) => [...declaredSourcesOfFile(f)])));
  const truth = v.truth ?? "auto";
  if (truth === "labels" && !v.labels) throw new UsageError("report: --truth labels needs --labels FILE");
  const tolerance = merged ? merged.labelTolerance : labelTolerance(v);
  const gate = gateFrom(v);
  const failOn = (v["fail-on-worse"] ?? []).map((d) => (d === "all" ? d : canonicalIfValid(d)));
  checkGate(gate, failOn, detectors);
  // The baseline is read (and a malformed one refused) before the analysis, not after
  // minutes of it; whether its detectors are this run's is known once `auto` has pooled.
  const baseline = v.baseline ? parseBaseline(readCapped(v.baseline), v.baseline) : null;
  const analysis: AnalyzeOptions = { detectors, truth, labels: v.labels, open, labelTolerance: tolerance };
  if (v.shard) return await writeShard(v.shard, p.positionals, analysis, v.jobs, v.output);
  const files = merged
    ? merged.files
    : await analyzeAll(p.positionals, analysis, v.jobs ?? defaultJobs(p.positionals.length), progressLine());
  // A labels file's warning is the same for each capture it labels: said once.
  for (const w of new Set(files.flatMap((f) => f.warnings))) err(`pstlab: warning: ${disarm(w)}\n`);
  const report = buildReport(files, gate, reproduceArgv(p.argv, format), {
    labelTolerance: tolerance,
    baseline: baseline
      ? { doc: baseline, tolerance: v["worse-tolerance"] ?? DEFAULT_WORSE_TOLERANCE, failOn }
      : undefined,
  });
  checkGateAfter(gate, report);
  if (report.baseline?.otherFiles) err(`pstlab: warning: ${disarm(report.baseline.otherFiles)}\n`);
  const targets = outputs(v, format);
  const ctx: RenderContext = {
    perFile: v["per-file"],
    episodes: v.episodes,
  };
  if (targets.some(([, f]) => f === "html")) {
    const embedded = await castsFor(files, merged, open, v.player ?? "all");
    ctx.casts = embedded.casts;
    ctx.notEmbedded = embedded.why;
  }
  for (const [path, f] of targets) {
    const color = path === "-" && !v.output && colorEnabled(1);
    writeText(path, REPORT_EXPORTERS[f]({ ...report, argv: reproduceArgv(p.argv, f) }, { ...ctx, color }), f);
  }
  const failed = [
    ...report.gates.filter((g) => g.failures.length).map((g) => `${g.detector}: ${g.failures.join("; ")}`),
    ...(report.baseline?.failures ?? []).map((f) =>
      `${f.detector}: worse than ${report.baseline!.file}: ${f.worse.join(", ")}`
    ),
  ];
  if (failed.length) throw new ExitCode(1, failed.join("; "));
  return 0;
});
