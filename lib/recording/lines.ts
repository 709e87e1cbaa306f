// Newline-delimited text from a byte stream, decoded once per block (asciicast and
// script timing files are UTF-8 text). The last line may be unterminated (a recorder
// killed mid-write): it comes back with terminated = false.

/**
 * A pull-based line reader. Readers of big files call next() directly: one async
 * generator level less is worth ~30 % of asciicast read throughput.
 */
export class LineReader {
  private readonly dec = new TextDecoder("utf-8");
  private readonly it: AsyncIterator<Uint8Array>;
  /** The unterminated end of what was read, in pieces: joined once its line ends. */
  private carry: string[] = [];
  private done = false;
  private buffered: string[] = [];
  private bi = 0;
  /** The number of the line last returned (1-based). */
  no = 0;

  constructor(chunks: AsyncIterable<Uint8Array>) {
    this.it = chunks[Symbol.asyncIterator]();
  }

  /**
   * The next line if one is already decoded, without waiting (undefined: call next()).
   * An async call per line was a third of reading a dense asciicast (200,000 lines).
   */
  ready(): [string, boolean] | undefined {
    if (this.bi >= this.buffered.length) return undefined;
    let l = this.buffered[this.bi++];
    if (l.length && l.charCodeAt(l.length - 1) === 13) l = l.slice(0, -1);
    this.no++;
    return [l, true];
  }

  /** The next line without its "\n" (and a "\r" before it), and whether it was terminated; null at the end. */
  async next(): Promise<[string, boolean] | null> {
    while (this.bi >= this.buffered.length) {
      if (this.done) return null;
      const r = await this.it.next();
      if (r.done) {
        this.done = true;
        const rest = this.carry.join("") + this.dec.decode();
        this.carry = [];
        this.buffered = [];
        this.bi = 0;
        if (!rest.length) return null;
        this.no++;
        return [rest, false];
      }
      const text = this.dec.decode(r.value, { stream: true });
      // A line longer than a block (one 64 MiB output event) is gathered in pieces:
      // prefixing the carry to every block re-copied it each time (quadratic).
      if (!text.includes("\n")) {
        this.carry.push(text);
        continue;
      }
      const parts = text.split("\n");
      if (this.carry.length) parts[0] = this.carry.join("") + parts[0];
      this.carry = [parts.pop()!];
      this.buffered = parts;
      this.bi = 0;
    }
    return this.ready()!;
  }
}

/** [lineNumber, text, terminated] for every line. */
export async function* lines(chunks: AsyncIterable<Uint8Array>): AsyncIterable<[number, string, boolean]> {
  const r = new LineReader(chunks);
  for (let l; (l = await r.next());) yield [r.no, l[0], l[1]];
}

const NO_BYTES = new Uint8Array(0);

function concat(parts: Uint8Array[], last: Uint8Array): Uint8Array {
  let n = last.length;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  out.set(last, o);
  return out;
}

/**
 * Lines as bytes, split on the 0x0A byte without decoding (asciicast readers decode the
 * common event line straight from its bytes: lib/recording/event_line.ts). The same lines
 * as LineReader: UTF-8 never uses 0x0A inside a character, so decoding a line on its own
 * (with a decoder that keeps a U+FEFF, as the stream decoder does after the first line)
 * gives LineReader's text for it.
 */
export class ByteLineReader {
  private readonly it: AsyncIterator<Uint8Array>;
  private buf: Uint8Array = NO_BYTES;
  private pos = 0;
  /** The unterminated end of what was read, copied (a source reuses its block buffer). */
  private carry: Uint8Array[] = [];
  private done = false;
  /** The number of the line last returned (1-based). */
  no = 0;
  /** Whether the line last returned ended in "\n" (false: the file's cut last line). */
  terminated = true;

  constructor(chunks: AsyncIterable<Uint8Array>) {
    this.it = chunks[Symbol.asyncIterator]();
  }

  /**
   * The next line without its "\n" (and a "\r" before it) if it is already read, without
   * waiting (undefined: call next()). The array is valid until the next call.
   */
  ready(): Uint8Array | undefined {
    const nl = this.buf.indexOf(10, this.pos);
    if (nl < 0) return undefined;
    let line = this.buf.subarray(this.pos, nl);
    this.pos = nl + 1;
    if (this.carry.length) {
      line = concat(this.carry, line);
      this.carry = [];
    }
    if (line.length && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    this.no++;
    this.terminated = true;
    return line;
  }

  /** The next line (see ready()); null at the end. */
  async next(): Promise<Uint8Array | null> {
    while (true) {
      const l = this.ready();
      if (l) return l;
      if (this.done) return null;
      // A line longer than a block is gathered in pieces and joined once (not re-copied per block).
      if (this.pos < this.buf.length) this.carry.push(this.buf.slice(this.pos));
      this.buf = NO_BYTES;
      this.pos = 0;
      const r = await this.it.next();
      if (r.done) {
        this.done = true;
        if (!this.carry.length) return null;
        const rest = concat(this.carry, NO_BYTES);
        this.carry = [];
        this.no++;
        this.terminated = false;
        return rest;
      }
      this.buf = r.value;
    }
  }
}
