// Byte sources: a file read in large blocks, or stdin for `-`. Nothing is ever
// loaded whole, so a 1 GB capture costs one block of memory.

import * as fs from "node:fs";
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import { setImmediate } from "node:timers";
import { InputError } from "../errors.ts";
import { noteInput, noteInputFd, readAllBounded } from "../inputs.ts";

/**
 * An uninitialised byte array for data that is about to be overwritten: zero-filling a
 * fresh Uint8Array costs ten times the copy on large reads. A plain Uint8Array view, so
 * it compares equal to any other Uint8Array.
 */
export function allocBytes(n: number): Uint8Array {
  const b = Buffer.allocUnsafe(n);
  return new Uint8Array(b.buffer, b.byteOffset, n);
}

export const BLOCK = 1 << 20;

export interface Source {
  path: string;
  /** The first bytes (up to 64 KiB), for format sniffing; they are also yielded by `chunks`.
   *  Chunks are only valid until the next one is requested. */
  head: Uint8Array;
  chunks: AsyncIterable<Uint8Array>;
  /** File size when known (not for stdin). */
  size: number | null;
}

// The block buffer is reused: a chunk is only valid until the next one is requested
// (every reader copies or decodes what it keeps). Fresh 1 MiB buffers per read cost
// more in page faults than the read itself.
async function* fileChunks(fd: number, first: Uint8Array, regular: boolean): AsyncIterable<Uint8Array> {
  try {
    if (first.length) yield first;
    const buf = new Uint8Array(BLOCK);
    while (true) {
      // A turn of the event loop per block of a regular file: a reader that only awaits
      // microtasks never lets a signal handler run, and SIGINT/SIGTERM would wait for the
      // whole file (or, dispatched after the handlers were gone, be lost).
      if (regular) await new Promise((r) => setImmediate(r));
      const n = regular ? fs.readSync(fd, buf, 0, BLOCK, null) : await readAsync(fd, buf);
      if (n <= 0) break;
      yield n === BLOCK ? buf : buf.subarray(0, n);
    }
  } finally {
    fs.closeSync(fd);
  }
}

async function* prepend(first: Uint8Array, rest: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  if (first.length) yield first;
  while (true) {
    const r = await rest.next();
    if (r.done) break;
    yield r.value instanceof Uint8Array ? r.value : new Uint8Array(r.value);
  }
}

/**
 * A read that leaves the event loop free while it waits: a FIFO or a terminal can block
 * for ever, and a blocked loop runs no signal handler (the output gate's SIGTERM cleanup).
 * Regular files keep the synchronous read, which never waits long and is faster.
 */
function readAsync(fd: number, buf: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.read(fd, buf, 0, buf.length, null, (e, n) => (e ? reject(e) : resolve(n)))
  );
}

function openAsync(path: string): Promise<number> {
  return new Promise((resolve, reject) => fs.open(path, "r", (e, fd) => (e ? reject(e) : resolve(fd))));
}

/** Whether opening the path may block: a FIFO (stat never blocks; a missing path: the open says why). */
function waitsToOpen(path: string): boolean {
  try {
    return fs.statSync(path).isFIFO();
  } catch {
    return false;
  }
}

