// The virtual clock: events in time order (ties by file order), every detector sampled
// exactly at its own times t = k·interval on the state as of that time — the result of
// every event with time ≤ t — and "@write" detectors after every event. No sleeping:
// analysis runs as fast as the CPU allows, and the same inputs give the same samples.

import type { Event, EventRuns, Header } from "../lib/recording/model.ts";
import { Observer } from "../lib/detect/observer.ts";
import type { Detector } from "../lib/detect/detectors.ts";
import { EPS, indexInForce, sameChange, type Timeline, type Verdict } from "../lib/detect/timeline.ts";
import { detached, round6 } from "../lib/text.ts";
import { GarbageWatch } from "../lib/runtime.ts";

export interface RunOptions {
  /** Stop after this time (inclusive). Default: the last event. */
  until?: number;
  /** Observer options (snapshots need LF → CR LF). */
  convertEol?: boolean;
  /** Every raw event, after it was applied (truth markers, progress). */
  onEvent?: (e: Event) => void;
  /** The caller's watch, to go on with after the run (scoring): one baseline, not two. */
  garbage?: GarbageWatch;
}

/** Change points per chunk: 12 bytes each, in blocks that are never copied. */
const CHUNK = 2048;

/**
 * One detector's change points, append-only: times and indexes of shared verdicts in
 * fixed typed-array chunks. Arrays that grew by copying kept the collector's heap (and
 * with it the process) growing with the capture's length: on the 34-hour capture, 5 MB
 * of change points as growable arrays raised the peak by 20 MB (bench/memory.ts).
 */
class Column {
  private times: Float64Array[] = [];
  private ids: Uint32Array[] = [];
  length = 0;

  push(t: number, id: number): void {
    const o = this.length % CHUNK;
    if (o === 0) {
      this.times.push(new Float64Array(CHUNK));
      this.ids.push(new Uint32Array(CHUNK));
    }
    this.times[this.times.length - 1][o] = t;
    this.ids[this.ids.length - 1][o] = id;
    this.length++;
  }

  time(j: number): number {
    return this.times[Math.floor(j / CHUNK)][j % CHUNK];
  }

  id(j: number): number {
    return this.ids[Math.floor(j / CHUNK)][j % CHUNK];
  }
}

/** One detector's change points, flat: times and indexes into a verdict table. */
export interface ChangeColumns {
  times: Float64Array<ArrayBuffer>;
  ids: Uint32Array<ArrayBuffer>;
  samples: number;
}

/** A timeline from its columns (built when asked, one at a time: see Sampler). */
export function timelineOf(
  d: { name: string; every: number },
  c: ChangeColumns,
  verdicts: readonly Verdict[],
): Timeline {
  const points = new Array(c.times.length);
  for (let j = 0; j < c.times.length; j++) points[j] = { t: c.times[j], verdict: verdicts[c.ids[j]] };
  return { detector: d.name, points, samples: c.samples, every: d.every };
}

export class Sampler {
  private next: number[]; // next sample index k per detector (t = k·interval)
  /**
   * Change points per detector (Column), not one small object per point: long-lived
   * small objects among every sample's garbage pinned pages the allocator could not give
   * back (bench/memory.ts). Timeline objects are built when asked, one at a time.
   */
  private columns: Column[];
  /** Every distinct verdict, once; columns hold indexes into it. */
  private verdicts: Verdict[] = [];
  private samples: number[];
  private last: (Verdict | null)[];
  private kept = new Map<string, number>();
  private due: number;

  constructor(readonly detectors: Detector[], readonly observer: Observer) {
    this.next = detectors.map(() => 0);
    this.columns = detectors.map(() => new Column());
    this.samples = detectors.map(() => 0);
    this.last = detectors.map(() => null);
    this.due = this.dueAt();
  }

  /** Detector i's timeline so far. */
  timeline(i: number): Timeline {
    return timelineOf(this.detectors[i], this.columnsOf(i), this.verdicts);
  }

