// The truth-label side channel: a FIFO whose path is exported as PSTLAB_LABELS. Any
// process (in any language) writes lines to it; each line becomes a marker at the
// moment the recorder reads it. The recorder opens it read-write and non-blocking, so
// it never sees EOF between writers and never blocks; it is drained before every pty
// read is recorded, so a label written just before a prompt is drawn lands before it.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";

/** Private folders are named `pstlab-<channel>-<pid>-…` (channels: labels, hooks). */
const PREFIX = "pstlab-";
const STALE = /^pstlab-(?:labels|hooks)-([0-9]+)-/;

/**
 * A recorder killed with SIGKILL cannot remove its FIFO's folder; the folder names its
 * pid, so the next recorder removes the folders of recorders no longer running.
 */
export function sweepStale(tmp = os.tmpdir()): void {
  let names: string[];
  try {
    names = fs.readdirSync(tmp).filter((n) => n.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(STALE.exec(n)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue; // still running (or not ours to signal: EPERM below keeps it too)
    } catch (e) {
      if ((e as { code?: string }).code !== "ESRCH") continue;
    }
    try {
      fs.rmSync(path.join(tmp, n), { recursive: true, force: true });
    } catch { /* another user's, or gone already */ }
  }
}

/** A label (or hook) line with no newline after it for this long is taken as written whole. */
export const UNTERMINATED_MS = 200;

/** Longest label (or hook) line kept, in bytes: the rest of a longer line is dropped. */
export const MAX_LABEL_BYTES = 4096;
const dec = new TextDecoder();

export class LabelChannel {
  /** The FIFO, or "" when it could not be made (see unavailable). */
  readonly path: string;
  private readonly dir: string;
  private fd: number = -1;
  /** Why there is no FIFO (TMPDIR missing or read-only, no mkfifo), or null. */
  readonly unavailable: string | null = null;
  /** The current line's bytes (up to MAX_LABEL_BYTES), and how many are there. */
  private line = new Uint8Array(MAX_LABEL_BYTES);
  private lineLen = 0;
  /** The current line is over the cap: its rest is dropped up to the next newline. */
  private dropping = false;
  /** Lines cut at MAX_LABEL_BYTES (for one warning when the recording ends). */
  truncated = 0;
  private buf = new Uint8Array(65536);
  /** When the last bytes came (performance.now): an unterminated line that long idle is a line. */
  private lastBytesAt = 0;

  /** `name`: the FIFO's name and its private directory's prefix (the hooks channel is one too). */
  constructor(private readonly onLabel: (label: string) => void, name = "labels") {
    sweepStale();
    // A missing or read-only TMPDIR is not a reason to lose a recording: the channel is
    // then absent and the caller says so (the labels channel) or refuses (the hooks one).
    let dir = "";
    try {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${name}-${process.pid}-`));
      const fifo = path.join(dir, name);
      const r = spawnSync("mkfifo", ["-m", "600", fifo]);
      if (r.status !== 0) throw new Error(`mkfifo failed: ${String(r.stderr ?? r.error).trim()}`);
      this.fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
      this.path = fifo;
    } catch (e) {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      dir = "";
      this.path = "";
      this.unavailable = `cannot make a FIFO in ${os.tmpdir()} ($TMPDIR): ${whyNoTempFolder(os.tmpdir(), e)}`;
    }
    this.dir = dir;
  }

  /** Reads whatever is waiting (non-blocking). */
  poll(): void {
    if (this.fd < 0) return;
    let got = false;
    while (true) {
      let n: number;
      try {
        n = fs.readSync(this.fd, this.buf, 0, this.buf.length, null);
      } catch (e) {
        if ((e as { code?: string }).code === "EAGAIN") break;
        throw e;
      }
      if (n <= 0) break;
      got = true;
      this.lastBytesAt = performance.now();
      // Each byte is looked at once and a line never grows past the cap, so time is linear
      // and memory bounded whatever a writer sends (one 40 MB line took 51 s and 528 MB).
      let from = 0;
      while (from < n) {
        const nl = this.buf.indexOf(0x0a, from);
        const end = nl < 0 || nl >= n ? n : nl;
        if (!this.dropping) {
          const room = MAX_LABEL_BYTES - this.lineLen;
          const take = Math.min(room, end - from);
          this.line.set(this.buf.subarray(from, from + take), this.lineLen);
          this.lineLen += take;
          if (end - from > room) {
            this.dropping = true;
            this.truncated++;
          }
        }
        if (end === n) break;
        this.emit();
        from = end + 1;
      }
    }
    // The FIFO stays open here (no end of file between writers): a line written without
    // its newline (`printf 'truth:blocked'`) was joined to the next writer's line
    // ("truth:blockedtruth:working"). One left unterminated for UNTERMINATED_MS is a line.
    if (!got && this.lineLen > 0 && performance.now() - this.lastBytesAt >= UNTERMINATED_MS) this.emit(true);
  }

  /** The line read so far becomes a label (a character cut by the cap is left out). */
  private emit(last = false): void {
    let line = dec.decode(this.line.subarray(0, this.lineLen)).replace(/\r$/, "");
    if (this.dropping) line = line.replace(/\ufffd$/, "");
    if (last) line = line.trim(); // an unterminated last line, as it always was
    this.lineLen = 0;
    this.dropping = false;
    if (line.length) this.onLabel(line);
  }

  close(): void {
    if (this.fd < 0) return;
    this.poll();
    if (this.lineLen) this.emit(true);
    fs.closeSync(this.fd);
    this.fd = -1;
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Why a temporary folder (and the FIFO in it) could not be made in `tmp`. ENOENT from
 * mkdir means a missing parent, except on a special file system (/proc, /sys) that has
 * the folder but makes nothing in it: said as such, not as "no such folder".
 */
export function whyNoTempFolder(tmp: string, e: unknown): string {
  const code = (e as { code?: string }).code;
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(tmp);
  } catch { /* missing */ }
  if (code === "ENOENT" || code === "ENOTDIR") {
    if (!st) return "no such folder";
    if (!st.isDirectory()) return "not a folder";
    return "the folder exists but nothing can be made in it (a special file system such as /proc?)";
  }
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "read-only file system";
  if (code === "ENOSPC") return "no space left on device";
  return (e as Error).message;
}
