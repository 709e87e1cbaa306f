// One entry point for writing a recording in any output format.

import { AsciicastWriter, type WriterOptions, type WriterStats } from "./asciicast.ts";
import type { Event, Header } from "./model.ts";
import { RawWriter } from "./raw.ts";
import type { OutputFile } from "./sink.ts";

export type OutFormat = "v3" | "v2" | "raw";

export interface RecordingWriter {
  event(e: Event): void;
  end(t: number): void;
  stats: WriterStats;
  /**
   * Keeps no reference to an event's bytes once event() returned (what it needs later it
   * copied): the recorder may then hand a read's buffer on to its screen worker.
   */
  releasesBytes?: boolean;
}

export function createWriter(
  format: OutFormat,
  out: OutputFile,
  header: Header,
  opts: WriterOptions = {},
  writeHeader = true,
): RecordingWriter {
  if (format === "raw") {
    const stats: WriterStats = { events: 0, movedBytes: 0, rawEvents: 0, dropped: 0 };
    const w = new RawWriter((b) => out.write(b));
    return {
      stats,
      releasesBytes: true, // written at once (a buffered file writes bytes through too)
      event(e) {
        if (e.kind === "output") stats.events++;
        else stats.dropped++;
        w.event(e);
      },
      end() {},
    };
  }
  // A durable file writes each line through at once: the writer may hand it the bytes of
  // a line from its reused buffer (a buffered file keeps strings, joined per MiB).
  const sink = out.durable ? { write: (s: string) => out.write(s), writeBytes: (b: Uint8Array) => out.write(b) } : out;
  const w = new AsciicastWriter(sink, format === "v3" ? 3 : 2, opts);
  if (writeHeader) w.header(header);
  return Object.assign(w, { releasesBytes: true }); // a held-back partial character is copied (utf8.ts)
}
