// `pstlab record`'s session: a small OSC 7501-aware terminal layer around a real PTY.
//  - every pty read is recorded as one event, appended and written through at once
//    (a SIGKILLed recorder leaves a file that reads back to its last line);
//  - `OSC 7501;?` is answered by the recorder (mirrored terminator, spec D14) and never
//    forwarded to the outer terminal; `--no-answer` records a non-supporting terminal;
//  - headless: an @xterm/headless screen answers DA1/DSR/… (responder.ts), in stream
//    order with our 7501 reply, so "query + DA1" detection sees the 7501 reply first;
//  - interactive: raw mode, input forwarded, SIGWINCH followed, the terminal restored on
//    every exit path;
//  - the pty is drained to EOF before the file is closed.

import * as path from "node:path";
import { type Pty, type PtyExit, exitStatus, spawnPty } from "../pty/index.ts";
import { Scanner } from "../osc7501/scanner.ts";
import { queryReply } from "../osc7501/parse.ts";
import { RemoteScreen } from "./remote_screen.ts";
import { QueryFilter } from "./query_filter.ts";
import { LabelChannel } from "./labels.ts";
import { runScript, ScriptFailed, type Step } from "./driver.ts";
import type { Event, Header, Provenance } from "../recording/model.ts";
import type { RecordingWriter } from "../recording/writer.ts";
import { writeAllSync } from "../recording/sink.ts";

export interface SessionOptions {
  argv: string[];
  cols: number;
  rows: number;
  headless: boolean;
  captureInput: boolean;
  /** Answer `OSC 7501;?` (default true). */
  answer: boolean;
  env: Record<string, string>;
  script?: { steps: Step[]; file: string };
  /** A programmatic driver (the demo's simulated user), run like a script. */
  driver?: (host: DriverHost) => Promise<void>;
  /** Forward stdin to the child (headless: only when piped). */
  forwardStdin: boolean;
  /** Interactive: follow the outer terminal's size (false when --size fixed it). */
  followWinch?: boolean;
  /** Kill the child after this many seconds. */
  timeout?: number;
  /** Bytes to show the user (interactive passthrough); null in headless mode. */
  stdoutFd: number | null;
  /** Told about degraded operation (the screen worker fell back in-process); the CLI prints it. */
  onWarning?: (message: string) => void;
  /** How long to wait for the pty's EOF after the child exited (grandchildren may hold it). */
  drainGraceMs?: number;
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
  timedOut: boolean;
  interrupted: string | null;
}

const te = new TextEncoder();

