// Scanner → parser → store, with time. Turns a byte stream (plus exit events from a
// recording) into the protocol events `pstlab scan` prints, and keeps the record
// store that `status`, detectors and the recorder read. Section and D-numbers:
// docs/osc7501.md.

import { type ScanEvent, Scanner } from "./scanner.ts";
import { parseBody, type ParseNote, type ReportFields } from "./parse.ts";
import { type Lifecycle, type Source, Store } from "./store.ts";
import { mapOsc94 } from "./osc94.ts";
import { dispositionOf, type Reason } from "./reasons.ts";

export type ProtocolEvent =
  | ReportFields & {
    t: number;
    type: "report";
    source: Source;
    /** For clear: the ids it removed (null = root). */
    removed: (string | null)[];
    /** Records the LRU cap evicted to make room. */
    evicted: (string | null)[];
    notes: ParseNote[];
    depth: number;
  }
  | { t: number; type: "discarded" | "ignored"; reason: Reason; detail: string; raw: string; depth: number }
  | { t: number; type: "query"; reply: string; terminator: "st" | "bel"; depth: number }
  | { t: number; type: "lifecycle"; event: Lifecycle; removed: (string | null)[] };

const utf8 = new TextDecoder();

/** D12: `133;A` with or without parameters, except right/continuation/secondary prompts. */
export function isNewPrompt(payload: string): boolean {
  if (payload !== "A" && !payload.startsWith("A;")) return false;
  for (const p of payload.split(";").slice(1)) {
    if (p === "k=r" || p === "k=c" || p === "k=s") return false;
  }
  return true;
}

export class Tracker {
  readonly store: Store;
  /** D19: OSC 9;4 maps onto the root until the first OSC 7501 report; RIS re-enables it. */
  private map94 = true;
  private t = 0;
  private scanner: Scanner;
  /** Reports applied so far (OSC 7501 and mapped OSC 9;4). */
  reports = 0;

  constructor(private readonly onEvent: (e: ProtocolEvent) => void = () => {}, cap?: number) {
    this.store = new Store(cap);
    this.scanner = new Scanner((e) => this.handle(e));
  }

  /** Output bytes written at time t (seconds). */
  feed(bytes: Uint8Array, t: number): void {
    this.t = t;
    this.scanner.feed(bytes);
  }

  /** The attached process exited (a recording's `x` event). */
  exit(t: number): void {
    this.lifecycle("exit", t);
  }

  /** End of input: flags a report left without its terminator. */
  end(t: number): void {
    this.t = t;
    this.scanner.end();
  }

  private lifecycle(event: Lifecycle, t: number): void {
    const removed = this.store.lifecycle(event);
    this.onEvent({ t, type: "lifecycle", event, removed });
  }

  private handle(e: ScanEvent): void {
    const t = this.t;
    switch (e.type) {
      case "ris":
        this.map94 = true;
        this.lifecycle("ris", t);
        return;
      case "osc133":
        if (isNewPrompt(e.payload)) this.lifecycle("prompt", t);
        return;
      case "osc9": {
        if (!this.map94) return;
        const m = mapOsc94(e.payload);
        if (m === null) return;
        if (m === "clear-root") {
          const removed = this.store.removeRoot();
          this.onEvent({
            t,
            type: "report",
            id: null,
            state: "clear",
            kind: null,
            progress: null,
            app: null,
            title: null,
            msg: null,
            source: "osc9;4",
            removed,
            evicted: [],
            notes: [],
            depth: e.depth,
          });
          this.reports++;
          return;
        }
        const { evicted } = this.store.apply(m, t, "osc9;4");
        this.reports++;
        this.onEvent({ t, type: "report", ...m, source: "osc9;4", removed: [], evicted, notes: [], depth: e.depth });
        return;
      }
      case "osc7501-error":
        this.onEvent({
          t,
          type: dispositionOf(e.reason),
          reason: e.reason,
          detail: scanDetail(e.reason, e.truncated),
          raw: utf8.decode(e.raw),
          depth: e.depth,
        });
        return;
      case "osc7501": {
        const r = parseBody(e.body, e.terminator);
        if (r.type === "query") {
          this.onEvent({ t, type: "query", reply: utf8.decode(r.reply), terminator: r.terminator, depth: e.depth });
          return;
        }
        if (r.type === "rejected") {
          this.onEvent({
            t,
            type: r.disposition,
            reason: r.reason,
            detail: r.detail,
            raw: utf8.decode(e.raw),
            depth: e.depth,
          });
          return;
        }
        this.map94 = false;
        const { removed, evicted } = this.store.apply(r.report, t, "osc7501");
        this.reports++;
        this.onEvent({
          t,
          type: "report",
          ...r.report,
          source: "osc7501",
          removed,
          evicted,
          notes: r.notes,
          depth: e.depth,
        });
      }
    }
  }
}

function scanDetail(reason: string, truncated: boolean): string {
  switch (reason) {
    case "sequence-too-long":
      return `sequence longer than 4096 bytes${truncated ? " (raw shown up to the cap)" : ""}`;
    case "aborted-by-esc":
      return "ESC not followed by \\ inside the body (D5)";
    case "aborted-by-can":
      return "CAN inside the body";
    case "aborted-by-sub":
      return "SUB inside the body";
    case "unterminated":
      return "input ended before the terminator";
    case "missing-separator":
      return "ESC ] 7501 terminated without ;";
    default:
      return reason;
  }
}
