// Reading on a second thread (issue 25, "the floor"): a big capture is read and decoded
// (JSON lines → events) on a worker while the caller emulates what came before. On the
// dense 22.6 MB capture reading alone took longer than the raw @xterm/headless parse of
// its bytes, so in sequence the two could never come within 0.7 of the parse; side by
// side the slower one sets the pace.
//
// The worker packs events into batches (one byte buffer and one column of numbers,
// transferred, not cloned: 200,000 small event objects through structured cloning cost
// more than they saved) and may run at most AHEAD batches ahead of the caller, so memory
// stays bounded whatever the capture's length. Events, warnings and errors are the
// same as openRecording's, in the same order: an error is thrown at the event where the
// in-process reader would throw it (lib/recording/ahead_test.ts compares both on every
// bundled and shared capture and on broken ones).

import * as fs from "node:fs";
import { setImmediate } from "node:timers";
import type { Event, EventRuns, Recording } from "./model.ts";
import { type OpenOptions, openRecording } from "./open.ts";
import { type ErrorData, errorFromData } from "../errors.ts";
import { noteInput } from "../inputs.ts";

/** Bytes of output in a batch before it is sent. */
export const BATCH_BYTES = 256 << 10;
/** Events in a batch before it is sent (markers and resizes carry no bytes). */
export const BATCH_EVENTS = 4096;
/** Batches the worker may have sent and the caller not yet started on. */
export const AHEAD = 3;
/**
 * Smaller regular files are read in-process: a second thread costs its start and a second
 * JIT warm-up (~0.1 s for the compiled binary, ~0.25 s with report's detectors beside
 * it), which only a long analysis earns back. Whole-process `pstlab report`, 15
 * detectors, compiled, 2-core machine, in-process → on two threads: a 2 MB capture 0.21 →
 * 0.31 s, the demo capture ×8 (9 MB, 1.6 h) 0.75 → 0.95 s, the dense bench capture
 * (22.6 MB) 1.00 → 1.08 s; the dense shape at 50.9 MB 2.08 → 1.76 s, the demo ×43 (50 MB,
 * 8.5 h) 3.2 → 2.3 s.
 */
export const AHEAD_MIN_BYTES = 32 << 20;

/** Column layout: 4 numbers per event. */
export const STRIDE = 4;
export const enum Code {
  Output = 0,
  Input = 1,
  Resize = 2,
  Marker = 3,
  Exit = 4,
  Other = 5,
}

export interface Batch {
  /** STRIDE numbers per event: t, Code, then a/b (byte offset/length; cols/rows; string index; status). */
  nums: Float64Array;
  count: number;
  bytes: ArrayBuffer;
  strings: string[];
}

export type FromAhead =
  | { type: "header"; format: Recording["format"]; header: Recording["header"] }
  | { type: "batch"; batch: Batch }
  | { type: "end"; warnings: string[] }
  | { type: "side"; result: unknown }
  | { type: "hash"; sha256: string }
  | { type: "error"; error: ErrorData; warnings: string[] };

export type ToAhead =
  | { type: "open"; path: string; opts: OpenOptions; hash: boolean; side: boolean }
  /** After the header (when opened with `side`): the side's payload, or null for none. */
  | { type: "side"; payload: unknown }
  | { type: "credit" };

/** A recording whose file's sha256 (of the bytes read) is known once its events are consumed. */
export interface AheadRecording extends Recording, Partial<EventRuns> {
  /**
   * After `events` is consumed: the file's sha256 ("" when not hashed), or null when read
   * in-process. The worker hashes after its last event, while the caller still works.
   */
  sha256(): Promise<string | null>;
  /**
   * Hands the worker's side (ahead_read.ts AheadSide) its payload, before the events are
   * read; the result comes once they are all consumed. Undefined when read in-process
   * (or opened without `side`): then nothing runs beside the reader.
   */
  beside?: (payload: unknown) => Promise<unknown>;
  /**
   * Stops the worker, whatever it was doing: a caller that fails between opening and the
   * last event (a manifest that does not load) must not leave it keeping the process alive.
   */
  close(): void;
}