export function headerFor(o: SessionOptions, extra: { title?: string; idleTimeLimit?: number; envCapture: Record<string, string>; provenance: Provenance }): Header {
  const h: Header = {
    cols: o.cols,
    rows: o.rows,
    termType: o.env.TERM ?? "xterm-256color",
    timestamp: Math.floor(Date.now() / 1000),
    command: o.argv.map(shellQuote).join(" "),
    env: extra.envCapture,
    provenance: extra.provenance,
  };
  if (extra.title !== undefined) h.title = extra.title;
  if (extra.idleTimeLimit !== undefined) h.idleTimeLimit = extra.idleTimeLimit;
  return h;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function emitterName(argv: string[]): string {
  return path.basename(argv[0] ?? "");
}

export async function runSession(o: SessionOptions, writer: RecordingWriter): Promise<SessionResult> {
  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  let events = 0;
  const write = (e: Event) => {
    writer.event(e);
    events++;
  };
  let pty: Pty | null = null;
  let lastOutputAt = -Infinity;
  let exited = false;
  let reports = 0, queriesSeen = 0, queriesAnswered = 0;
  let interrupted: string | null = null;

  const labelLog: string[] = [];
  const labels = new LabelChannel((label) => {
    labelLog.push(label);
    write({ t: now(), kind: "marker", label });
  });
  const env = { ...o.env, PSTLAB_LABELS: labels.path, PSTLAB_RECORDING: "1" };

  // Headless: the emulated screen (in a worker) answers terminal queries back to the child.
  const screen = o.headless ? new RemoteScreen(o.cols, o.rows, (r) => pty?.write(r), { onFallback: (why) => o.onWarning?.(`screen worker unavailable (${why}); emulating in-process`) }) : null;
  const screenText = async () => (screen ? (await screen.rows()).join("\n") : "");
  const filter = o.headless ? null : new QueryFilter();
  let filterTimer: ReturnType<typeof setTimeout> | null = null;

  // The scanner finds queries (and counts reports) in stream order; `base` is the
  // absolute offset of the current read so query ends map into it.
  let base = 0;
  const queryEnds: { at: number; reply: Uint8Array }[] = [];
  const scanner = new Scanner((ev) => {
    if (ev.type !== "osc7501") return;
    if (ev.body.length === 1 && ev.body[0] === 0x3f) {
      queriesSeen++;
      if (o.answer && ev.depth === 0) queryEnds.push({ at: ev.end - base, reply: queryReply(ev.terminator) });
    } else reports++;
  });

  const onData = (bytes: Uint8Array) => {
    labels.poll(); // labels written before this output land before it
    const t = now();
    lastOutputAt = t;
    write({ t, kind: "output", bytes });
    queryEnds.length = 0;
    scanner.feed(bytes);
    base += bytes.length;
    if (screen) {
      // The worker feeds its screen up to each query, then answers: replies stay in
      // stream order with xterm's own (DA1 after our 7501 reply).
      screen.write(bytes, queryEnds.map((q) => ({ at: q.at, reply: q.reply })));
      queriesAnswered += queryEnds.length;
    } else {
      for (const q of queryEnds) {
        pty?.write(q.reply);
        queriesAnswered++;
      }
      if (o.stdoutFd !== null) {
        const pass = filter!.push(bytes);
        if (pass.length) writeAllSync(o.stdoutFd, pass);
        if (filterTimer) clearTimeout(filterTimer);
        // A read that ended inside what could be a query is shown once the program
        // pauses, so nothing is held back from the user for long.
        if (filter!.holding) {
          filterTimer = setTimeout(() => {
            const h = filter!.flush();
            if (h.length && o.stdoutFd !== null) writeAllSync(o.stdoutFd, h);
          }, 15);
        }
      }
    }
  };

  try {
    pty = await spawnPty({ argv: o.argv, cols: o.cols, rows: o.rows, env, onData });
  } catch (e) {
    labels.close();
    await screen?.close(); // a live worker would keep the process running
    throw e;
  }
  const exitP = pty.exited.then((e) => {
    exited = true;
    return e;
  });
  const labelTimer = setInterval(() => labels.poll(), 5);

  // Input.
  const stdin = process.stdin as unknown as NodeJS.ReadStream & { setRawMode?: (b: boolean) => void; isTTY?: boolean };
  let rawMode = false;
  const restore = () => {
    if (rawMode) {
      try {
        stdin.setRawMode?.(false);
      } catch { /* terminal gone */ }
      rawMode = false;
    }
  };
  /** Keystrokes (from stdin, a script or the demo's simulated user) to the child. */
  const onInput = (chunk: Uint8Array | string) => {
    const b = typeof chunk === "string" ? te.encode(chunk) : new Uint8Array(chunk);
    pty?.write(b);
    if (o.captureInput) write({ t: now(), kind: "input", bytes: b });
  };
  if (!o.headless && stdin.isTTY) {
    stdin.setRawMode?.(true);
    rawMode = true;
  }
  if (!o.headless || o.forwardStdin) {
    stdin.on("data", onInput);
    stdin.resume();
  }
  process.on("exit", restore);

  // Window size (interactive): follow the outer terminal, record only real changes.
  let size = { cols: o.cols, rows: o.rows };
  const resize = (cols: number, rows: number) => {
    if (cols === size.cols && rows === size.rows) return;
    size = { cols, rows };
    pty?.resize(cols, rows);
    screen?.resize(cols, rows);
    write({ t: now(), kind: "resize", cols, rows });
  };
  const onWinch = () => {
    const out = process.stdout as { columns?: number; rows?: number };
    if (out.columns && out.rows) resize(out.columns, out.rows);
  };
  if (!o.headless && o.followWinch !== false) process.on("SIGWINCH", onWinch);

  // SIGTERM, and SIGKILL 2 s later for a child that ignores it (cleared on exit).
  let killTimer: ReturnType<typeof setTimeout> | null = null;
  const stopChild = () => {
    pty?.kill("SIGTERM");
    killTimer ??= setTimeout(() => {
      if (!exited) pty?.kill("SIGKILL");
    }, 2000);
  };

  // Signals to the recorder end the child the way asciinema does (SIGTERM), keep the file.
  const onSignal = (sig: string) => () => {
    interrupted = sig;
    stopChild();
  };
  const handlers: [string, () => void][] = ["SIGTERM", "SIGHUP", "SIGQUIT", ...(rawMode ? [] : ["SIGINT"])].map((s) => [s, onSignal(s)]);
  for (const [s, h] of handlers) process.on(s as NodeJS.Signals, h);

  let timedOut = false;
  const timeoutTimer = o.timeout ? setTimeout(() => {
    timedOut = true;
    write({ t: now(), kind: "marker", label: `pstlab: timeout after ${o.timeout} s` });
    stopChild();
  }, o.timeout * 1000) : null;

  let scriptError: string | null = null;
  const scriptDone = o.script
    ? runScript(o.script.steps, {
      now,
      screenText,
      lastOutputAt: () => lastOutputAt,
      exited: () => exited,
      send: onInput,
      label: (l) => write({ t: now(), kind: "marker", label: l }),
      resize,
    }, o.script.file, () => exited).catch((e) => {
      if (!(e instanceof ScriptFailed)) throw e;
      scriptError = e.message;
      write({ t: now(), kind: "marker", label: `pstlab: script failed: ${e.message}` });
      stopChild();
    })
    : Promise.resolve();

  const driverDone = o.driver
    ? o.driver({
      now,
      send: onInput,
      exited: () => exited,
      labels: () => labelLog,
      screenText,
    })
    : Promise.resolve();

  let exit: PtyExit;
  let end = 0;
  try {
    exit = await exitP;
    // Drain to EOF: the child's last bytes may still be in the pty.
    const grace = o.drainGraceMs ?? 2000;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([pty.drained, new Promise((r) => (graceTimer = setTimeout(r, grace)))]);
    clearTimeout(graceTimer); // a pending timer would keep the process alive
    await scriptDone;
    await driverDone;
    end = now(); // before waiting for the screen worker to catch up
  } finally {
    clearInterval(labelTimer);
    if (killTimer) clearTimeout(killTimer);
    if (timeoutTimer) clearTimeout(timeoutTimer);
    if (filterTimer) clearTimeout(filterTimer);
    if (filter && o.stdoutFd !== null) {
      const h = filter.flush();
      if (h.length) writeAllSync(o.stdoutFd, h);
    }
    for (const [s, h] of handlers) process.off(s as NodeJS.Signals, h);
    process.off("SIGWINCH", onWinch);
    stdin.off("data", onInput);
    stdin.pause();
    restore();
    process.off("exit", restore);
    labels.close();
    await screen?.close();
    pty.close();
  }
  const duration = end || now();
  const status = exitStatus(exit!);
  write({ t: duration, kind: "exit", status });
  writer.end(duration);
  return { exit: exit!, status, duration, events, queriesAnswered, queriesSeen, reports, scriptError, timedOut, interrupted };
}
