// Where a byte stream stands with respect to escape sequences: in plain text, or inside a
// sequence begun earlier — and that sequence's bytes so far. A cut (`trim --from`) that
// falls inside a sequence left its tail as text on the clip's screen and its OSC 7501
// report lost; the clip now begins with the sequence's head (a few bytes), so the report
// still completes where it did.
//
// The states are the parts of a VT parser that decide where a sequence ends: ESC and its
// intermediates (a final 0x30–0x7E ends it), CSI (a final 0x40–0x7E), and the string
// sequences OSC, DCS, SOS, PM, APC (BEL or ESC \ ends them); CAN and SUB cancel any.

const enum S {
  Ground,
  Esc,
  Csi,
  Str,
  StrEsc,
}

/** The most bytes of one open sequence kept (a sixel image in a DCS can be megabytes). */
export const MAX_OPEN_SEQUENCE = 1 << 20;

export class EscapeState {
  private s = S.Ground;
  private open: Uint8Array[] = [];
  private openBytes = 0;
  private overflow = false;
  /** The open sequence began in the last piece fed (not in an earlier one). */
  begunInLast = false;

  /** Whether the stream so far ends inside an escape sequence. */
  get inside(): boolean {
    return this.s !== S.Ground;
  }

  /**
   * The open sequence's bytes so far (from its ESC), or null when the stream is in plain
   * text or the sequence outgrew MAX_OPEN_SEQUENCE.
   */
  openSequence(): Uint8Array | null {
    if (this.s === S.Ground || this.overflow) return null;
    const out = new Uint8Array(this.openBytes);
    let o = 0;
    for (const p of this.open) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }

  feed(b: Uint8Array): void {
    let start = this.s === S.Ground ? -1 : 0;
    let fresh = false;
    /** A sequence (its ESC at b[at]) begins; whatever was open is dropped. */
    const begin = (at: number) => {
      this.reset();
      this.s = S.Esc;
      start = at;
      fresh = true;
    };
    /** The open sequence ends (or is cancelled): plain text again. */
    const end = () => {
      this.reset();
      this.s = S.Ground;
      start = -1;
    };
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (c === 0x18 || c === 0x1a) {
        end();
        continue;
      }
      switch (this.s) {
        case S.Ground:
          if (c === 0x1b) begin(i);
          break;
        case S.Esc:
          if (c === 0x1b) begin(i);
          else if (c === 0x5b) this.s = S.Csi;
          else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.s = S.Str;
          // A final byte ends it (a byte past ASCII abandons it, as a parser does); an
          // intermediate (0x20–0x2F), a C0 control or DEL leaves it in ESC.
          else if (c >= 0x30 && c <= 0x7e || c >= 0x80) end();
          break;
        case S.Csi:
          if (c === 0x1b) begin(i);
          else if (c >= 0x40 && c <= 0x7e) end();
          break;
        case S.Str:
          if (c === 0x07) end();
          else if (c === 0x1b) this.s = S.StrEsc;
          break;
        case S.StrEsc:
          if (c === 0x5c) end();
          else {
            // The ESC began a new sequence: this byte is its second.
            if (i > 0) begin(i - 1);
            else {
              // The ESC came in the previous piece.
              begin(0);
              fresh = false;
              this.keep(Uint8Array.of(0x1b));
            }
            i--; // read this byte again, in the ESC state
          }
          break;
      }
    }
    if (this.s !== S.Ground && start >= 0) this.keep(b.subarray(start));
    this.begunInLast = this.s !== S.Ground && fresh;
  }

  private keep(part: Uint8Array): void {
    if (this.overflow) return;
    if (this.openBytes + part.length > MAX_OPEN_SEQUENCE) {
      this.overflow = true;
      this.open = [];
      return;
    }
    this.open.push(part.slice());
    this.openBytes += part.length;
  }

  private reset(): void {
    this.open = [];
    this.openBytes = 0;
    this.overflow = false;
  }
}
