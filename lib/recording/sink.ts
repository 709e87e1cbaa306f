// The output gate: every file pstlab writes is opened here, and nothing the user cannot
// afford to lose is overwritten by it.
// - Never one of the command's own inputs, by identity (device + inode, so a hard link,
//   a symlink or /proc/self/fd/N is caught), --overwrite or not; devices are excepted
//   (`-o /dev/null` reads nothing). Inputs are noted as they are named (the option
//   tables mark them, options.ts `file: "in"`) and as they are opened (noteInput).
// - Never an existing non-empty file without --overwrite (asciinema's rule: an empty file
//   is fine), never a file without its owner's write bit (mode 444) even as root, and a
//   replaced file keeps its mode.
// - New files are created exclusively (O_EXCL, or link() of the finished temp file): two
//   writers racing for one name cannot both "succeed" into one file. --overwrite and
//   --append take a lock file beside the target.
// - Nothing is truncated before the work can start: a replacement is written beside the
//   target and renamed onto it on success (or, for the recorder, once the first event
//   arrives); temp files and locks are removed on SIGINT/SIGTERM/SIGHUP when nobody else
//   handles the signal, and a file created here and then abandoned is removed.
// A missing folder is an error, not a silent `mkdir -p`; `-` is stdout. Durable mode
// writes every event through at once, so a recorder killed with SIGKILL leaves a file
// that reads back up to its last complete line.

import * as fs from "node:fs";
import * as path from "node:path";
import { describeFsError, fsErrorCode } from "./source.ts";
import { InputError } from "../errors.ts";
import { refuseInput, writeTarget } from "../inputs.ts";

export { noteInput, noteInputFd, refuseSameOutputs } from "../inputs.ts";
import { BrokenPipe, forTerminal, type RawChannel, writeAllSync } from "../stdio.ts";
export { BrokenPipe, writeAllSync } from "../stdio.ts";

export interface OutputOptions {
  overwrite?: boolean;
  append?: boolean;
  /** Write through on every call (recorder). Otherwise buffered in 1 MiB blocks. */
  durable?: boolean;
  /** For `-`: the bytes are a recording, sent unchanged (lib/stdio.ts RAW_CHANNELS); else text through the terminal writer. */
  raw?: RawChannel;
}

const te = new TextEncoder();
const FLUSH_AT = 1 << 20;

function statOrNull(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}

// ---- what must go when the process is stopped ----------------------------------------------

/** Temp files and locks of this process, removed on exit and on a signal nobody else handles. */
const litter = new Set<string>();
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
let handlersOn = false;

function sweep(): void {
  for (const f of litter) {
    try {
      fs.rmSync(f, { force: true });
    } catch { /* nothing more to do */ }
  }
  litter.clear();
}

function onSignal(sig: keyof typeof SIGNAL_NUMBERS): void {
  // Another handler (the recorder's) owns this signal: it stops its work and then closes
  // or aborts its files itself; removing them here would lose its recording.
  if (process.listenerCount(sig) > 1) return;
  sweep();
  process.exit(128 + SIGNAL_NUMBERS[sig]);
}

const handlers = Object.fromEntries(
  Object.keys(SIGNAL_NUMBERS).map((s) => [s, () => onSignal(s as keyof typeof SIGNAL_NUMBERS)]),
) as Record<keyof typeof SIGNAL_NUMBERS, () => void>;

/**
 * Arms the stop handlers for the whole run of a batch command (report, check, convert…):
 * a process started with SIGINT/SIGTERM ignored (a background job of a script, some
 * harnesses) or one whose signal arrived during synchronous work would otherwise finish
 * and exit 0. Interactive commands (record, play, sim, demo) own their signals and do not call it.
 */
export function armStopSignals(): void {
  arm();
}

function track(f: string): void {
  litter.add(f);
  arm();
}

function arm(): void {
  if (handlersOn) return;
  handlersOn = true;
  process.on("exit", sweep);
  for (const [s, h] of Object.entries(handlers)) process.on(s, h);
}

