// `pstlab record`: a real PTY session to an asciicast v3 fixture.

import * as fs from "node:fs";
import { colorEnabled, defineCommand, err, ExitCode } from "./common.ts";
import { duration, flag, inputFile, list, type Opt, outputFile, SIZE, text, type Values } from "./options.ts";
import { DEFAULT_PREFIX, describeKey, parsePrefixKey } from "../session/label_keys.ts";
import { openOutput, provenance } from "./output.ts";
import {
  emitterName,
  headerFor,
  runSession,
  type SessionOptions,
  type SessionResult,
  sessionSources,
} from "../session/recorder.ts";
import { paneInfo, type PaneResult, recordPane, shownName } from "../session/tmux_pane.ts";
import { PANEL, SideBySide } from "../../replay/side_by_side.ts";
import { createDetector, withManifest } from "../detect/kinds.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { AUTO, manifestFor } from "../detect/choose.ts";
import { raw } from "../stdio.ts";
import { foregroundAvailable } from "../session/foreground.ts";
import type { Header } from "../recording/model.ts";
import { parseScript, unendedBlockedLabel } from "../session/driver.ts";
import { readTextFile } from "../recording/source.ts";
import { openRecording } from "../recording/open.ts";
import { SIGNALS, SpawnError } from "../pty/index.ts";
import { processTerminal } from "./terminal.ts";
import { UsageError, UserError } from "../errors.ts";
import { summaryOf } from "./commands.ts";
import { fitSize, parseDuration } from "../units.ts";
import { disarm, plural } from "../text.ts";

