// The version-neutral recording model (after asciinema 3.x's asciicast.rs): a header
// and a time-ordered stream of events. Time is seconds from the start, as a float,
// everywhere inside pstlab; only readers and writers convert.

export interface Header {
  cols: number;
  rows: number;
  termType?: string;
  termVersion?: string;
  theme?: unknown;
  /** Unix seconds. */
  timestamp?: number;
  idleTimeLimit?: number;
  command?: string;
  title?: string;
  env?: Record<string, string>;
  tags?: string[];
  /** Our namespaced header key (`pstlab`): tool, spec revision, fixture schema, … */
  provenance?: Provenance;
  /** Header keys we do not know, kept so v3 → v3 passes them through. */
  extra?: Record<string, unknown>;
}

export interface Provenance {
  tool: string;
  version: string;
  osc7501_revision: string;
  fixture_schema: number;
  /** Whether the recorder answered `OSC 7501;?` (null: unknown, e.g. converted). */
  query_answered?: boolean | null;
  emitter?: string | null;
  /** How truth labels were produced ("labels-fifo", "script", "hand", …). */
  truth?: string | null;
  [k: string]: unknown;
}

export type Event =
  | { t: number; kind: "output"; bytes: Uint8Array }
  | { t: number; kind: "input"; bytes: Uint8Array }
  | { t: number; kind: "resize"; cols: number; rows: number }
  | { t: number; kind: "marker"; label: string }
  | { t: number; kind: "exit"; status: number }
  /** Codes we do not know (single character), passed through. */
  | { t: number; kind: "other"; code: string; data: string };

export type Format = "v3" | "v2" | "raw" | "ttyrec" | "script" | "snapshot";

export interface Recording {
  format: Format;
  path: string;
  header: Header;
  events: AsyncIterable<Event>;
  /** Filled while `events` is consumed (a truncated last line, a dropped `b`…). */
  warnings: string[];
}


export const FIXTURE_SCHEMA = 1;
export const DEFAULT_SIZE = { cols: 120, rows: 32 };

/** `COLSxROWS` (also used by `r` events). Returns null when malformed. */
export function parseSize(s: string): { cols: number; rows: number } | null {
  const m = /^([0-9]{1,5})x([0-9]{1,5})$/.exec(s);
  if (!m) return null;
  const cols = Number(m[1]), rows = Number(m[2]);
  if (cols < 1 || rows < 1 || cols > 65535 || rows > 65535) return null;
  return { cols, rows };
}

/** Collects an event stream (tests and small files only: recordings can be huge). */
export async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of events) out.push(e);
  return out;
}

export async function* fromArray(events: Event[]): AsyncIterable<Event> {
  for (const e of events) yield e;
}

/** Output bytes of a stream, concatenated (tests and small files only). */
export function concatOutput(events: Event[]): Uint8Array {
  const parts = events.filter((e) => e.kind === "output") as { bytes: Uint8Array }[];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.bytes.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p.bytes, o);
    o += p.bytes.length;
  }
  return out;
}
