// Everything a terminal-side observer can know at a time: the emulated screen, the
// last title and OSC 9 payload, output timing, the raw tail, and the OSC 7501 store.
// Fed one recording event at a time, in order; read lazily (a detector that does not
// look at the screen never pays for rendering it).

import { Screen } from "../screen/screen.ts";
import { IncrementalTail } from "../screen/tail.ts";
import { Tracker } from "../osc7501/tracker.ts";
import type { Store } from "../osc7501/store.ts";
import type { Event, Header } from "../recording/model.ts";
import type { RegionSource } from "./regions.ts";

export interface Observation extends RegionSource {
  t: number;
  altScreen: boolean;
  cursor(): { x: number; y: number };
  /** Time of the last output chunk (-Infinity before any). */
  lastOutputAt: number;
  /** Time of the first output chunk (when the program "appeared"), or null. */
  firstOutputAt: number | null;
  exited: boolean;
  /** Bumped whenever the screen may have changed. */
  screenVersion: number;
  /** The stripped 8 KB tail, as lines. */
  tailRows(): string[];
  tailVersion: number;
  store: Store;
  /** Time of the last applied OSC 7501 / mapped OSC 9;4 report (-Infinity before any). */
  lastReportAt: number;
  /** Bumped whenever the record store may have changed (a report, a lifetime event). */
  storeVersion: number;
  /**
   * A value computed once per screen state: detectors sharing a manifest share its
   * evaluation, and an unchanged screen is never evaluated twice (a 10 Hz spinner
   * sampled at 50 ms changes every other sample).
   */
  memo<T>(key: string, fn: () => T): T;
}

export class Observer {
  readonly screen: Screen;
  readonly tracker: Tracker;
  readonly tail = new IncrementalTail();
  private lastOutputAt = -Infinity;
  private firstOutputAt: number | null = null;
  private exited = false;
  private lastReportAt = -Infinity;
  private memoStamp = -1;
  private memoMap = new Map<string, unknown>();
  private storeVersion = 0;
  /** Bumped by every applied event: an observation is the same object until then (detectors sampled at one instant share it). */
  private eventCount = 0;
  private cached: { t: number; events: number; o: Observation } | null = null;

  constructor(header: Header, opts: { convertEol?: boolean } = {}) {
    this.screen = new Screen(header.cols, header.rows, { convertEol: opts.convertEol });
    this.tracker = new Tracker((e) => {
      if (e.type === "report") this.lastReportAt = e.t;
      if (e.type === "report" || e.type === "lifecycle") this.storeVersion++;
    });
  }

  apply(e: Event): void {
    this.eventCount++;
    switch (e.kind) {
      case "output":
        if (e.bytes.length === 0) return;
        this.screen.write(e.bytes, e.t);
        this.tracker.feed(e.bytes, e.t);
        this.tail.push(e.bytes);
        this.lastOutputAt = e.t;
        this.firstOutputAt ??= e.t;
        return;
      case "resize":
        this.screen.resize(e.cols, e.rows);
        return;
      case "exit":
        this.tracker.exit(e.t);
        this.exited = true;
        return;
    }
  }

  observe(t: number): Observation {
    const c = this.cached;
    if (c && c.t === t && c.events === this.eventCount) return c.o;
    const o = this.build(t);
    this.cached = { t, events: this.eventCount, o };
    return o;
  }

  private build(t: number): Observation {
    const screen = this.screen;
    // deno-lint-ignore no-this-alias -- the observation's methods close over the observer
    const self = this;
    return {
      t,
      rows: () => screen.rows(),
      title: screen.title,
      osc9: screen.osc9,
      altScreen: screen.altScreen,
      cursor: () => screen.cursor(),
      lastOutputAt: this.lastOutputAt,
      firstOutputAt: this.firstOutputAt,
      exited: this.exited,
      screenVersion: screen.version,
      tailVersion: this.tail.version,
      tailRows: () => self.tail.rows(),
      store: this.tracker.store,
      lastReportAt: this.lastReportAt,
      storeVersion: this.storeVersion,
      memo<T>(key: string, fn: () => T): T {
        // Every write bumps the screen version (titles and OSC 9 arrive by writes too).
        const stamp = screen.version * 2 + (self.exited ? 1 : 0);
        if (stamp !== self.memoStamp) {
          self.memoStamp = stamp;
          self.memoMap.clear();
        }
        if (self.memoMap.has(key)) return self.memoMap.get(key) as T;
        const v = fn();
        self.memoMap.set(key, v);
        return v;
      },
    };
  }

  dispose(): void {
    this.screen.dispose();
  }
}