export const spec = {
  name: "record",
  summary: summaryOf("record"),
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
    "answer-delay": {
      ...duration("DURATION", "answer OSC 7501 queries this late (a slow or remote terminal), e.g. 2s"),
      parse: (raw: string, f: string) => {
        const d = parseDuration(raw, f);
        if (d > 3600) throw new UsageError(`${f} must be at most 1h (for never, use --no-answer)`);
        return d;
      },
      conflicts: ["no-answer"],
    },
    hooks: flag("record agent hooks: export $PSTLAB_HOOKS, a FIFO that `pstlab hook STATE` writes to"),
    "side-by-side": {
      ...flag(
        "show the live panel of play --side-by-side while recording: the screen next to truth,\nOSC 7501 records, hooks, the process table and verdicts as they happen (never recorded)",
      ),
      conflicts: ["headless", "script"],
      reason: "the panel needs the terminal",
    },
    "tmux-pane": {
      ...text("TARGET", "record a pane already running in tmux (its screen, then its output) until it dies or Ctrl-C"),
      conflicts: [
        "script",
        "hooks",
        "capture-input",
        "size",
        "append",
        "no-answer",
        "answer-delay",
        "timeout",
        "side-by-side",
      ],
      reason: "the pane runs already: pstlab neither starts it nor stands between it and tmux",
    },
    "tmux-socket": {
      ...text("NAME", "the tmux server's socket name (tmux -L NAME), for a server other than the default"),
      requires: ["tmux-pane"],
    },
    timeout: duration("S", "end the program (SIGTERM) after S seconds; pstlab then exits 124 (0: no limit)"),
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
    "With no COMMAND, records your shell ($SHELL, else /bin/sh) until you exit it; with no",
    "terminal on stdin (CI) a COMMAND is required. Piped stdin is the program's input, and",
    "its end reaches the program as the terminal's end of file (^D), as with script(1).",
    "",
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
    "Sources beside the screen and OSC 7501: the terminal's foreground process group is",
    "recorded as it changes (Linux), and with --hooks every line an agent hook writes to",
    "$PSTLAB_HOOKS (`pstlab hook working`, `pstlab hooks claude` for Claude Code's settings)",
    "is recorded with its time; `report` scores both as the process and hooks detectors.",
    "",
    "Script commands (one per line, # comments):",
    "  wait /regex/ [timeout] [as STATE[:KIND]]",
    "      text that appeared on the emulated screen since the previous step matches (the",
    "      match must reach a character written or changed since then: an old prompt still",
    "      on screen does not count; after a wait, since the end of its match, as in expect:",
    "      two prompts in one write satisfy two waits); Rust regex syntax, ^ and $ at each",
    "      row's ends, trailing spaces the program wrote are kept, flags i and s (/re/i);",
    "      default timeout 10s;",
    "      `wait /a/ or /b/` takes either; `wait screen /re/` the whole screen, old text too;",
    "      `as blocked:permission` writes that truth label at the moment the match appeared;",
    "      it holds until the next label (`label truth:working` after the answer), else to the end",
    "  wait-quiet 500ms [to]    no output for that long, counted from the later of the last",
    "      output and the step's start (always waits at least that long)",
    "  wait-exit [timeout]",
    '  sleep 2s   send "yes\\r"   key ctrl-c enter esc up …   label truth:blocked   resize 100x30',
    "A wait that times out ends the recording (the file is kept), prints the screen's last",
    "rows and pstlab exits 3.",
    "Every event is written through as it happens: a recorder killed with SIGKILL leaves",
    "a file that reads back up to its last line.",
  ],
  examples: [
    "pstlab record -o session.cast -- claude",
    "pstlab record --headless --script answer.txt -o ci.cast -- ./my-cli deploy",
    "pstlab record --no-answer -o plain.cast -- ./emitter.sh",
    "pstlab record --answer-delay 2s --script s.txt -o slow.cast -- ./emitter.sh",
    "pstlab record --return -o build.cast -- make -j8",
    'pstlab record --hooks -o s.cast -- claude --settings "$(pstlab hooks claude)"',
    "pstlab record --tmux-pane work:1.0 -o misbehaved.cast   # the agent already running there",
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
  const unended = script ? unendedBlockedLabel(script.steps, script.file) : null;
  if (unended) err(`pstlab: warning: ${disarm(unended)}\n`);
  const stdoutTty = !!(process.stdout as { isTTY?: boolean }).isTTY;
  const headless = !!v.headless || !!script || !stdoutTty;
  const o = process.stdout as { columns?: number; rows?: number };
  if (v["side-by-side"] && headless) {
    throw new UsageError("record: --side-by-side needs a terminal (stdout is not one)");
  }
  const size = v.size ??
    (v["side-by-side"] && o.columns && o.rows
      ? panelProgramSize(o.columns, o.rows)
      : !headless && o.columns && o.rows
      ? { cols: o.columns, rows: o.rows }
      : { cols: 120, rows: 32 });
  const stdinTty = !!(process.stdin as { isTTY?: boolean }).isTTY;
  return {
    argv: command.length ? command : [process.env.SHELL || "/bin/sh"],
    cols: size.cols,
    rows: size.rows,
    headless,
    captureInput: !!v["capture-input"],
    answer: !v["no-answer"],
    answerDelay: v["answer-delay"],
    hooks: !!v.hooks,
    env: childEnvironment(headless),
    script,
    // Headless: nothing is shown; piped stdin (not a script run) is still the program's input.
    terminal: processTerminal({ show: !headless, input: !headless || (!stdinTty && !script) }),
    timeout: v.timeout,
    // Beside the panel the program keeps the size it started with (the panel takes the rest).
    followWinch: !v.size && !v["side-by-side"],
    prefixKey: v["prefix-key"] === undefined ? DEFAULT_PREFIX : v["prefix-key"],
  };
}

/** The program's window beside the live panel: the terminal less the panel's width, else above it. */
function panelProgramSize(cols: number, rows: number): { cols: number; rows: number } {
  const beside = cols - PANEL - 3;
  return beside >= 40
    ? { cols: beside, rows: Math.max(2, rows) }
    : { cols: Math.max(2, cols), rows: Math.max(2, rows - 16) };
}

/** The live panel's detectors: the four sources (those this session records), then a few heuristics. */
function panelDetectors(opts: SessionOptions): string[] {
  const sources = sessionSources(opts);
  return [
    "protocol",
    ...(sources.includes("hooks") ? ["hooks"] : []),
    ...(sources.includes("process") ? ["process"] : []),
    `screen:${AUTO}@50ms`,
    `combined:${AUTO}`,
    "quiet>=2s",
    `herdr:${AUTO}`,
  ];
}

/**
 * `--side-by-side`: the program's output is not passed through; the panel draws its
 * emulated screen next to the verdicts (replay/side_by_side.ts, as play does), from the
 * events as they are recorded. Keys still go to the program. Returns the session's
 * options with the panel attached and a function that takes it down.
 */