function untrack(f: string): void {
  // The handlers stay armed once armed: a signal that arrived while the work ran
  // synchronously is dispatched later, and with no listener left by then the runtime
  // drops it (the command finished and exited 0 after a Ctrl-C). Armed, it still stops
  // the process with 128 + N, at the latest at the next turn of the event loop.
  litter.delete(f);
}

function besideName(p: string, what: string): string {
  return path.join(path.dirname(p), `.${path.basename(p)}.pstlab-${what}`);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/**
 * The lock --overwrite and --append take: a file created exclusively beside the target,
 * holding our pid. One left by a process that is gone (SIGKILL) is taken over.
 */
const NO_LOCK = new Error("no lock");

/**
 * Creates the lock file with this process's pid already in it: written beside it first,
 * then hard-linked onto its name (which fails if it exists). A lock created empty and
 * written after was read in between by a second writer as a stale lock with no pid,
 * removed, and taken again: two recorders given one new name both recorded into it.
 * Where hard links are refused, the lock is created and written as before.
 */
function takeLock(l: string): void {
  const mine = `${l}.${process.pid}`;
  track(mine); // a signal between here and its removal takes it too
  try {
    fs.writeFileSync(mine, `${process.pid}\n`, { flag: "w" });
  } catch {
    fs.rmSync(mine, { force: true });
    untrack(mine);
    throw NO_LOCK; // a full disk: no lock (the write that follows fails and says so)
  }
  try {
    fs.linkSync(mine, l);
    return;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "EEXIST") throw e;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EXDEV") throw e;
  } finally {
    fs.rmSync(mine, { force: true });
    untrack(mine);
  }
  const fd = fs.openSync(l, "wx");
  try {
    fs.writeSync(fd, `${process.pid}\n`);
  } catch {
    fs.closeSync(fd);
    fs.rmSync(l, { force: true });
    throw NO_LOCK;
  }
  fs.closeSync(fd);
}

function lock(p: string): string | null {
  const l = besideName(p, "lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      takeLock(l);
      track(l);
      return l;
    } catch (e) {
      if (e === NO_LOCK) return null;
      if ((e as { code?: string }).code !== "EEXIST") return null; // a folder we cannot write: open() says so
      let pid = NaN;
      try {
        pid = Number(fs.readFileSync(l, "utf8").trim());
      } catch { /* vanished: try again */ }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) {
        throw new InputError(`${p}: being written by another pstlab (pid ${pid}); try again when it has finished`);
      }
      fs.rmSync(l, { force: true });
    }
  }
  throw new InputError(`${p}: could not take its lock ${l}`);
}

function release(l: string | null): void {
  if (!l) return;
  fs.rmSync(l, { force: true });
  untrack(l);
}

/** The descriptor a path names when it is one of this process's own and not a regular file, else null. */
function ownDescriptor(p: string): number | null {
  const m = /^\/(?:dev\/(stdout|stderr|fd\/(\d+))|proc\/self\/fd\/(\d+))$/.exec(p);
  if (!m) return null;
  const fd = m[1] === "stdout" ? 1 : m[1] === "stderr" ? 2 : Number(m[2] ?? m[3]);
  try {
    return fs.fstatSync(fd).isFile() ? null : fd;
  } catch {
    return null; // not open here: the path says why when it is opened
  }
}

/**
 * A text output (a report, a check result, an export) replaces what was there, as a
 * report re-run in CI must: but never a recording. `report x.cast -o other.cast` put a
 * table where a capture was; a capture is kept by every other writer unless --overwrite.
 */
