// Raw byte streams (`.raw`, `.recording`, `.ansi.txt`): no timing, all output at t=0.
// Used for screen snapshots and reference streams (the alacritty captures).

import type { Event } from "./model.ts";

/** Largest single output event for "whole file" reads; bounds memory on huge files. */
export const MAX_WHOLE_CHUNK = 16 << 20;

/** `chunk` = 0: the file as one read (split only past MAX_WHOLE_CHUNK); N: fixed N-byte reads. */
export async function* readRawEvents(chunks: AsyncIterable<Uint8Array>, chunk = 0): AsyncIterable<Event> {
  const size = chunk > 0 ? chunk : MAX_WHOLE_CHUNK;
  let buf = new Uint8Array(size);
  let len = 0;
  for await (const c of chunks) {
    let off = 0;
    while (off < c.length) {
      const take = Math.min(size - len, c.length - off);
      buf.set(c.subarray(off, off + take), len);
      len += take;
      off += take;
      if (len === size) {
        yield { t: 0, kind: "output", bytes: buf };
        buf = new Uint8Array(size);
        len = 0;
      }
    }
  }
  if (len > 0) yield { t: 0, kind: "output", bytes: buf.slice(0, len) };
}

/** Raw writer: the output bytes only (byte-exact; no size prefix, unlike asciinema's raw). */
export class RawWriter {
  constructor(private readonly write: (b: Uint8Array) => void) {}
  event(e: Event): void {
    if (e.kind === "output") this.write(e.bytes);
  }
}
