// `pstlab check`: does an emitter's capture keep the protocol? Spec lint, agreement
// with what the screen showed, a golden capture and an assertions file; exit 1 on a
// violation (on a warning too with --strict), for CI.

import { colorEnabled, defineCommand, ExitCode } from "./common.ts";
import {
  AT_LEAST_ONE_FILE,
  choice,
  duration,
  flag,
  formatFor,
  INPUT_OPTIONS,
  inputFile,
  MANIFEST,
  number,
  OUTPUT,
  repeated,
} from "./options.ts";
import { openOptions } from "./input.ts";
import { writeText } from "./output.ts";
import { AUTO } from "../detect/choose.ts";
import { resolveManifest } from "../detect/bundled.ts";
import type { OpenOptions } from "../recording/open.ts";
import { checkFile, readCapture } from "../../replay/check.ts";
import { parseRules } from "../check/rules.ts";
import { type CheckRun, CHECKS, exitCodeOf } from "../check/findings.ts";
import { renderCheckJson, renderCheckJunit, renderCheckMarkdown, renderCheckText } from "../check/render.ts";
import { readTextFile } from "../recording/source.ts";
import { summaryOf } from "./commands.ts";
import type { Opt, Values } from "./options.ts";
import { UsageError } from "../errors.ts";
import { parseDuration } from "../units.ts";
import { disarm } from "../text.ts";
import {
  type MatrixDim,
  matrixExit,
  parseMatrixArg,
  renderMatrixJson,
  renderMatrixJunit,
  renderMatrixMarkdown,
  renderMatrixText,
} from "../check/matrix.ts";
import { runMatrix } from "./check_matrix.ts";
import { err } from "./common.ts";
import * as fs from "node:fs";
import * as path from "node:path";

const FORMATS = ["text", "json", "junit", "markdown"] as const;
type CheckFormat = (typeof FORMATS)[number];
type CheckValues = Values<typeof spec.options>;
const BY_EXTENSION: Record<string, CheckFormat> = { ".json": "json", ".xml": "junit", ".md": "markdown" };

export const spec = {
  name: "check",
  summary: summaryOf("check"),
  synopsis: "FILE…",
  options: {
    manifest: { ...MANIFEST, help: "screen rules the protocol is checked against (default: auto)" },
    rules: inputFile(
      "FILE",
      "assertions (TOML): [[expect]] when/then/within, final, reports_min/max; [[forbid]] state",
    ),
    against: inputFile(
      "GOLDEN",
      "a known-good capture of the same scripted scenario: compare the transitions;\nwith --script also a folder of golden runs (a previous -o DIR): per-cell medians",
    ),
    tolerance: duration(
      "DURATION",
      "how late the protocol may follow the screen, or a transition the golden (default 500ms)",
    ),
    format: choice("FORMAT", FORMATS, "text (default), json, junit, markdown (default: from -o's extension)"),
    output: {
      ...OUTPUT,
      help:
        "write here (default stdout; `-` is stdout); with --script: the folder for the cells'\ncaptures and report (default pstlab-matrix)",
    },
    strict: flag("warnings fail too (exit 1)"),
    script: inputFile(
      "FILE",
      "record COMMAND (after --) headless, driven by this record --script, and check\nthe recording: once per --matrix cell and --repeat run",
    ),
    matrix: {
      ...repeated(
        "DIM=V1,V2…",
        "one per dimension, the cells are their product: query=answered,late:2s,none\ntmux=off,passthrough,plain term=xterm-256color,pst,dumb size=80x24,120x32",
      ),
      parse: (raw: string) => parseMatrixArg(raw),
      requires: ["script"],
    } as Opt<MatrixDim> & { multiple: true },
    repeat: {
      ...number("N", "record each cell N times: latency median/p95/max/spread, runs per finding", {
        min: 1,
        max: 100,
        integer: true,
      }),
      requires: ["script"],
    },
    "cell-timeout": {
      ...duration("DURATION", "stop a cell's program after this long and call it hung (default 60s)"),
      parse: (raw: string, f: string) => {
        const d = parseDuration(raw, f);
        if (d < 1 || d > 86400) throw new UsageError(`${f} must be between 1s and 24h`);
        return d;
      },
      requires: ["script"],
    },
    detail: { ...flag("with --script: every cell's findings after the table"), requires: ["script"] },
    overwrite: {
      ...flag("with --script: replace the captures of an earlier run in -o DIR (else refused)"),
      requires: ["script"],
    },
    ...INPUT_OPTIONS,
  },
  positionals: AT_LEAST_ONE_FILE,
  notes: [
    "Findings, each a violation, warning or info with a time range:",
    ...Object.entries(CHECKS).map(([k, v]) => `  ${k.padEnd(21)}${v.severity.padEnd(10)}${v.about}`),
    "The screen is read with the manifest's rules at 50 ms; a prompt shorter than 0.3 s is",
    "not counted; disagreements are reported after 5 s; a flap is a gap under 250 ms.",
    "Exit 0 when there is no violation, 1 when there is (or a warning, with --strict), 2 for",
    "bad usage or unreadable input.",
    "",
    "With --script, the positionals are a COMMAND (after --): it is recorded headless, driven",
    "by the script, once per cell of the --matrix dimensions (and --repeat times), each",
    "recording kept as DIR/<cell>.cast (-o DIR, default pstlab-matrix), and every recording",
    "checked. Output: one row per cell (exit, V/W/I counts, the program's OSC 7501 queries as",
    "pstlab saw them and how it answered, LATENCY = when the protocol reported blocked minus",
    "when the screen showed the prompt, and the findings); --format json/junit/markdown;",
    "the same report is written to DIR/report.{txt,json,xml,md}. tmux= needs tmux, term=pst",
    "needs tic (ncurses-bin). A program that asks, gets no answer and reports nothing made a",
    "documented choice (a warning); one that hangs or reports garbage fails.",
  ],
  examples: [
    "pstlab check session.cast",
    "pstlab check ci.cast --against fixtures/golden.cast --format junit -o check.xml",
    "pstlab check ci.cast --rules expect.toml --strict",
    "pstlab check fixtures/captures/sim-late.cast --format markdown",
    "pstlab check --matrix query=answered,none --matrix tmux=off,passthrough --script s.txt -o cells -- ./emitter",
    "pstlab check --repeat 5 --script s.txt --format json -- ./emitter",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  if (v.script) return await matrixCommand(p);
  const format = formatFor(v.format, v.output, BY_EXTENSION, "text");
  const manifest = v.manifest ?? AUTO;
  if (manifest !== AUTO) resolveManifest(manifest);
  const tolerance = v.tolerance ?? 0.5;
  // What check judges is a capture: a file it could only guess is raw bytes is refused (give --raw).
  const open: OpenOptions = { ...openOptions(v), captureOnly: true };
  const rules = v.rules ? { file: v.rules, rules: parseRules(readTextFile(v.rules), v.rules) } : undefined;
  const golden = v.against
    ? { name: v.against, log: (await readCapture(v.against, manifest, { captureOnly: true })).log }
    : undefined;
  const files = [];
  for (const path of p.positionals) files.push(await checkFile(path, { manifest, tolerance, open, golden, rules }));
  const run: CheckRun = {
    files,
    argv: [
      "check",
      ...p.argv.filter((a, i) =>
        a !== "-o" && a !== "--output" && p.argv[i - 1] !== "-o" && p.argv[i - 1] !== "--output"
      ),
    ],
    tolerance,
    against: v.against ?? null,
    rules: v.rules ?? null,
    strict: !!v.strict,
  };
  const text = format === "json"
    ? renderCheckJson(run)
    : format === "junit"
    ? renderCheckJunit(run)
    : format === "markdown"
    ? renderCheckMarkdown(run)
    : renderCheckText(run, !v.output && colorEnabled(1));
  writeText(v.output ?? "-", text);
  const code = exitCodeOf(run);
  if (code !== 0) throw new ExitCode(code);
  return 0;
});

