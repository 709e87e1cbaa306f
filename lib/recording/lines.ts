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
