// GarbageWatch's policy (runtime.ts), on a modelled process: an analysis that makes
// garbage at a steady rate and an allocator that keeps part of what a collection frees,
// as Bun's did on the 200 MB bench capture (bench/memory.ts).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { GarbageWatch } from "./runtime.ts";

const MB = 1 << 20;

/**
 * A process: `live` bytes kept, `garbage` not yet collected, and `kept`: pages the
 * allocator held on to after a collection freed them (`keep`, a fraction of what it
 * freed), which new garbage fills before the process grows again.
 */
function model(o: { start: number; keep: number; liveGrowth?: number }) {
  const p = { live: o.start, garbage: 0, kept: 0, collections: 0, peak: 0 };
  const rss = () => p.live + Math.max(p.garbage, p.kept);
  const host = {
    size: rss,
    collect: () => {
      p.collections++;
      p.kept = o.keep * Math.max(p.garbage, p.kept);
      p.garbage = 0;
    },
  };
  const step = (w: GarbageWatch, garbage: number) => {
    p.garbage += garbage;
    p.live += o.liveGrowth ?? 0;
    p.peak = Math.max(p.peak, rss());
    w.check();
  };
  return { p, host, step };
}

describe("GarbageWatch", () => {
  test("no collection below the floor, nor before the process grew by the slack", () => {
    const m = model({ start: 50 * MB, keep: 0 });
    const w = new GarbageWatch(32 * MB, 112 * MB, m.host);
    for (let i = 0; i < 61; i++) m.step(w, MB); // 111 MB: past the slack, under the floor
    assert.equal(m.p.collections, 0);
    m.step(w, MB);
    assert.equal(m.p.collections, 1);
  });

  test("the peak stays a slack above the smallest size a collection left, however much the allocator keeps", () => {
    // Keeping 40 % of what each collection frees: a mark set a slack above the size after
    // the last collection settled at live + slack / 0.6 (here 90 + 53 MB).
    for (const keep of [0, 0.4, 0.6]) {
      const m = model({ start: 90 * MB, keep });
      const w = new GarbageWatch(32 * MB, 112 * MB, m.host);
      for (let i = 0; i < 4000; i++) m.step(w, MB / 4);
      assert.ok(m.p.collections > 10, `${keep}: ${m.p.collections}`);
      const firstLow = 90 * MB + keep * 32 * MB;
      assert.ok(m.p.peak <= Math.max(firstLow + 32 * MB, 112 * MB) + MB / 4, `${keep}: ${m.p.peak / MB} MB`);
    }
  });

  test("a process whose kept data grows is collected at most once per half slack", () => {
    const m = model({ start: 120 * MB, keep: 0, liveGrowth: MB / 8 });
    const w = new GarbageWatch(32 * MB, 112 * MB, m.host);
    for (let i = 0; i < 4000; i++) m.step(w, MB / 8);
    // 4000 steps of 1/4 MB each: at least 16 MB between collections.
    assert.ok(m.p.collections <= 1000 / 16 + 1, String(m.p.collections));
    assert.ok(m.p.collections >= 1);
  });

  test("without a runtime to ask (Deno, Node), nothing is collected", () => {
    const w = new GarbageWatch(MB, 0, null);
    w.check(); // does nothing, reads nothing
  });
});
