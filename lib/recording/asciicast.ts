// asciicast v2 and v3 (fixture-format.md): readers tolerate comments, empty lines,
// unknown codes and header keys, and report a truncated last line as a warning;
// writers keep one `o` per read, ms intervals with error diffusion (v3), and the
// private `b` event for reads that are not valid UTF-8.

import { decodeBase64Strict, encodeBase64 } from "../osc7501/base64.ts";
import { DEFAULT_SIZE, type Event, type Header, type Provenance, parseSize } from "./model.ts";
import { knownText, Utf8Chunker } from "./utf8.ts";
import { FixtureError } from "../errors.ts";

const te = new TextEncoder();
const KNOWN_V3 = new Set(["version", "term", "timestamp", "idle_time_limit", "command", "title", "env", "tags", "pstlab"]);
const KNOWN_V2 = new Set(["version", "width", "height", "timestamp", "duration", "idle_time_limit", "command", "title", "env", "theme", "pstlab"]);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function dim(file: string, v: unknown, what: string): number {
  if (v === 0) return 0; // asciinema 2.x records 0x0 without a terminal; the caller substitutes
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 65535) {
    throw new FixtureError(file, 1, `header: ${what} must be an integer 0–65535, got ${JSON.stringify(v)}`);
  }
  return v;
}

function optStr(h: Record<string, unknown>, k: string): string | undefined {
  return typeof h[k] === "string" ? h[k] as string : undefined;
}

function optNum(h: Record<string, unknown>, k: string): number | undefined {
  return typeof h[k] === "number" ? h[k] as number : undefined;
}

