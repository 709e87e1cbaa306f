// A streaming scanner over pty output bytes. It finds OSC 7501 sequences and the
// related sequences that change record lifetime (OSC 133 prompt marks, RIS, OSC 9;4),
// whatever the read boundaries: all state lives in the object, never in a chunk.
//
// It is a small subset of the DEC/xterm state machine (vt100.net): enough to know
// which bytes are inside CSI, OSC and string sequences, so that `ESC c` inside a DCS
// or an OSC 7501 inside an APC is never mistaken for the real thing. tmux passthrough
// (`ESC P tmux; … ESC \`, every inner ESC doubled) is unwrapped into a nested scanner,
// so N levels of wrapping need N nested scanners (docs/osc7501.md §6).
//
// Decisions (docs/osc7501.md §8): D4 raw C0 bytes other than BEL/CAN/SUB/ESC stay in the body;
// D5 an ESC not followed by `\` drops the pending report and starts a new escape
// sequence; D6 8-bit C1 bytes (0x9c, 0x9d) are payload, never controls (UTF-8 streams).

import { INTRODUCER, INTRODUCER_BYTES, MAX_BODY_BYTES_BEL, MAX_SEQUENCE_BYTES } from "./limits.ts";

export type ScanError =
  | "sequence-too-long"
  | "aborted-by-esc"
  | "aborted-by-can"
  | "aborted-by-sub"
  | "unterminated"
  | "missing-separator";

interface Base {
  /** Offset just past the byte that completed (or aborted) the sequence, in the outer stream. */
  end: number;
  /** Levels of tmux passthrough the sequence was wrapped in. */
  depth: number;
}
export type ScanEvent =
  | (Base & { type: "osc7501"; body: Uint8Array; terminator: "st" | "bel"; raw: Uint8Array })
  | (Base & { type: "osc7501-error"; reason: ScanError; raw: Uint8Array; truncated: boolean })
  | (Base & { type: "osc133"; payload: string })
  | (Base & { type: "osc9"; payload: string })
  | (Base & { type: "ris" });

export type Sink = (ev: ScanEvent) => void;

const ESC = 0x1b, BEL = 0x07, CAN = 0x18, SUB = 0x1a, BACKSLASH = 0x5c, SEMI = 0x3b;

const enum S {
  Ground,
  Esc,
  EscInter,
  Csi,
  OscNum, // after ESC ], reading the number
  Osc7501, // reading a 7501 body
  Osc7501NoSep, // "7501" read, no `;` yet
  OscCollect, // reading a 133 / 9 payload
  OscSkip, // any other OSC
  StrEsc, // ESC inside an OSC/DCS/string: `\` ends it, anything else aborts
  DcsHead, // after ESC P: is it "tmux;"?
  StrSkip, // DCS / SOS / PM / APC payload
  Tmux, // tmux passthrough payload
  TmuxEsc, // ESC inside passthrough: ESC is a doubled ESC, `\` ends it
}

/** Where an ESC inside a string came from (for S.StrEsc). */
const enum From {
  Osc7501,
  Osc7501NoSep,
  OscCollect,
  Other,
}

/** What follows `ESC P` in tmux passthrough (shared with encode.ts wrapTmux). */
export const TMUX_PREFIX = [0x74, 0x6d, 0x75, 0x78, 0x3b]; // "tmux;"
/** OSC 133 and OSC 9 payloads we care about are tiny; anything longer is not ours. */
const MAX_COLLECT = 256;
/** OSC numbers longer than this are not 7501/133/9 and are skipped. */
const MAX_OSC_NUM = 6;
const latin1 = new TextDecoder("latin1");

export class Scanner {
  private s = S.Ground;
  private pos = 0; // absolute offset of the byte being processed
  private num = ""; // OSC number so far
  private from = From.Other;
  private body = new Uint8Array(MAX_BODY_BYTES_BEL);
  private bodyLen = 0; // bytes seen (may exceed the buffer: overflow)
  private collect = new Uint8Array(MAX_COLLECT);
  private collectLen = 0;
  private collectNum = "";
  private headLen = 0;
  private inner: Scanner | null = null;
  private ending = false;

  constructor(private readonly sink: Sink, private readonly depth = 0) {}

