// asciicast v2 and v3 (docs/fixture-format.md §1–§2): readers tolerate comments, empty lines,
// unknown codes and header keys, and report a truncated last line as a warning;
// writers keep one `o` per read, ms intervals with error diffusion (v3), and the
// private `b` event for reads that are not valid UTF-8.

import { encodeBase64 } from "../osc7501/base64.ts";
import { DEFAULT_SIZE, type Event, type Header, MAX_TIME } from "./model.ts";
import { type Run, textOf, Utf8Chunker } from "./utf8.ts";
import { FixtureError } from "../errors.ts";
import { headerV3, parseV3Header } from "./asciicast_v3.ts";
import { headerV2, parseV2Header } from "./asciicast_v2.ts";
import { isObj } from "./asciicast_common.ts";

/** Parses line 1. Returns the version and the header. */
export function parseHeaderLine(
  file: string,
  text: string,
  warnings: string[] = [],
): { version: 2 | 3; header: Header } {
  const r = parseHeaderLineRaw(file, text);
  if (r.header.cols === 0 || r.header.rows === 0) {
    warnings.push(
      `${file}:1: header size is ${r.header.cols}x${r.header.rows} (recorded without a terminal); using ${DEFAULT_SIZE.cols}x${DEFAULT_SIZE.rows}`,
    );
    r.header.cols = r.header.cols || DEFAULT_SIZE.cols;
    r.header.rows = r.header.rows || DEFAULT_SIZE.rows;
  }
  return r;
}

function parseHeaderLineRaw(file: string, text: string): { version: 2 | 3; header: Header } {
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    throw new FixtureError(file, 1, "header is not valid JSON");
  }
  if (!isObj(h)) throw new FixtureError(file, 1, "header is not a JSON object");
  if (h.version === 3) return { version: 3, header: parseV3Header(file, h) };
  if (h.version === 2) return { version: 2, header: parseV2Header(file, h) };
  throw new FixtureError(file, 1, `unsupported asciicast version ${JSON.stringify(h.version)} (pstlab reads 2 and 3)`);
}

// ---------------------------------------------------------------- writers

export interface ByteSink {
  write(s: string): void;
  /**
   * Bytes of whole lines, when the sink takes them: output is then escaped straight from
   * the bytes read into one reused buffer, never held as a string (issue 25: a flood
   * recorded made three strings per read — the text, its JSON, the line).
   */
  writeBytes?(b: Uint8Array): void;
}

/** How JSON.stringify writes each ASCII character inside a string (its own table, so the two agree). */
const JSON_ASCII: Uint8Array[] = Array.from(
  { length: 128 },
  (_, c) => new TextEncoder().encode(JSON.stringify(String.fromCharCode(c)).slice(1, -1)),
);
/** ASCII characters JSON.stringify writes as they are. */
const JSON_SAME = new Uint8Array(256).map((_, c) => c >= 0x80 || JSON_ASCII[c].length === 1 ? 1 : 0);
/**
 * Characters written as \u escapes though JSON allows them raw: the C1 controls and the
 * bidirectional formatting characters. A recording printed to a terminal (`pstlab cat
 * x.cast`, `cat x.cast`) must not steer it — U+009B is a CSI to a terminal that reads C1
 * in UTF-8, U+202E reverses what follows — and the line still holds the same text.
 */
const QUIET = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const quiet = (json: string): string =>
  json.replace(QUIET, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));

/** The code point of the QUIET character whose UTF-8 starts at b[i] (a well-formed run), or -1. */
function quietAt(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === 0xc2) return b[i + 1] <= 0x9f ? b[i + 1] : -1; // U+0080–U+009F: C2 80–9F
  if (c === 0xd8) return b[i + 1] === 0x9c ? 0x61c : -1;
  if (c !== 0xe2) return -1;
  const x = b[i + 1], y = b[i + 2];
  if (x === 0x80 && (y === 0x8e || y === 0x8f || (y >= 0xaa && y <= 0xae))) return 0x2000 + (y - 0x80);
  if (x === 0x81 && y >= 0xa6 && y <= 0xa9) return 0x2040 + (y - 0x80);
  return -1;
}
const HEX = new TextEncoder().encode("0123456789abcdef");

/** `, "o", "` and `, "i", "`: what comes between the time and the text. */
const MIDDLE = { o: new TextEncoder().encode(', "o", "'), i: new TextEncoder().encode(', "i", "') };

export interface WriterStats {
  events: number;
  /** Bytes moved to a later event because a read ended mid-character. */
  movedBytes: number;
  /** Reads written with a `b` event (not valid UTF-8). */
  rawEvents: number;
  /** Events the format cannot hold (v2 has no exit event). */
  dropped: number;
}

export interface WriterOptions {
  /** Interval precision for v3: "ms" (asciinema's default) or "us". */
  precision?: "ms" | "us";
}

/** Shared event encoding for v2 and v3; they differ in header and time format. */
export class AsciicastWriter {
  readonly stats: WriterStats = { events: 0, movedBytes: 0, rawEvents: 0, dropped: 0 };
  private out = new Utf8Chunker();
  private inp = new Utf8Chunker();
  private writtenUs = 0; // v3: sum of written intervals (error diffusion)
  private lastUs = 0;

  constructor(private readonly sink: ByteSink, readonly version: 2 | 3, private readonly opts: WriterOptions = {}) {}