async function attachPanel(opts: SessionOptions, header: Header, outPath: string): Promise<() => void> {
  const chosen = await manifestFor(outPath, header, AUTO, {});
  const detectors = () =>
    panelDetectors(opts).map((n) => createDetector(withManifest(n, chosen.name), resolveManifest));
  const show = (s: string) => raw("recorder passthrough", s);
  const size = () => {
    const o = process.stdout as { columns?: number; rows?: number };
    return { cols: o.columns || 160, rows: o.rows || 48 };
  };
  const panel = new SideBySide(header, detectors, show, size, colorEnabled(1), { captureTime: (t) => t, end: 0 }, true);
  const t0 = performance.now();
  let vt = 0;
  const state = { paused: false, speed: 1, quit: false, ended: false };
  const base = opts.terminal!;
  // The program's bytes reach the panel's screen, not the terminal.
  opts.terminal = { ...base, write: () => {} };
  opts.startedAt = t0;
  opts.onEvent = (e) => {
    // An event stamped before the panel's last draw (the exit, stamped at the end) is shown at that draw's time.
    panel.event(e.t < vt ? { ...e, t: vt } : e);
  };
  panel.start();
  const draw = (force = false) => {
    vt = Math.max(vt, (performance.now() - t0) / 1000);
    panel.draw(vt, state, force);
  };
  const timer = setInterval(draw, 50);
  const onWinch = () => draw(true);
  process.on("SIGWINCH", onWinch);
  let down = false;
  const takeDown = () => {
    if (down) return;
    down = true;
    clearInterval(timer);
    process.off("SIGWINCH", onWinch);
    process.off("exit", takeDown);
    state.ended = true;
    draw(true);
    panel.stop();
  };
  process.on("exit", takeDown);
  return takeDown;
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
  return `pstlab: recorded ${outPath}: ${r.duration.toFixed(1)} s, ${plural(r.events, "event")}, exit ${r.status}` +
    `${r.exit.signal ? ` (${r.exit.signal})` : ""}; OSC 7501: ${plural(r.reports, "report")}, ${
      plural(r.queriesSeen, "query", "queries")
    }${answer ? ` (${r.queriesAnswered} answered)` : " (not answered)"}\n`;
}

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const quiet = !!v.quiet;
  const outPath = v.output ?? defaultName();
  // The exclusive create in the output gate still catches a race between this check and the open.
  if (outPath === "-") {
    throw new UsageError("record: writing a recording to stdout is not supported (the terminal is busy); give -o FILE");
  }
  if (v["tmux-pane"] !== undefined) return await recordTmuxPane(v, p.positionals, outPath, quiet);
  // No command records the user's shell, which only a person at a terminal can end:
  // with no terminal (CI) it would wait forever.
  if (!p.positionals.length && !v.script && !(process.stdin as { isTTY?: boolean }).isTTY) {
    throw new UsageError(
      "record: no command, and stdin is not a terminal (nobody could end the shell); give -- COMMAND, e.g. pstlab record -o ci.cast -- make test",
    );
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
      // Late answers are known only as they are sent (QUERY_ANSWERED_MARKER events): not before.
      query_answered: opts.answer && opts.answerDelay ? null : opts.answer,
      ...(opts.answerDelay ? { query_answer_delay_s: opts.answerDelay } : {}),
      emitter: emitterName(opts.argv),
      truth: opts.script ? "script" : "labels-fifo",
    }),
  });
  const o = openOutput(outPath, header, { overwrite: v.overwrite }, {
    durable: true,
    append: !!appendSize,
    header: !appendSize,
  });
  const fitted = fitSize(opts.cols, opts.rows);
  if (appendSize && (appendSize.cols !== fitted.cols || appendSize.rows !== fitted.rows)) {
    o.writer.event({ t: 0, kind: "resize", ...fitted });
  }
  if (opts.captureInput && !quiet) {
    err("pstlab: warning: --capture-input records everything typed, passwords included\n");
  }
  if (!quiet) {
    err(
      `pstlab: recording to ${outPath}${
        opts.headless
          ? ` (headless ${opts.cols}x${opts.rows})`
          : p.positionals.length
          ? " — exit the program to stop"
          : ` — your shell ${opts.argv[0]}; exit it to stop`
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
  const takeDownPanel = v["side-by-side"] ? await attachPanel(opts, header, outPath) : null;
  // Over a file size limit (ulimit -f) the kernel sends SIGXFSZ, whose default kills the
  // recorder and orphans the child; handled for the rest of the run (a signal still
  // pending when a handler goes would kill it), the write fails with EFBIG instead.
  process.on("SIGXFSZ", () => {});
  let r: SessionResult;
  try {
    r = await runSession(opts, o.writer);
  } catch (e) {
    takeDownPanel?.();
    // The program never started (or the session could not be set up): a new file goes, a
    // replaced one stays as it was (the gate).
    if ((e instanceof SpawnError || e instanceof UserError) && !appendSize) o.file.abort();
    else o.file.close();
    if (e instanceof SpawnError) throw new UsageError(`record: ${e.message}`);
    throw e;
  }
  takeDownPanel?.();
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
  if (r.scriptError) {
    // The one-line error, then the screen it was looking at (disarmed: capture text).
    err(`pstlab: ${r.scriptError}\n`);
    if (r.scriptScreen.length) {
      err(`pstlab: the screen's last rows:\n${r.scriptScreen.map((l) => `  | ${disarm(l)}\n`).join("")}`);
    }
    return 3;
  }
  // As timeout(1): 124 says the time ran out, whatever status the stopped program gave.
  if (r.timedOut) {
    if (!quiet) err(`pstlab: the program was stopped after ${v.timeout} s (--timeout); exit 124\n`);
    return 124;
  }
  // Stopped by a signal: the file and summary are written; the status says how it ended, as a shell would.
  if (r.interrupted) return 128 + (SIGNALS[r.interrupted] ?? 15);
  return v.return ? r.status & 0xff : 0;
});

