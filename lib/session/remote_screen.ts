// The recorder's side of screen_worker.ts. If the worker cannot start (an unusual
// runtime or packaging), the same screen runs in-process instead: slower, never silent.
//
// A bounded queue (issue 25): a program that floods its terminal (`seq 1 3000000`) is
// read faster than the worker parses, and every read posted to the worker waited in its
// message queue — the recorder's peak memory grew with the flood. The worker counts the
// bytes it parsed in a shared counter; when more than IN_FLIGHT bytes are posted and not
// yet parsed, write() waits for it (Atomics.wait), so the recorder stops reading the pty
// and the program blocks in its own write, as it would on a slow terminal.
//
// Started when needed (issue 25, `lazy`): until a read holds more than plain text, or
// someone asks for the screen, no emulator runs at all and only the bytes a fresh screen
// needs to catch up are kept (plain_tail.ts): `record --headless -- seq 1 3000000` starts
// no worker.

import type { FromWorker, ScreenChanges, ToWorker } from "./screen_worker.ts";
import { Screen } from "../screen/screen.ts";
import { workerUrl } from "../runtime.ts";
import { type Answer, feedWithAnswers } from "./feed.ts";
import { PlainTail } from "./plain_tail.ts";
import { SCROLLBACK } from "../screen/scrollback.ts";
import { later, type Timer } from "../timers.ts";

/** The most bytes posted to the worker and not yet parsed before write() waits. */
export const IN_FLIGHT = 1 << 20;
/** A worker that parses nothing for this long is not waited for again (it is stuck or gone). */
const STALL_MS = 5000;

export class RemoteScreen {
  /** Bytes parsed by the worker (wrapping int32); null: no back-pressure (in-process, or no SharedArrayBuffer). */
  private consumed: Int32Array | null = null;
  /** Bytes posted (wrapping int32, as the counter). */
  private sent = 0;
  private worker: Worker | null = null;
  private local: Screen | null = null;
  private ready = false;
  private early: ToWorker[] = []; // sent before the worker said it is running
  private waiting = new Map<number, (rows: string[]) => void>();
  private waitingChanges = new Map<number, (c: ScreenChanges) => void>();
  private nextId = 0;
  private closed: Promise<void>;
  private readonly onFallback: (why: string) => void;
  private resolveClosed!: () => void;

  /** Why the screen runs in-process (null: in its worker); the caller decides whether to say so. */
  fallback: string | null = null;

  /** Not started yet: the plain text a fresh screen is fed first (null once started). */
  private tail: PlainTail | null = null;

  constructor(
    private readonly cols: number,
    private readonly rowCount: number,
    private readonly onReply: (data: string | Uint8Array) => void,
    private readonly opts: { inProcess?: boolean; onFallback?: (why: string) => void; lazy?: boolean } = {},
  ) {
    this.onFallback = opts.onFallback ?? (() => {});
    this.closed = new Promise((r) => (this.resolveClosed = r));
    if (opts.lazy) this.tail = new PlainTail(rowCount + SCROLLBACK);
    else this.start();
  }

  /** Whether an emulator runs (in its worker or here); false while a lazy screen had only plain text. */
  get started(): boolean {
    return this.tail === null;
  }

  /** Starts the screen and feeds it the plain text kept so far. */
  private start(): void {
    const tail = this.tail;
    this.tail = null;
    this.begin();
    const kept = tail?.take();
    if (kept?.length) this.write(kept, [], true);
  }

