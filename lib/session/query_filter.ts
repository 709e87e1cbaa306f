// The recorder answers `OSC 7501;?` itself and must not forward the query to the outer
// terminal (a supporting outer terminal would answer too: a double reply). The query
// is removed from the passthrough stream however reads split it; the recording keeps
// every byte.

import { encodeQuery } from "../osc7501/encode.ts";
import { concat } from "../recording/source.ts";

const QUERIES = [encodeQuery("st"), encodeQuery("bel")];

function startsWithAt(b: Uint8Array, at: number, q: Uint8Array): "full" | "prefix" | "no" {
  for (let k = 0; k < q.length; k++) {
    if (at + k >= b.length) return "prefix";
    if (b[at + k] !== q[k]) return "no";
  }
  return "full";
}

export class QueryFilter {
  private held = new Uint8Array(0);
  removed = 0;

  /** Bytes to pass through; a trailing partial query is held until the next read. */
  push(chunk: Uint8Array): Uint8Array {
    let data = chunk;
    if (this.held.length) {
      data = concat([this.held, chunk]);
      this.held = new Uint8Array(0);
    }
    if (data.indexOf(0x1b) < 0) return data;
    let copyFrom = 0;
    const parts: Uint8Array[] = [];
    for (let i = data.indexOf(0x1b); i >= 0 && i < data.length; i = data.indexOf(0x1b, i + 1)) {
      let hit: Uint8Array | null = null, partial = false;
      for (const q of QUERIES) {
        const r = startsWithAt(data, i, q);
        if (r === "full") hit = q;
        else if (r === "prefix") partial = true;
      }
      if (hit) {
        parts.push(data.subarray(copyFrom, i));
        copyFrom = i + hit.length;
        this.removed++;
        i = copyFrom - 1;
      } else if (partial) {
        parts.push(data.subarray(copyFrom, i));
        this.held = data.slice(i);
        copyFrom = data.length;
        break;
      }
    }
    parts.push(data.subarray(copyFrom));
    return concat(parts);
  }

  /** Held bytes (the program paused mid-sequence, or ended). */
  flush(): Uint8Array {
    const h = this.held;
    this.held = new Uint8Array(0);
    return h;
  }

  get holding(): boolean {
    return this.held.length > 0;
  }
}
