// Where pstlab itself lives at run time: inside a `bun build --compile` binary every
// module is bundled into the entry, and worker entry points (extra entries in
// package.json "build") sit at their paths from the project root; from a checkout this
// file is lib/runtime.ts.
import * as path from "node:path";

export function isCompiled(): boolean {
  return import.meta.url.includes("/$bunfs/");
}

/**
 * Every worker entry point, by its path from the project root: the compiled binary must
 * bundle each as an extra entry (package.json "build", bench/pyte.ts, the demo test), and
 * lib/runtime_test.ts checks that this list, the build script and every workerUrl() call
 * in the source agree.
 */
export const WORKER_ENTRIES = [
  "lib/session/screen_worker.ts",
  "replay/analyze_worker.ts",
  "replay/ahead_worker.ts",
] as const;

/** A worker entry point by its path from the project root. */
export function workerUrl(fromRoot: (typeof WORKER_ENTRIES)[number]): string {
  return new URL(isCompiled() ? `./${fromRoot}` : `../${fromRoot}`, import.meta.url).href;
}

/** argv that runs pstlab itself as a child (the demo records `pstlab sim`). */
export function selfArgv(): string[] {
  const g = globalThis as { Deno?: unknown };
  const script = process.argv[1] ?? "";
  if (isCompiled()) return [process.execPath];
  const main = script.endsWith("main.ts")
    ? path.resolve(script)
    : path.resolve(import.meta.dirname ?? ".", "../main.ts");
  if (g.Deno) return [process.execPath, "run", "-A", "--no-check", "--quiet", main];
  return [process.execPath, main];
}

/**
 * No collection is forced below this process size: a short analysis ends before Bun's
 * collector lets it grow far, and one forced full collection was 12–17 ms of a 190 ms
 * whole-process report on a 2 MB capture (bench/pyte.ts), which peaks at ~90 MB.
 */
export const GARBAGE_FLOOR = 112 << 20;

/** What a GarbageWatch reads and does: a size (the process's, or this thread's heap) and a full collection. */
export interface GarbageHost {
  size(): number;
  collect(): void;
}

const bun = (globalThis as { Bun?: { gc(sync: boolean): void } }).Bun;

/** The whole process's size (resident set): what a user sees, and what bench/memory.ts measures. */
export const processSize = (): GarbageHost | null =>
  bun ? { size: () => process.memoryUsage.rss(), collect: () => bun.gc(true) } : null;

/**
 * This thread's heap (Bun: each worker's own, typed arrays' bytes included). A second
 * thread watches its own heap, not the process: the process's size is both threads', and
 * a worker that collected its small heap whenever the other thread's garbage grew the
 * process freed nothing, then waited for the next slack (bench/memory.ts, 200 MB capture:
 * peak 183 MB watching the process, 172 MB watching the reader's heap at 8 MB).
 */
export const threadHeap = (): GarbageHost | null =>
  bun ? { size: () => process.memoryUsage().heapUsed, collect: () => bun.gc(true) } : null;

/**
 * Collects garbage when the size it watches (the process's unless given) reaches `slack`
 * bytes above the smallest a collection has brought it to, and is past `floor` (GARBAGE_FLOOR unless given: the
 * recorder, whose whole footprint is below it, passes 0), where the runtime can be asked
 * to (Bun). A long analysis makes a screen's worth of short-lived strings per sample, in
 * proportion to the capture's duration, while keeping little (its timelines: 46 MB live
 * after 34 hours of capture); Bun's collector let the process grow to 380 MB before
 * collecting (bench/memory.ts). Elsewhere this does nothing.
 * 32 MB: as fast as 64 MB on the 34-hour capture (19.5 s either way) with a lower peak
 * (139 vs 155 MB); 16 MB cost 15 % more time.
 *
 * The mark is not the size after the last collection: the allocator keeps part of the
 * pages a collection frees, so each collection ended a little higher (112 → 99 MB, then
 * 131 → 119 MB on the 200 MB bench capture) and a mark set from it climbed with the
 * capture's length. A collection that leaves the process within half the slack of the
 * mark (what the analysis keeps has grown) moves the mark to half the slack above where
 * it left it, so collections never come back to back.
 */
export class GarbageWatch {
  private readonly host: GarbageHost | null;
  /** The smallest size a collection has brought the process to (none yet: Infinity). */
  private low = Infinity;
  /** Collect when the process reaches this size. */
  private limit: number;

  constructor(
    private readonly slack = 32 << 20,
    private readonly floor = GARBAGE_FLOOR,
    host: GarbageHost | null = processSize(),
  ) {
    this.host = host;
    this.limit = (host ? host.size() : 0) + slack;
  }

  check(): void {
    if (!this.host) return;
    const size = this.host.size();
    if (size < this.limit || size < this.floor) return;
    this.host.collect();
    const after = this.host.size();
    this.low = Math.min(this.low, after);
    this.limit = Math.max(this.low + this.slack, after + this.slack / 2);
  }
}
