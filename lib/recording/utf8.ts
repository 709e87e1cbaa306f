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

/** A piece before it is decoded: the writer's byte path escapes valid UTF-8 as it is. */
export interface Run {
  bytes: Uint8Array;
  /** Valid UTF-8: its text reproduces the bytes. */
  exact: boolean;
}

export class Utf8Chunker {
  private pending: Uint8Array = new Uint8Array(0);
  /** Bytes that moved to a later event because a read ended mid-character. */
  moved = 0;

  push(chunk: Uint8Array): Piece {
    return withText(this.take(chunk));
  }

  /** As push, without decoding the text (see textOf). */
  take(chunk: Uint8Array): Run {
    if (this.pending.length === 0 && knownText.has(chunk)) return { bytes: chunk, exact: true }; // valid, complete UTF-8
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
      const head = data.subarray(0, data.length - hold);
      this.pending = data.slice(data.length - hold);
      this.moved += hold;
      return { bytes: head, exact: isUtf8(head) };
    }
    this.pending = new Uint8Array(0);
    return { bytes: data, exact: isUtf8(data) };
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

/**
 * Whether the bytes are well-formed UTF-8 (Unicode table 3-7: no overlong form, no
 * surrogate, nothing past U+10FFFF): what a fatal TextDecoder accepts, without making
 * the string (utf8_test.ts compares the two on random bytes).
 */
export function isUtf8(b: Uint8Array): boolean {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c < 0xc2 || c > 0xf4) return false;
    const need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (i + need > n) return false;
    const c1 = b[i + 1];
    if ((c1 & 0xc0) !== 0x80) return false;
    if (c === 0xe0 && c1 < 0xa0 || c === 0xed && c1 > 0x9f || c === 0xf0 && c1 < 0x90 || c === 0xf4 && c1 > 0x8f) {
      return false;
    }
    for (let k = 2; k < need; k++) if ((b[i + k] & 0xc0) !== 0x80) return false;
    i += need;
  }
  return true;
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0x80) return false;
  return true;
}

/** The display text of a run (U+FFFD for invalid bytes). */
export function textOf(r: Run): string {
  const known = knownText.get(r.bytes);
  if (known !== undefined) return known;
  // ASCII fast path: latin1 decodes it several times cheaper than UTF-8.
  if (isAscii(r.bytes)) return latin1.decode(r.bytes);
  return (r.exact ? fatal : lossy).decode(r.bytes);
}

function withText(r: Run): Piece {
  return { bytes: r.bytes, text: textOf(r), exact: r.exact };
}

export function piece(bytes: Uint8Array): Piece {
  return withText({ bytes, exact: isUtf8(bytes) });
}
