// `pstlab record`: a real PTY session to an asciicast v3 fixture.

import * as fs from "node:fs";
import { type CommandSpec, err, ExitCode, helpText, out, parseDuration, parseSizeFlag, UsageError } from "./common.ts";
import { openOutput, provenance } from "./output.ts";
import { emitterName, headerFor, runSession, type SessionOptions } from "../record/recorder.ts";
import { parseScript } from "../record/script.ts";
import { readTextFile } from "../recording/source.ts";
import { openRecording } from "../recording/open.ts";
import { SpawnError } from "../pty/index.ts";

export const spec: CommandSpec = {
  name: "record",
  summary: "record a program in a real PTY to an asciicast v3 fixture (answers the OSC 7501 query)",
  usage: "pstlab record [-o FILE] [--headless] [--size COLSxROWS] [--script FILE] … -- COMMAND [ARGS…]",
  options: [
    "  -o, --output FILE   where to write (default: pstlab-YYYYMMDD-HHMMSS.cast here)",
    "  --headless          no terminal: fixed size, an emulated screen answers queries (automatic",
    "                      when stdout is not a terminal); piped stdin is forwarded as input",
    "  --size COLSxROWS    window size (headless default 120x32; interactive: the terminal's,",
    "                      followed as it changes unless --size fixes it)",
    "  --script FILE       drive the program from a script (implies --headless); see below",
    "  --capture-input     record what is typed (off by default: it records passwords too)",
    "  --env VARS          environment variables to store in the header (default SHELL only)",
    "  --title TEXT        title stored in the header",
    "  --idle-time-limit S stored in the header for players; the recording keeps real timing",
    "  --no-answer         do not answer OSC 7501 queries (record a non-supporting terminal)",
    "  --timeout S         end the program (SIGTERM) after S seconds",
    "  --append            append to an existing v3 recording",
    "  --overwrite         replace an existing non-empty file",
    "  --return            exit with the program's status (128+signal when it was killed)",
    "  -q, --quiet         no status lines on stderr",
  ],
  notes: [
    "Programs such as Claude Code 2.1.295+ emit OSC 7501 reports only after the terminal",
    "answers `ESC ] 7501 ; ?`; pstlab answers it (with the query's own terminator) and keeps",
    "it from the outer terminal. Reports are passed through unchanged.",
    "",
    "Truth labels from any language: the program (or anything it starts) writes lines such",
    "as `truth:blocked:permission` to the FIFO named by $PSTLAB_LABELS; each line becomes a",
    "marker at that moment, e.g.  echo truth:working > \"$PSTLAB_LABELS\"",
    "",
    "Script commands (one per line, # comments):",
    "  wait /regex/ [timeout]   the emulated screen matches (JS regex; default timeout 10s)",
    "  wait-quiet 500ms [to]    no output for that long      wait-exit [timeout]",
    "  sleep 2s   send \"yes\\r\"   key ctrl-c enter esc up …   label truth:blocked   resize 100x30",
    "A wait that times out ends the recording (the file is kept) and pstlab exits 3.",
    "Every event is written through as it happens: a recorder killed with SIGKILL leaves",
    "a file that reads back up to its last line.",
  ],
  examples: [
    "pstlab record -o session.cast -- claude",
    "pstlab record --headless --script answer.txt -o ci.cast -- ./my-cli deploy",
    "pstlab record --no-answer -o plain.cast -- ./emitter.sh",
    "pstlab record --return -o build.cast -- make -j8",
  ],
};

const VALUE_FLAGS = new Set(["-o", "--output", "--size", "--script", "--env", "--title", "--idle-time-limit", "--timeout"]);
const BOOL_FLAGS = new Set(["--headless", "--capture-input", "--no-answer", "--append", "--overwrite", "--return", "-q", "--quiet", "-h", "--help"]);

/** Flags up to `--` or the first word that is not a flag; the rest is the command. */
export function splitArgv(argv: string[]): { flags: Map<string, string | true>; command: string[] } {
  const flags = new Map<string, string | true>();
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (VALUE_FLAGS.has(name)) {
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`record: ${name} needs a value`);
      flags.set(name === "-o" ? "--output" : name, value);
    } else if (BOOL_FLAGS.has(name)) flags.set(name === "-q" ? "--quiet" : name === "-h" ? "--help" : name, true);
    else throw new UsageError(`record: unknown option '${a}' (see pstlab record --help; put the command after --)`);
  }
  return { flags, command: argv.slice(i) };
}

function defaultName(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, "0");
  return `pstlab-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}.cast`;
}