  /** Detector i's change points as flat columns (to another thread: replay/ahead_worker.ts). */
  columnsOf(i: number): ChangeColumns {
    const c = this.columns[i];
    const times = new Float64Array(c.length), ids = new Uint32Array(c.length);
    for (let j = 0; j < c.length; j++) {
      times[j] = c.time(j);
      ids[j] = c.id(j);
    }
    return { times, ids, samples: this.samples[i] };
  }

  /** The distinct verdicts the columns' ids index. */
  verdictTable(): readonly Verdict[] {
    return this.verdicts;
  }

  /** Every detector's timeline so far. */
  timelines(): Timeline[] {
    return this.detectors.map((_, i) => this.timeline(i));
  }

  /** Detector i's verdict in force at t (null before its first sample). */
  verdictAt(i: number, t: number): Verdict | null {
    const c = this.columns[i];
    const j = indexInForce(c.length, (k) => c.time(k), t);
    return j < 0 ? null : this.verdicts[c.id(j)];
  }

  /**
   * Timelines live as long as the analysis: a change point keeps one shared copy of each
   * distinct verdict (a long session gives the same verdict at every prompt), and that
   * copy holds its evidence detached from the screen it was cut from (bench/memory.ts:
   * 330,000 change points after 34 hours of capture).
   */
  private keep(v: Verdict): number {
    const key = JSON.stringify([v.state, v.needsYou, v.rule, v.evidence, v.kind ?? null]);
    let id = this.kept.get(key);
    if (id === undefined) {
      id = this.verdicts.push(v.evidence === null ? { ...v } : { ...v, evidence: detached(v.evidence) }) - 1;
      this.kept.set(key, id);
    }
    return id;
  }

  private record(i: number, t: number): number {
    const d = this.detectors[i];
    const o = this.observer.observe(t);
    const verdict = d.judge(o);
    this.samples[i]++;
    if (!sameChange(this.last[i], verdict)) {
      this.columns[i].push(t, this.keep(verdict));
      this.last[i] = verdict;
    }
    return d.holdsUntil ? d.holdsUntil(o) : t;
  }

  /**
   * Samples detector i at its times before `limit` (or up to and including it). After a
   * sample, the samples its verdict is promised to hold for (holdsUntil) are counted
   * but not judged: a silent span costs O(1), not one judgement per interval.
   */
  private sampleTo(i: number, limit: number, inclusive: boolean): void {
    const d = this.detectors[i], every = d.every;
    // Samples strictly before limit - EPS, or (inclusive) up to limit + EPS.
    const bound = inclusive ? limit + EPS : limit - EPS;
    while (inclusive ? this.next[i] * every <= bound : this.next[i] * every < bound) {
      const holds = this.record(i, round6(this.next[i] * every));
      this.next[i]++;
      if (holds <= this.next[i] * every) continue;
      // The last sample index still before both the promise and the limit.
      const limitK = inclusive ? Math.floor((limit + EPS) / every) : Math.ceil((limit - EPS) / every) - 1;
      let lastK = limitK;
      if (holds !== Infinity) {
        lastK = Math.min(limitK, Math.ceil(holds / every) - 1);
        while (lastK >= this.next[i] && lastK * every >= holds) lastK--;
      }
      if (!Number.isFinite(lastK) || lastK < this.next[i]) continue;
      this.samples[i] += lastK - this.next[i] + 1;
      d.skipped?.(round6(this.next[i] * every), round6(lastK * every));
      this.next[i] = lastK + 1;
    }
  }

  /** The earliest next sample time of any interval detector. */
  private dueAt(): number {
    let due = Infinity;
    for (let i = 0; i < this.detectors.length; i++) {
      if (this.detectors[i].every !== 0) due = Math.min(due, this.next[i] * this.detectors[i].every);
    }
    return due;
  }

  /** Samples every interval detector at its times strictly before `t` (state is final there). */
  advanceBefore(t: number): void {
    // Most events (a 10 ms spinner under 50 ms sampling) come before any sample is due.
    if (!(this.due < t - EPS)) return;
    for (let i = 0; i < this.detectors.length; i++) if (this.detectors[i].every !== 0) this.sampleTo(i, t, false);
    this.due = this.dueAt();
  }

