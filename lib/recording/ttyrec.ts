// ttyrec: frames of a 12-byte header (tv_sec u32 LE, tv_usec u32 LE, len u32 LE)
// followed by len output bytes. Byte-exact; no size, input, markers or exit.
// termrec's convention of a leading `ESC [ 8 ; rows ; cols t` gives the size.

import { type Event } from "./model.ts";
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
export function ttyrecSize(first: Uint8Array): { cols: number; rows: number } | null {
  const s = new TextDecoder("latin1").decode(first.subarray(0, 32));
  const m = /^\x1b\[8;([0-9]+);([0-9]+)t/.exec(s);
  return m ? { rows: Number(m[1]), cols: Number(m[2]) } : null;
}

export async function* readTtyrecEvents(file: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Event> {
  let buf = new Uint8Array(0);
  let t0: number | null = null;
  let frame = 0;
  let offset = 0;
  for await (const c of chunks) {
    const merged = new Uint8Array(buf.length + c.length);
    merged.set(buf, 0);
    merged.set(c, buf.length);
    buf = merged;
    let off = 0;
    while (buf.length - off >= 12) {
      const dv = new DataView(buf.buffer, buf.byteOffset + off, 12);
      const sec = dv.getUint32(0, true), usec = dv.getUint32(4, true), len = dv.getUint32(8, true);
      if (usec >= 1_000_000) throw new FixtureError(file, null, `frame ${frame + 1} (byte ${offset + off}): tv_usec ${usec} is out of range`);
      if (buf.length - off - 12 < len) break;
      const abs = sec * 1e6 + usec;
      t0 ??= abs;
      frame++;
      yield { t: Math.max(0, abs - t0) / 1e6, kind: "output", bytes: buf.slice(off + 12, off + 12 + len) };
      off += 12 + len;
    }
    offset += off;
    buf = buf.slice(off);
  }
  if (buf.length > 0) throw new FixtureError(file, null, `truncated frame at byte ${offset} (${buf.length} bytes left)`);
}

/** Frames for tests and for exporting (absolute times from `start`). */
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
