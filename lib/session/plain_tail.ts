// The headless recorder's screen is needed only once the program sends something a
// terminal answers (DA1, CPR, our OSC 7501 query…), or a script looks at the screen. A
// program that only prints plain text (`seq 1 3000000`, a build log without colours)
// never needs it, and starting the emulator for it cost ~26 MiB of peak memory under a
// flood (issue 25). Until then the recorder keeps only the bytes a fresh screen needs
// to reach the very state the real screen would be in, and starts the screen with them.
//
// Why a suffix is enough. "Plain" bytes are printable ASCII and the controls LF, CR, HT,
// BS and BEL: no escape, no C1, no UTF-8, so no mode, attribute, charset or parser state
// changes. Under plain bytes the cursor's line only moves down (LF, autowrap) or the
// screen scrolls; it never moves up. So lines below the cursor are blank, and a line the
// cursor left is never written again. Cut right after a CR: the cursor is at column 0,
// no wrap is pending, and xterm forgets the preceding character (REP repeats nothing; an
// executed control clears its join state). If at least `rows + scrollback` LFs follow the
// cut, the cut line has left the buffer (viewport and scrollback) by now, and every line
// still in it was blank at the cut and written only after it; the cursor is on the last
// row either way and the scrollback is full either way. A fresh screen fed the bytes
// after the cut therefore holds the same lines, cursor, wrap flags and modes — and
// answers every later query the same. The property test (plain_tail_test.ts) compares
// both screens row by row and reply by reply.
//
// What is kept is bounded by `cap`: a read that would take the kept bytes past it (a
// long line without a CR…) starts the screen instead.

/** Default bound of the kept bytes. */
export const TAIL_CAP = 1 << 20;

/** Bytes that change nothing but the text and the cursor's line and column (see above). */
function isPlain(b: number): boolean {
  return b >= 0x20 ? b < 0x7f : b === 0x0a || b === 0x0d || b === 0x09 || b === 0x08 || b === 0x07;
}

export class PlainTail {
  /** The kept bytes: stream offsets [base, base + len). */
  private buf = new Uint8Array(4096);
  private len = 0;
  private base = 0;
  /** Stream offsets of the last `lines` LFs (a ring). */
  private readonly lfs: Float64Array;
  private lfCount = 0;
  /**
   * Offsets just after a CR in the kept bytes, ascending: the places a cut may go. Only
   * the last CR before each LF can be the cut chosen (it goes at or before an LF), so one
   * per stretch between LFs is kept: a spinner's CR after CR does not pile up here.
   */
  private cuts: number[] = [];
  private cutHead = 0;
  /** Stream offset of the last LF (-1: none yet). */
  private lastLf = -1;

  /**
   * @param lines the screen's rows plus its scrollback: the LFs that must follow a cut.
   * @param cap the most bytes kept (a read that would pass it is refused).
   */
  constructor(private readonly lines: number, private readonly cap = TAIL_CAP) {
    this.lfs = new Float64Array(Math.max(1, lines));
  }

  /** Bytes kept now (what `take()` would return). */
  get size(): number {
    return this.len;
  }

  /** Places a cut may still go (bounded by the LFs kept, whatever the CRs). */
  get pendingCuts(): number {
    return this.cuts.length - this.cutHead;
  }

  /**
   * Keeps a read if it is plain and the bound allows. False: nothing of it was kept, and
   * the caller starts the screen with `take()` and then this read.
   */
  push(bytes: Uint8Array): boolean {
    const n = bytes.length;
    for (let i = 0; i < n; i++) if (!isPlain(bytes[i])) return false;
    if (this.len + n > this.cap) return false;
    if (this.len + n > this.buf.length) {
      const grown = new Uint8Array(Math.min(this.cap, Math.max(this.buf.length * 2, this.len + n)));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    this.buf.set(bytes, this.len);
    const at = this.base + this.len;
    this.len += n;
    // Note LFs and CRs in stream order: a read is mostly printable, so search for the two.
    const ring = this.lfs, size = ring.length, cuts = this.cuts;
    let lf = bytes.indexOf(0x0a), cr = bytes.indexOf(0x0d);
    while (lf >= 0 || cr >= 0) {
      if (cr < 0 || (lf >= 0 && lf < cr)) {
        ring[this.lfCount++ % size] = this.lastLf = at + lf;
        lf = bytes.indexOf(0x0a, lf + 1);
      } else {
        if (cuts.length > this.cutHead && cuts[cuts.length - 1] > this.lastLf) cuts[cuts.length - 1] = at + cr + 1;
        else cuts.push(at + cr + 1);
        cr = bytes.indexOf(0x0d, cr + 1);
      }
    }
    this.trim();
    return true;
  }

  /** Drops what is before the last cut followed by `lines` LFs. */
  private trim(): void {
    const size = this.lfs.length;
    if (this.lfCount < size) return;
    // The lines-th most recent LF: a cut at or before it has enough LFs after it.
    const limit = this.lfs[this.lfCount % size];
    const cuts = this.cuts;
    let best = -1;
    while (this.cutHead < cuts.length && cuts[this.cutHead] <= limit) best = cuts[this.cutHead++];
    if (this.cutHead > 1024 && this.cutHead * 2 > cuts.length) {
      this.cuts = cuts.slice(this.cutHead);
      this.cutHead = 0;
    }
    if (best <= this.base) return;
    const drop = best - this.base;
    this.buf.copyWithin(0, drop, this.len);
    this.len -= drop;
    this.base = best;
  }

  /** The kept bytes (a copy), which a fresh screen is fed first; the tail is emptied. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.len);
    this.buf = new Uint8Array(0);
    this.base += this.len;
    this.len = 0;
    this.cuts = [];
    this.cutHead = 0;
    return out;
  }
}