export async function run(argv: string[]): Promise<number> {
  const { flags, command } = splitArgv(argv);
  if (flags.has("--help")) {
    out(helpText(spec));
    return 0;
  }
  const str = (k: string) => (typeof flags.get(k) === "string" ? (flags.get(k) as string) : undefined);
  const has = (k: string) => flags.get(k) === true;
  if (has("--append") && has("--overwrite")) throw new UsageError("record: --append and --overwrite cannot be used together");
  const quiet = has("--quiet");
  const argvCmd = command.length ? command : [process.env.SHELL || "/bin/sh"];
  const scriptPath = str("--script");
  const script = scriptPath ? { steps: parseScript(readTextFile(scriptPath), scriptPath), file: scriptPath } : undefined;
  const stdoutTty = !!(process.stdout as { isTTY?: boolean }).isTTY;
  const headless = has("--headless") || !!script || !stdoutTty;
  let size = str("--size") ? parseSizeFlag(str("--size")!) : null;
  if (!size) {
    const o = process.stdout as { columns?: number; rows?: number };
    size = !headless && o.columns && o.rows ? { cols: o.columns, rows: o.rows } : { cols: 120, rows: 32 };
  }
  const idle = str("--idle-time-limit") !== undefined ? parseDuration(str("--idle-time-limit")!, "--idle-time-limit") : undefined;
  const timeout = str("--timeout") !== undefined ? parseDuration(str("--timeout")!, "--timeout") : undefined;
  const outPath = str("--output") ?? defaultName();
  if (outPath === "-") throw new UsageError("record: writing a recording to stdout is not supported (the terminal is busy); give -o FILE");
  const envNames = ["SHELL", ...(str("--env")?.split(",").map((s) => s.trim()).filter(Boolean) ?? [])];
  const envCapture = Object.fromEntries(envNames.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
  const childEnv: Record<string, string> = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === "string"));
  if (headless || !childEnv.TERM) childEnv.TERM = "xterm-256color";
  const stdinTty = !!(process.stdin as { isTTY?: boolean }).isTTY;

  const opts: SessionOptions = {
    argv: argvCmd, cols: size.cols, rows: size.rows, headless, captureInput: has("--capture-input"),
    answer: !has("--no-answer"), env: childEnv, script, forwardStdin: headless && !stdinTty && !script, timeout,
    stdoutFd: headless ? null : 1, followWinch: !str("--size"),
  };

  // --append: only onto v3, with a resize event instead of a new header (asciinema's way).
  let appendSize: { cols: number; rows: number } | null = null;
  const append = has("--append") && fs.existsSync(outPath) && fs.statSync(outPath).size > 0;
  if (append) {
    const prev = await openRecording(outPath);
    if (prev.format !== "v3") throw new UsageError(`record: --append needs an asciicast v3 file; ${outPath} is ${prev.format}`);
    appendSize = { cols: prev.header.cols, rows: prev.header.rows };
    for await (const e of prev.events) if (e.kind === "resize") appendSize = { cols: e.cols, rows: e.rows };
  }
  const header = headerFor(opts, {
    title: str("--title"), idleTimeLimit: idle, envCapture,
    provenance: provenance({ query_answered: opts.answer, emitter: emitterName(argvCmd), truth: script ? "script" : "labels-fifo" }),
  });
  const o = openOutput(outPath, header, { overwrite: has("--overwrite") }, { durable: true, append, header: !append });
  if (appendSize && (appendSize.cols !== size.cols || appendSize.rows !== size.rows)) o.writer.event({ t: 0, kind: "resize", ...size });
  if (opts.captureInput && !quiet) err("pstlab: warning: --capture-input records everything typed, passwords included\n");
  if (!quiet) err(`pstlab: recording to ${outPath}${headless ? ` (headless ${size.cols}x${size.rows})` : " — exit the program to stop"}\n`);
  let r;
  try {
    r = await runSession(opts, o.writer);
  } catch (e) {
    o.file.close();
    if (e instanceof SpawnError) {
      if (!append && !o.file.existedBefore) fs.rmSync(outPath, { force: true });
      throw new UsageError(`record: ${e.message}`);
    }
    throw e;
  }
  o.file.close();
  if (!quiet) {
    err(`pstlab: recorded ${outPath}: ${r.duration.toFixed(1)} s, ${r.events} events, exit ${r.status}` +
      `${r.exit.signal ? ` (${r.exit.signal})` : ""}; OSC 7501: ${r.reports} reports, ${r.queriesSeen} queries${opts.answer ? ` (${r.queriesAnswered} answered)` : " (not answered)"}\n`);
  }
  if (r.scriptError) throw new ExitCode(3, r.scriptError);
  if (r.timedOut && !quiet) err(`pstlab: the program was stopped after ${timeout} s (--timeout)\n`);
  return has("--return") ? r.status & 0xff : 0;
}
