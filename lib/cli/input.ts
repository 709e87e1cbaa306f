// Opening an input recording with the flags every reading command shares
// (options.ts INPUT_OPTIONS).

import { type OpenOptions, openRecording } from "../recording/open.ts";
import type { Recording } from "../recording/model.ts";
import { type ProtocolEvent, Tracker } from "../osc7501/tracker.ts";
import { err } from "./common.ts";
import { UsageError } from "../errors.ts";
import type { INPUT_OPTIONS, Values } from "./options.ts";

export type InputValues = Values<typeof INPUT_OPTIONS>;

export function openOptions(v: InputValues): OpenOptions {
  const o: OpenOptions = {};
  if (v.raw) o.from = "raw";
  if (v["input-format"]) {
    if (v.raw && v["input-format"] !== "raw") throw new UsageError("--raw and --input-format disagree");
    o.from = v["input-format"];
  }
  if (v.size) o.size = v.size;
  if (v.chunk) o.chunk = v.chunk;
  if (v.timing) o.timing = v.timing;
  if (v["log-in"]) o.logIn = v["log-in"];
  return o;
}

export async function openInput(path: string | undefined, v: InputValues): Promise<Recording> {
  return await openRecording(path ?? "-", openOptions(v));
}

export function printWarnings(rec: Recording): void {
  for (const w of rec.warnings) err(`pstlab: warning: ${w}\n`);
}

/**
 * Runs the protocol tracker over a recording up to time `until` (inclusive).
 * Returns the tracker and the time of the last event seen.
 */
export async function trackRecording(
  rec: Recording,
  onEvent: (e: ProtocolEvent) => void,
  until = Infinity,
  onMarker?: (t: number, label: string) => void,
): Promise<{ tracker: Tracker; end: number; complete: boolean }> {
  const tracker = new Tracker(onEvent);
  let last = 0;
  // complete: every event was read (none after `until`), so `until` is at or past the end.
  let complete = true;
  for await (const e of rec.events) {
    if (e.t > until) {
      complete = false;
      break;
    }
    last = e.t;
    if (e.kind === "marker") onMarker?.(e.t, e.label);
    if (e.kind === "output") tracker.feed(e.bytes, e.t);
    else if (e.kind === "exit") tracker.exit(e.t);
  }
  tracker.end(last);
  return { tracker, end: last, complete };
}