  /** After an event at time t: "@write" detectors judge now. */
  afterEvent(t: number): void {
    for (let i = 0; i < this.detectors.length; i++) if (this.detectors[i].every === 0) this.record(i, t);
  }

  /** Samples every interval detector up to and including `end`. */
  finish(end: number): void {
    for (let i = 0; i < this.detectors.length; i++) {
      if (this.detectors[i].every !== 0) this.sampleTo(i, end, true);
      else if (this.samples[i] === 0) this.record(i, end); // no events at all
    }
    this.due = this.dueAt();
  }
}

/** Output bytes between looks at the process's size (one cheap system call). */
const LOOK_EVERY = 256 << 10;

/** Runs detectors over a recording; returns their timelines and the end time. */
export async function runDetectors(
  header: Header,
  events: AsyncIterable<Event>,
  detectors: Detector[],
  opts: RunOptions = {},
): Promise<{ timelines: Timeline[]; end: number; observer: Observer; pastEnd: number | null }> {
  const { sampler, end, observer, pastEnd } = await sampleDetectors(header, events, detectors, opts);
  return { timelines: sampler.timelines(), end, observer, pastEnd };
}

/**
 * Detectors run over events pushed one at a time (`step`), then `finish`: what
 * sampleDetectors does with an event stream, for a caller that is handed events (the
 * reader's thread, replay/ahead_worker.ts).
 */
export class DetectorRun {
  readonly observer: Observer;
  readonly sampler: Sampler;
  private readonly until: number;
  private readonly garbage: GarbageWatch;
  private end = 0;
  private sinceLook = 0;
  /** An event after `until` was seen: there was more to read. */
  more = false;

  constructor(header: Header, detectors: Detector[], private readonly opts: RunOptions & { screen?: boolean } = {}) {
    this.observer = new Observer(header, { convertEol: opts.convertEol, screen: opts.screen });
    this.sampler = new Sampler(detectors, this.observer);
    this.until = opts.until ?? Infinity;
    this.garbage = opts.garbage ?? new GarbageWatch();
  }

  /** Applies one event; false once past `until` (stop reading). */
  step(e: Event): boolean {
    if (e.t > this.until) {
      this.more = true;
      return false;
    }
    this.sampler.advanceBefore(e.t);
    this.observer.apply(e);
    this.end = e.t;
    if (e.kind === "output" && (this.sinceLook += e.bytes.length) > LOOK_EVERY) {
      this.sinceLook = 0;
      this.garbage.check();
    }
    this.opts.onEvent?.(e);
    this.sampler.afterEvent(e.t);
    return true;
  }

  finish(): { sampler: Sampler; end: number; observer: Observer; pastEnd: number | null } {
    const until = this.until, end = this.end;
    this.sampler.finish(until === Infinity ? end : until);
    // pastEnd: the last event's time when `until` is after it (nothing left to read).
    const pastEnd = until !== Infinity && !this.more && until > end ? end : null;
    return { sampler: this.sampler, end: until === Infinity ? end : until, observer: this.observer, pastEnd };
  }
}

/**
 * The same, leaving the timelines in the sampler: a caller that reads one at a time
 * (scoring) never holds every detector's change points as objects at once.
 */
export async function sampleDetectors(
  header: Header,
  events: AsyncIterable<Event> | EventRuns,
  detectors: Detector[],
  opts: RunOptions = {},
): Promise<{ sampler: Sampler; end: number; observer: Observer; pastEnd: number | null }> {
  const run = new DetectorRun(header, detectors, opts);
  if ("runs" in events) {
    // An await per run, not per event: on a dense capture the await was a tenth of the floor.
    outer: for await (const r of events.runs) for (const e of r) if (!run.step(e)) break outer;
  } else for await (const e of events) if (!run.step(e)) break;
  return run.finish();
}