const EXT: Record<CheckFormat, string> = { text: "txt", json: "json", junit: "xml", markdown: "md" };

/** Is `dir` the folder `root` or inside it (symlinks resolved, so an alias is caught too)? */
function insideOrSame(dir: string, root: string): boolean {
  const real = (p: string) => {
    // A folder not made yet: its nearest existing parent, resolved, plus the rest.
    const rest: string[] = [];
    let at = path.resolve(p);
    while (!fs.existsSync(at) && path.dirname(at) !== at) {
      rest.unshift(path.basename(at));
      at = path.dirname(at);
    }
    return path.join(fs.realpathSync(at), ...rest);
  };
  const rel = path.relative(real(root), real(dir));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** --script (with --matrix / --repeat): record the command per cell, check each recording. */
async function matrixCommand(p: { values: CheckValues; positionals: string[]; argv: string[] }): Promise<number> {
  const v = p.values;
  const format = v.format ?? "text";
  const manifest = v.manifest ?? AUTO;
  if (manifest !== AUTO) resolveManifest(manifest);
  const tolerance = v.tolerance ?? 0.5;
  // A folder of golden runs is compared by medians per cell; one golden capture run by run.
  const goldenDir = v.against && fs.existsSync(v.against) && fs.statSync(v.against).isDirectory()
    ? v.against
    : undefined;
  const rules = v.rules ? { file: v.rules, rules: parseRules(readTextFile(v.rules), v.rules) } : undefined;
  const golden = v.against && !goldenDir
    ? { name: v.against, log: (await readCapture(v.against, manifest, { captureOnly: true })).log }
    : undefined;
  const dir = v.output ?? "pstlab-matrix";
  if (dir === "-") throw new UsageError("check: with --script, -o names the folder for the cells' captures");
  // The golden runs are never written over: cells recorded into the golden folder would
  // replace it and then be compared with themselves (and pass).
  if (goldenDir && insideOrSame(dir, goldenDir)) {
    throw new UsageError(
      `check: -o ${disarm(dir)} is ${
        path.resolve(dir) === path.resolve(goldenDir) ? "" : "inside "
      }the --against folder ${disarm(goldenDir)}: write the new cells elsewhere`,
    );
  }
  const m = await runMatrix({
    dims: v.matrix ?? [],
    script: v.script!,
    command: p.positionals,
    dir,
    repeat: v.repeat ?? 1,
    cellTimeout: v["cell-timeout"] ?? 60,
    strict: !!v.strict,
    check: { manifest, tolerance, open: {}, golden, rules },
    goldenDir,
    overwrite: !!v.overwrite,
    argv: ["check", ...p.argv],
    log: (line) => err(`pstlab: ${disarm(line)}\n`),
  });
  const render = (f: CheckFormat, color: boolean) =>
    f === "json"
      ? renderMatrixJson(m)
      : f === "junit"
      ? renderMatrixJunit(m)
      : f === "markdown"
      ? renderMatrixMarkdown(m)
      : renderMatrixText(m, color, !!v.detail);
  writeText(path.join(dir, `report.${EXT[format]}`), render(format, false));
  writeText("-", render(format, colorEnabled(1)));
  const code = matrixExit(m);
  if (code !== 0) throw new ExitCode(code);
  return 0;
}