/** Whether the path is worth a worker: a regular file at least `min` bytes long. */
function worthIt(path: string, opts: OpenOptions, min: number): boolean {
  if (path === "-" || opts.timing || opts.logIn) return false;
  try {
    const st = fs.statSync(path);
    return st.isFile() && st.size >= min;
  } catch {
    return false; // the reader says why
  }
}

/**
 * openRecording, with the reading on a worker when the file is big enough (`min`;
 * PSTLAB_READ_AHEAD_MIN overrides it, for tests and bench). `worker`: the entry's URL (one
 * that calls ahead_read.ts serveAhead). `hash`: the worker also hashes the file after
 * reading it, on its own core. `side`: the caller will hand the entry's side a payload
 * (`beside`) once it has the header.
 */
export function openRecordingAhead(
  path: string,
  opts: OpenOptions,
  o: { worker: string; hash?: boolean; min?: number; side?: boolean },
): Promise<AheadRecording> {
  const env = process.env.PSTLAB_READ_AHEAD_MIN;
  const min = o.min ?? (env !== undefined && /^[0-9]+$/.test(env) ? Number(env) : AHEAD_MIN_BYTES);
  if (!worthIt(path, opts, min)) return inProcess(path, opts);
  let worker: Worker;
  try {
    worker = new Worker(o.worker, { type: "module" });
  } catch {
    return inProcess(path, opts); // no workers here: the same result, one thread
  }
  noteInput(path); // the output gate must know it, though another thread opens it
  return new Ahead(worker, path).open(opts, o.hash ?? false, o.side ?? false);
}

async function inProcess(path: string, opts: OpenOptions): Promise<AheadRecording> {
  const rec = await openRecording(path, opts);
  // A pipe's hash is that of the bytes read (open.ts); a file's is read by its path.
  return { ...rec, sha256: () => Promise.resolve(rec.digest?.() ?? null), close: () => {} };
}

class Ahead {
  private queue: FromAhead[] = [];
  private wake: (() => void) | null = null;
  private failed: Error | null = null;
  /** What follows the last event: the side's result (when asked for) and the hash. */
  private after: Promise<{ side: unknown; sha256: string | null }>;
  /** Called once the events end: true when all were read (false: failed or stopped early). */
  private ended!: (complete: boolean) => void;
  private readonly warnings: string[] = [];