function refuseRecording(p: string): void {
  if (p === "-") return;
  const target = writeTarget(p);
  let head = "";
  try {
    if (!fs.statSync(target).isFile()) return;
    const fd = fs.openSync(target, "r");
    try {
      const b = new Uint8Array(512);
      head = new TextDecoder().decode(b.subarray(0, fs.readSync(fd, b, 0, b.length, 0)));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return; // missing or unreadable: the open says what it must
  }
  const ext = path.extname(target).toLowerCase();
  const castHeader = /^\s*\{[^\n]*"version"\s*:\s*[23]\b/.test(head);
  if (castHeader || (head.length > 0 && (ext === ".cast" || ext === ".ttyrec"))) {
    throw new InputError(`${p}: is a recording; refusing to write a report over it (name another file)`);
  }
}

export class OutputFile {
  private parts: string[] = [];
  private pending = 0;
  private closed = false;
  readonly existedBefore: boolean;
  /** The next write renames the temp file onto the target first (see armReplace). */
  private replaceOnWrite = false;
  /** Text to stdout: through the terminal writer's filter (lib/stdio.ts forTerminal). */
  private terminal = false;
  /** A descriptor this process already had (stdout, /dev/fd/N): written, never closed. */
  private borrowed = false;

  /**
   * @param temp where the bytes go until they are committed (renamed onto `path`), or
   *   null when they go to `path` directly (stdout, a device, --append, a new recording).
   * @param created `path` was created by this open (removed again by abort()).
   */
  private constructor(
    readonly path: string,
    private readonly fd: number,
    readonly durable: boolean,
    existed: boolean,
    private temp: string | null = null,
    private readonly created = false,
    private readonly lockFile: string | null = null,
  ) {
    this.existedBefore = existed;
  }

  static open(p: string, opts: OutputOptions = {}): OutputFile {
    if (p === "-") {
      const out = new OutputFile("-", 1, !!opts.durable, false);
      out.terminal = !opts.raw;
      out.borrowed = true;
      return out;
    }
    // One of this process's own descriptors by name (/dev/stdout, /dev/fd/3): when it is a
    // pipe, a socket or a terminal it is written as it is. Opened by its path, a socket
    // fails (ENXIO), and a pipe's link ("pipe:[…]") named a folder that does not exist.
    const own = ownDescriptor(p);
    if (own !== null) {
      const out = new OutputFile(p, own, !!opts.durable, false);
      out.borrowed = true;
      return out;
    }
    // A symlinked output is written through to its target (the temp file beside the target,
    // renamed onto it): renaming onto the link would replace the link and leave the target stale.
    p = writeTarget(p);
    const first = statOrNull(p);
    if (first?.isDirectory()) throw new InputError(`${p}: is a directory`);
    // Every file target is locked before it is looked at: two writers given one name are
    // serialised here (the second is refused), before either decides the file is new.
    const lockFile = !first || first.isFile() ? lock(p) : null;
    try {
      return OutputFile.openLocked(p, opts, lockFile ? statOrNull(p) : first, lockFile);
    } catch (e) {
      release(lockFile);
      throw e;
    }
  }

  private static openLocked(p: string, opts: OutputOptions, st: fs.Stats | null, lockFile: string | null): OutputFile {
    let existed = false, special = false;
    if (st) {
      if (st.isDirectory()) throw new InputError(`${p}: is a directory`);
      // --append reads its own target by design (record: the v3 file it continues, whose
      // size it takes; anything else is refused there); every other output is never an input.
      if (!opts.append) refuseInput(p, st);
      // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place: renaming a
      // temporary file onto it would replace the device itself.
      special = !st.isFile();
      existed = st.isFile() && st.size > 0;
      if (existed && !opts.overwrite && !opts.append) {
        throw new InputError(`${p}: file exists (use --overwrite to replace it)`);
      }
      // Root may write anything; a file its owner made read-only is still not ours to replace.
      if (st.isFile() && (st.mode & 0o200) === 0) {
        const mode = (st.mode & 0o777).toString(8).padStart(3, "0");
        throw new InputError(`${p}: is read-only (mode ${mode}); refusing to replace it (chmod u+w it first)`);
      }
    }
    try {
      if (special || opts.append) {
        return new OutputFile(
          p,
          fs.openSync(p, opts.append ? "a" : "w"),
          !!opts.durable,
          existed,
          null,
          false,
          lockFile,
        );
      }
      if (opts.durable && !existed) {
        // A new recording is created where it belongs, exclusively: a second recorder given
        // the same name fails here instead of interleaving its events into this file.
        const fd = fs.openSync(p, st ? "w" : "wx");
        return new OutputFile(p, fd, true, false, null, !st, lockFile);
      }
      // Every other writer writes beside the target and renames on success: a failed run
      // (disk full, a bad event, Ctrl-C, a command that does not start) never leaves half
      // a file where a good one was.
      const temp = besideName(p, `${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`);
      const fd = fs.openSync(temp, "wx");
      track(temp);
      return new OutputFile(p, fd, !!opts.durable, existed, temp, false, lockFile);
    } catch (e) {
      if ((e as { code?: string }).code === "EEXIST") {
        throw new InputError(`${p}: file exists (another writer created it just now)`);
      }
      if ((e as { code?: string }).code === "ENOENT") {
        throw new InputError(`${p}: cannot write: folder ${path.dirname(p)} does not exist`);
      }
      throw new InputError(`${p}: cannot write: ${describeFsError(e)}`);
    }
  }

  /**
   * A durable replacement (record --overwrite): what is written so far stays beside the
   * target, and the next write (the first event, once the program has started) moves it
   * onto the target, where a recorder killed later leaves it readable.
   */
  armReplace(): void {
    if (this.temp && this.durable) this.replaceOnWrite = true;
  }

  /** Moves the temp file onto the target (keeping the target's mode); later writes go there directly. */
  private commit(): void {
    const temp = this.temp;
    if (!temp) return;
    const st = statOrNull(this.path);
    if (st) {
      refuseInput(this.path, st); // an input named after this file was opened
      if (st.isFile()) fs.chmodSync(temp, st.mode & 0o7777);
      fs.renameSync(temp, this.path);
    } else {
      // Created exclusively: link() fails if another writer made the file meanwhile.
      fs.linkSync(temp, this.path);
      fs.rmSync(temp, { force: true });
    }
    untrack(temp);
    this.temp = null;
  }

  /** Writes, turning a failing device (disk full, file size limit) into one InputError naming the file. */
  write(s: string | Uint8Array): void {
    try {
      if (this.replaceOnWrite) {
        this.replaceOnWrite = false;
        this.commit();
      }
      this.writeRaw(s);
    } catch (e) {
      throw this.failure(e);
    }
  }

  private failure(e: unknown): unknown {
    if (e instanceof BrokenPipe || e instanceof InputError || fsErrorCode(e) === null) return e;
    if (fsErrorCode(e) === "EEXIST") {
      return new InputError(`${this.path}: file exists (another writer created it just now)`);
    }
    return new InputError(`${this.path === "-" ? "standard output" : this.path}: cannot write: ${describeFsError(e)}`);
  }

  private writeRaw(s: string | Uint8Array): void {
    if (this.terminal) s = forTerminal(typeof s === "string" ? s : new TextDecoder().decode(s));
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

  /** Finishes the file: flushed, closed, and (for a temporary file) moved onto the target. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } catch (e) {
      this.discard();
      throw this.failure(e);
    }
    if (!this.borrowed) fs.closeSync(this.fd);
    try {
      this.commit();
    } catch (e) {
      this.discard();
      throw this.failure(e);
    }
    release(this.lockFile);
  }

  /** A whole text to `p` (through a temporary file, so all or nothing), or to stdout (`-`). */
  static writeAll(p: string, text: string, raw?: RawChannel): void {
    const out = OutputFile.open(p, { overwrite: true, raw }); // an input of this command is refused there
    try {
      refuseRecording(p);
      out.write(text);
    } catch (e) {
      out.abort();
      throw e;
    }
    out.close();
  }

  /**
   * Gives up: a temporary file is removed and the target left as it was; a file this open
   * created is removed (a recorder whose program never started, a disk full at the header).
   */
  abort(): void {
    if (this.closed) return;
    this.closed = true;
    this.discard();
    if (this.created) fs.rmSync(this.path, { force: true });
  }

  private discard(): void {
    if (!this.borrowed) {
      try {
        fs.closeSync(this.fd);
      } catch { /* already closed */ }
    }
    if (this.temp) {
      fs.rmSync(this.temp, { force: true });
      untrack(this.temp);
    }
    release(this.lockFile);
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
