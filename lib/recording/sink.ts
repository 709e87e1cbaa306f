// Output files. Never overwrite an existing non-empty file without --overwrite
// (asciinema's rule: an empty file is fine); a missing folder is an error, not a
// silent `mkdir -p` (a typo in -o should not scatter files); `-` is stdout.
// Durable mode writes every event through at once, so a recorder killed
// with SIGKILL leaves a file that reads back up to its last complete line.

import * as fs from "node:fs";
import * as path from "node:path";
import { describeFsError, fsErrorCode } from "./source.ts";
import { InputError } from "../errors.ts";

export interface OutputOptions {
  overwrite?: boolean;
  append?: boolean;
  /** Write through on every call (recorder). Otherwise buffered in 1 MiB blocks. */
  durable?: boolean;
}

const te = new TextEncoder();
const FLUSH_AT = 1 << 20;

/** Blocking write that survives a non-blocking stdout pipe (EAGAIN). */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let off = 0;
  let spins = 0;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
      spins = 0;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "EAGAIN" && spins++ < 100000) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      if (code === "EPIPE") throw new BrokenPipe();
      throw e;
    }
  }
}

/** The reader went away (`pstlab scan x | head`): stop quietly. */
export class BrokenPipe extends Error {}

export class OutputFile {
  private parts: string[] = [];
  private pending = 0;
  private closed = false;
  readonly existedBefore: boolean;

  /**
   * @param temp where the bytes go until close() (renamed onto `path` then), or null
   *   when they go to `path` directly (stdout, --append, and the recorder, whose file
   *   must be readable up to its last line whenever it is killed).
   */
  private constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly durable: boolean,
    existed: boolean,
    private readonly temp: string | null = null,
  ) {
    this.existedBefore = existed;
  }

  static open(p: string, opts: OutputOptions = {}): OutputFile {
    if (p === "-") return new OutputFile("-", 1, !!opts.durable, false);
    let existed = false, special = false;
    try {
      const st = fs.statSync(p);
      if (st.isDirectory()) throw new InputError(`${p}: is a directory`);
      // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place: renaming a
      // temporary file onto it would replace the device itself.
      special = !st.isFile();
      existed = st.isFile() && st.size > 0;
      if (existed && !opts.overwrite && !opts.append) {
        throw new InputError(`${p}: file exists (use --overwrite to replace it)`);
      }
    } catch (e) {
      if (e instanceof InputError) throw e;
    }
    try {
      if (opts.append || opts.durable || special) {
        return new OutputFile(p, fs.openSync(p, opts.append ? "a" : "w"), !!opts.durable, existed);
      }
      // Every other writer writes beside the target and renames on success: a failed run
      // (disk full, a bad event, Ctrl-C) never leaves half a file where a good one was.
      const temp = path.join(
        path.dirname(p),
        `.${path.basename(p)}.pstlab-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`,
      );
      return new OutputFile(p, fs.openSync(temp, "wx"), false, existed, temp);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") {
        throw new InputError(`${p}: cannot write: folder ${path.dirname(p)} does not exist`);
      }
      throw new InputError(`${p}: cannot write: ${describeFsError(e)}`);
    }
  }

  /** Writes, turning a failing device (disk full, file size limit) into one InputError naming the file. */
  write(s: string | Uint8Array): void {
    try {
      this.writeRaw(s);
    } catch (e) {
      throw this.failure(e);
    }
  }

  private failure(e: unknown): unknown {
    if (e instanceof BrokenPipe || e instanceof InputError || fsErrorCode(e) === null) return e;
    return new InputError(`${this.path === "-" ? "standard output" : this.path}: cannot write: ${describeFsError(e)}`);
  }

  private writeRaw(s: string | Uint8Array): void {
    if (this.durable) {
      if (typeof s !== "string") return writeAllSync(this.fd, s);
      if (this.scratch.length < s.length * 3) this.scratch = new Uint8Array(Math.max(s.length * 3, 65536));
      const { written } = te.encodeInto(s, this.scratch);
      writeAllSync(this.fd, this.scratch.subarray(0, written));
      return;
    }
    if (typeof s !== "string") {
      this.flush();
      writeAllSync(this.fd, s);
      return;
    }
    this.parts.push(s);
    this.pending += s.length;
    if (this.pending >= FLUSH_AT) this.flush();
  }

  private scratch = new Uint8Array(0);

  flush(): void {
    if (this.parts.length === 0) return;
    const text = this.parts.length === 1 ? this.parts[0] : this.parts.join("");
    this.parts = [];
    this.pending = 0;
    // encodeInto a reused buffer: no fresh allocation per MiB written.
    if (this.scratch.length < text.length * 3) this.scratch = new Uint8Array(text.length * 3);
    const { written } = te.encodeInto(text, this.scratch);
    writeAllSync(this.fd, this.scratch.subarray(0, written));
  }

  /** Finishes the file: flushed, closed, and (for a temporary file) renamed onto the target. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } catch (e) {
      this.discard();
      throw this.failure(e);
    }
    if (this.fd !== 1) fs.closeSync(this.fd);
    if (this.temp) {
      try {
        fs.renameSync(this.temp, this.path);
      } catch (e) {
        fs.rmSync(this.temp, { force: true });
        throw this.failure(e);
      }
    }
  }

  /** A whole text to `p` (through a temporary file, so all or nothing), or to stdout (`-`). */
  static writeAll(p: string, text: string): void {
    const out = OutputFile.open(p, { overwrite: true });
    try {
      out.write(text);
    } catch (e) {
      out.abort();
      throw e;
    }
    out.close();
  }

  /** Gives up: a temporary file is removed and the target left as it was (a direct file is closed as it is). */
  abort(): void {
    if (this.closed) return;
    this.closed = true;
    this.discard();
  }

  private discard(): void {
    if (this.fd !== 1) {
      try {
        fs.closeSync(this.fd);
      } catch { /* already closed */ }
    }
    if (this.temp) fs.rmSync(this.temp, { force: true });
  }
}

/** Same file? (refuse to write over an input: `redact in in`.) */
export function sameFile(a: string, b: string): boolean {
  if (a === "-" || b === "-") return false;
  try {
    const sa = fs.statSync(a), sb = fs.statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
}
