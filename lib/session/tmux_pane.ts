// `record --tmux-pane TARGET`: record a pane that is already running in tmux, without
// restarting it — how a user captures the real agent session that just misbehaved.
//  - one tmux command sequence reads the pane's size and cursor, starts `pipe-pane -O`
//    into a private FIFO and captures the screen (`capture-pane -e -p`): tmux runs a
//    sequence without reading the pane in between, so the screen and the first piped
//    byte meet exactly (nothing lost, nothing twice);
//  - the screen is the first output event (cleared, drawn with its colours, the cursor
//    put back), then each read of the FIFO is one output event, as a pty read is;
//  - the pane's size is followed (resize events), its foreground process group sampled
//    (the pane's shell leads its tty's session), until the pane dies or a stop signal;
//  - the pipe is closed on every exit path, so the pane is left as it was found.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { UserError } from "../errors.ts";
import type { Event } from "../recording/model.ts";
import type { RecordingWriter } from "../recording/writer.ts";
import { describeFsError } from "../recording/source.ts";
import { formatForeground, PROCESS_CODE } from "../recording/sources.ts";
import { foregroundAvailable, ForegroundWatch } from "./foreground.ts";
import { nullTerminal, type Terminal } from "./terminal.ts";
import { whyNoTempFolder } from "./labels.ts";
import { sleep } from "../timers.ts";
import { fitSize } from "../units.ts";

export interface PaneTarget {
  target: string;
  /** tmux's -L: a server other than the default. */
  socket?: string;
}

export interface PaneInfo {
  id: string;
  where: string;
  cols: number;
  rows: number;
  pid: number;
  command: string;
  cursor: { x: number; y: number };
  alternate: boolean;
  piped: boolean;
  dead: boolean;
  deadStatus: number | null;
}

const FORMAT = [
  "#{pane_id}",
  "#{session_name}:#{window_index}.#{pane_index}",
  "#{pane_width}",
  "#{pane_height}",
  "#{pane_pid}",
  "#{cursor_x}",
  "#{cursor_y}",
  "#{alternate_on}",
  "#{pane_pipe}",
  "#{pane_dead}",
  "#{pane_dead_status}",
  "#{pane_current_command}",
].join("\t");

/** A name from the user or from tmux as it may be shown: as it is when plain, else quoted with its escapes spelled out. */
export function shownName(s: string): string {
  return /^[\w.@%+=:,/-]+$/.test(s) ? s : JSON.stringify(s);
}

/** tmux's own words, one line, without control characters. */
const oneLine = (s: string) => s.replace(/[\x00-\x1f\x7f-\x9f]+/g, " ").trim().slice(0, 200);

function tmux(t: PaneTarget, args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync("tmux", [...(t.socket ? ["-L", t.socket] : []), ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
    timeout: 10000,
  });
  if (r.error) {
    const code = (r.error as { code?: string }).code;
    throw new UserError(
      code === "ENOENT" ? "record: tmux is not installed" : `record: tmux: ${oneLine(String(r.error))}`,
    );
  }
  return { ok: r.status === 0, out: r.stdout ?? "", err: r.stderr ?? "" };
}

function parseInfo(line: string): PaneInfo | null {
  const f = line.replace(/\n$/, "").split("\t");
  if (f.length < 12) return null;
  const [id, where, w, h, pid, cx, cy, alt, pipe, dead, status] = f;
  const command = f.slice(11).join("\t");
  const cols = Number(w), rows = Number(h);
  if (!id.startsWith("%") || !(cols > 0) || !(rows > 0)) return null;
  return {
    id,
    // A session name is the user's text: shown, it must not be able to drive the terminal.
    where: where.replace(/[\x00-\x1f\x7f-\x9f]/g, "?"),
    cols,
    rows,
    pid: Number(pid),
    command,
    cursor: { x: Number(cx) || 0, y: Number(cy) || 0 },
    alternate: alt === "1",
    piped: pipe === "1",
    dead: dead === "1",
    deadStatus: status === "" ? null : Number(status),
  };
}

