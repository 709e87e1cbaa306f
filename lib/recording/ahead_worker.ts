// The reading side of ahead.ts: opens the recording, packs its events into batches,
// and runs at most AHEAD batches ahead of the caller.
import { openRecording } from "./open.ts";
import { AHEAD, type Batch, BATCH_BYTES, BATCH_EVENTS, Code, type FromAhead, STRIDE, type ToAhead } from "./ahead.ts";
import type { Event } from "./model.ts";
import { sha256File } from "./source.ts";
import { errorToData } from "../errors.ts";

const scope = self as unknown as {
  postMessage(m: FromAhead, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToAhead>) => void) | null;
};

let credits = AHEAD;
let wake: (() => void) | null = null;
class Packer {
  private events: Event[] = [];
  private size = 0;

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
    const own = only !== null && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength &&
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

async function send(p: Packer): Promise<void> {
  while (credits === 0) await new Promise<void>((r) => (wake = r));
  credits--;
  const { batch, transfer } = p.take();
  scope.postMessage({ type: "batch", batch }, transfer);
}

async function run(m: Extract<ToAhead, { type: "open" }>): Promise<void> {
  let warnings: string[] = [];
  const p = new Packer();
  try {
    const rec = await openRecording(m.path, m.opts);
    warnings = rec.warnings;
    scope.postMessage({ type: "header", format: rec.format, header: rec.header });
    for await (const e of rec.events) {
      // A big event travels alone (below), so the batch before it goes first.
      if ("bytes" in e && e.bytes.length >= BATCH_BYTES && !p.empty) await send(p);
      if (p.add(e)) await send(p);
    }
    if (!p.empty) await send(p);
    scope.postMessage({ type: "end", warnings: rec.warnings });
    scope.postMessage({ type: "hash", sha256: m.hash ? sha256File(m.path) : "" });
  } catch (err) {
    // Events read before the error go first: the caller meets it where the reader did.
    if (!p.empty) await send(p);
    scope.postMessage({ type: "error", error: errorToData(err), warnings });
  }
}

scope.onmessage = (e) => {
  const m = e.data;
  if (m.type === "credit") {
    credits++;
    const w = wake;
    wake = null;
    w?.();
  } else void run(m);
};