/** Opens a path (or `-` for stdin). Throws InputError with a one-line message. */
export async function openSource(path: string): Promise<Source> {
  if (path === "-") {
    const it = (process.stdin as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    const parts: Uint8Array[] = [];
    let have = 0;
    while (have < 65536) {
      const r = await it.next();
      if (r.done) break;
      const u = r.value instanceof Uint8Array ? r.value : new Uint8Array(r.value);
      parts.push(u);
      have += u.length;
    }
    const head = concat(parts);
    return { path: "-", head: head.subarray(0, 65536), chunks: prepend(head, it), size: null };
  }
  let fd: number;
  try {
    // A FIFO's open waits for a writer: off the main thread, so that SIGINT/SIGTERM can
    // still stop us meanwhile (a synchronous open left `report FIFO` unkillable).
    // (A plain fd, not a FileHandle, which closes its fd when collected.)
    fd = waitsToOpen(path) ? await openAsync(path) : fs.openSync(path, "r");
  } catch (e) {
    throw new InputError(`${path}: ${describeFsError(e)}`);
  }
  const st = fs.fstatSync(fd);
  if (st.isDirectory()) {
    fs.closeSync(fd);
    throw new InputError(`${path}: is a directory`);
  }
  noteInputFd(fd, path); // no output of this command may replace it (the output gate)
  const buf = new Uint8Array(65536);
  const n = st.isFile() ? fs.readSync(fd, buf, 0, buf.length, null) : await readAsync(fd, buf);
  const head = buf.subarray(0, n);
  return { path, head, chunks: fileChunks(fd, head, st.isFile()), size: st.isFile() ? st.size : null };
}

export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// Deno reports some I/O errors without a code, as "… (os error N)": the errno names them.
const ERRNO: Record<number, string> = {
  2: "ENOENT",
  5: "EIO",
  13: "EACCES",
  21: "EISDIR",
  27: "EFBIG",
  28: "ENOSPC",
  30: "EROFS",
  122: "EDQUOT",
};

/** The error's code (ENOSPC…), from `code` or from a Deno "(os error N)" message; null when it is not an OS error. */
export function fsErrorCode(e: unknown): string | null {
  const code = (e as { code?: string })?.code;
  if (typeof code === "string") return code;
  const m = /\(os error (\d+)\)/.exec(String((e as Error)?.message ?? ""));
  return m ? ERRNO[Number(m[1])] ?? `errno ${m[1]}` : null;
}

export function describeFsError(e: unknown): string {
  const code = fsErrorCode(e);
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOSPC":
      return "no space left on device";
    case "EFBIG":
      return "file too large (a file size limit, ulimit -f?)";
    case "EDQUOT":
      return "disk quota exceeded";
    case "EIO":
      return "input/output error";
    case "EROFS":
      return "read-only file system";
    default:
      return (e as Error).message ?? String(e);
  }
}

/**
 * The most a small text input (a manifest, rules, labels, a script) may hold. Each is
 * read whole; a name pointing at /dev/zero, an endless FIFO or a huge file must end in
 * one line, not in memory growing until the machine gives out.
 */
export const MAX_TEXT_INPUT = 64 << 20;

/** Reads a whole small file (manifests, labels, scripts) with a one-line error, at most `limit` bytes. */
export function readTextFile(path: string, limit = MAX_TEXT_INPUT): string {
  let fd: number;
  try {
    if (path === "-") fd = 0;
    else {
      noteInput(path);
      fd = fs.openSync(path, "r");
    }
  } catch (e) {
    throw new InputError(`${path}: ${describeFsError(e)}`);
  }
  const tooBig = () =>
    new InputError(
      `${path}: too large (more than ${
        limit >> 20 ? `${limit >> 20} MiB` : `${limit} bytes`
      }; a manifest, rules, labels or script file is read whole)`,
    );
  try {
    const all = readAllBounded(fd, limit, tooBig);
    return Buffer.from(all.buffer, all.byteOffset, all.length).toString("utf8"); // as readFileSync(path, "utf8") decodes
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${path}: ${describeFsError(e)}`);
  } finally {
    if (fd !== 0) fs.closeSync(fd);
  }
}

/**
 * The file's sha256, or "" for stdin and anything not a regular file: a FIFO or process
 * substitution is read once, by the analysis (opening it again would wait for ever), and a
 * capture without a hash is never embedded from a shard.
 */
export function sha256File(path: string): string {
  // stat, not open: opening a FIFO whose writer has gone blocks.
  if (path === "-" || !fs.statSync(path).isFile()) return "";
  const h = createHash("sha256");
  const fd = fs.openSync(path, "r");
  const buf = new Uint8Array(1 << 20);
  try {
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest("hex");
}
