// ttyrec: frames of a 12-byte header (tv_sec u32 LE, tv_usec u32 LE, len u32 LE)
// followed by len output bytes. Byte-exact; no size, input, markers or exit.
// termrec's convention of a leading `ESC [ 8 ; rows ; cols t` gives the size.

import { checkedSize, checkedTime, type Event } from "./model.ts";
import { FixtureError } from "../errors.ts";

/** Plausibility check for sniffing: the first frames chain to a sane layout. */
export function looksLikeTtyrec(head: Uint8Array, size: number | null): boolean {
  if (head.length < 12) return false;
  const dv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let off = 0, frames = 0;
  let prev = -1;
  while (off + 12 <= head.length && frames < 8) {
    const sec = dv.getUint32(off, true), usec = dv.getUint32(off + 4, true), len = dv.getUint32(off + 8, true);
    if (usec >= 1_000_000 || len > 64 << 20) return false;
    const t = sec + usec / 1e6;
    if (prev >= 0 && (t < prev || t - prev > 86400 * 30)) return false;
    prev = t;
    off += 12 + len;
    frames++;
    if (size !== null && off > size) return false;
    if (size !== null && off === size) return true;
  }
  return frames >= 2 || (size !== null && off === size);
}

/** Size from a termrec-style `ESC [ 8 ; rows ; cols t` at the start of the first frame. */
export function ttyrecSize(file: string, first: Uint8Array): { cols: number; rows: number } | null {
  const s = new TextDecoder("latin1").decode(first.subarray(0, 32));
  const m = /^\x1b\[8;([0-9]+);([0-9]+)t/.exec(s);
  return m ? checkedSize(file, null, Number(m[2]), Number(m[1]), "ttyrec size (CSI 8 t)") : null;
}

/** The longest frame a reader accepts: a bogus length fails at once instead of buffering the file. */
export const MAX_FRAME_BYTES = 64 << 20;

/**
 * Bytes arriving in chunks, taken out in exact lengths. Chunks are kept as they came
 * and copied once into the piece taken (no re-merging per chunk: reading stays linear
 * however long a frame is).
 */
class ChunkQueue {
  private chunks: Uint8Array[] = [];
  private head = 0; // offset into chunks[0]
  length = 0;

  push(c: Uint8Array): void {
    if (c.length === 0) return;
    this.chunks.push(c);
    this.length += c.length;
  }

  take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      const c = this.chunks[0];
      const k = Math.min(n - o, c.length - this.head);
      out.set(c.subarray(this.head, this.head + k), o);
      o += k;
      this.head += k;
      if (this.head === c.length) {
        this.chunks.shift();
        this.head = 0;
      }
    }
    this.length -= n;
    return out;
  }
}

/**
 * Empty frames in a row before the input is refused: an endless source of zero bytes
 * (/dev/zero) parses as empty frames for ever; no recorder writes this many.
 */
export const MAX_EMPTY_FRAMES = 1024;

export async function* readTtyrecEvents(file: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Event> {
  const q = new ChunkQueue();
  let t0: number | null = null;
  let frame = 0, offset = 0, empty = 0;
  let pending: { t: number; len: number } | null = null;
  for await (const c of chunks) {
    q.push(c);
    while (true) {
      if (!pending) {
        if (q.length < 12) break;
        const h = q.take(12);
        const dv = new DataView(h.buffer);
        const sec = dv.getUint32(0, true), usec = dv.getUint32(4, true), len = dv.getUint32(8, true);
        const where = `frame ${frame + 1} (byte ${offset})`;
        if (usec >= 1_000_000) throw new FixtureError(file, null, `${where}: tv_usec ${usec} is out of range`);
        if (len > MAX_FRAME_BYTES) {
          throw new FixtureError(file, null, `${where}: length ${len} is beyond the limit (${MAX_FRAME_BYTES} bytes)`);
        }
        empty = len === 0 ? empty + 1 : 0;
        if (empty >= MAX_EMPTY_FRAMES) {
          throw new FixtureError(
            file,
            null,
            `${where}: ${MAX_EMPTY_FRAMES} empty frames in a row: not a ttyrec recording (an endless input such as /dev/zero?)`,
          );
        }
        const abs = sec * 1e6 + usec;
        t0 ??= abs;
        pending = { t: checkedTime(file, null, Math.max(0, abs - t0) / 1e6, `${where}: time`), len };
      }
      if (q.length < pending.len) break;
      frame++;
      offset += 12 + pending.len;
      yield { t: pending.t, kind: "output", bytes: q.take(pending.len) };
      pending = null;
    }
  }
  if (pending || q.length > 0) {
    throw new FixtureError(
      file,
      null,
      `truncated frame at byte ${offset} (${q.length + (pending ? 12 : 0)} bytes left)`,
    );
  }
}
