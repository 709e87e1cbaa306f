// Raw byte streams (`.raw`, `.recording`, `.ansi.txt`): no timing, all output at t=0.
// Used for screen snapshots and reference streams (the alacritty captures).

import type { Event } from "./model.ts";
import { allocBytes } from "./source.ts";

/** Largest single output event for "whole file" reads. Bigger files are split into
 *  reads of this size: fresh multi-MiB allocations cost more in page faults than the
 *  copy, and no reader (scanner, screen) depends on where a raw stream is split. */
export const MAX_WHOLE_CHUNK = 1 << 20;

/**
 * `chunk` = 0: the file as one read (split only past MAX_WHOLE_CHUNK); N: fixed N-byte
 * reads. `sizeHint` (the file size) avoids allocating more than the file needs.
 */
export async function* readRawEvents(
  chunks: AsyncIterable<Uint8Array>,
  chunk = 0,
  sizeHint: number | null = null,
): AsyncIterable<Event> {
  const size = chunk > 0 ? chunk : MAX_WHOLE_CHUNK;
  let remaining = sizeHint ?? Infinity;
  const alloc = () => allocBytes(Math.max(1, Math.min(size, remaining)));
  let buf = alloc();
  let len = 0;
  for await (const c of chunks) {
    let off = 0;
    while (off < c.length) {
      const take = Math.min(buf.length - len, c.length - off);
      buf.set(off === 0 && take === c.length ? c : c.subarray(off, off + take), len);
      len += take;
      off += take;
      if (len === buf.length) {
        yield { t: 0, kind: "output", bytes: buf };
        remaining -= len;
        buf = alloc();
        len = 0;
      }
    }
  }
  if (len > 0) yield { t: 0, kind: "output", bytes: buf.length === len ? buf : buf.slice(0, len) };
}

/** Raw writer: the output bytes only (byte-exact; no size prefix, unlike asciinema's raw). */
export class RawWriter {
  constructor(private readonly write: (b: Uint8Array) => void) {}
  event(e: Event): void {
    if (e.kind === "output") this.write(e.bytes);
  }
}