  /** Feed the next read. Chunks may split anything anywhere. */
  feed(chunk: Uint8Array): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      // Fast paths for the states where most bytes are spent; every other byte goes
      // through step(). They only skip bytes that step() would ignore or collect.
      switch (this.s) {
        case S.Ground: {
          const j = chunk.indexOf(ESC, i); // plain text until the next ESC
          if (j < 0) {
            this.pos += n - i;
            return;
          }
          this.pos += j - i;
          i = j;
          break;
        }
        case S.Csi: {
          let j = i;
          while (j < n) {
            const c = chunk[j];
            if (c >= 0x40 || c === ESC || c === CAN || c === SUB) break; // finals are 0x40–0x7e
            j++;
          }
          this.pos += j - i;
          i = j;
          if (i === n) return;
          break;
        }
        case S.Osc7501: {
          let j = i;
          while (j < n) {
            const c = chunk[j];
            if (c === BEL || c === ESC || c === CAN || c === SUB) break;
            j++;
          }
          if (j > i) {
            const room = this.body.length - this.bodyLen;
            if (room > 0) this.body.set(chunk.subarray(i, i + Math.min(room, j - i)), this.bodyLen);
            this.bodyLen += j - i;
            this.pos += j - i;
            i = j;
          }
          if (i === n) return;
          break;
        }
        case S.OscSkip:
        case S.StrSkip: {
          let j = i;
          while (j < n) {
            const c = chunk[j];
            if (c === ESC || c === CAN || c === SUB || (c === BEL && this.s === S.OscSkip)) break;
            j++;
          }
          this.pos += j - i;
          i = j;
          if (i === n) return;
          break;
        }
      }
      this.step(chunk[i]);
      this.pos++;
      i++;
    }
  }

  /** End of input: a report without its terminator is never applied. */
  end(): void {
    if (this.s === S.Osc7501 || (this.s === S.StrEsc && this.from === From.Osc7501)) {
      this.error("unterminated", this.pos);
    }
    if (this.inner && (this.s === S.Tmux || this.s === S.TmuxEsc)) {
      this.ending = true;
      this.inner.end();
      this.ending = false;
    }
    this.s = S.Ground;
  }

  // One byte through the state machine. It stays one switch of ~100 lines on purpose:
  // it runs once per byte of every capture (bench/scan.ts: ~345 MB/s), and splitting
  // the states into methods costs a call per byte; each case is a few lines, in the
  // order of the state enum above.
  private step(c: number): void {
    switch (this.s) {
      case S.Ground:
        if (c === ESC) this.s = S.Esc;
        return;
      case S.Esc:
        this.escByte(c);
        return;
      case S.EscInter:
        if (c === ESC) this.s = S.Esc;
        else if (c === CAN || c === SUB) this.s = S.Ground;
        else if (c >= 0x30 && c <= 0x7e) this.s = S.Ground;
        return;
      case S.Csi:
        if (c === ESC) this.s = S.Esc;
        else if (c === CAN || c === SUB || (c >= 0x40 && c <= 0x7e)) this.s = S.Ground;
        return;
      case S.OscNum:
        this.oscNumByte(c);
        return;
      case S.Osc7501:
        if (c === BEL) this.finish7501("bel");
        else if (c === ESC) this.strEsc(From.Osc7501);
        else if (c === CAN) this.abort7501("aborted-by-can", this.pos + 1);
        else if (c === SUB) this.abort7501("aborted-by-sub", this.pos + 1);
        else {
          if (this.bodyLen < this.body.length) this.body[this.bodyLen] = c;
          this.bodyLen++;
        }
        return;
      case S.Osc7501NoSep:
        if (c === SEMI) this.start7501();
        else if (c === BEL) this.error("missing-separator", this.pos + 1, true);
        else if (c === ESC) this.strEsc(From.Osc7501NoSep);
        else if (c === CAN || c === SUB) this.s = S.Ground;
        else this.s = S.OscSkip; // "75010", "7501x": not this protocol
        return;
      case S.OscCollect:
        if (c === BEL) this.finishCollect();
        else if (c === ESC) this.strEsc(From.OscCollect);
        else if (c === CAN || c === SUB) this.s = S.Ground;
        else {
          if (this.collectLen < MAX_COLLECT) this.collect[this.collectLen] = c;
          this.collectLen++;
        }
        return;
      case S.OscSkip:
        if (c === BEL || c === CAN || c === SUB) this.s = S.Ground;
        else if (c === ESC) this.strEsc(From.Other);
        return;
      case S.StrSkip:
        if (c === CAN || c === SUB) this.s = S.Ground;
        else if (c === ESC) this.strEsc(From.Other);
        return;
      case S.StrEsc:
        if (c === BACKSLASH) {
          if (this.from === From.Osc7501) this.finish7501("st");
          else if (this.from === From.Osc7501NoSep) this.error("missing-separator", this.pos + 1, true);
          else if (this.from === From.OscCollect) this.finishCollect();
          this.s = S.Ground;
        } else {
          // D5: the pending sequence is dropped; this ESC starts a new escape sequence.
          if (this.from === From.Osc7501) this.abort7501("aborted-by-esc", this.pos);
          this.s = S.Esc;
          this.escByte(c);
        }
        return;
      case S.DcsHead:
        if (c === TMUX_PREFIX[this.headLen]) {
          this.headLen++;
          if (this.headLen === TMUX_PREFIX.length) {
            this.s = S.Tmux;
            this.inner ??= new Scanner(
              (ev) => this.sink({ ...ev, end: this.ending ? this.pos : this.pos + 1 }),
              this.depth + 1,
            );
          }
        } else {
          this.s = S.StrSkip;
          this.step(c);
        }
        return;
      case S.Tmux:
        if (c === ESC) this.s = S.TmuxEsc;
        else if (c === CAN || c === SUB) this.endTmux(S.Ground); // tmux: CAN/SUB abort from anywhere
        else this.inner!.feedByte(c);
        return;
      case S.TmuxEsc:
        if (c === ESC) {
          this.inner!.feedByte(ESC);
          this.s = S.Tmux;
        } else if (c === BACKSLASH) {
          this.endTmux(S.Ground);
        } else {
          this.endTmux(S.Esc);
          this.escByte(c);
        }
        return;
    }
  }

  /** Used by the enclosing scanner for unwrapped passthrough bytes. */
  private feedByte(c: number): void {
    if (this.s === S.Ground && c !== ESC) return;
    this.step(c);
  }

  private endTmux(next: S): void {
    // Each passthrough is self-contained: an unfinished inner sequence is dropped.
    this.inner!.end();
    this.s = next;
  }

  private escByte(c: number): void {
    this.s = S.Ground;
    if (c === 0x5b) this.s = S.Csi; // [
    else if (c === 0x5d) { // ]
      this.s = S.OscNum;
      this.num = "";
    } else if (c === 0x50) { // P
      this.s = S.DcsHead;
      this.headLen = 0;
    } else if (c === 0x58 || c === 0x5e || c === 0x5f) this.s = S.StrSkip; // X ^ _
    else if (c === 0x63) this.sink({ type: "ris", end: this.pos + 1, depth: this.depth }); // ESC c
    else if (c === ESC) this.s = S.Esc;
    else if (c >= 0x20 && c <= 0x2f) this.s = S.EscInter;
    else if (c < 0x20 && c !== CAN && c !== SUB) this.s = S.Esc; // C0 executes inside an escape
  }

  private oscNumByte(c: number): void {
    if (c >= 0x30 && c <= 0x39) {
      this.num += String.fromCharCode(c);
      if (this.num.length > MAX_OSC_NUM) this.s = S.OscSkip;
      else if (this.num === "7501") this.s = S.Osc7501NoSep;
      return;
    }
    if (c === SEMI) {
      if (this.num === "133" || this.num === "9") {
        this.s = S.OscCollect;
        this.collectNum = this.num;
        this.collectLen = 0;
      } else this.s = S.OscSkip;
      return;
    }
    if (c === BEL || c === CAN || c === SUB) this.s = S.Ground;
    else if (c === ESC) this.strEsc(From.Other);
    else this.s = S.OscSkip;
  }

  private strEsc(from: From): void {
    this.from = from;
    this.s = S.StrEsc;
  }

  private start7501(): void {
    this.s = S.Osc7501;
    this.bodyLen = 0;
  }

  private raw(tail: number[]): { raw: Uint8Array; truncated: boolean } {
    const kept = Math.min(this.bodyLen, this.body.length);
    const raw = new Uint8Array(INTRODUCER_BYTES + kept + tail.length);
    raw.set(INTRODUCER, 0);
    raw.set(this.body.subarray(0, kept), INTRODUCER_BYTES);
    raw.set(tail, INTRODUCER_BYTES + kept);
    return { raw, truncated: kept < this.bodyLen };
  }

  private finish7501(t: "st" | "bel"): void {
    this.s = S.Ground;
    const tail = t === "st" ? [ESC, BACKSLASH] : [BEL];
    const end = this.pos + 1;
    // Over-limit handling (§3): collection stopped at the cap, the scan went on to the
    // terminator; the report is dropped and scanning resumes normally.
    if (INTRODUCER_BYTES + this.bodyLen + tail.length > MAX_SEQUENCE_BYTES) {
      const { raw, truncated } = this.raw(tail);
      this.sink({ type: "osc7501-error", reason: "sequence-too-long", raw, truncated, end, depth: this.depth });
      return;
    }
    const { raw } = this.raw(tail);
    const body = raw.slice(INTRODUCER_BYTES, INTRODUCER_BYTES + this.bodyLen);
    this.sink({ type: "osc7501", body, terminator: t, raw, end, depth: this.depth });
  }

  private abort7501(reason: ScanError, end: number): void {
    const { raw, truncated } = this.raw([]);
    this.sink({ type: "osc7501-error", reason, raw, truncated, end, depth: this.depth });
    this.s = S.Ground;
  }

  private error(reason: ScanError, end: number, noBody = false): void {
    if (noBody) this.bodyLen = 0;
    const { raw, truncated } = this.raw([]);
    // missing-separator has no `;`: show what was actually sent.
    const shown = noBody ? raw.subarray(0, INTRODUCER_BYTES - 1) : raw;
    this.sink({ type: "osc7501-error", reason, raw: shown, truncated, end, depth: this.depth });
    this.s = S.Ground;
  }

  private finishCollect(): void {
    this.s = S.Ground;
    if (this.collectLen > MAX_COLLECT) return;
    const payload = latin1.decode(this.collect.subarray(0, this.collectLen));
    const end = this.pos + 1;
    if (this.collectNum === "133") this.sink({ type: "osc133", payload, end, depth: this.depth });
    else this.sink({ type: "osc9", payload, end, depth: this.depth });
  }
}