  constructor(private readonly worker: Worker, private readonly path: string) {
    // Asked for only after the events: waiting for it before would wait for ever.
    const ended = new Promise<boolean>((r) => (this.ended = r));
    this.after = ended.then((complete) => complete ? this.trailer() : { side: undefined, sha256: null });
    worker.onmessage = (e: MessageEvent<FromAhead>) => this.push(e.data);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault?.();
      this.failed = new Error(`read-ahead worker failed: ${e.message}`);
      this.wake?.();
    };
  }

  private push(m: FromAhead): void {
    this.queue.push(m);
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async take(): Promise<FromAhead> {
    while (this.queue.length === 0) {
      if (this.failed) throw this.failed;
      await new Promise<void>((r) => (this.wake = r));
    }
    return this.queue.shift()!;
  }

  async open(opts: OpenOptions, hash: boolean, side: boolean): Promise<AheadRecording> {
    this.worker.postMessage({ type: "open", path: this.path, opts, hash, side } satisfies ToAhead);
    let first: FromAhead;
    try {
      first = await this.take();
    } catch {
      // The worker could not start (an odd runtime or packaging): read in-process, as
      // small files are, rather than fail. It never read an event, so nothing is lost.
      this.worker.terminate();
      return inProcess(this.path, opts);
    }
    if (first.type === "error") {
      this.worker.terminate();
      throw errorFromData(first.error);
    }
    if (first.type !== "header") throw new Error(`read-ahead: unexpected ${first.type} before the header`);
    this.sideWaits = side;
    const runs = this.runs();
    return {
      format: first.format,
      path: this.path,
      header: first.header,
      events: flatten(runs),
      runs,
      warnings: this.warnings,
      sha256: () => this.after.then((a) => a.sha256),
      close: () => this.close(),
      ...(side ? { beside: (payload: unknown) => this.handSide(payload) } : {}),
    };
  }

  private close(): void {
    this.worker.terminate();
    this.failed ??= new Error("read-ahead: closed");
    this.wake?.();
  }

  /** Whether the side still waits for its payload (opened with `side`, none handed yet). */
  private sideWaits = false;

  private handSide(payload: unknown): Promise<unknown> {
    if (!this.sideWaits) throw new Error("read-ahead: the side's payload goes before the events, once");
    this.sideWaits = false;
    this.worker.postMessage({ type: "side", payload } satisfies ToAhead);
    return this.after.then((a) => a.side);
  }

  private async *runs(): AsyncIterable<readonly Event[]> {
    let done = false;
    // A side never handed its payload runs nothing (the worker waits for one).
    if (this.sideWaits) {
      this.sideWaits = false;
      this.worker.postMessage({ type: "side", payload: null } satisfies ToAhead);
    }
    try {
      for (;;) {
        const m = await this.take();
        if (m.type === "end") {
          this.warnings.push(...m.warnings);
          done = true;
          this.ended(true);
          return;
        }
        if (m.type === "error") {
          this.warnings.push(...m.warnings);
          throw errorFromData(m.error);
        }
        if (m.type !== "batch") throw new Error(`read-ahead: unexpected ${m.type}`);
        // Starting on this batch frees a place ahead: the worker reads on meanwhile.
        this.worker.postMessage({ type: "credit" } satisfies ToAhead);
        // A turn of the event loop per batch, as source.ts takes per block: with batches
        // always queued, take() resolves at once and only microtasks would run, so a
        // SIGINT/SIGTERM would wait for the whole analysis (and its output be left).
        await new Promise((r) => setImmediate(r));
        yield unpack(m.batch);
      }
    } finally {
      // Failed, or the caller stopped early (`--until`): the worker has nothing left to do.
      if (!done) {
        this.worker.terminate();
        this.ended(false);
      }
    }
  }

  private async trailer(): Promise<{ side: unknown; sha256: string | null }> {
    try {
      let m = await this.take();
      let side: unknown = undefined;
      if (m.type === "side") {
        side = m.result;
        m = await this.take();
      }
      if (m.type !== "hash") throw new Error(`read-ahead: unexpected ${m.type}`);
      return { side, sha256: m.sha256 };
    } finally {
      this.worker.terminate();
    }
  }
}

async function* flatten(runs: AsyncIterable<readonly Event[]>): AsyncIterable<Event> {
  for await (const run of runs) yield* run;
}

/** The events of one batch; output bytes are views into the batch's buffer. */
export function unpack(b: Batch): Event[] {
  const n = b.nums, all = new Uint8Array(b.bytes);
  const out: Event[] = new Array(b.count);
  for (let i = 0; i < b.count; i++) {
    const j = i * STRIDE, t = n[j];
    switch (n[j + 1] as Code) {
      case Code.Output:
      case Code.Input: {
        const bytes = all.subarray(n[j + 2], n[j + 2] + n[j + 3]);
        out[i] = { t, kind: n[j + 1] === Code.Output ? "output" : "input", bytes };
        break;
      }
      case Code.Resize:
        out[i] = { t, kind: "resize", cols: n[j + 2], rows: n[j + 3] };
        break;
      case Code.Marker:
        out[i] = { t, kind: "marker", label: b.strings[n[j + 2]] };
        break;
      case Code.Exit:
        out[i] = { t, kind: "exit", status: n[j + 2] };
        break;
      case Code.Other:
        out[i] = { t, kind: "other", code: b.strings[n[j + 2]], data: b.strings[n[j + 3]] };
        break;
    }
  }
  return out;
}
