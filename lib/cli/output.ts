// Opening an output recording with the flags every writing command shares
// (options.ts RECORDING_OUTPUT_OPTIONS).

import { OutputFile } from "../recording/sink.ts";
import { createWriter, type OutFormat, type RecordingWriter } from "../recording/writer.ts";
import { formatFor, type RECORDING_OUTPUT_OPTIONS, type Values } from "./options.ts";
import type { Event, Header, Provenance } from "../recording/model.ts";
import { FIXTURE_SCHEMA } from "../recording/model.ts";
import { err } from "./common.ts";
import { SPEC_REVISION } from "../osc7501/limits.ts";
import { TOOL, VERSION } from "../version.ts";
import { UsageError } from "../errors.ts";
import { disarm, plural } from "../text.ts";

export interface Output {
  file: OutputFile;
  writer: RecordingWriter;
  format: OutFormat;
}

export type RecordingOutputValues = Values<typeof RECORDING_OUTPUT_OPTIONS>;

const BY_EXTENSION: Record<string, OutFormat> = {
  ".cast": "v3",
  ".jsonl": "v3",
  ".ndjson": "v3",
  ".raw": "raw",
  ".recording": "raw",
  ".bin": "raw",
};
/** Extensions of formats pstlab reads but cannot write: refuse rather than write v3 into a .ttyrec. */
const READ_ONLY = [".ttyrec", ".tty", ".timing", ".log"];

export function outputFormat(path: string, v: RecordingOutputValues): OutFormat {
  const lower = path.toLowerCase();
  const ro = READ_ONLY.find((x) => lower.endsWith(x));
  if (!v.format && ro) {
    throw new UsageError(`${path}: pstlab cannot write ${ro} files; write .cast (asciicast v3), --format v2, or .raw`);
  }
  return formatFor(v.format, path, BY_EXTENSION, "v3");
}

export function provenance(extra: Partial<Provenance> = {}): Provenance {
  return { tool: TOOL, version: VERSION, osc7501_revision: SPEC_REVISION, fixture_schema: FIXTURE_SCHEMA, ...extra };
}

export function openOutput(
  path: string,
  header: Header,
  v: RecordingOutputValues,
  opts: { durable?: boolean; append?: boolean; header?: boolean } = {},
): Output {
  const format = outputFormat(path, v);
  const file = OutputFile.open(path, {
    overwrite: !!v.overwrite,
    append: opts.append,
    durable: opts.durable,
    raw: "recording to stdout",
  });
  let writer: RecordingWriter;
  try {
    writer = createWriter(format, file, header, { precision: v["time-precision"] }, opts.header ?? true);
  } catch (e) {
    file.abort(); // a disk full at the header leaves no file (and the one replaced as it was)
    throw e;
  }
  // A recording replacing a file moves onto it with its first event: a command that never
  // starts (`record --overwrite -o good.cast -- typo`) leaves good.cast as it was.
  file.armReplace();
  return { file, writer, format };
}

/** Writes every event, ends the stream and finishes the file; on any error the target is left as it was. */
export async function writeAll(
  o: Output,
  events: AsyncIterable<Event>,
  map: (e: Event) => Iterable<Event> = (e) => [e],
  flush: () => Iterable<Event> = () => [],
): Promise<void> {
  let last = 0;
  try {
    for await (const e of events) {
      last = e.t;
      for (const x of map(e)) o.writer.event(x);
    }
    for (const x of flush()) o.writer.event(x);
    o.writer.end(last);
  } catch (e) {
    o.file.abort();
    throw e;
  }
  o.file.close();
}

export function summarize(path: string, o: Output, what = "wrote"): void {
  const s = o.writer.stats;
  const extra = [
    s.movedBytes ? `${s.movedBytes} bytes moved to the next read (characters split across reads)` : "",
    s.rawEvents ? `${s.rawEvents} reads kept as raw bytes (not valid UTF-8)` : "",
    s.dropped ? `${plural(s.dropped, "event")} the ${o.format} format cannot hold were dropped` : "",
  ].filter(Boolean);
  if (path !== "-") {
    err(
      `pstlab: ${what} ${path} (${o.format}, ${plural(s.events, "event")}${
        extra.length ? "; " + extra.join("; ") : ""
      })\n`,
    );
  } else if (extra.length) err(`pstlab: ${extra.join("; ")}\n`);
}

/** A whole text to a file (through a temporary file: all or nothing) or to stdout (`-`); says where it wrote. */
export function writeText(path: string, text: string, format?: string): void {
  // A page piped to a file keeps its exact bytes; on a terminal it goes through the filter like any text.
  const page = format === "html" && path === "-" && !(process.stdout as { isTTY?: boolean }).isTTY;
  OutputFile.writeAll(path, text, page ? "html page" : undefined);
  if (path !== "-") err(`pstlab: wrote ${disarm(path)}\n`);
}