/** The pane as tmux sees it now; a UserError (one line) when there is no such pane or server. */
export function paneInfo(t: PaneTarget): PaneInfo {
  const r = tmux(t, ["display-message", "-p", "-t", t.target, FORMAT]);
  const info = r.ok ? parseInfo(r.out) : null;
  if (!info) {
    const server = t.socket ? ` on tmux server -L ${shownName(t.socket)}` : "";
    throw new UserError(
      `record: no tmux pane ${JSON.stringify(t.target)}${server} (${oneLine(r.err) || "tmux said nothing"})`,
    );
  }
  return info;
}

/** The pane now, or null once it is gone (or the server is). */
function paneNow(t: PaneTarget, id: string): PaneInfo | null {
  const r = tmux(t, ["display-message", "-p", "-t", id, FORMAT]);
  return r.ok ? parseInfo(r.out) : null;
}

/** The first event: the captured screen redrawn on a cleared terminal, colours and cursor as they were. */
export function screenBytes(info: PaneInfo, captured: string): Uint8Array {
  const lines = captured.replace(/\n$/, "").split("\n").slice(0, info.rows);
  const text = (info.alternate ? "\x1b[?1049h" : "") + "\x1b[0m\x1b[H\x1b[2J" + lines.join("\r\n") +
    `\x1b[0m\x1b[${info.cursor.y + 1};${info.cursor.x + 1}H`;
  return new TextEncoder().encode(text);
}

export interface PaneSessionOptions extends PaneTarget {
  /** Where the stop signals come from (Ctrl-C, SIGTERM); nothing is shown or read. */
  terminal?: Terminal;
  /** Told once the pipe is up (the CLI's status line; tests wait for it). */
  onStarted?: (info: PaneInfo) => void;
  /** How often the pane's size and life are asked of tmux. */
  pollMs?: number;
  /** Record the pane's foreground process group (default: where the system lets us). */
  processTable?: boolean;
}

export interface PaneResult {
  duration: number;
  events: number;
  bytes: number;
  /** The pane's exit status when tmux kept it (remain-on-exit), else null. */
  status: number | null;
  ended: "pane-exited" | "signal";
  interrupted: string | null;
  writeError: string | null;
}

