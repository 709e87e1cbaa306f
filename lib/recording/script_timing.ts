// util-linux `script` timing files (`script -T timing -O out`, ≥ 2.35):
// classic `<delta> <nbytes>` lines (output only), and the advanced multi-stream
// format `O|I <delta> <nbytes>`, `S <delta> SIGWINCH ROWS=r COLS=c`, `H <delta> NAME value`.
// Byte-exact: every byte of the log files is accounted for.

import * as fs from "node:fs";
import { checkedSize, checkedTime, type Event, type Header } from "./model.ts";
import { lines } from "./lines.ts";
import { describeFsError } from "./source.ts";
import { FixtureError } from "../errors.ts";

export type TimingFormat = "classic" | "advanced";

const CLASSIC = /^([0-9]+\.[0-9]+) ([0-9]+)$/;
const ADVANCED = /^([OISH]) ([0-9]+\.[0-9]+) (.*)$/;

/** Sniffs the first line of a timing file. */
export function timingFormat(firstLine: string): TimingFormat | null {
  if (CLASSIC.test(firstLine)) return "classic";
  if (ADVANCED.test(firstLine)) return "advanced";
  return null;
}

/** A byte reader over a log file with the `Script started on …` line skipped. */
class LogReader {
  private fd: number;
  private buf = new Uint8Array(1 << 16);
  private len = 0;
  private pos = 0;
  readonly header: string | null;
  consumed = 0;
  /** Bytes of the file after the "Script started" line: no timing line can ask for more. */
  private readonly available: number;

  constructor(readonly path: string) {
    try {
      this.fd = fs.openSync(path, "r");
    } catch (e) {
      throw new FixtureError(path, null, describeFsError(e));
    }
    // script writes a "Script started on …" line before the session's bytes (not
    // with -q on some versions); the timing entries do not cover it.
    this.fill();
    const head = new TextDecoder("latin1").decode(this.buf.subarray(0, Math.min(this.len, 512)));
    const nl = head.indexOf("\n");
    if (head.startsWith("Script started on ") && nl >= 0) {
      this.header = head.slice(0, nl);
      this.pos = nl + 1;
    } else this.header = null;
    this.available = fs.fstatSync(this.fd).size - this.pos;
  }

  private fill(): void {
    if (this.pos > 0) {
      this.buf.copyWithin(0, this.pos, this.len);
      this.len -= this.pos;
      this.pos = 0;
    }
    const n = fs.readSync(this.fd, this.buf, this.len, this.buf.length - this.len, null);
    this.len += n;
  }

  /** The next n bytes; null when the log ends first (checked before allocating, so a bogus count costs nothing). */
  take(n: number): Uint8Array | null {
    if (n > this.available - this.consumed) return null;
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      if (this.pos === this.len) {
        this.fill();
        if (this.pos === this.len) return null;
      }
      const k = Math.min(n - o, this.len - this.pos);
      out.set(this.buf.subarray(this.pos, this.pos + k), o);
      o += k;
      this.pos += k;
    }
    this.consumed += n;
    return out;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export interface ScriptInput {
  timing: string;
  /** Output log (`-O`/`-B` typescript). */
  out: string;
  /** Input log (`-I`), advanced format only. */
  in?: string;
}

/** Header info found in advanced `H` lines (COLUMNS, LINES, TERM, COMMAND, EXIT_CODE…). */
export function readScriptEvents(
  input: ScriptInput,
  timingChunks: AsyncIterable<Uint8Array>,
  info: Record<string, string>,
): AsyncIterable<Event> {
  return gen(input, timingChunks, info);
}

async function* gen(
  input: ScriptInput,
  timingChunks: AsyncIterable<Uint8Array>,
  info: Record<string, string>,
): AsyncIterable<Event> {
  const out = new LogReader(input.out);
  const inp = input.in ? new LogReader(input.in) : null;
  let us = 0;
  const advance = (no: number, delta: string) => {
    us += Math.round(Number(delta) * 1e6);
    return checkedTime(input.timing, no, us / 1e6);
  };
  try {
    for await (const [no, text] of lines(timingChunks)) {
      if (text === "") continue;
      const c = CLASSIC.exec(text);
      if (c) {
        const t = advance(no, c[1]);
        const bytes = out.take(Number(c[2]));
        if (!bytes) {
          throw new FixtureError(
            input.timing,
            no,
            `output log ${input.out} ends before the ${c[2]} bytes this line needs`,
          );
        }
        yield { t, kind: "output", bytes };
        continue;
      }
      const a = ADVANCED.exec(text);
      if (!a) {
        throw new FixtureError(input.timing, no, `not a script timing line: ${JSON.stringify(text.slice(0, 60))}`);
      }
      const [, type, delta, rest] = a;
      const t = type !== "H" ? advance(no, delta) : us / 1e6;
      if (type === "O" || type === "I") {
        if (!/^[0-9]+$/.test(rest)) {
          throw new FixtureError(input.timing, no, `byte count must be an integer, got ${JSON.stringify(rest)}`);
        }
        const reader = type === "O" ? out : inp;
        if (!reader) continue; // input not logged: skip (and lose nothing of the output)
        const bytes = reader.take(Number(rest));
        if (!bytes) {
          throw new FixtureError(
            input.timing,
            no,
            `${type === "O" ? "output" : "input"} log ends before the ${rest} bytes this line needs`,
          );
        }
        yield { t, kind: type === "O" ? "output" : "input", bytes };
      } else if (type === "S") {
        const m = /^SIGWINCH ROWS=([0-9]+) COLS=([0-9]+)$/.exec(rest);
        // A window of 0x0 (script without a terminal) says nothing: the size stays as it was.
        if (m && (m[1] === "0" || m[2] === "0")) continue;
        if (m) {
          yield { t, kind: "resize", ...checkedSize(input.timing, no, Number(m[2]), Number(m[1]), "SIGWINCH size") };
        } else yield { t, kind: "marker", label: `signal:${rest.split(" ")[0]}` };
      } else {
        const sp = rest.indexOf(" ");
        const name = sp < 0 ? rest : rest.slice(0, sp), value = sp < 0 ? "" : rest.slice(sp + 1);
        info[name] = value;
        if (name === "EXIT_CODE" && /^-?[0-9]+$/.test(value)) yield { t, kind: "exit", status: Number(value) };
      }
    }
  } finally {
    out.close();
    inp?.close();
  }
}

/** Header fields from `H` lines seen in the first lines of an advanced timing file. */
export function headerFromInfo(
  file: string,
  info: Record<string, string>,
  fallback: { cols: number; rows: number },
): Header {
  const h: Header = checkedSize(
    file,
    null,
    Number(info.COLUMNS) || fallback.cols,
    Number(info.LINES) || fallback.rows,
    "COLUMNS x LINES",
  );
  if (info.TERM) h.termType = info.TERM;
  if (info.COMMAND) h.command = info.COMMAND;
  if (info.START_TIME) {
    const ts = Date.parse(info.START_TIME);
    if (!Number.isNaN(ts)) h.timestamp = Math.floor(ts / 1000);
  }
  return h;
}
