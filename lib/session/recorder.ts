// `pstlab record`'s session: a small OSC 7501-aware terminal layer around a real PTY.
//  - every pty read is recorded as one event, appended and written through at once
//    (a SIGKILLed recorder leaves a file that reads back to its last line);
//  - `OSC 7501;?` is answered by the recorder (mirrored terminator, docs/osc7501.md D14) and never
//    forwarded to the outer terminal; `--no-answer` records a non-supporting terminal;
//  - headless: an @xterm/headless screen answers DA1/DSR/… (responder.ts), in stream
//    order with our 7501 reply, so "query + DA1" detection sees the 7501 reply first;
//  - interactive: raw mode, input forwarded, the window size followed, the terminal
//    restored on every exit path — all through the Terminal it is handed (terminal.ts),
//    never through `process` itself;
//  - the pty is drained to EOF before the file is closed.

import * as path from "node:path";
import { exitStatus, groupAlive, type Pty, type PtyExit, signalGroup, spawnPty } from "../pty/index.ts";
import { Scanner } from "../osc7501/scanner.ts";
import { queryReply } from "../osc7501/parse.ts";
import { RemoteScreen } from "./remote_screen.ts";
import { QueryFilter } from "./query_filter.ts";
import { LabelChannel, MAX_LABEL_BYTES } from "./labels.ts";
import { runScript, ScriptFailed, type Step } from "./driver.ts";
import {
  type Event,
  type Header,
  type Provenance,
  QUERY_ANSWERED_MARKER,
  SESSION_STOP_MARKERS,
} from "../recording/model.ts";
import type { RecordingWriter } from "../recording/writer.ts";
import { describeFsError } from "../recording/source.ts";
import { InputError, UserError } from "../errors.ts";
import { DEFAULT_PREFIX, LabelKeys } from "./label_keys.ts";
import { nullTerminal, type Terminal } from "./terminal.ts";
import { GarbageWatch } from "../runtime.ts";
import { later, sleep, type Timer } from "../timers.ts";
import { fitSize, SIZE_MAX } from "../units.ts";
import { foregroundAvailable, ForegroundWatch } from "./foreground.ts";
import { formatForeground, HOOK_CODE, PROCESS_CODE, type SourceName } from "../recording/sources.ts";

export interface SessionOptions {
  argv: string[];
  cols: number;
  rows: number;
  headless: boolean;
  captureInput: boolean;
  /** Answer `OSC 7501;?` (default true). */
  answer: boolean;
  /**
   * Answer each query this many seconds late instead of at once (a slow terminal, or one behind
   * a remote link): the reply is written on its own, out of stream order with other replies.
   */
  answerDelay?: number;
  env: Record<string, string>;
  script?: { steps: Step[]; file: string };
  /** A programmatic driver (the demo's simulated user), run like a script. */
  driver?: (host: DriverHost) => Promise<void>;
  /** Where input comes from and output goes, its size and signals (default: none of them, nullTerminal). */
  terminal?: Terminal;
  /** Interactive: follow the outer terminal's size (false when --size fixed it). */
  followWinch?: boolean;
  /** Kill the child after this many seconds. */
  timeout?: number;
  /** Interactive labelling: the prefix key (Ctrl-] by default); null turns it off. */
  prefixKey?: number | null;
  /** Told about degraded operation (the screen worker fell back in-process); the CLI prints it. */
  onWarning?: (message: string) => void;
  /** How long to wait for the pty's EOF after the child exited (grandchildren may hold it). */
  drainGraceMs?: number;
  /** `record --hooks`: a FIFO exported as PSTLAB_HOOKS, each line a hook event (`pstlab hook`). */
  hooks?: boolean;
  /** Record the foreground process group (default: where the system lets us, foreground.ts). */
  processTable?: boolean;
  /** Told every event as it is recorded (record --side-by-side's live panel); never changes what is written. */
  onEvent?: (e: Event) => void;
  /** The session's time origin (performance.now()), so a caller's clock is the events' clock. */
  startedAt?: number;
}

