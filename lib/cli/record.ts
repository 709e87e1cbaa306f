// `pstlab record`: a real PTY session to an asciicast v3 fixture.

import * as fs from "node:fs";
import { defineCommand, err, ExitCode } from "./common.ts";
import { duration, flag, inputFile, list, type Opt, outputFile, SIZE, text, type Values } from "./options.ts";
import { DEFAULT_PREFIX, describeKey, parsePrefixKey } from "../session/label_keys.ts";
import { openOutput, provenance } from "./output.ts";
import { emitterName, headerFor, runSession, type SessionOptions, type SessionResult } from "../session/recorder.ts";
import { parseScript } from "../session/driver.ts";
import { readTextFile } from "../recording/source.ts";
import { openRecording } from "../recording/open.ts";
import { SIGNALS, SpawnError } from "../pty/index.ts";
import { processTerminal } from "./terminal.ts";
import { UsageError } from "../errors.ts";

export const spec = {
  name: "record",
  summary: "record a program in a real PTY to an asciicast v3 fixture (answers the OSC 7501 query)",
  synopsis: "-- COMMAND [ARGS…]",
  options: {
    output: outputFile("FILE", "where to write (default: pstlab-YYYYMMDD-HHMMSS.cast here)", "o"),
    headless: flag(
      "no terminal: fixed size, an emulated screen answers queries (automatic\nwhen stdout is not a terminal); piped stdin is forwarded as input",
    ),
    size: {
      ...SIZE,
      help:
        "window size (headless default 120x32; interactive: the terminal's,\nfollowed as it changes unless --size fixes it)",
    },
    script: inputFile("FILE", "drive the program from a script (implies --headless); see below"),
    "capture-input": flag("record what is typed (off by default: it records passwords too)"),
    env: list("VARS", "environment variables to store in the header (default SHELL only)"),
    title: text("TEXT", "title stored in the header"),
    "idle-time-limit": duration("S", "stored in the header for players; the recording keeps real timing"),
    "no-answer": flag("do not answer OSC 7501 queries (record a non-supporting terminal)"),
    timeout: duration("S", "end the program (SIGTERM) after S seconds"),
    append: { ...flag("append to an existing v3 recording"), conflicts: ["overwrite"] },
    overwrite: flag("replace an existing non-empty file"),
    return: flag("exit with the program's status (128+signal when it was killed)"),
    quiet: flag("no status lines on stderr", "q"),
    "prefix-key": {
      arg: "KEY",
      help:
        "the labelling prefix (default ctrl-]; ctrl-a, ^b …, or none): then w working,\np/q/a/b blocked (permission/question/auth/other), i idle, d done, e error, m a note",
      parse: (raw: string, f: string) => {
        const k = parsePrefixKey(raw);
        if (k === undefined) throw new UsageError(`bad ${f} "${raw}" (use ctrl-X, C-X, ^X, or none)`);
        return k;
      },
    } as Opt<number | null>,
  },
  // Options end at the first word that is not one (or at --): the rest is the command.
  positionals: { stopAtFirst: true },
  notes: [
    "Programs such as Claude Code 2.1.295+ emit OSC 7501 reports only after the terminal",
    "answers `ESC ] 7501 ; ?`; pstlab answers it (with the query's own terminator) and keeps",
    "it from the outer terminal. Reports are passed through unchanged.",
    "",
    "Label the truth as it happens: press the prefix key (Ctrl-] unless --prefix-key) and",
    "then w working, p blocked:permission, q blocked:question, a blocked:auth, b blocked,",
    "i idle, d done, e error, or m and a line of text for a note. Neither key reaches the",
    "program or the recorded input; the prefix twice sends it once. The terminal's title",
    "confirms each label for a moment.",
    "",
    "Truth labels from any language: the program (or anything it starts) writes lines such",
    "as `truth:blocked:permission` to the FIFO named by $PSTLAB_LABELS; each line becomes a",
    'marker at that moment, e.g.  echo truth:working > "$PSTLAB_LABELS"',
    "",
    "Script commands (one per line, # comments):",
    "  wait /regex/ [timeout]   the emulated screen matches (JS regex; default timeout 10s)",
    "  wait-quiet 500ms [to]    no output for that long      wait-exit [timeout]",
    '  sleep 2s   send "yes\\r"   key ctrl-c enter esc up …   label truth:blocked   resize 100x30',
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

/** pstlab-YYYYMMDD-HHMMSS.cast, or -2, -3 … when a recording started in the same second has it. */
function defaultName(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, "0");
  const stem = `pstlab-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${
    p(d.getMinutes())
  }${p(d.getSeconds())}`;
  for (let i = 1;; i++) {
    const name = i === 1 ? `${stem}.cast` : `${stem}-${i}.cast`;
    if (!fs.existsSync(name)) return name;
  }
}

type V = Values<typeof spec.options>;

function childEnvironment(headless: boolean): Record<string, string> {
  const env: Record<string, string> = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
  if (headless || !env.TERM) env.TERM = "xterm-256color";
  return env;
}

function sessionOptions(v: V, command: string[]): SessionOptions {
  const script = v.script ? { steps: parseScript(readTextFile(v.script), v.script), file: v.script } : undefined;
  const stdoutTty = !!(process.stdout as { isTTY?: boolean }).isTTY;
  const headless = !!v.headless || !!script || !stdoutTty;
  const o = process.stdout as { columns?: number; rows?: number };
  const size = v.size ??
    (!headless && o.columns && o.rows ? { cols: o.columns, rows: o.rows } : { cols: 120, rows: 32 });
  const stdinTty = !!(process.stdin as { isTTY?: boolean }).isTTY;
  return {
    argv: command.length ? command : [process.env.SHELL || "/bin/sh"],
    cols: size.cols,
    rows: size.rows,
    headless,
    captureInput: !!v["capture-input"],
    answer: !v["no-answer"],
    env: childEnvironment(headless),
    script,
    // Headless: nothing is shown; piped stdin (not a script run) is still the program's input.
    terminal: processTerminal({ show: !headless, input: !headless || (!stdinTty && !script) }),
    timeout: v.timeout,
    followWinch: !v.size,
    prefixKey: v["prefix-key"] === undefined ? DEFAULT_PREFIX : v["prefix-key"],
  };
}

/**
 * A recording cut off mid-line (what SIGKILL or a full disk leaves) ends in a partial
 * line; appending after it would glue the next event onto it and make the whole file
 * unreadable. Drop it, and say so. Returns the bytes dropped.
 */
function dropPartialLine(file: string): number {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, "r+");
  try {
    const tail = new Uint8Array(Math.min(size, 1 << 20));
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    if (tail[tail.length - 1] === 0x0a) return 0;
    const nl = tail.lastIndexOf(0x0a);
    if (nl < 0) {
      throw new UsageError(`record: --append: ${file} has no complete line in its last MiB; refusing to append`);
    }
    fs.ftruncateSync(fd, size - tail.length + nl + 1);
    return tail.length - nl - 1;
  } finally {
    fs.closeSync(fd);
  }
}

