// The naive observer (detection.md §2): the last 8 KB of output with escape sequences
// stripped and only the text after the last `\r` on each line. Claude places words
// with `CSI n G` and writes no `\n` at all, which is exactly what this gets wrong.

export const TAIL_BYTES = 8192;

/** A ring of the last N output bytes. */
export class TailBuffer {
  private buf: Uint8Array;
  private len = 0;
  private start = 0;
  version = 0;

  constructor(readonly size = TAIL_BYTES) {
    this.buf = new Uint8Array(size);
  }

  push(b: Uint8Array): void {
    if (b.length === 0) return;
    this.version++;
    if (b.length >= this.size) {
      this.buf.set(b.subarray(b.length - this.size));
      this.start = 0;
      this.len = this.size;
      return;
    }
    for (let i = 0; i < b.length;) {
      const end = (this.start + this.len) % this.size;
      const n = Math.min(b.length - i, this.size - end);
      this.buf.set(b.subarray(i, i + n), end);
      i += n;
      const over = this.len + n - this.size;
      if (over > 0) {
        this.start = (this.start + over) % this.size;
        this.len = this.size;
      } else this.len += n;
    }
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.len);
    const first = Math.min(this.len, this.size - this.start);
    out.set(this.buf.subarray(this.start, this.start + first));
    out.set(this.buf.subarray(0, this.len - first), first);
    return out;
  }
}

const ESCAPES = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[P^_X][^\x1b]*(?:\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]/g;

/** Escapes stripped; per line, only the text after the last \r. */
export function stripTail(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes).replace(ESCAPES, "");
  return text.split("\n").map((l) => {
    // A line ending "\r\n" (or "\r\r\n": a program's "\r\n" through the tty's onlcr)
    // keeps its text: the \r that ends it is not a redraw.
    const body = l.replace(/\r+$/, "");
    const r = body.lastIndexOf("\r");
    return r < 0 ? body : body.slice(r + 1);
  }).join("\n");
}