/** `--tmux-pane`: a pane already running in tmux, recorded where it is (lib/session/tmux_pane.ts). */
async function recordTmuxPane(
  v: {
    "tmux-pane"?: string;
    "tmux-socket"?: string;
    title?: string;
    "idle-time-limit"?: number;
    overwrite?: boolean;
    env?: string[];
  },
  command: string[],
  outPath: string,
  quiet: boolean,
): Promise<number> {
  if (command.length) {
    throw new UsageError(`record: --tmux-pane records the pane's program; no COMMAND (got "${command[0]}")`);
  }
  const target = { target: v["tmux-pane"]!, socket: v["tmux-socket"] };
  const info = paneInfo(target);
  if (info.dead) throw new UsageError(`record: tmux pane ${info.id} (${info.where}) has exited already`);
  const from = `tmux pane ${shownName(info.id)} (${info.where})${
    target.socket ? ` on tmux -L ${shownName(target.socket)}` : ""
  }`;
  const header: Header = {
    ...fitSize(info.cols, info.rows),
    termType: "tmux-256color",
    timestamp: Math.floor(Date.now() / 1000),
    command: info.command,
    title: v.title ?? from,
    env: Object.fromEntries(
      ["SHELL", ...(v.env ?? [])].filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]),
    ),
    provenance: provenance({
      query_answered: null, // tmux answers the pane's queries, not pstlab
      emitter: info.command,
      truth: null,
      recorded_from: { tmux_pane: info.id, where: info.where, socket: target.socket ?? null },
      ...(foregroundAvailable() ? { sources: ["process"] } : {}),
    }),
  };
  if (v["idle-time-limit"] !== undefined) header.idleTimeLimit = v["idle-time-limit"];
  const o = openOutput(outPath, header, { overwrite: v.overwrite }, { durable: true });
  let r: PaneResult;
  try {
    r = await recordPane(
      {
        ...target,
        terminal: processTerminal({ show: false, input: false }),
        onStarted: () => {
          if (!quiet) err(`pstlab: recording ${from} to ${outPath} — until the pane exits or Ctrl-C\n`);
        },
      },
      o.writer,
      info,
    );
  } finally {
    o.file.close();
  }
  if (r.writeError) {
    throw new ExitCode(1, `${r.writeError}; the file holds everything up to its last complete event`);
  }
  if (!quiet) {
    err(
      `pstlab: recorded ${outPath}: ${r.duration.toFixed(1)} s, ${r.events} events, ${r.bytes} bytes; ${
        r.ended === "signal"
          ? `stopped (${r.interrupted})`
          : `the pane exited${r.status === null ? "" : ` (status ${r.status})`}`
      }\n`,
    );
  }
  return r.interrupted ? 128 + (SIGNALS[r.interrupted] ?? 15) : 0;
}
