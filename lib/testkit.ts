// The shared test kit (not used by the product): temporary files, other people's
// captures when present, builders of inputs (casts, event streams, ttyrec frames), and
// the CLI run as a subprocess on whichever runtime runs the tests (Bun or Deno).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Event } from "./recording/model.ts";
import type { RecordingWriter } from "./recording/writer.ts";
import { type ScanEvent, Scanner } from "./osc7501/scanner.ts";

export const ROOT = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "..");
export const MAIN = path.join(ROOT, "main.ts");

export function tmpDir(prefix = "pstlab-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function writeTmp(dir: string, name: string, data: string | Uint8Array): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, data);
  return p;
}

/** Where other people's captures live; tests skip cleanly when absent. */
export const SHARED = process.env.PSTLAB_SHARED ?? path.resolve(ROOT, "../shared");
export const hasShared = fs.existsSync(path.join(SHARED, "captures"));

export function which(cmd: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch { /* next */ }
  }
  return null;
}

/** Whether this system shows its processes' command lines under /proc (Linux does; macOS does not). */
export const hasProc = fs.existsSync("/proc/self/cmdline");

/**
 * Whether a process whose command line starts with `prefix` is running, read from /proc
 * (arguments joined by one space). Without /proc it throws rather than answer "no": a
 * test that asks must skip with a reason, never pass by not looking.
 */
export function processRunning(prefix: string): boolean {
  if (!hasProc) throw new Error("processRunning needs /proc");
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "latin1");
    } catch {
      continue; // the process ended while we listed them
    }
    if (cmdline.split("\0").join(" ").startsWith(prefix)) return true;
  }
  return false;
}

/** An asciicast v3 file's text: the header (default 80x24) and one line per event. */
export function castText(events: unknown[][], header: Record<string, unknown> = {}): string {
  const h = { version: 3, term: { cols: 80, rows: 24 }, ...header };
  return [JSON.stringify(h), ...events.map((e) => JSON.stringify(e))].join("\n") + "\n";
}

/** Every event of a stream in an array (small inputs only: recordings can be huge). */
export async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Events as a stream, the way readers hand them out. */
export async function* fromArray(events: Event[]): AsyncIterable<Event> {
  for (const e of events) yield e;
}

/** The output bytes of events, concatenated. */
export function concatOutput(events: Event[]): Uint8Array {
  const parts = events.filter((e) => e.kind === "output") as { bytes: Uint8Array }[];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.bytes.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p.bytes, o);
    o += p.bytes.length;
  }
  return out;
}

/** Every scanner event of a whole buffer, as one read. */
export function scanAll(bytes: Uint8Array): ScanEvent[] {
  const out: ScanEvent[] = [];
  const s = new Scanner((e) => out.push(e));
  s.feed(bytes);
  s.end();
  return out;
}

/** One ttyrec frame (seconds, microseconds, length: little-endian u32; then the bytes), times from `start`. */
export function encodeTtyrecFrame(t: number, bytes: Uint8Array, start = 1_700_000_000): Uint8Array {
  const us = Math.round(t * 1e6);
  const out = new Uint8Array(12 + bytes.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, start + Math.floor(us / 1e6), true);
  dv.setUint32(4, us % 1e6, true);
  dv.setUint32(8, bytes.length, true);
  out.set(bytes, 12);
  return out;
}

export function runtimeArgv(): string[] {
  const g = globalThis as { Deno?: unknown; Bun?: unknown };
  if (g.Deno) return [process.execPath, "run", "-A", "--no-check", "--quiet"];
  return [process.execPath];
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  bytes: Uint8Array;
}

export function cli(
  args: string[],
  opts: { input?: string | Uint8Array; env?: Record<string, string>; cwd?: string; timeout?: number } = {},
): CliResult {
  const [cmd, ...pre] = runtimeArgv();
  const r = spawnSync(cmd, [...pre, MAIN, ...args], {
    input: opts.input,
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    cwd: opts.cwd ?? ROOT,
    timeout: opts.timeout ?? 60000,
    maxBuffer: 1 << 28,
  });
  const bytes = new Uint8Array(r.stdout ?? []);
  return { code: r.status ?? -1, stdout: new TextDecoder().decode(bytes), stderr: String(r.stderr ?? ""), bytes };
}

/** The CLI started in the background (to be signalled or killed), its output ignored. */
export function spawnCli(args: string[]): ChildProcess {
  const [cmd, ...pre] = runtimeArgv();
  return spawn(cmd, [...pre, MAIN, ...args], { stdio: "ignore" });
}

/** A detached tmux server on its own socket, with helpers to drive one session. */
export function tmuxSession(sock: string, name: string) {
  const tm = (...a: string[]) => spawnSync("tmux", ["-S", sock, ...a], { encoding: "utf8" });
  /** The session, running a shell command in a window of the given size. */
  const start = (command: string, cols = 100, rows = 30) =>
    tm("new-session", "-d", "-s", name, "-x", String(cols), "-y", String(rows), command);
  const pane = () => tm("capture-pane", "-p", "-t", name).stdout;
  const wait = async (pred: () => boolean, ms = 15000) => {
    const end = Date.now() + ms;
    while (!pred() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return pred();
  };
  const type = (text: string) => {
    tm("send-keys", "-t", name, "-l", text);
    tm("send-keys", "-t", name, "Enter");
  };
  return { tm, start, pane, wait, type };
}

/** A recording writer that keeps the events in memory (the recorder tested in-process). */
export function memoryWriter(): RecordingWriter & { events: Event[] } {
  const events: Event[] = [];
  return {
    events,
    stats: { events: 0, movedBytes: 0, rawEvents: 0, dropped: 0 },
    event: (e) => void events.push(e),
    end: () => {},
  };
}
