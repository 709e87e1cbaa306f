// The headless recorder's emulated screen, in a worker: parsing every byte with
// @xterm/headless is most of a recording's CPU time (line-feed-heavy output parses at
// ~30 MB/s), and doing it on the thread that drains the pty would slow the program
// being recorded. Replies (xterm's and our OSC 7501 answers) are posted back in stream
// order, so "7501 reply before DA1 reply" still holds.

import { Screen } from "../screen/screen.ts";
import { type Answer, feedWithAnswers } from "./feed.ts";

export type ToWorker =
  | { type: "init"; cols: number; rows: number }
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

export type ScreenChanges = ReturnType<Screen["changes"]>;

const post = (m: FromWorker) => (self as unknown as { postMessage(m: unknown): void }).postMessage(m);
let screen: Screen | null = null;

(self as unknown as { onmessage: (e: { data: ToWorker }) => void }).onmessage = (e) => {
  const m = e.data;
  switch (m.type) {
    case "init":
      screen = new Screen(m.cols, m.rows, { onReply: (data) => post({ type: "reply", data }) });
      post({ type: "ready" });
      return;
    case "data":
      feedWithAnswers(screen!, m.bytes, m.answers, (data) => post({ type: "reply", data }));
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