/** A hook line longer than this is cut (sources.ts keeps at most MAX_HOOK_MSG of its message anyway). */
const MAX_HOOK_LINE = 4096;

/** How often the foreground group is sampled between reads (a program that prints nothing still changes hands). */
export const FOREGROUND_EVERY_MS = 100;

/** The sources beyond the bytes this session records, for the header's provenance (`sources`). */
export function sessionSources(o: Pick<SessionOptions, "hooks" | "processTable">): SourceName[] {
  const out: SourceName[] = [];
  if (o.processTable !== false && foregroundAvailable()) out.push("process");
  if (o.hooks) out.push("hooks");
  return out;
}

export interface DriverHost {
  now(): number;
  send(data: string): void;
  exited(): boolean;
  labels(): string[];
  screenText(): Promise<string>;
}

export interface SessionResult {
  exit: PtyExit;
  status: number;
  duration: number;
  events: number;
  queriesAnswered: number;
  queriesSeen: number;
  reports: number;
  scriptError: string | null;
  /** The screen's last rows when the script failed. */
  scriptScreen: string[];
  timedOut: boolean;
  interrupted: string | null;
  /** Why writing the file failed (disk full…): the program was stopped there. */
  writeError: string | null;
}

const te = new TextEncoder();

export function headerFor(
  o: SessionOptions,
  extra: { title?: string; idleTimeLimit?: number; envCapture: Record<string, string>; provenance: Provenance },
): Header {
  const h: Header = {
    ...fitSize(o.cols, o.rows),
    termType: o.env.TERM ?? "xterm-256color",
    timestamp: Math.floor(Date.now() / 1000),
    command: o.argv.map(shellQuote).join(" "),
    env: extra.envCapture,
    provenance: extra.provenance,
  };
  const sources = sessionSources(o);
  if (sources.length) h.provenance = { ...extra.provenance, sources };
  if (extra.title !== undefined) h.title = extra.title;
  if (extra.idleTimeLimit !== undefined) h.idleTimeLimit = extra.idleTimeLimit;
  return h;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Seconds of silence after which a program with an empty stdin is sent its end of file. */
const EMPTY_STDIN_QUIET = 0.3;
/** At most this many ^D for an empty stdin (see the recorder's onEnd). */
const EMPTY_STDIN_EOFS = 3;

export function emitterName(argv: string[]): string {
  return path.basename(argv[0] ?? "");
}

/**
 * One recording session. The steps of runSession are its methods: the output path
 * (record, answer queries, pass through), input, window size, signals, the script or
 * driver, then draining and undoing everything in reverse.
 */
class Session {
  private readonly t0: number;
  private events = 0;
  private pty: Pty | null = null;
  private lastOutputAt = -Infinity;
  private exited = false;
  /** The program exited and its last output was read (what a script waits on). */
  private outputEnded = false;
  private reports = 0;
  private queriesSeen = 0;
  private queriesAnswered = 0;
  interrupted: string | null = null;
  timedOut = false;
  scriptError: string | null = null;
  scriptScreen: string[] = [];
  private readonly labelLog: string[] = [];
  private readonly labels: LabelChannel;
  private readonly hooks: LabelChannel | null;
  private foreground: ForegroundWatch | null = null;
  private readonly screen: RemoteScreen | null;
  private readonly filter: QueryFilter | null;
  private filterTimer: Timer | null = null;
  // The scanner finds queries (and counts reports) in stream order; `base` is the
  // absolute offset of the current read so query ends map into it.
  private base = 0;
  private readonly queryEnds: { at: number; reply: Uint8Array }[] = [];
  private readonly scanner: Scanner;
  private readonly term: Terminal;
  private rawMode = false;
  private size: { cols: number; rows: number };
  private killTimer: Timer | null = null;
  private timeoutTimer: Timer | null = null;
  private readonly cleanups: (() => void)[] = [];
  private exit: Promise<PtyExit> | null = null;

  constructor(private readonly o: SessionOptions, private readonly writer: RecordingWriter) {
    this.t0 = o.startedAt ?? performance.now();
    this.term = o.terminal ?? nullTerminal();
    this.size = fitSize(o.cols, o.rows);
    this.labels = new LabelChannel((label) => {
      this.labelLog.push(label);
      this.write({ t: this.now(), kind: "marker", label });
    });
    // A hook's line is recorded as it came: the analysis reads it (sources.ts parseHook), so
    // a malformed line is kept as evidence of a broken hook, not dropped here.
    this.hooks = o.hooks
      ? new LabelChannel(
        (line) => this.write({ t: this.now(), kind: "other", code: HOOK_CODE, data: line.slice(0, MAX_HOOK_LINE) }),
        "hooks",
      )
      : null;
    if (this.hooks?.unavailable) {
      this.labels.close();
      throw new InputError(`record --hooks: ${this.hooks.unavailable}`);
    }
    if (this.labels.unavailable) {
      o.onWarning?.(`${this.labels.unavailable}; recording without $PSTLAB_LABELS (the prefix keys still label)`);
    }
    // Headless: the emulated screen (in a worker) answers terminal queries back to the child.
    // It starts with the first read that is more than plain text, or the script's first
    // look at the screen: a program that prints only plain text never needs it.
    this.screen = o.headless
      ? new RemoteScreen(this.size.cols, this.size.rows, (r) => this.pty?.write(r), {
        onFallback: (why) => o.onWarning?.(`screen worker unavailable (${why}); emulating in-process`),
        lazy: true,
      })
      : null;
    this.filter = o.headless ? null : new QueryFilter();
    this.scanner = new Scanner((ev) => {
      if (ev.type !== "osc7501") return;
      if (ev.body.length === 1 && ev.body[0] === 0x3f) {
        this.queriesSeen++;
        if (o.answer && ev.depth === 0) {
          if (o.answerDelay) this.answerLate(queryReply(ev.terminator), o.answerDelay);
          else this.queryEnds.push({ at: ev.end - this.base, reply: queryReply(ev.terminator) });
        }
      } else this.reports++;
    });
  }

  readonly now = () => (performance.now() - this.t0) / 1000;

  private readonly lateAnswers = new Set<Timer>();

  /** --answer-delay: the reply goes to the child after the delay, unless it has exited by then. */
  private answerLate(reply: Uint8Array, delay: number): void {
    const timer = later(() => {
      this.lateAnswers.delete(timer);
      if (this.pty && !this.exited) {
        this.pty.write(reply);
        this.queriesAnswered++;
        // Recorded when sent, so a reader knows it was (the header cannot: it is written first).
        this.write({ t: Math.max(this.now(), this.lastT), kind: "marker", label: QUERY_ANSWERED_MARKER });
      }
    }, delay * 1000);
    this.lateAnswers.add(timer);
  }

  /** The first write error (disk full, file size limit…): the recording stops there, once. */
  writeError: string | null = null;

  /** The time of the last event written: events stay in time order. */
  private lastT = 0;

  private write(e: Event): void {
    if (this.writeError !== null) return;
    try {
      this.writer.event(e);
      this.lastT = Math.max(this.lastT, e.t);
      this.events++;
    } catch (err) {
      // One line, not one stack trace per read: stop the program, keep what was written.
      this.writeError = err instanceof UserError ? err.oneLine() : describeFsError(err);
      this.stopChild();
      return;
    }
    this.o.onEvent?.(e);
  }

  private readonly screenText = async () => (this.screen ? (await this.screen.rows()).join("\n") : "");

  /**
   * A flood makes garbage per read (Bun's fresh buffer for each read, the foreground
   * sample, the copy posted to the screen worker) and Bun's collector let it pile up.
   * Collected when the process has grown by 1 MB, looked at after every 64 KB read: on
   * `seq 1 3000000` (compiled binary, medians of 3) 65 MiB peak against 68 MiB with 8 MB
   * every 256 KB, and no more CPU time than noise (0.32–0.45 s vs 0.35–0.37 s user).
   * No floor: the recorder's whole footprint is below the analysis's GARBAGE_FLOOR, and
   * with it the flood peaked ~10 MiB higher.
   */
  private readonly garbage = new GarbageWatch(1 << 20, 0);
  private sinceCheck = 0;

  private readonly onData = (bytes: Uint8Array) => {
    if ((this.sinceCheck += bytes.length) >= 64 << 10) this.sinceCheck = 0, this.garbage.check();
    this.labels.poll(); // labels written before this output land before it
    this.hooks?.poll();
    this.foreground?.sample(); // a program's first draw comes after it took the terminal
    const t = this.now();
    this.lastOutputAt = t;
    this.write({ t, kind: "output", bytes });
    this.queryEnds.length = 0;
    this.scanner.feed(bytes);
    this.base += bytes.length;
    if (this.screen) {
      // The worker feeds its screen up to each query, then answers: replies stay in
      // stream order with xterm's own (DA1 after our 7501 reply). The read is given to
      // it (not copied) when nothing else holds it: the writer kept nothing of it and no
      // one else is told of events.
      const give = this.writer.releasesBytes === true && !this.o.onEvent;
      this.screen.write(bytes, this.queryEnds.map((q) => ({ at: q.at, reply: q.reply })), give);
      this.queriesAnswered += this.queryEnds.length;
      return;
    }
    for (const q of this.queryEnds) {
      this.pty?.write(q.reply);
      this.queriesAnswered++;
    }
    this.passThrough(bytes);
  };

  /** Interactive: show the output, minus our query, to the user. */
  private passThrough(bytes: Uint8Array): void {
    const filter = this.filter;
    if (!filter) return;
    const pass = filter.push(bytes);
    if (pass.length) this.term.write(pass);
    this.filterTimer?.clear();
    // A read that ended inside what could be a query is shown once the program
    // pauses, so nothing is held back from the user for long.
    if (filter.holding) {
      this.filterTimer = later(() => {
        const h = filter.flush();
        if (h.length) this.term.write(h);
      }, 15);
    }
  }

  async spawn(): Promise<Pty> {
    const env: Record<string, string> = { ...this.o.env, PSTLAB_RECORDING: "1" };
    if (this.labels.path) env.PSTLAB_LABELS = this.labels.path;
    if (this.hooks) env.PSTLAB_HOOKS = this.hooks.path;
    try {
      this.pty = await spawnPty({ argv: this.o.argv, ...this.size, env, onData: this.onData });
    } catch (e) {
      this.timeoutTimer?.clear();
      for (const c of this.cleanups.splice(0).reverse()) c(); // the signal handlers
      this.labels.close();
      this.hooks?.close();
      await this.screen?.close(); // a live worker would keep the process running
      throw e;
    }
    if (this.interrupted || this.timedOut) this.stopChild(); // signalled while it was starting
    this.exit = this.pty.exited.then((e) => {
      this.exited = true;
      return e;
    });
    // A script sees the program as gone only once its last output is read (or the drain's
    // grace ran out): a program that printed and exited within a poll failed its `wait`
    // ("exited before /x/") with the match on its way.
    const pty = this.pty;
    void this.exit.then(async () => {
      let grace: Timer | undefined;
      await Promise.race([pty.drained, new Promise<void>((r) => (grace = later(r, this.o.drainGraceMs ?? 2000)))]);
      grace?.clear(); // a pending timer would keep the process alive
      this.outputEnded = true;
    });
    const labelTimer = setInterval(() => {
      this.labels.poll();
      this.hooks?.poll();
    }, 5);
    this.cleanups.push(() => clearInterval(labelTimer));
    if (sessionSources(this.o).includes("process")) {
      const watch = this.foreground = new ForegroundWatch(
        this.pty.pid,
        (f) => this.write({ t: this.now(), kind: "other", code: PROCESS_CODE, data: formatForeground(f) }),
      );
      watch.sample();
      const fgTimer = setInterval(() => {
        if (!this.exited) watch.sample();
      }, FOREGROUND_EVERY_MS);
      this.cleanups.push(() => clearInterval(fgTimer));
    }
    return this.pty;
  }

  /** Keystrokes (from stdin, a script or the demo's simulated user) to the child. */
  private lastInput = -1;

  private readonly onInput = (chunk: Uint8Array | string) => {
    const b = typeof chunk === "string" ? te.encode(chunk) : chunk;
    if (b.length) this.lastInput = b[b.length - 1];
    this.pty?.write(b);
    if (this.o.captureInput) this.write({ t: this.now(), kind: "input", bytes: b });
  };

  private readonly restoreTerminal = () => {
    if (!this.rawMode) return;
    this.term.setRaw(false);
    this.rawMode = false;
  };

  /** Keys typed at the terminal: labels taken out (label_keys.ts), the rest to the program. */
  private readonly onTyped = (bytes: Uint8Array) => {
    const keys = this.keys;
    if (!keys) return this.onInput(bytes);
    const r = keys.feed(bytes);
    for (const label of r.labels) {
      this.labelLog.push(label);
      this.write({ t: this.now(), kind: "marker", label });
      this.confirm(label);
    }
    for (const k of r.unknown) this.confirm(`unknown key ${k} after the prefix (w p q a b i d e m)`, false);
    if (r.forward.length) this.onInput(r.forward);
  };

  private titleTimer: Timer | null = null;

  /** Tells the person the label was taken, outside the recording: the window's title for a moment. */
  private confirm(label: string, ok = true): void {
    this.titleTimer?.clear();
    this.term.title(ok ? `pstlab ✓ ${label}` : `pstlab: ${label}`);
    this.titleTimer = later(() => {
      this.titleTimer = null;
      this.term.title(null);
    }, 1500);
  }

  private keys: LabelKeys | null = null;

  attachInput(): void {
    const { o, term } = this;
    // Labelling keys and raw mode only where a person types into a terminal.
    if (!o.headless && term.interactive && o.prefixKey !== null) {
      this.keys = new LabelKeys(o.prefixKey ?? DEFAULT_PREFIX);
    }
    if (!o.headless && term.interactive) {
      term.setRaw(true);
      this.rawMode = true;
    }
    // Piped input ran out: the program gets the terminal's end of file (VEOF, ^D), twice
    // if a line is pending (the first only ends the line), as a person typing would.
    // Only after input actually came: an empty stdin (CI, /dev/null) types nothing, not
    // even ^D, into a program that may be reading the terminal's replies.
    // An empty stdin (`< /dev/null`, a closed pipe) still ends the program the way
    // `script` does (one VEOF), but only once the program has gone quiet: it is then
    // waiting for input, and any terminal reply it was reading has already arrived.
    // After piped content the same holds: a line-editing program (python3, bc: readline
    // in raw mode) may take the terminal after the ^D was queued, and the switch turns a
    // queued VEOF into a byte it does not read as end of file; it then prints its next
    // prompt and waits. So while it writes after a ^D and goes quiet again, it gets
    // another (at the start of its fresh line, where readline reads ^D as end of file),
    // up to EMPTY_STDIN_EOFS in all. A program that ended on the first never sees more.
    let eofTimer: ReturnType<typeof setInterval> | null = null;
    const onEnd = () => {
      if (term.interactive) return;
      const content = this.lastInput !== -1;
      let since = this.now();
      let sent = 0;
      if (content) {
        this.pty?.write(this.lastInput === 0x0a || this.lastInput === 0x0d ? "\x04" : "\x04\x04");
        sent = 1;
      }
      eofTimer = setInterval(() => {
        const quietSince = Math.max(this.lastOutputAt, since);
        if (this.exited || this.now() - quietSince < EMPTY_STDIN_QUIET) return;
        if (sent > 0 && this.lastOutputAt <= since) return; // nothing new since the last ^D
        // An empty stdin that input reached later (the demo's simulated user): that input ends itself.
        if ((!content && this.lastInput !== -1) || ++sent >= EMPTY_STDIN_EOFS) {
          clearInterval(eofTimer!);
          eofTimer = null;
        }
        if (content || this.lastInput === -1) this.pty?.write("\x04");
        since = this.now();
      }, 50);
    };
    const stopListening = term.listen(this.onTyped, onEnd);
    const offExit = term.onExit(this.restoreTerminal);
    this.cleanups.push(() => {
      if (eofTimer) clearInterval(eofTimer);
      stopListening();
      if (this.titleTimer) {
        this.titleTimer.clear();
        this.titleTimer = null;
        term.title(null);
      }
      this.restoreTerminal();
      offExit();
    });
  }

  /** Window size: record only real changes. */
  private readonly resize = (asked: number, askedRows: number) => {
    const { cols, rows } = fitSize(asked, askedRows);
    if (cols === this.size.cols && rows === this.size.rows) return;
    if (cols !== asked || rows !== askedRows) {
      this.write({
        t: this.now(),
        kind: "marker",
        label:
          `pstlab: window ${asked}x${askedRows} is larger than pstlab records (${SIZE_MAX} each way): the program was given ${cols}x${rows}`,
      });
    }
    this.size = { cols, rows };
    this.pty?.resize(cols, rows);
    this.screen?.resize(cols, rows);
    this.write({ t: this.now(), kind: "resize", cols, rows });
  };

  /** Interactive: follow the outer terminal unless --size fixed the window. */
  followWindow(): void {
    if (this.o.headless || this.o.followWinch === false) return;
    const off = this.term.onResize(() => {
      const size = this.term.size();
      if (size) this.resize(size.cols, size.rows);
    });
    this.cleanups.push(off);
  }

  /** SIGTERM, and SIGKILL 2 s later for a child that ignores it (cleared on exit). */
  private readonly stopChild = () => {
    this.pty?.kill("SIGTERM");
    this.killTimer ??= later(() => {
      if (!this.exited) this.pty?.kill("SIGKILL");
    }, 2000);
  };

  /** Signals to the recorder end the child the way asciinema does (SIGTERM), keep the file; --timeout too. */
  watchSignalsAndTimeout(): void {
    // In raw mode a typed Ctrl-C is a byte for the program, not a signal: a SIGINT that
    // arrives anyway came from outside (kill -INT) and ends the recording like SIGTERM.
    this.cleanups.push(this.term.onSignal((sig) => {
      this.interrupted = sig;
      this.stopChild();
    }));
    const timeout = this.o.timeout;
    if (timeout) {
      this.timeoutTimer = later(() => {
        this.timedOut = true;
        this.stopChild();
      }, timeout * 1000);
    }
  }

  /** The driver script (`--script`) or the programmatic driver (the demo's user); resolves when done. */
  drive(): Promise<void>[] {
    const { o } = this;
    const scriptDone = o.script
      ? runScript(
        o.script.steps,
        {
          now: this.now,
          screen: () =>
            this.screen?.changes() ?? Promise.resolve({ rows: [], changedFrom: [], cursor: { x: 0, y: 0 } }),
          markScreen: () => this.screen?.mark(),
          lastOutputAt: () => this.lastOutputAt,
          exited: () => this.outputEnded,
          send: this.onInput,
          // A label for a moment already past lands there, but never before an event written.
          label: (l, at) => this.write({ t: Math.max(at ?? this.now(), this.lastT), kind: "marker", label: l }),
          resize: this.resize,
        },
        o.script.file,
        () => this.outputEnded,
      ).catch((e) => {
        if (!(e instanceof ScriptFailed)) throw e;
        this.scriptError = e.message;
        this.scriptScreen = e.screen;
        this.write({ t: this.now(), kind: "marker", label: `${SESSION_STOP_MARKERS.script}${e.message}` });
        this.stopChild();
      })
      : Promise.resolve();
    const driverDone = o.driver
      ? o.driver({
        now: this.now,
        send: this.onInput,
        exited: () => this.exited,
        labels: () => this.labelLog,
        screenText: this.screenText,
      })
      : Promise.resolve();
    return [scriptDone, driverDone];
  }

  /** Waits for the child, drains the pty, undoes every hook; returns the exit and the end time. */
  async finish(pty: Pty, drivers: Promise<void>[]): Promise<{ exit: PtyExit; end: number }> {
    try {
      const exit = await this.exit!;
      // Drain to EOF: the child's last bytes may still be in the pty.
      let graceTimer: Timer | undefined;
      await Promise.race([pty.drained, new Promise<void>((r) => (graceTimer = later(r, this.o.drainGraceMs ?? 2000)))]);
      graceTimer?.clear(); // a pending timer would keep the process alive
      for (const d of drivers) await d;
      return { exit, end: this.now() }; // before waiting for the screen worker to catch up
    } finally {
      await this.undo(pty);
    }
  }

  private async undo(pty: Pty): Promise<void> {
    this.killTimer?.clear();
    this.timeoutTimer?.clear();
    this.filterTimer?.clear();
    for (const t of this.lateAnswers) t.clear(); // a pending answer would keep the process alive
    if (this.filter) {
      const h = this.filter.flush();
      if (h.length) this.term.write(h);
    }
    for (const c of this.cleanups.reverse()) c();
    this.labels.close();
    this.hooks?.close();
    for (const [ch, what] of [[this.labels, "$PSTLAB_LABELS"], [this.hooks, "$PSTLAB_HOOKS"]] as const) {
      if (ch?.truncated) {
        this.o.onWarning?.(
          `${what}: ${ch.truncated} line${
            ch.truncated === 1 ? "" : "s"
          } longer than ${MAX_LABEL_BYTES} bytes cut there (the rest dropped)`,
        );
      }
    }
    await this.screen?.close();
    pty.close();
    await this.endGroup(pty.pid);
  }

  /**
   * No process of the recorded command outlives the recorder: whatever is left of the
   * child's process group (a grandchild that ignored SIGHUP and SIGTERM) is ended,
   * SIGTERM first, SIGKILL after a short grace.
   */
  private async endGroup(pid: number): Promise<void> {
    if (!groupAlive(pid)) return;
    signalGroup(pid, "SIGTERM");
    for (let i = 0; i < 10 && groupAlive(pid); i++) await sleep(50);
    if (groupAlive(pid)) signalGroup(pid, "SIGKILL");
  }

  result(exit: PtyExit, end: number): SessionResult {
    const duration = end || this.now();
    const status = exitStatus(exit);
    // Why the program ended, as the last event before its status: a capture cut by
    // --timeout must not read as a program that finished.
    if (this.timedOut) {
      this.write({ t: duration, kind: "marker", label: `${SESSION_STOP_MARKERS.timeout}after ${this.o.timeout} s` });
    }
    this.write({ t: duration, kind: "exit", status });
    if (this.writeError === null) {
      try {
        this.writer.end(duration);
      } catch (err) {
        this.writeError = err instanceof UserError ? err.oneLine() : describeFsError(err);
      }
    }
    const {
      events,
      queriesAnswered,
      queriesSeen,
      reports,
      scriptError,
      scriptScreen,
      timedOut,
      interrupted,
      writeError,
    } = this;
    return {
      exit,
      status,
      duration,
      events,
      queriesAnswered,
      queriesSeen,
      reports,
      scriptError,
      scriptScreen,
      timedOut,
      interrupted,
      writeError,
    };
  }
}

export async function runSession(o: SessionOptions, writer: RecordingWriter): Promise<SessionResult> {
  const s = new Session(o, writer);
  // Before the spawn: the child runs before spawnPty resolves, and a SIGTERM in that window
  // would otherwise kill the recorder with its default action and leave the child behind.
  s.watchSignalsAndTimeout();
  const pty = await s.spawn();
  s.attachInput();
  s.followWindow();
  const { exit, end } = await s.finish(pty, s.drive());
  return s.result(exit, end);
}
