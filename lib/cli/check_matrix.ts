// `check --matrix` / `--repeat`: records the scripted session once per cell and run (a
// `pstlab record --headless --script` child per recording, so each cell gets a fresh
// recorder and a hang in one cannot wedge the next), then checks every capture. A cell's
// environment is built around the command: `env TERM=…` (with a private terminfo entry for
// `pst`), a private tmux server (own socket dir and config), and the recorder's answer to the
// query (at once, `--answer-delay`, or `--no-answer`).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { UsageError } from "../errors.ts";
import { ExitCode } from "./common.ts";
import { selfArgv } from "../runtime.ts";
import { parseScript } from "../session/driver.ts";
import { readTextFile } from "../recording/source.ts";
import { shellQuote } from "../session/recorder.ts";
import { checkFile, type CheckOptions } from "../../replay/check.ts";
import { type Finding, finding } from "../check/findings.ts";
import { compareMedians, transitions } from "../check/golden.ts";
import { readCapture } from "../../replay/check.ts";
import {
  cellExit,
  cellLabel,
  cellName,
  type CellResult,
  type CellRun,
  cellsOf,
  type MatrixDim,
  type MatrixRun,
  parseSize,
  queryAnswer,
} from "../check/matrix.ts";
import { disarm } from "../text.ts";
import { sameFile } from "../recording/sink.ts";

export interface MatrixOptions {
  dims: MatrixDim[];
  script: string;
  command: string[];
  dir: string;
  repeat: number;
  /** Seconds a recording may run before the program is stopped (and the cell says it hung). */
  cellTimeout: number;
  strict: boolean;
  check: CheckOptions;
  /** --against GOLDEN_DIR: each cell's runs' transition medians against the golden runs'. */
  goldenDir?: string;
  /** Replace the captures an earlier run left in `dir` (check --overwrite). */
  overwrite?: boolean;
  argv: string[];
  /** Progress lines (stderr). */
  log: (line: string) => void;
}