/** --append: only onto v3, with a resize event instead of a new header (asciinema's way). Returns the size in force at its end. */
async function appendTarget(
  outPath: string,
  warn: (m: string) => void,
): Promise<{ cols: number; rows: number } | null> {
  if (!fs.existsSync(outPath) || fs.statSync(outPath).size === 0) return null;
  const format = (await openRecording(outPath)).format;
  if (format !== "v3") throw new UsageError(`record: --append needs an asciicast v3 file; ${outPath} is ${format}`);
  const dropped = dropPartialLine(outPath);
  if (dropped) warn(`${outPath}: dropped a partial last line (${dropped} bytes) left by an interrupted recording`);
  const prev = await openRecording(outPath);
  let size = { cols: prev.header.cols, rows: prev.header.rows };
  for await (const e of prev.events) if (e.kind === "resize") size = { cols: e.cols, rows: e.rows };
  return size;
}

function summaryLine(outPath: string, r: SessionResult, answer: boolean): string {
  return `pstlab: recorded ${outPath}: ${r.duration.toFixed(1)} s, ${r.events} events, exit ${r.status}` +
    `${r.exit.signal ? ` (${r.exit.signal})` : ""}; OSC 7501: ${r.reports} reports, ${r.queriesSeen} queries${
      answer ? ` (${r.queriesAnswered} answered)` : " (not answered)"
    }\n`;
}

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const quiet = !!v.quiet;
  const outPath = v.output ?? defaultName();
  // The exclusive create in the output gate still catches a race between this check and the open.
  if (outPath === "-") {
    throw new UsageError("record: writing a recording to stdout is not supported (the terminal is busy); give -o FILE");
  }
  const opts = sessionOptions(v, p.positionals);
  const envNames = ["SHELL", ...(v.env ?? [])];
  const envCapture = Object.fromEntries(
    envNames.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]),
  );
  const appendSize = v.append ? await appendTarget(outPath, (m) => err(`pstlab: warning: ${m}\n`)) : null;
  const header = headerFor(opts, {
    title: v.title,
    idleTimeLimit: v["idle-time-limit"],
    envCapture,
    provenance: provenance({
      query_answered: opts.answer,
      emitter: emitterName(opts.argv),
      truth: opts.script ? "script" : "labels-fifo",
    }),
  });
  const o = openOutput(outPath, header, { overwrite: v.overwrite }, {
    durable: true,
    append: !!appendSize,
    header: !appendSize,
  });
  if (appendSize && (appendSize.cols !== opts.cols || appendSize.rows !== opts.rows)) {
    o.writer.event({ t: 0, kind: "resize", cols: opts.cols, rows: opts.rows });
  }
  if (opts.captureInput && !quiet) {
    err("pstlab: warning: --capture-input records everything typed, passwords included\n");
  }
  if (!quiet) {
    err(
      `pstlab: recording to ${outPath}${
        opts.headless ? ` (headless ${opts.cols}x${opts.rows})` : " — exit the program to stop"
      }\n`,
    );
  }
  if (!quiet && !opts.headless && opts.prefixKey !== null && (process.stdin as { isTTY?: boolean }).isTTY) {
    const k = describeKey(opts.prefixKey ?? DEFAULT_PREFIX);
    err(
      `pstlab: label the truth with ${k} then w working, p/q/a/b blocked, i idle, d done, e error, m note (${k} twice sends ${k})\n`,
    );
  }
  opts.onWarning = (m) => err(`pstlab: warning: ${m}\n`);
  // Over a file size limit (ulimit -f) the kernel sends SIGXFSZ, whose default kills the
  // recorder and orphans the child; handled for the rest of the run (a signal still
  // pending when a handler goes would kill it), the write fails with EFBIG instead.
  process.on("SIGXFSZ", () => {});
  let r: SessionResult;
  try {
    r = await runSession(opts, o.writer);
  } catch (e) {
    // The program never started: a new file goes, a replaced one stays as it was (the gate).
    if (e instanceof SpawnError && !appendSize) o.file.abort();
    else o.file.close();
    if (e instanceof SpawnError) throw new UsageError(`record: ${e.message}`);
    throw e;
  }
  // Nothing but the header could be written (a full disk): no file is better than that one.
  if (r.writeError && r.events === 0 && !appendSize) o.file.abort();
  else o.file.close();
  if (r.writeError) {
    throw new ExitCode(
      1,
      `${r.writeError}; the program was stopped, and the file holds everything up to its last complete event`,
    );
  }
  if (!quiet) err(summaryLine(outPath, r, opts.answer));
  if (r.scriptError) throw new ExitCode(3, r.scriptError);
  if (r.timedOut && !quiet) err(`pstlab: the program was stopped after ${v.timeout} s (--timeout)\n`);
  // Stopped by a signal: the file and summary are written; the status says how it ended, as a shell would.
  if (r.interrupted) return 128 + (SIGNALS[r.interrupted] ?? 15);
  return v.return ? r.status & 0xff : 0;
});
