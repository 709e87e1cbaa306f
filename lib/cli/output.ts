// Opening an output recording with the flags every writing command shares.

import { OutputFile } from "../recording/sink.ts";
import { createWriter, formatFromPath, type OutFormat, type RecordingWriter } from "../recording/writer.ts";
import type { Event, Header, Provenance } from "../recording/model.ts";
import { FIXTURE_SCHEMA } from "../recording/model.ts";
import { err, UsageError } from "./common.ts";
import { SPEC_REVISION } from "../osc7501/limits.ts";
import { TOOL, VERSION } from "../version.ts";

export const OUTPUT_OPTIONS = {
  format: { type: "string" },
  overwrite: { type: "boolean" },
  "time-precision": { type: "string" },
} as const;

export const OUTPUT_HELP = [
  "  --format FORMAT     output format: v3 (default for .cast), v2, raw (default for .raw)",
  "  --overwrite         replace an existing non-empty output file",
  "  --time-precision P  v3 intervals: ms (default, as asciinema) or us",
];

export interface Output {
  file: OutputFile;
  writer: RecordingWriter;
  format: OutFormat;
}

export function outputFormat(path: string, v: Record<string, unknown>): OutFormat {
  if (typeof v.format === "string") {
    if (v.format !== "v3" && v.format !== "v2" && v.format !== "raw") throw new UsageError(`unknown output format "${v.format}" (use v3, v2 or raw)`);
    return v.format;
  }
  return path === "-" ? "v3" : formatFromPath(path) ?? "v3";
}

export function provenance(extra: Partial<Provenance> = {}): Provenance {
  return { tool: TOOL, version: VERSION, osc7501_revision: SPEC_REVISION, fixture_schema: FIXTURE_SCHEMA, ...extra };
}

export function openOutput(path: string, header: Header, v: Record<string, unknown>, opts: { durable?: boolean; append?: boolean; header?: boolean } = {}): Output {
  const format = outputFormat(path, v);
  const precision = v["time-precision"];
  if (precision !== undefined && precision !== "ms" && precision !== "us") throw new UsageError(`bad --time-precision "${precision}" (use ms or us)`);
  const file = OutputFile.open(path, { overwrite: !!v.overwrite, append: opts.append, durable: opts.durable });
  const writer = createWriter(format, file, header, { precision: precision as "ms" | "us" | undefined }, opts.header ?? true);
  return { file, writer, format };
}

/** Writes every event, ends the stream and closes the file (also on error). */
export async function writeAll(o: Output, events: AsyncIterable<Event>, map: (e: Event) => Iterable<Event> = (e) => [e], flush: () => Iterable<Event> = () => []): Promise<void> {
  let last = 0;
  try {
    for await (const e of events) {
      last = e.t;
      for (const x of map(e)) o.writer.event(x);
    }
    for (const x of flush()) o.writer.event(x);
    o.writer.end(last);
  } finally {
    o.file.close();
  }
}

export function summarize(path: string, o: Output, what = "wrote"): void {
  const s = o.writer.stats;
  const extra = [
    s.movedBytes ? `${s.movedBytes} bytes moved to the next read (characters split across reads)` : "",
    s.rawEvents ? `${s.rawEvents} reads kept as raw bytes (not valid UTF-8)` : "",
    s.dropped ? `${s.dropped} events the ${o.format} format cannot hold were dropped` : "",
  ].filter(Boolean);
  if (path !== "-") err(`pstlab: ${what} ${path} (${o.format}, ${s.events} events${extra.length ? "; " + extra.join("; ") : ""})\n`);
  else if (extra.length) err(`pstlab: ${extra.join("; ")}\n`);
}