/** The Debian package of each external tool a dimension needs. */
const TOOLS: Record<string, string> = { tmux: "tmux", tic: "ncurses-bin" };

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? "").split(":").some((d) => {
    try {
      fs.accessSync(path.join(d || ".", cmd), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Missing tools are one usage error before anything is recorded, not a skipped cell. */
export function checkTools(dims: MatrixDim[]): void {
  const need: [string, string][] = [];
  const tmux = dims.find((d) => d.name === "tmux")?.values.find((v) => v !== "off");
  if (tmux) need.push(["tmux", `tmux=${tmux}`]);
  if (dims.some((d) => d.name === "term" && d.values.includes("pst"))) need.push(["tic", "term=pst"]);
  for (const [tool, why] of need) {
    if (!onPath(tool)) {
      throw new UsageError(
        `check --matrix: ${why} needs ${tool}, which is not on PATH (Debian/Ubuntu: apt-get install ${TOOLS[tool]})`,
      );
    }
  }
}

/**
 * The spec's terminfo capability (docs/osc7501.md §5.4), on top of xterm-256color: emitters
 * that consult terminfo see `Pst` under term=pst and not under the others.
 */
const PST_TERMINFO = "pst|pstlab test terminal: xterm-256color that advertises OSC 7501 (Pst),\n" +
  "\tPst=\\E]7501;%p1%s\\E\\\\,\n\tuse=xterm-256color,\n";

function compileTerminfo(tmp: string): string {
  const src = path.join(tmp, "pst.terminfo");
  const db = path.join(tmp, "terminfo");
  fs.writeFileSync(src, PST_TERMINFO);
  const r = spawnSync("tic", ["-x", "-o", db, src], { encoding: "utf8" });
  if (r.status !== 0) {
    const why = disarm((r.stderr || r.error?.message || "failed").trim().split("\n")[0]);
    throw new UsageError(`check --matrix: term=pst: tic could not compile the Pst terminfo entry: ${why}`);
  }
  return db;
}

function tmuxConfig(tmp: string, passthrough: boolean): string {
  const file = path.join(tmp, `tmux-${passthrough ? "passthrough" : "plain"}.conf`);
  // A config of its own: the user's ~/.tmux.conf must not decide what the cell shows.
  fs.writeFileSync(
    file,
    [
      `set -g allow-passthrough ${passthrough ? "on" : "off"}`,
      "set -g escape-time 0",
      "set -g exit-empty on",
      "set -g destroy-unattached on",
      "",
    ].join("\n"),
  );
  return file;
}

interface CellEnv {
  argv: string[];
  recordFlags: string[];
  socket: string | null;
}

function cellCommand(
  cell: Record<string, string>,
  o: MatrixOptions,
  tmp: string,
  terminfo: string | null,
  id: string,
): CellEnv {
  let argv = o.command;
  if (cell.term) argv = ["env", `TERM=${cell.term}`, ...(cell.term === "pst" ? [`TERMINFO=${terminfo}`] : []), ...argv];
  let socket: string | null = null;
  if (cell.tmux && cell.tmux !== "off") {
    socket = `pstlab-${process.pid}-${id}`;
    const conf = tmuxConfig(tmp, cell.tmux === "passthrough");
    argv = ["tmux", "-L", socket, "-f", conf, "new-session", argv.map(shellQuote).join(" ")];
  }
  const q = queryAnswer(cell.query);
  const recordFlags = [
    ...(q.answer ? [] : ["--no-answer"]),
    ...(q.delay > 0 ? ["--answer-delay", `${q.delay}s`] : []),
    ...(cell.size ? ["--size", cell.size] : []),
  ];
  if (cell.size && !parseSize(cell.size)) throw new UsageError(`bad size ${cell.size}`);
  return { argv, recordFlags, socket };
}

function childEnv(tmp: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (typeof v === "string") env[k] = v;
  // A cell's tmux is its own server even when pstlab runs inside tmux (nested-session refusal).
  delete env.TMUX;
  delete env.TMUX_PANE;
  env.TMUX_TMPDIR = tmp;
  return env;
}

function record(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [cmd, ...pre] = selfArgv();
    const child = spawn(cmd, [...pre, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      if (stderr.length < 65536) stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stderr }));
  });
}

function querySummary(cell: Record<string, string>, queries: number, sent?: number[]): string {
  const inTmux = cell.tmux !== undefined && cell.tmux !== "off";
  if (queries === 0) {
    return inTmux ? "none reached pstlab" : "not asked";
  }
  const q = queryAnswer(cell.query);
  const n = `${queries} quer${queries === 1 ? "y" : "ies"}`;
  // A late answer is what the recorder sent (its markers), not what it was asked to send: a
  // program that ends before the delay never got one.
  const how = !q.answer
    ? "not answered"
    : q.delay <= 0
    ? "answered"
    : sent?.length
    ? `answered at ${sent.map((t) => `${t.toFixed(2)} s`).join(", ")} (${q.delay} s late)`
    : `not answered before the program ended (answer due ${q.delay} s late)`;
  return `${n} ${how}${inTmux && q.answer ? " by pstlab, outside tmux" : ""}`;
}

/**
 * The golden runs of a cell in GOLDEN_DIR: `<cell>.cast` and `<cell>.rN.cast` (a previous matrix's
 * -o folder), or, when the folder has none named after any cell, every `.cast` in it.
 */
export function goldenRunsFor(dir: string, name: string): string[] {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".cast")).sort();
  const mine = files.filter((f) =>
    f === `${name}.cast` || new RegExp(`^${name.replace(/\./g, "\\.")}\\.r\\d+\\.cast$`).test(f)
  );
  const named = files.some((f) => /^(?:default|(?:query|tmux|term|size)-)/.test(f));
  return (mine.length || named ? mine : files).map((f) => path.join(dir, f));
}

async function againstGoldenDir(dir: string, name: string, runs: CellRun[], o: CheckOptions): Promise<Finding[]> {
  const files = goldenRunsFor(dir, name);
  if (!files.length) {
    return [
      finding(
        "golden-none",
        0,
        0,
        `no golden run for this cell in ${dir} (expected ${name}.cast or ${name}.rN.cast)`,
      ),
    ];
  }
  const golden = [];
  for (const f of files) golden.push(transitions((await readCapture(f, o.manifest, {})).log.events));
  return compareMedians(
    runs.map((r) => r.check.transitions ?? []),
    golden,
    o.tolerance,
    `${files.length} golden run${files.length === 1 ? "" : "s"} in ${dir}`,
  );
}

function capturePath(o: MatrixOptions, name: string, run: number): string {
  return path.join(o.dir, o.repeat > 1 ? `${name}.r${run}.cast` : `${name}.cast`);
}