export async function recordPane(o: PaneSessionOptions, writer: RecordingWriter, info: PaneInfo): Promise<PaneResult> {
  const term = o.terminal ?? nullTerminal();
  if (info.piped) {
    throw new UserError(`record: tmux pane ${info.id} is already piped (pipe-pane); stop that pipe first`);
  }
  let dir: string;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-pane-"));
  } catch (e) {
    throw new UserError(`record: cannot make a FIFO in ${os.tmpdir()} ($TMPDIR): ${whyNoTempFolder(os.tmpdir(), e)}`);
  }
  const fifo = path.join(dir, "pane");
  const mk = spawnSync("mkfifo", ["-m", "600", fifo]);
  if (mk.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new UserError(`record: cannot make a FIFO in ${dir}`);
  }
  // Read-write and non-blocking: no EOF between writers, never a blocked read.
  const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
  let events = 0, bytes = 0, writeError: string | null = null, stop: string | null = null;
  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  const write = (e: Event) => {
    if (writeError !== null) return;
    try {
      writer.event(e);
      events++;
    } catch (err) {
      writeError = err instanceof UserError ? err.oneLine() : describeFsError(err);
    }
  };
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cleanups: (() => void)[] = [() => fs.closeSync(fd), () => fs.rmSync(dir, { recursive: true, force: true })];
  try {
    // One sequence: tmux does not read the pane between these commands.
    const r = tmux(o, [
      "display-message",
      "-p",
      "-t",
      info.id,
      FORMAT,
      ";",
      "pipe-pane",
      "-O",
      "-t",
      info.id,
      `exec cat > ${q(fifo)}`,
      ";",
      "capture-pane",
      "-e",
      "-p",
      "-t",
      info.id,
    ]);
    if (!r.ok) throw new UserError(`record: tmux pane ${info.id}: ${oneLine(r.err) || "could not pipe it"}`);
    cleanups.unshift(() => void tmux(o, ["pipe-pane", "-t", info.id]));
    const nl = r.out.indexOf("\n");
    let size = parseInfo(r.out.slice(0, nl)) ?? info;
    // The header has the size `info` saw; a resize in between is an event like any other.
    if (size.cols !== info.cols || size.rows !== info.rows) {
      write({ t: 0, kind: "resize", ...fitSize(size.cols, size.rows) });
    }
    const screen = screenBytes(size, r.out.slice(nl + 1));
    write({ t: 0, kind: "output", bytes: screen });
    bytes += screen.length; // an output event like the others: `info` counts it too
    const watch = o.processTable !== false && foregroundAvailable() && size.pid > 0
      ? new ForegroundWatch(
        size.pid,
        (f) => write({ t: now(), kind: "other", code: PROCESS_CODE, data: formatForeground(f) }),
      )
      : null;
    watch?.sample();
    cleanups.unshift(term.onSignal((sig) => void (stop = sig)));
    o.onStarted?.(size);
    const buf = new Uint8Array(65536);
    const drain = () => {
      while (true) {
        let n: number;
        try {
          n = fs.readSync(fd, buf, 0, buf.length, null);
        } catch (e) {
          if ((e as { code?: string }).code === "EAGAIN") return;
          throw e;
        }
        if (n <= 0) return;
        watch?.sample(); // a program's first draw comes after it took the terminal
        write({ t: now(), kind: "output", bytes: buf.slice(0, n) });
        bytes += n;
      }
    };
    let lastPoll = 0, lastSample = 0, status: number | null = null;
    const pollMs = o.pollMs ?? 250;
    while (stop === null && writeError === null) {
      drain();
      const ms = performance.now();
      if (ms - lastSample >= 100) {
        lastSample = ms;
        watch?.sample();
      }
      if (ms - lastPoll >= pollMs) {
        lastPoll = ms;
        const p = paneNow(o, info.id);
        if (!p || p.dead) {
          status = p?.deadStatus ?? null;
          break;
        }
        if (p.cols !== size.cols || p.rows !== size.rows) {
          drain(); // bytes drawn at the old size come first
          // Past SIZE_MAX the pane is recorded at the largest size a reader takes (tmux's pane is not ours to resize).
          write({ t: now(), kind: "resize", ...fitSize(p.cols, p.rows) });
        }
        size = p;
      }
      await sleep(10);
    }
    // The pane's last bytes may still be on their way through cat.
    await sleep(50);
    drain();
    const duration = now();
    // The recording lasts until it stopped, not until the pane's last output: a prompt
    // left on screen (what --tmux-pane is for) must keep its time, or it has none. As the
    // recorder ends with the program's exit, the end is an event at that moment: the
    // exit when tmux kept the status, else a marker saying why it ended (the pane still
    // runs after a stop signal; its status is not known when tmux did not keep it).
    if (stop !== null) {
      write({ t: duration, kind: "marker", label: `pstlab: recording stopped (${stop}); the pane was still running` });
    } else if (status !== null) write({ t: duration, kind: "exit", status });
    else write({ t: duration, kind: "marker", label: "pstlab: the pane exited (status not kept by tmux)" });
    if (writeError === null) {
      try {
        writer.end(duration);
      } catch (err) {
        writeError = err instanceof UserError ? err.oneLine() : describeFsError(err);
      }
    }
    return {
      duration,
      events,
      bytes,
      status,
      ended: stop === null ? "pane-exited" : "signal",
      interrupted: stop,
      writeError,
    };
  } finally {
    for (const c of cleanups) {
      try {
        c();
      } catch { /* the pane or the server is gone: nothing left to undo */ }
    }
  }
}