  private begin(): void {
    const { cols, rowCount, onReply, opts } = this;
    if (opts.inProcess) {
      this.goLocal("");
      return;
    }
    try {
      this.worker = new Worker(workerUrl("lib/session/screen_worker.ts"), { type: "module" });
    } catch (e) {
      this.goLocal((e as Error).message);
      return;
    }
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      if (m.type === "ready") {
        this.ready = true;
        this.early = [];
      } else if (m.type === "reply") onReply(m.data);
      else if (m.type === "rows") {
        this.waiting.get(m.id)?.(m.rows);
        this.waiting.delete(m.id);
      } else if (m.type === "changes") {
        this.waitingChanges.get(m.id)?.(m.changes);
        this.waitingChanges.delete(m.id);
      } else if (m.type === "closed") this.resolveClosed();
    };
    this.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault?.();
      if (!this.ready) this.goLocal(e.message);
    };
    try {
      this.consumed = new Int32Array(new SharedArrayBuffer(4));
    } catch {
      this.consumed = null; // no shared memory here: unbounded, as before
    }
    this.send({ type: "init", cols, rows: rowCount, consumed: this.consumed?.buffer as SharedArrayBuffer | undefined });
  }

  /** Runs the screen in this thread from now on, replaying what the worker never ran. */
  private goLocal(why: string): void {
    if (why) {
      this.fallback = why;
      this.onFallback(why);
    }
    this.worker?.terminate();
    this.worker = null;
    this.consumed = null;
    this.local = new Screen(this.cols, this.rowCount, { onReply: (d) => this.onReply(d) });
    const replay = this.early.filter((m) => m.type !== "init");
    this.early = [];
    for (const m of replay) this.handleLocal(m);
  }

  private handleLocal(m: ToWorker): void {
    const s = this.local!;
    if (m.type === "data") feedWithAnswers(s, m.bytes, m.answers, (d) => this.onReply(d));
    else if (m.type === "resize") s.resize(m.cols, m.rows);
    else if (m.type === "rows") {
      this.waiting.get(m.id)?.(s.rows());
      this.waiting.delete(m.id);
    } else if (m.type === "mark") s.mark();
    else if (m.type === "changes") {
      this.waitingChanges.get(m.id)?.(s.changes());
      this.waitingChanges.delete(m.id);
    } else if (m.type === "close") {
      s.dispose();
      this.resolveClosed();
    }
  }

  private send(m: ToWorker, give = false): void {
    if (this.tail) this.start(); // asked for the screen (rows, a resize…) before any query
    if (this.local) return this.handleLocal(m);
    if (!this.ready) this.early.push(m); // kept whole: a worker that fails to start has them replayed here
    else if (
      give && m.type === "data" && m.bytes.buffer instanceof ArrayBuffer && m.bytes.byteOffset === 0 &&
      m.bytes.byteLength === m.bytes.buffer.byteLength
    ) {
      // The buffer moves to the worker instead of being copied (a copy per read under a flood).
      return this.worker!.postMessage(m, [m.bytes.buffer]);
    }
    this.worker!.postMessage(m);
  }

  /**
   * Feeds a read. `give`: the caller gives the bytes away (keeps no reference to them):
   * their buffer may be transferred to the worker, which leaves the caller's view empty.
   */
  write(bytes: Uint8Array, answers: Answer[], give = false): void {
    // Plain text (no query can be in it, so no answer either) is kept, not parsed.
    if (this.tail && answers.length === 0 && this.tail.push(bytes)) return;
    const n = bytes.length;
    this.send({ type: "data", bytes, answers }, give);
    if (this.consumed === null) return;
    this.sent = (this.sent + n) | 0;
    this.waitForWorker();
  }

  /** Bytes posted to the worker and not yet parsed (0 in-process, or without shared memory). */
  inFlight(): number {
    return this.consumed === null ? 0 : (this.sent - Atomics.load(this.consumed, 0)) | 0;
  }

  /** Blocks while more than IN_FLIGHT bytes wait for the worker (see the top of the file). */
  private waitForWorker(): void {
    // Not before the worker runs: one that fails to start reports it by an event this
    // thread must be free to receive (then the screen runs here, goLocal).
    if (!this.ready) return;
    const c = this.consumed!;
    let stalled = 0;
    for (;;) {
      const done = Atomics.load(c, 0);
      if (((this.sent - done) | 0) <= IN_FLIGHT) return;
      let r: string;
      try {
        r = Atomics.wait(c, 0, done, 100);
      } catch {
        this.consumed = null; // this thread may not wait (a runtime that forbids it): unbounded
        return;
      }
      if (r !== "timed-out") stalled = 0;
      else if ((stalled += 100) >= STALL_MS) {
        this.consumed = null;
        return;
      }
    }
  }

  resize(cols: number, rows: number): void {
    this.send({ type: "resize", cols, rows });
  }

  /** The screen after every byte sent so far. */
  rows(): Promise<string[]> {
    const id = this.nextId++;
    return new Promise((r) => {
      this.waiting.set(id, r);
      this.send({ type: "rows", id });
    });
  }

  /** Remembers the screen after every byte sent so far (for `changes`). */
  mark(): void {
    this.send({ type: "mark" });
  }

  /** The screen after every byte sent so far, with what changed since the last mark. */
  changes(): Promise<ScreenChanges> {
    const id = this.nextId++;
    return new Promise((r) => {
      this.waitingChanges.set(id, r);
      this.send({ type: "changes", id });
    });
  }

  /** Waits until everything sent was parsed (its last replies are delivered). */
  async close(): Promise<void> {
    if (this.tail) return; // never started: nothing to answer, no worker to end
    this.send({ type: "close" });
    let timer: Timer | undefined;
    await Promise.race([this.closed, new Promise<void>((r) => (timer = later(r, 3000)))]);
    timer?.clear();
    this.worker?.terminate();
  }
}