export async function runMatrix(o: MatrixOptions): Promise<MatrixRun> {
  const cells = cellsOf(o.dims);
  checkTools(o.dims);
  parseScript(readTextFile(o.script), o.script); // a bad script is one error now, not one per cell
  // An earlier run's captures (a golden set, perhaps) are not replaced silently: every
  // cell's file is looked at before the first recording, so nothing is half replaced.
  {
    for (const cell of cells) {
      for (let run = 1; run <= o.repeat; run++) {
        const capture = capturePath(o, cellName(cell), run);
        if (o.check.golden && sameFile(o.check.golden.name, capture)) {
          throw new UsageError(
            `check --matrix: ${disarm(capture)} is the --against capture: write the cells elsewhere`,
          );
        }
        if (o.overwrite) continue;
        if (fs.existsSync(capture)) {
          throw new UsageError(
            `check --matrix: ${
              disarm(capture)
            } exists (an earlier run's capture; use --overwrite to replace the cells' captures)`,
          );
        }
      }
    }
  }
  try {
    fs.mkdirSync(o.dir, { recursive: true });
  } catch (e) {
    throw new UsageError(
      `check: -o ${disarm(o.dir)}: cannot make the folder for the cells' captures (${
        (e as NodeJS.ErrnoException).code ?? (e as Error).message
      })`,
    );
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-matrix-"));
  const env = childEnv(tmp);
  const results: CellResult[] = [];
  // Ctrl-C reaches the recorder child too (same process group), which ends its recording and
  // keeps the file; the matrix then stops instead of going on to the next cell.
  let interrupted: string | null = null;
  const onSignal = (sig: string) => () => (interrupted ??= sig);
  const handlers = { SIGINT: onSignal("SIGINT"), SIGTERM: onSignal("SIGTERM") } as const;
  for (const [sig, h] of Object.entries(handlers)) process.on(sig, h);
  try {
    const terminfo = o.dims.some((d) => d.name === "term" && d.values.includes("pst")) ? compileTerminfo(tmp) : null;
    for (const [ci, cell] of cells.entries()) {
      const name = cellName(cell);
      const runs: CellRun[] = [];
      for (let run = 1; run <= o.repeat; run++) {
        const capture = capturePath(o, name, run);
        const c = cellCommand(cell, o, tmp, terminfo, `${ci}-${run}`);
        o.log(`${cellLabel(cell)}${o.repeat > 1 ? ` run ${run}/${o.repeat}` : ""} → ${capture}`);
        const r = await record(
          [
            "record",
            "--headless",
            "--quiet",
            "--overwrite",
            "--script",
            o.script,
            "--timeout",
            `${o.cellTimeout}s`,
            ...c.recordFlags,
            "-o",
            capture,
            "--",
            ...c.argv,
          ],
          env,
        );
        if (c.socket) spawnSync("tmux", ["-L", c.socket, "kill-server"], { env, stdio: "ignore" });
        if (interrupted) {
          throw new ExitCode(
            interrupted === "SIGINT" ? 130 : 143,
            `check --matrix: interrupted (${interrupted}) in ${cellLabel(cell)}; the captures so far are in ${
              disarm(o.dir)
            }`,
          );
        }
        // The recorder's own message comes first (the screen's last rows may follow it).
        const why = disarm((r.stderr.trim().split("\n")[0] ?? "").replace(/^pstlab: /, ""));
        // record exits 3 when a script wait timed out and 124 when --timeout stopped the program.
        if ((r.code !== 0 && r.code !== 3 && r.code !== 124) || !fs.existsSync(capture)) {
          throw new UsageError(`check --matrix: recording ${cellLabel(cell)} failed (exit ${r.code}): ${why}`);
        }
        const check = await checkFile(capture, o.check);
        // The cell's own words (the recorder's message, "it hangs") instead of the session
        // finding checkFile read off the capture's stop marker.
        if (r.code === 3) {
          check.findings = check.findings.filter((f) => f.check !== "session");
          check.findings.unshift(finding("session", 0, check.duration, `the script stopped: ${why}`));
        } else if (r.code === 124 || check.duration >= o.cellTimeout - 0.5) {
          check.findings = check.findings.filter((f) => f.check !== "session");
          check.findings.unshift(
            finding(
              "session",
              0,
              check.duration,
              `the program was still running after the cell timeout (${o.cellTimeout} s) and was stopped: it hangs`,
            ),
          );
        }
        runs.push({
          check,
          capture,
          latencies: check.latencies ?? [],
          query: querySummary(cell, check.queries ?? 0, check.answersSent),
        });
      }
      const own = o.goldenDir ? await againstGoldenDir(o.goldenDir, name, runs, o.check) : [];
      results.push({ cell, name, runs, findings: own, exit: cellExit(runs, o.strict, own) });
    }
  } finally {
    for (const [sig, h] of Object.entries(handlers)) process.off(sig, h);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return {
    cells: results,
    dims: o.dims,
    repeat: o.repeat,
    strict: o.strict,
    tolerance: o.check.tolerance,
    dir: o.dir,
    argv: o.argv,
  };
}