function strMap(v: unknown): Record<string, string> | undefined {
  if (!isObj(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
}

/** Parses line 1. Returns the version and the header. */
export function parseHeaderLine(file: string, text: string, warnings: string[] = []): { version: 2 | 3; header: Header } {
  const r = parseHeaderLineRaw(file, text);
  if (r.header.cols === 0 || r.header.rows === 0) {
    warnings.push(`${file}:1: header size is ${r.header.cols}x${r.header.rows} (recorded without a terminal); using ${DEFAULT_SIZE.cols}x${DEFAULT_SIZE.rows}`);
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
  const version = h.version;
  if (version === 3) {
    const term = h.term;
    if (!isObj(term)) throw new FixtureError(file, 1, "header: term must be an object with cols and rows");
    const header: Header = {
      cols: dim(file, term.cols, "term.cols"),
      rows: dim(file, term.rows, "term.rows"),
      termType: optStr(term, "type"),
      termVersion: optStr(term, "version"),
      theme: term.theme,
      timestamp: optNum(h, "timestamp"),
      idleTimeLimit: optNum(h, "idle_time_limit"),
      command: optStr(h, "command"),
      title: optStr(h, "title"),
      env: strMap(h.env),
      tags: Array.isArray(h.tags) ? h.tags.filter((x): x is string => typeof x === "string") : undefined,
      provenance: isObj(h.pstlab) ? h.pstlab as Provenance : undefined,
    };
    const extra = Object.fromEntries(Object.entries(h).filter(([k]) => !KNOWN_V3.has(k)));
    if (Object.keys(extra).length) header.extra = extra;
    return { version: 3, header: clean(header) };
  }
  if (version === 2) {
    const env = strMap(h.env);
    const header: Header = {
      cols: dim(file, h.width, "width"),
      rows: dim(file, h.height, "height"),
      termType: env?.TERM,
      theme: h.theme,
      timestamp: optNum(h, "timestamp"),
      idleTimeLimit: optNum(h, "idle_time_limit"),
      command: optStr(h, "command"),
      title: optStr(h, "title"),
      env,
      provenance: isObj(h.pstlab) ? h.pstlab as Provenance : undefined,
    };
    const extra = Object.fromEntries(Object.entries(h).filter(([k]) => !KNOWN_V2.has(k)));
    if (Object.keys(extra).length) header.extra = extra;
    return { version: 2, header: clean(header) };
  }
  throw new FixtureError(file, 1, `unsupported asciicast version ${JSON.stringify(version)} (pstlab reads 2 and 3)`);
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/**
 * Events of an asciicast v2/v3 file. `chunks` is the whole file (header line included).
 * v3 times are relative intervals, accumulated in integer microseconds so that a
 * v3 → v3 round trip reproduces every interval exactly.
 */
export async function* readAsciicastEvents(
  file: string,
  chunks: AsyncIterable<Uint8Array>,
  version: 2 | 3,
  warnings: string[],
): AsyncIterable<Event> {
  let accUs = 0;
  let lastUs = 0;
  let pendingRaw: { bytes: Uint8Array; line: number } | null = null;
  // Lines are split here rather than through lines(): one generator level less is
  // worth ~30 % of read throughput on big captures.
  const dec = new TextDecoder("utf-8");
  let carry = "";
  let no = 0;
  const it = chunks[Symbol.asyncIterator]();
  let done = false;
  let buffered: string[] = [];
  let bi = 0;
  const nextLine = async (): Promise<[string, boolean] | null> => {
    while (bi >= buffered.length) {
      if (done) return null;
      const r = await it.next();
      let text: string;
      if (r.done) {
        done = true;
        text = carry + dec.decode();
        carry = "";
        buffered = text.length ? [text] : [];
        bi = 0;
        if (buffered.length) return [buffered[bi++], false];
        return null;
      }
      text = carry + dec.decode(r.value, { stream: true });
      const parts = text.split("\n");
      carry = parts.pop()!;
      buffered = parts;
      bi = 0;
    }
    let l = buffered[bi++];
    if (l.length && l.charCodeAt(l.length - 1) === 13) l = l.slice(0, -1);
    return [l, true];
  };
  while (true) {
    const got = await nextLine();
    if (got === null) break;
    const [text, terminated] = got;
    no++;
    if (no === 1) continue; // header, parsed by the caller
    if (text.length === 0) continue;
    if (text.charCodeAt(0) === 35 /* # */) continue; // comment (v3; tolerated in v2)
    let ev: unknown;
    try {
      ev = JSON.parse(text);
    } catch {
      if (!terminated) {
        warnings.push(`${file}:${no}: last line is truncated (recording cut short?); ignored`);
        break;
      }
      throw new FixtureError(file, no, "event is not valid JSON");
    }
    if (!Array.isArray(ev) || ev.length < 3) {
      if (!terminated) {
        warnings.push(`${file}:${no}: last line is incomplete; ignored`);
        break;
      }
      throw new FixtureError(file, no, "event must be an array [time, code, data]");
    }
    const [time, code, data] = ev;
    if (typeof time !== "number" || !Number.isFinite(time)) throw new FixtureError(file, no, `time must be a number, got ${JSON.stringify(time)}`);
    if (time < 0) throw new FixtureError(file, no, `${version === 3 ? "interval" : "time"} is negative (${time})`);
    if (typeof code !== "string" || code.length === 0) throw new FixtureError(file, no, `event code must be a non-empty string`);
    let t: number;
    if (version === 3) {
      accUs += Math.round(time * 1e6);
      t = accUs / 1e6;
    } else {
      let us = Math.round(time * 1e6);
      if (us < lastUs) {
        warnings.push(`${file}:${no}: time goes backwards (${time} s); treated as ${lastUs / 1e6} s`);
        us = lastUs;
      }
      lastUs = us;
      t = us / 1e6;
    }
    if (pendingRaw && code !== "o" && code !== "i") {
      warnings.push(`${file}:${pendingRaw.line}: "b" event not followed by "o" or "i"; its bytes were dropped`);
      pendingRaw = null;
    }
    switch (code) {
      case "o":
      case "i": {
        if (typeof data !== "string") throw new FixtureError(file, no, `"${code}" data must be a string`);
        // A preceding `b` holds the exact bytes; this event's text is only for display.
        let bytes: Uint8Array;
        if (pendingRaw) bytes = pendingRaw.bytes;
        else {
          bytes = te.encode(data);
          knownText.set(bytes, data);
        }
        pendingRaw = null;
        yield { t, kind: code === "o" ? "output" : "input", bytes };
        break;
      }
      case "b": {
        if (typeof data !== "string") throw new FixtureError(file, no, `"b" data must be a base64 string`);
        const bytes = decodeBase64Strict(te.encode(data));
        if (bytes === null) throw new FixtureError(file, no, `"b" data is not valid base64`);
        pendingRaw = { bytes, line: no };
        break;
      }
      case "r": {
        const size = typeof data === "string" ? parseSize(data) : null;
        if (!size) throw new FixtureError(file, no, `resize data must be "COLSxROWS", got ${JSON.stringify(data)}`);
        yield { t, kind: "resize", ...size };
        break;
      }
      case "m":
        yield { t, kind: "marker", label: typeof data === "string" ? data : "" };
        break;
      case "x": {
        const status = typeof data === "number" ? data : typeof data === "string" && /^-?[0-9]+$/.test(data.trim()) ? Number(data.trim()) : NaN;
        if (!Number.isInteger(status) || Math.abs(status) > 2147483647) {
          throw new FixtureError(file, no, `exit status must be an integer, got ${JSON.stringify(data)}`);
        }
        yield { t, kind: "exit", status };
        break;
      }
      default:
        // Readers MUST ignore codes they do not know; we pass them through.
        yield { t, kind: "other", code: code[0], data: typeof data === "string" ? data : JSON.stringify(data) };
    }
  }
  if (pendingRaw) warnings.push(`${file}:${pendingRaw.line}: "b" event at the end without its "o"; bytes dropped`);
}

// ---------------------------------------------------------------- writers

export interface ByteSink {
  write(s: string): void;
}

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

export function headerV3(h: Header): Record<string, unknown> {
  const term: Record<string, unknown> = { cols: h.cols, rows: h.rows };
  if (h.termType !== undefined) term.type = h.termType;
  if (h.termVersion !== undefined) term.version = h.termVersion;
  if (h.theme !== undefined) term.theme = h.theme;
  const out: Record<string, unknown> = { version: 3, term };
  if (h.timestamp !== undefined) out.timestamp = h.timestamp;
  if (h.idleTimeLimit !== undefined) out.idle_time_limit = h.idleTimeLimit;
  if (h.command !== undefined) out.command = h.command;
  if (h.title !== undefined) out.title = h.title;
  if (h.env !== undefined) out.env = h.env;
  if (h.tags !== undefined) out.tags = h.tags;
  if (h.extra) for (const [k, v] of Object.entries(h.extra)) if (!(k in out)) out[k] = v;
  if (h.provenance !== undefined) out.pstlab = h.provenance;
  return out;
}

function headerV2(h: Header): Record<string, unknown> {
  const out: Record<string, unknown> = { version: 2, width: h.cols, height: h.rows };
  if (h.timestamp !== undefined) out.timestamp = Math.round(h.timestamp);
  if (h.idleTimeLimit !== undefined) out.idle_time_limit = h.idleTimeLimit;
  if (h.command !== undefined) out.command = h.command;
  if (h.title !== undefined) out.title = h.title;
  const env = { ...(h.env ?? {}) };
  if (h.termType !== undefined && env.TERM === undefined) env.TERM = h.termType;
  if (Object.keys(env).length) out.env = env;
  if (h.theme !== undefined) out.theme = h.theme;
  if (h.provenance !== undefined) out.pstlab = h.provenance;
  return out;
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
    this.sink.write(JSON.stringify(this.version === 3 ? headerV3(h) : headerV2(h)) + "\n");
  }

  private time(t: number): string {
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
    this.sink.write(`[${t}, ${JSON.stringify(code)}, ${JSON.stringify(data)}]\n`);
    this.stats.events++;
  }

  private chunk(t: number, code: "o" | "i", bytes: Uint8Array): void {
    const chunker = code === "o" ? this.out : this.inp;
    const before = chunker.moved;
    const p = chunker.push(bytes);
    this.stats.movedBytes += chunker.moved - before;
    const ts = this.time(t);
    if (!p.exact) {
      this.line(ts, "b", encodeBase64(p.bytes));
      this.stats.rawEvents++;
      this.line(this.version === 3 ? "0.000" : ts, code, p.text);
    } else this.line(ts, code, p.text);
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
