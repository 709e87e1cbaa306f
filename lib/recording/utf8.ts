// Streaming UTF-8 for asciicast writers (docs/fixture-format.md convention 2): an
// incomplete trailing sequence is held back until the next read, as asciinema's
// Utf8Decoder does, and reported as moved bytes. A read that is not valid UTF-8
// after that gets a private `b` event with its exact bytes, so nothing is lost.

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lossy = new TextDecoder("utf-8", { ignoreBOM: true });

export interface Piece {
  /** The exact bytes this event stands for (held-back tail of the previous read included). */
  bytes: Uint8Array;
  /** Display text (U+FFFD for invalid bytes). */
  text: string;
  /** False when `text` cannot reproduce `bytes`: write a `b` event too. */
  exact: boolean;
}

/** Length of a trailing incomplete-but-possibly-valid sequence (0–3). */
export function incompleteTail(b: Uint8Array): number {
  const n = b.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const c = b[n - back];
    if ((c & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    // 0xf5–0xff never start a character: not a tail to wait for.
    const need = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (need === 0 || back >= need) return 0;
    // The bytes so far must be a valid prefix (so a hopeless tail is not held back).
    const second = back >= 2 ? b[n - back + 1] : -1;
    if (second >= 0) {
      if (c === 0xe0 && second < 0xa0) return 0;
      if (c === 0xed && second > 0x9f) return 0;
      if (c === 0xf0 && second < 0x90) return 0;
      if (c === 0xf4 && second > 0x8f) return 0;
    }
    return back;
  }
  return 0;
}

/**
 * Text already known for a byte array (a reader decoded it from JSON, so the bytes are
 * its exact UTF-8 form). Keyed by the array itself, so any transform that makes new
 * bytes simply misses the cache: it can never go stale.
 */
export const knownText = new WeakMap<Uint8Array, string>();

export class Utf8Chunker {
  private pending: Uint8Array = new Uint8Array(0);
  /** Bytes that moved to a later event because a read ended mid-character. */
  moved = 0;

  push(chunk: Uint8Array): Piece {
    if (this.pending.length === 0) {
      const text = knownText.get(chunk);
      if (text !== undefined) return { bytes: chunk, text, exact: true }; // valid, complete UTF-8
    }
    let data = chunk;
    if (this.pending.length) {
      data = new Uint8Array(this.pending.length + chunk.length);
      data.set(this.pending, 0);
      data.set(chunk, this.pending.length);
    }
    // Hold back a trailing partial character, whatever the rest of the read is (an
    // invalid read gets its `b` event without the tail; the character is whole in the
    // next event). A read that is nothing but a partial character is written as it is.
    // Either way v3 → v3 stays idempotent: a tail we moved is no longer a tail, and a
    // read whose rest would itself end in what looks like a partial character (an
    // invalid lead byte before the tail) keeps its bytes together, as written.
    const hold = incompleteTail(data);
    if (hold > 0 && hold < data.length && incompleteTail(data.subarray(0, data.length - hold)) === 0) {
      const head = piece(data.subarray(0, data.length - hold));
      this.pending = data.slice(data.length - hold);
      this.moved += hold;
      return head;
    }
    this.pending = new Uint8Array(0);
    return piece(data);
  }

  /** End of stream: a held-back tail that never completed. */
  flush(): Piece | null {
    if (!this.pending.length) return null;
    const p = piece(this.pending);
    this.pending = new Uint8Array(0);
    return p;
  }
}

const latin1 = new TextDecoder("latin1");

export function piece(bytes: Uint8Array): Piece {
  // ASCII fast path: a byte scan is several times cheaper than a fatal UTF-8 decode.
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return { bytes, text: latin1.decode(bytes), exact: true };
  try {
    return { bytes, text: fatal.decode(bytes), exact: true };
  } catch {
    return { bytes, text: lossy.decode(bytes), exact: false };
  }
}
