// The headless recorder's emulated screen, in a worker: parsing every byte with
// @xterm/headless is most of a recording's CPU time (line-feed-heavy output parses at
// ~30 MB/s), and doing it on the thread that drains the pty would slow the program
// being recorded. Replies (xterm's and our OSC 7501 answers) are posted back in stream
// order, so "7501 reply before DA1 reply" still holds.

import { Screen, type ScreenChanges } from "../screen/screen.ts";
import { type Answer, feedWithAnswers } from "./feed.ts";
import { GarbageWatch } from "../runtime.ts";

export type ToWorker =
  | { type: "init"; cols: number; rows: number; consumed?: SharedArrayBuffer }
  | { type: "data"; bytes: Uint8Array; answers: Answer[] }
  | { type: "resize"; cols: number; rows: number }
  | { type: "rows"; id: number }
  | { type: "mark" }
  | { type: "changes"; id: number }
  | { type: "close" };

export type FromWorker =
  | { type: "ready" }
  | { type: "reply"; data: string | Uint8Array }
  | { type: "rows"; id: number; rows: string[] }
  | { type: "changes"; id: number; changes: ScreenChanges }
  | { type: "closed" };

export type { ScreenChanges };

const post = (m: FromWorker) => (self as unknown as { postMessage(m: unknown): void }).postMessage(m);
let screen: Screen | null = null;
/** Bytes parsed so far (wrapping int32), shared with the recorder: its back-pressure reads it. */
let consumed: Int32Array | null = null;
/**
 * Parsing a flood makes garbage in this thread's own heap (xterm's per-write strings and
 * buffers), which Bun's collector let grow by ~27 MB on `seq 1 3000000`: collected when
 * the process has grown by 1 MB, looked at after every 64 KB parsed (1.5 million green
 * lines, compiled binary: 83 MiB peak against 89 MiB with 8 MB every 256 KB, CPU within noise).
 */
const garbage = new GarbageWatch(1 << 20, 0); // no floor: as the recorder's (recorder.ts)
let sinceCheck = 0;

(self as unknown as { onmessage: (e: { data: ToWorker }) => void }).onmessage = (e) => {
  const m = e.data;
  switch (m.type) {
    case "init":
      screen = new Screen(m.cols, m.rows, { onReply: (data) => post({ type: "reply", data }) });
      consumed = m.consumed ? new Int32Array(m.consumed) : null;
      post({ type: "ready" });
      return;
    case "data":
      feedWithAnswers(screen!, m.bytes, m.answers, (data) => post({ type: "reply", data }));
      if ((sinceCheck += m.bytes.length) >= 64 << 10) sinceCheck = 0, garbage.check();
      if (consumed) {
        Atomics.add(consumed, 0, m.bytes.length);
        Atomics.notify(consumed, 0);
      }
      return;
    case "resize":
      screen!.resize(m.cols, m.rows);
      return;
    case "rows":
      post({ type: "rows", id: m.id, rows: screen!.rows() });
      return;
    case "mark":
      screen!.mark();
      return;
    case "changes":
      post({ type: "changes", id: m.id, changes: screen!.changes() });
      return;
    case "close":
      screen?.dispose();
      post({ type: "closed" });
      (self as unknown as { close(): void }).close();
  }
};
