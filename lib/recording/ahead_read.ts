// The reading side of ahead.ts, run by a worker entry (replay/ahead_worker.ts): opens the
// recording, packs its events into batches, and runs at most AHEAD batches ahead of the
// caller. The entry may hand every event to a `side` as well — work that needs the events
// but not the caller's state — and its result goes back after the last batch.
import { openRecording } from "./open.ts";
import { AHEAD, type Batch, BATCH_BYTES, BATCH_EVENTS, Code, type FromAhead, STRIDE, type ToAhead } from "./ahead.ts";
import type { Event, Header } from "./model.ts";
import { sha256File } from "./source.ts";
import { errorToData } from "../errors.ts";
import { GarbageWatch, threadHeap } from "../runtime.ts";

const scope = self as unknown as {
  postMessage(m: FromAhead, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToAhead>) => void) | null;
};

let credits = AHEAD;
let wake: (() => void) | null = null;
/** The side's payload, when the caller has sent it (undefined: not yet). */
let payload: unknown = undefined;
let payloadCame: (() => void) | null = null;
class Packer {
  private events: Event[] = [];
  private size = 0;

  /** `lend`: a big event's own buffer may be transferred (nothing else here keeps its bytes). */
  constructor(private readonly lend: boolean) {}

  add(e: Event): boolean {
    this.events.push(e);
    if (e.kind === "output" || e.kind === "input") this.size += e.bytes.length;
    return this.size >= BATCH_BYTES || this.events.length >= BATCH_EVENTS;
  }

  get empty(): boolean {
    return this.events.length === 0;
  }

  take(): { batch: Batch; transfer: Transferable[] } {
    const count = this.events.length;
    const nums = new Float64Array(count * STRIDE);
    // One big event alone (a 64 MiB write): its own buffer goes over as it is, not copied.
    const only = count === 1 && "bytes" in this.events[0] ? this.events[0].bytes : null;
    const own = this.lend && only !== null && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength &&
      only.buffer instanceof ArrayBuffer;
    const bytes = own ? only as Uint8Array<ArrayBuffer> : new Uint8Array(this.size);
    const strings: string[] = [];
    let at = 0;
    for (let i = 0; i < count; i++) {
      const e = this.events[i], j = i * STRIDE;
      nums[j] = e.t;
      switch (e.kind) {
        case "output":
        case "input":
          nums[j + 1] = e.kind === "output" ? Code.Output : Code.Input;
          nums[j + 2] = at;
          nums[j + 3] = e.bytes.length;
          if (!own) bytes.set(e.bytes, at);
          at += e.bytes.length;
          break;
        case "resize":
          nums[j + 1] = Code.Resize;
          nums[j + 2] = e.cols;
          nums[j + 3] = e.rows;
          break;
        case "marker":
          nums[j + 1] = Code.Marker;
          nums[j + 2] = strings.push(e.label) - 1;
          break;
        case "exit":
          nums[j + 1] = Code.Exit;
          nums[j + 2] = e.status;
          break;
        case "other":
          nums[j + 1] = Code.Other;
          nums[j + 2] = strings.push(e.code) - 1;
          nums[j + 3] = strings.push(e.data) - 1;
          break;
      }
    }
    this.events = [];
    this.size = 0;
    return {
      batch: { nums, count, bytes: bytes.buffer, strings },
      transfer: [nums.buffer, bytes.buffer],
    };
  }
}

/**
 * This thread's collector watch: its heap is its own (Bun), and the main thread's watch
 * collects only there; without one, the strings of every line read piled up here. It
 * watches this thread's heap, not the process (runtime.ts threadHeap), every 8 MB: on the
 * 200 MB bench capture (bench/memory.ts, 4 runs each) the peak was 183 MB watching the
 * process at 16 MB, 172 MB at 8 MB of heap (50 MB capture: 165 / 163 MB), 168 MB at
 * 4 MB, which cost ~4 % more time.
 */
const garbage = new GarbageWatch(8 << 20, 0, threadHeap());

async function send(p: Packer): Promise<void> {
  garbage.check();
  while (credits === 0) await new Promise<void>((r) => (wake = r));
  credits--;
  const { batch, transfer } = p.take();
  scope.postMessage({ type: "batch", batch }, transfer);
}

/** Work beside the reader: every event (after it is packed), then a result to send back. */
export interface AheadSide {
  /** `garbage`: the reader's thread's collector watch (lib/runtime.ts), one per thread. */
  start(header: Header, payload: unknown, garbage: GarbageWatch): void;
  event(e: Event): void;
  finish(): { result: unknown; transfer: Transferable[] };
}

async function run(m: Extract<ToAhead, { type: "open" }>, side: AheadSide | null): Promise<void> {
  let warnings: string[] = [];
  let beside: AheadSide | null = null;
  // A side keeps bytes (the tail's last 8 KB): a buffer it holds must not be transferred away.
  const p = new Packer(!(m.side && side));
  try {
    const rec = await openRecording(m.path, m.opts);
    warnings = rec.warnings;
    scope.postMessage({ type: "header", format: rec.format, header: rec.header });
    if (m.side) {
      // The caller decides what runs beside once it has the header (report: the manifest).
      while (payload === undefined) await new Promise<void>((r) => (payloadCame = r));
      if (payload !== null && side) {
        beside = side;
        beside.start(rec.header, payload, garbage);
      }
    }
    for await (const e of rec.events) {
      // A big event travels alone (below), so the batch before it goes first.
      if ("bytes" in e && e.bytes.length >= BATCH_BYTES && !p.empty) await send(p);
      beside?.event(e);
      if (p.add(e)) await send(p);
    }
    if (!p.empty) await send(p);
    scope.postMessage({ type: "end", warnings: rec.warnings });
    if (beside) {
      const { result, transfer } = beside.finish();
      scope.postMessage({ type: "side", result }, transfer);
    }
    scope.postMessage({ type: "hash", sha256: m.hash ? sha256File(m.path) : "" });
  } catch (err) {
    // Events read before the error go first: the caller meets it where the reader did.
    if (!p.empty) await send(p);
    scope.postMessage({ type: "error", error: errorToData(err), warnings });
  }
}

/** Serves ahead.ts's messages in this worker; `side`: the entry's work beside the reader. */
export function serveAhead(side: AheadSide | null = null): void {
  scope.onmessage = (e) => {
    const m = e.data;
    if (m.type === "credit") {
      credits++;
      const w = wake;
      wake = null;
      w?.();
    } else if (m.type === "side") {
      payload = m.payload;
      payloadCame?.();
    } else void run(m, side);
  };
}
