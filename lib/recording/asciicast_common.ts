// The event lines of asciicast v2 and v3, which share everything but their clock:
// comments and empty lines skipped, a truncated last line a warning (a recorder killed
// mid-write), unknown codes passed through, a `b` event's exact bytes given to the
// `o`/`i` that follows it.

import { decodeBase64Strict } from "../osc7501/base64.ts";
import { checkedSize, checkedTime, type Event, type Header, MAX_DIMENSION, parseResizeData } from "./model.ts";
import { knownText } from "./utf8.ts";
import { FixtureError } from "../errors.ts";
import { ByteLineReader, LineReader } from "./lines.ts";
import { fastEventLine } from "./event_line.ts";

const te = new TextEncoder();

// ---- header fields (both versions)

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function dim(file: string, v: unknown, what: string): number {
  if (v === 0) return 0; // asciinema 2.x records 0x0 without a terminal; the caller substitutes
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_DIMENSION) {
    throw new FixtureError(file, 1, `header: ${what} must be an integer 0–${MAX_DIMENSION}, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function optStr(h: Record<string, unknown>, k: string): string | undefined {
  return typeof h[k] === "string" ? h[k] as string : undefined;
}

export function optNum(h: Record<string, unknown>, k: string): number | undefined {
  return typeof h[k] === "number" ? h[k] as number : undefined;
}

/** The entries of an object whose values are not strings (what strMap leaves out), or undefined. */
export function nonStrMap(v: unknown): Record<string, unknown> | undefined {
  if (!isObj(v)) return undefined;
  const out = Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x !== "string"));
  return Object.keys(out).length ? out : undefined;
}

export function strMap(v: unknown): Record<string, string> | undefined {
  if (!isObj(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
}

/**
 * The header as read: fields the file lacks left out, and the keys this version does not
 * know kept under `extra` (written back as they were, and scrubbed by redact).
 */
export function finishHeader(header: Header, raw: Record<string, unknown>, known: ReadonlySet<string>): Header {
  const extra = Object.fromEntries(Object.entries(raw).filter(([k]) => !known.has(k)));
  if (Object.keys(extra).length) header.extra = extra;
  for (const k of Object.keys(header) as (keyof Header)[]) if (header[k] === undefined) delete header[k];
  return header;
}

// ---- event lines

/** How a version turns the time field of an event line into seconds from the start. */
export interface EventClock {
  /** The field's name in messages: v3 stores intervals, v2 absolute times. */
  readonly field: "interval" | "time";
  at(time: number, line: number): number;
}

/** One event line → [time, code, data]; null: a truncated last line (warned), stop reading. */
function eventFields(
  file: string,
  no: number,
  text: string,
  terminated: boolean,
  field: string,
  warnings: string[],
): [number, string, unknown] | null {
  let ev: unknown;
  try {
    ev = JSON.parse(text);
  } catch {
    if (!terminated) {
      warnings.push(`${file}:${no}: last line is truncated (recording cut short?); ignored`);
      return null;
    }
    throw new FixtureError(file, no, "event is not valid JSON");
  }
  if (!Array.isArray(ev) || ev.length < 3) {
    if (!terminated) {
      warnings.push(`${file}:${no}: last line is incomplete; ignored`);
      return null;
    }
    throw new FixtureError(file, no, "event must be an array [time, code, data]");
  }
  const [time, code, data] = ev;
  if (typeof time !== "number" || !Number.isFinite(time)) {
    throw new FixtureError(file, no, `time must be a number, got ${JSON.stringify(time)}`);
  }
  if (time < 0) throw new FixtureError(file, no, `${field} is negative (${time})`);
  checkedTime(file, no, time, field);
  if (typeof code !== "string" || code.length === 0) {
    throw new FixtureError(file, no, `event code must be a non-empty string`);
  }
  return [time, code, data];
}

function exitStatusOf(file: string, no: number, data: unknown): number {
  const status = typeof data === "number"
    ? data
    : typeof data === "string" && /^-?[0-9]+$/.test(data.trim())
    ? Number(data.trim())
    : NaN;
  if (!Number.isInteger(status) || Math.abs(status) > 2147483647) {
    throw new FixtureError(file, no, `exit status must be an integer, got ${JSON.stringify(data)}`);
  }
  return status;
}

/**
 * The ordinary reading of one event line (the reference the fast path must agree with):
 * JSON.parse, then the code's rules. Holds the `b` event waiting for its `o`/`i`.
 */
class EventLines {
  pendingRaw: { bytes: Uint8Array; line: number } | null = null;

  constructor(
    private readonly file: string,
    private readonly clock: EventClock,
    private readonly warnings: string[],
  ) {}

  /** The event of a line (line 1 excluded); undefined: none (a comment, a `b`); null: stop (a truncated last line). */
  line(text: string, terminated: boolean, no: number): Event | undefined | null {
    const { file, clock, warnings } = this;
    if (text.length === 0 || text.charCodeAt(0) === 35 /* # */) return undefined; // comment (v3; tolerated in v2)
    const fields = eventFields(file, no, text, terminated, clock.field, warnings);
    if (!fields) return null;
    const [time, code, data] = fields;
    const t = checkedTime(file, no, clock.at(time, no));
    if (this.pendingRaw && code !== "o" && code !== "i") {
      warnings.push(`${file}:${this.pendingRaw.line}: "b" event not followed by "o" or "i"; its bytes were dropped`);
      this.pendingRaw = null;
    }
    switch (code) {
      case "o":
      case "i": {
        if (typeof data !== "string") throw new FixtureError(file, no, `"${code}" data must be a string`);
        // A preceding `b` holds the exact bytes; this event's text is only for display.
        let bytes: Uint8Array;
        if (this.pendingRaw) bytes = this.pendingRaw.bytes;
        else {
          bytes = te.encode(data);
          knownText.set(bytes, data);
        }
        this.pendingRaw = null;
        return { t, kind: code === "o" ? "output" : "input", bytes };
      }
      case "b": {
        if (typeof data !== "string") throw new FixtureError(file, no, `"b" data must be a base64 string`);
        const bytes = decodeBase64Strict(te.encode(data));
        if (bytes === null) throw new FixtureError(file, no, `"b" data is not valid base64`);
        this.pendingRaw = { bytes, line: no };
        return undefined;
      }
      case "r": {
        const size = typeof data === "string" ? parseResizeData(data) : null;
        if (!size) throw new FixtureError(file, no, `resize data must be "COLSxROWS", got ${JSON.stringify(data)}`);
        return { t, kind: "resize", ...checkedSize(file, no, size.cols, size.rows, "resize") };
      }
      case "m":
        return { t, kind: "marker", label: typeof data === "string" ? data : "" };
      case "x":
        return { t, kind: "exit", status: exitStatusOf(file, no, data) };
      default:
        // Readers MUST ignore codes they do not know; we pass them through.
        return { t, kind: "other", code: code[0], data: typeof data === "string" ? data : JSON.stringify(data) };
    }
  }

  end(): void {
    if (this.pendingRaw) {
      this.warnings.push(`${this.file}:${this.pendingRaw.line}: "b" event at the end without its "o"; bytes dropped`);
    }
  }
}

/**
 * The reader the asciicast formats use: readEvents, or with PSTLAB_EVENT_READER=text the
 * reader before the byte-level path (readEventsText) — the same-run baseline of
 * bench/analysis.ts, read per open so a read-ahead worker started later follows it too.
 */
export function eventReaderFn(): typeof readEvents {
  return process.env.PSTLAB_EVENT_READER === "text" ? readEventsText : readEvents;
}

/** A line's text as the stream decoder gave it after line 1 (a U+FEFF is kept; invalid bytes become U+FFFD). */

const lineText = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Events of an asciicast file (v2 or v3: they differ only in their clock, see
 * asciicast_v2.ts / asciicast_v3.ts). `chunks` is the whole file (header line included).
 * The common `o`/`i` line is decoded from its bytes (event_line.ts); every other line,
 * and any line that path declines, is read by EventLines as before.
 */
export async function* readEvents(
  file: string,
  chunks: AsyncIterable<Uint8Array>,
  clock: EventClock,
  warnings: string[],
): AsyncIterable<Event> {
  const lines = new EventLines(file, clock, warnings);
  const reader = new ByteLineReader(chunks);
  for (let line; (line = reader.ready() ?? await reader.next());) {
    const no = reader.no;
    if (no === 1) continue; // header, parsed by the caller
    // A cut last line and the `o` after a `b` keep the ordinary path (their rules live there).
    const fast = reader.terminated && lines.pendingRaw === null ? fastEventLine(line) : null;
    if (fast) {
      // The same checks, in the same order, as eventFields and EventLines.line.
      checkedTime(file, no, fast.time, clock.field);
      const t = checkedTime(file, no, clock.at(fast.time, no));
      yield { t, kind: fast.code === "o" ? "output" : "input", bytes: fast.bytes };
      continue;
    }
    const ev = lines.line(lineText.decode(line), reader.terminated, no);
    if (ev === null) break;
    if (ev) yield ev;
  }
  lines.end();
}

/**
 * The reader before the byte-level fast path: every line decoded as text and parsed with
 * JSON.parse. The baseline of bench/analysis.ts and the reference of event_line_test.ts.
 */
export async function* readEventsText(
  file: string,
  chunks: AsyncIterable<Uint8Array>,
  clock: EventClock,
  warnings: string[],
): AsyncIterable<Event> {
  const lines = new EventLines(file, clock, warnings);
  const reader = new LineReader(chunks);
  for (let got; (got = reader.ready() ?? await reader.next());) {
    if (reader.no === 1) continue; // header, parsed by the caller
    const ev = lines.line(got[0], got[1], reader.no);
    if (ev === null) break;
    if (ev) yield ev;
  }
  lines.end();
}
