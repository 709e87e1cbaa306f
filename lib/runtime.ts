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

/**
 * Collects garbage when the process has grown by `slack` bytes since the last collection
 * and is past `floor` (GARBAGE_FLOOR unless given: the recorder, whose whole footprint
 * is below it, passes 0), where the runtime can be asked to (Bun). A long analysis makes a screen's worth of
 * short-lived strings per sample, in proportion to the capture's duration, while keeping
 * little (its timelines: 46 MB live after 34 hours of capture); Bun's collector let the
 * process grow to 380 MB before collecting (bench/memory.ts). Elsewhere this does nothing.
 * 32 MB: as fast as 64 MB on the 34-hour capture (19.5 s either way) with a lower peak
 * (139 vs 155 MB); 16 MB cost 15 % more time.
 */
export class GarbageWatch {
  private readonly bun = (globalThis as { Bun?: { gc(sync: boolean): void } }).Bun;
  private base: number;

  constructor(private readonly slack = 32 << 20, private readonly floor = GARBAGE_FLOOR) {
    this.base = this.bun ? process.memoryUsage.rss() : 0;
  }

  check(): void {
    if (!this.bun) return;
    const rss = process.memoryUsage.rss();
    if (rss - this.base < this.slack || rss < this.floor) return;
    this.bun.gc(true);
    this.base = process.memoryUsage.rss();
  }
}
