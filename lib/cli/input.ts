// Opening an input recording with the flags every reading command shares.

import { openRecording, type OpenOptions } from "../recording/open.ts";
import type { Format, Recording } from "../recording/model.ts";
import { type ProtocolEvent, Tracker } from "../osc7501/tracker.ts";
import { err, parseNumber, parseSizeFlag, UsageError } from "./common.ts";

export const INPUT_OPTIONS = {
  raw: { type: "boolean" },
  "input-format": { type: "string" },
  size: { type: "string" },
  chunk: { type: "string" },
  timing: { type: "string" },
  "log-in": { type: "string" },
} as const;

export const INPUT_HELP = [
  "  --raw               read the input as raw bytes even if it looks like asciicast",
  "  --input-format F    force the input format: v3, v2, raw, ttyrec, script, snapshot",
  "  --size COLSxROWS    size for inputs without one (raw, ttyrec); default 120x32",
  "  --chunk N           raw input: split into N-byte reads (default: one read)",
  "  --timing FILE       util-linux script: FILE is the output log, this the timing file",
  "  --log-in FILE       util-linux script: the input log (advanced format)",
];

const FORMATS: Format[] = ["v3", "v2", "raw", "ttyrec", "script", "snapshot"];

export function openOptions(v: Record<string, unknown>): OpenOptions {
  const o: OpenOptions = {};
  if (v.raw) o.from = "raw";
  const f = v["input-format"];
  if (typeof f === "string") {
    if (!FORMATS.includes(f as Format)) throw new UsageError(`unknown input format "${f}" (use ${FORMATS.join(", ")})`);
    if (v.raw && f !== "raw") throw new UsageError("--raw and --input-format disagree");
    o.from = f as Format;
  }
  if (typeof v.size === "string") o.size = parseSizeFlag(v.size);
  if (typeof v.chunk === "string") o.chunk = parseNumber(v.chunk, "chunk size", 1);
  if (typeof v.timing === "string") o.timing = v.timing;
  if (typeof v["log-in"] === "string") o.logIn = v["log-in"];
  return o;
}

export async function openInput(path: string | undefined, v: Record<string, unknown>): Promise<Recording> {
  return await openRecording(path ?? "-", openOptions(v));
}

export function printWarnings(rec: Recording): void {
  for (const w of rec.warnings) err(`pstlab: warning: ${w}\n`);
}

/**
 * Runs the protocol tracker over a recording up to time `until` (inclusive).
 * Returns the tracker and the time of the last event seen.
 */
export async function trackRecording(rec: Recording, onEvent: (e: ProtocolEvent) => void, until = Infinity): Promise<{ tracker: Tracker; end: number }> {
  const tracker = new Tracker(onEvent);
  let last = 0;
  for await (const e of rec.events) {
    if (e.t > until) break;
    last = e.t;
    if (e.kind === "output") tracker.feed(e.bytes, e.t);
    else if (e.kind === "exit") tracker.exit(e.t);
  }
  tracker.end(last);
  return { tracker, end: last };
}