  header(h: Header): void {
    this.sink.write(quiet(JSON.stringify(this.version === 3 ? headerV3(h) : headerV2(h))) + "\n");
  }

  private time(t: number): string {
    // Readers reject what would get here (checkedTime); a writer never writes a time no reader accepts.
    if (!Number.isFinite(t) || t > MAX_TIME) {
      throw new Error(`refusing to write the time ${t} s (not finite or beyond ${MAX_TIME} s)`);
    }
    let us = Math.round(t * 1e6);
    if (us < this.lastUs) us = this.lastUs; // never write negative intervals
    this.lastUs = us;
    if (this.version === 2) return (us / 1e6).toFixed(6);
    if (this.opts.precision === "us") {
      const iv = us - this.writtenUs;
      this.writtenUs = us;
      return (iv / 1e6).toFixed(6);
    }
    // Quantize to ms, carrying the rounding error into the next interval so long
    // sessions do not drift (asciinema's Quantizer: accumulated error ≤ 0.5 ms).
    const ms = Math.max(0, Math.round((us - this.writtenUs) / 1000));
    this.writtenUs += ms * 1000;
    return (ms / 1000).toFixed(3);
  }

  private line(t: string, code: string, data: string): void {
    this.sink.write(`[${t}, ${JSON.stringify(code)}, ${quiet(JSON.stringify(data))}]\n`);
    this.stats.events++;
  }

  /** The line buffer of the byte path, reused (as long as the longest line so far). */
  private buf = new Uint8Array(0);

  /**
   * `line(t, code, text)` for valid UTF-8, made from the bytes: the same line byte for
   * byte (JSON escapes only ASCII; every other character of a well-formed string is
   * written as it is), tested against the string path on random reads (asciicast_test.ts).
   */
  private bytesLine(t: string, code: "o" | "i", run: Run): void {
    const write = this.sink.writeBytes;
    if (!write) return this.line(t, code, textOf(run));
    const b = run.bytes, n = b.length;
    let size = t.length + 12; // [t, "o", "…"]\n
    for (let i = 0; i < n; i++) {
      if (!JSON_SAME[b[i]]) size += JSON_ASCII[b[i]].length;
      else if (b[i] < 0xc2) size++;
      else {
        // A quiet character's lead byte stands for its \uXXXX less its continuation bytes.
        const q = quietAt(b, i);
        size += q < 0 ? 1 : q < 0x800 ? 5 : 4;
      }
    }
    if (this.buf.length < size) this.buf = new Uint8Array(Math.max(size, 4096));
    const buf = this.buf;
    let at = 0;
    buf[at++] = 0x5b; // [
    for (let i = 0; i < t.length; i++) buf[at++] = t.charCodeAt(i);
    buf.set(MIDDLE[code], at);
    at += MIDDLE[code].length;
    for (let i = 0; i < n; i++) {
      const c = b[i];
      const q = c >= 0xc2 ? quietAt(b, i) : -1;
      if (q >= 0) {
        // \uXXXX for the whole character (2 or 3 bytes of UTF-8).
        buf[at++] = 0x5c;
        buf[at++] = 0x75;
        for (let k = 12; k >= 0; k -= 4) buf[at++] = HEX[(q >> k) & 15];
        i += q < 0x800 ? 1 : 2;
      } else if (JSON_SAME[c]) buf[at++] = c;
      else {
        const e = JSON_ASCII[c];
        for (let k = 0; k < e.length; k++) buf[at++] = e[k];
      }
    }
    buf[at++] = 0x22; // "
    buf[at++] = 0x5d; // ]
    buf[at++] = 0x0a;
    write.call(this.sink, buf.subarray(0, at));
    this.stats.events++;
  }

  private chunk(t: number, code: "o" | "i", bytes: Uint8Array): void {
    const chunker = code === "o" ? this.out : this.inp;
    const before = chunker.moved;
    const r = chunker.take(bytes);
    this.stats.movedBytes += chunker.moved - before;
    const ts = this.time(t);
    if (!r.exact) {
      this.line(ts, "b", encodeBase64(r.bytes));
      this.stats.rawEvents++;
      this.line(this.version === 3 ? "0.000" : ts, code, textOf(r));
    } else this.bytesLine(ts, code, r);
  }

  event(e: Event): void {
    switch (e.kind) {
      case "output":
        return this.chunk(e.t, "o", e.bytes);
      case "input":
        return this.chunk(e.t, "i", e.bytes);
      case "resize":
        return this.line(this.time(e.t), "r", `${e.cols}x${e.rows}`);
      case "marker":
        return this.line(this.time(e.t), "m", e.label);
      case "exit":
        if (this.version === 2) {
          this.stats.dropped++; // v2 has no exit event
          return;
        }
        this.flushTails(e.t);
        return this.line(this.time(e.t), "x", String(e.status));
      case "other":
        return this.line(this.time(e.t), e.code, e.data);
    }
  }

  private flushTails(t: number): void {
    for (const [code, chunker] of [["o", this.out], ["i", this.inp]] as const) {
      const p = chunker.flush();
      if (!p) continue;
      const ts = this.time(t);
      this.line(ts, "b", encodeBase64(p.bytes));
      this.stats.rawEvents++;
      this.line(this.version === 3 ? "0.000" : ts, code, p.text);
    }
  }

  /** End of stream: a held-back tail that never completed is written with its bytes. */
  end(t: number): void {
    this.flushTails(t);
  }
}
