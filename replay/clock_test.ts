// The clock's closed-form skipping (Detector.holdsUntil / skipped) must give exactly the
// timelines that judging every sample gives: same change points, same sample counts,
// on random captures with random gaps. And a silent span must cost O(1) judgements.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Detector } from "../lib/detect/detectors.ts";
import { createDetector, defaultDetectorNames } from "../lib/detect/kinds.ts";
import { runDetectors } from "./clock.ts";
import type { Event, Header } from "../lib/recording/model.ts";

const te = new TextEncoder();
const HEADER: Header = { cols: 80, rows: 12 };
// Screens the bundled claude rules and Herdr-style logic react to, plus noise.
const CHUNKS = [
  "\x1b[2J\x1b[H✻ Pondering… (3s · esc to interrupt)\r\n",
  "\x1b[2J\x1b[H Bash command\r\n\r\n Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n",
  "\x1b[2J\x1b[H──────\r\n❯ \r\n──────\r\n  ? for shortcuts\r\n",
  "\x1b]0;✳ Claude Code\x07",
  "\x1b]7501;state=working\x1b\\",
  "\x1b]7501;state=blocked:kind=permission\x1b\\",
  "\x1b]7501;state=idle\x1b\\",
  "hello\r\n",
  "\r✢ Working… (1s · esc to interrupt)",
];
const NAMES = [
  ...defaultDetectorNames("claude"),
  "herdr:generic",
  "hash@100ms",
  "quiet>=0.5s@10ms",
  "screen:claude@700ms",
  "quiet>=3s@700ms",
];

function events(steps: { gap: number; chunk: number }[], exit: boolean): Event[] {
  let t = 0;
  const out: Event[] = [];
  for (const s of steps) {
    t = Math.round((t + s.gap) * 1e6) / 1e6;
    out.push({ t, kind: "output", bytes: te.encode(CHUNKS[s.chunk]) });
  }
  if (exit) out.push({ t: t + 1, kind: "exit", status: 0 });
  return out;
}

async function* stream(evs: Event[]) {
  for (const e of evs) yield e;
}

/** The same detector with its promises withheld: every sample judged. */
function judgeAll(d: Detector): Detector {
  return { name: d.name, every: d.every, judge: (o) => d.judge(o) };
}

async function timelines(evs: Event[], skip: boolean, until?: number) {
  const ds = NAMES.map((n) => createDetector(n));
  const r = await runDetectors(HEADER, stream(evs), skip ? ds : ds.map(judgeAll), { until });
  return r.timelines.map((tl) => ({
    detector: tl.detector,
    samples: tl.samples,
    points: tl.points.map((p) => [p.t, p.verdict.state, p.verdict.needsYou, p.verdict.rule]),
  }));
}

describe("closed-form sampling", () => {
  test("timelines equal judging every sample (random captures, random gaps)", async () => {
    const gap = fc.oneof(
      fc.constantFrom(0, 0.01, 0.05, 0.1, 0.3, 0.7, 3, 3.05),
      fc.double({ min: 0, max: 12, noNaN: true }),
    );
    const step = fc.record({ gap, chunk: fc.nat({ max: CHUNKS.length - 1 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), fc.boolean(), async (steps, exit) => {
        const evs = events(steps, exit);
        assert.deepEqual(await timelines(evs, true), await timelines(evs, false));
      }),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 100) },
    );
  });
  test("found by the property: an output a microsecond in, quiet thresholds on the sample grid", async () => {
    const evs = events([{ gap: 5e-7, chunk: 0 }], true);
    assert.deepEqual(await timelines(evs, true), await timelines(evs, false));
  });
  test("an analysis window that ends in a silent span (--until) is sampled the same", async () => {
    const evs = events([{ gap: 0.2, chunk: 0 }, { gap: 4, chunk: 1 }], false);
    assert.deepEqual(await timelines(evs, true, 30), await timelines(evs, false, 30));
  });
  test("a silent gap of 1e6 s costs a bounded number of judgements", async () => {
    const evs = events(
      [{ gap: 0.1, chunk: 0 }, { gap: 0.2, chunk: 2 }, { gap: 1e6, chunk: 1 }, { gap: 2, chunk: 2 }],
      true,
    );
    let judged = 0;
    const ds = NAMES.map((n) => createDetector(n)).map((d) => {
      const judge = d.judge.bind(d);
      d.judge = (o) => (judged++, judge(o));
      return d;
    });
    const r = await runDetectors(HEADER, stream(evs), ds);
    assert.ok(judged < 2000, `${judged} judgements`);
    // …while the sample counts still say what a 50 ms sampler would have taken.
    const screen = r.timelines[NAMES.indexOf("screen:claude@50ms")];
    assert.equal(screen.samples, Math.floor((r.end + 1e-9) / 0.05) + 1);
  });
});

describe("the sampler's live lookup", () => {
  test("verdictAt equals the verdict in force on the built timelines", async () => {
    const { Sampler } = await import("./clock.ts");
    const { Observer } = await import("../lib/detect/observer.ts");
    const { verdictAt } = await import("../lib/detect/timeline.ts");
    const step = fc.record({
      gap: fc.constantFrom(0, 0.01, 0.05, 0.3, 3.05),
      chunk: fc.nat({ max: CHUNKS.length - 1 }),
    });
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 25 }),
        fc.array(fc.double({ min: -1, max: 40, noNaN: true }), { maxLength: 10 }),
        (steps, asks) => {
          const observer = new Observer(HEADER);
          const sampler = new Sampler(NAMES.map((n) => createDetector(n)), observer);
          for (const e of events(steps, true)) {
            sampler.advanceBefore(e.t);
            observer.apply(e);
            sampler.afterEvent(e.t);
          }
          const tls = sampler.timelines();
          for (const t of asks) {
            for (let i = 0; i < NAMES.length; i++) {
              assert.deepEqual(sampler.verdictAt(i, t), verdictAt(tls[i], t));
            }
          }
          observer.dispose();
        },
      ),
      { numRuns: Number(process.env.PSTLAB_FUZZ_RUNS ?? 50) },
    );
  });
});

describe("change points past one column chunk", () => {
  test("a detector that flips at every sample keeps every change point, in order, through several chunks", async () => {
    const { Sampler } = await import("./clock.ts");
    const { Observer } = await import("../lib/detect/observer.ts");
    const { verdictAt } = await import("../lib/detect/timeline.ts");
    let n = 0;
    const flip: Detector = {
      name: "flip",
      every: 0.01,
      judge: () => ({
        state: n++ % 3 === 0 ? "blocked" : n % 3 === 1 ? "working" : "idle",
        needsYou: false,
        rule: `r${n % 7}`,
        evidence: null,
      }),
    };
    const observer = new Observer(HEADER);
    const sampler = new Sampler([flip], observer);
    sampler.finish(50); // 5,001 samples: more than two chunks of change points
    const tl = sampler.timelines()[0];
    assert.equal(tl.samples, 5001);
    assert.equal(tl.points.length, 5001);
    for (let j = 0; j < tl.points.length; j++) assert.equal(tl.points[j].t, Math.round(j * 0.01 * 1e6) / 1e6);
    for (const t of [0, 0.005, 20.47, 20.48, 20.49, 40.95, 40.96, 49.999, 50, 60]) {
      assert.deepEqual(sampler.verdictAt(0, t), verdictAt(tl, t));
    }
    observer.dispose();
  });
});
