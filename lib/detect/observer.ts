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
import { type RuleMemo, ruleMemo } from "./manifest.ts";
import {
  declaredSources,
  type Foreground,
  type Hook,
  HOOK_CODE,
  parseForeground,
  parseHook,
  PROCESS_CODE,
} from "../recording/sources.ts";

/** Shells: when the recorded command is one of these, its group is "the shell" only while it still runs it (not after an exec). */
const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "fish",
  "dash",
  "ksh",
  "mksh",
  "tcsh",
  "csh",
  "ash",
  "nu",
  "elvish",
  "xonsh",
]);

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
  /**
   * memo() for a value of the screen's text alone (rows, title, OSC 9, and the cursor's
   * row, which the cursor regions read): also kept across writes that changed none of it.
   * A program's screen often gets writes that change no text — a title refresh, an OSC
   * report, a cursor move within its row, a row redrawn as it was.
   */
  memoText<T>(key: string, fn: () => T): T;
  /** Rule results kept by region text across this observer's screens (manifest.ts RuleMemo). */
  readonly rules: RuleMemo;
  /** Whether the capture has the process table (declared by its recorder, or an event seen). */
  processData: boolean;
  /** The group holding the terminal now, or null (none recorded yet). */
  foreground: Foreground | null;
  /** Whether that group is the shell's: the recorded command's own (the session's), and for a shell command while it still runs the shell. */
  shellInFront: boolean;
  /** Whether the capture has agent hooks (declared by its recorder, or an event seen). */
  hookData: boolean;
  /** The newest hook event that parsed, with its time; null before any. */
  hook: (Hook & { t: number }) | null;
}

/**
 * The one observation of an observer, refreshed in place: one per event was 200,000
 * objects (and their closures) on a dense capture. Valid until the next observe().
 */
class LiveObservation implements Observation {
  t = 0;
  title = "";
  osc9: string | null = null;
  altScreen = false;
  lastOutputAt = -Infinity;
  firstOutputAt: number | null = null;
  exited = false;
  screenVersion = 0;
  tailVersion = 0;
  store: Store;
  lastReportAt = -Infinity;
  storeVersion = 0;
  processData = false;
  foreground: Foreground | null = null;
  shellInFront = false;
  hookData = false;
  hook: (Hook & { t: number }) | null = null;
  private memoStamp = -1;
  private memoMap = new Map<string, unknown>();
  private textMemo = new Map<
    string,
    { rows: readonly string[]; title: string; osc9: string | null; row: number; value: unknown }
  >();
  readonly rules = ruleMemo();

  constructor(private readonly observer: Observer) {
    this.store = observer.tracker.store;
  }

  rows(): readonly string[] {
    return this.observer.emulated().rows();
  }
  cursor(): { x: number; y: number } {
    return this.observer.emulated().cursor();
  }
  tailRows(): string[] {
    return this.observer.tail.rows();
  }
  memo<T>(key: string, fn: () => T): T {
    // Every write bumps the screen version (titles and OSC 9 arrive by writes too).
    const stamp = this.screenVersion * 2 + (this.exited ? 1 : 0);
    if (stamp !== this.memoStamp) {
      this.memoStamp = stamp;
      this.memoMap.clear();
    }
    if (this.memoMap.has(key)) return this.memoMap.get(key) as T;
    const v = fn();
    this.memoMap.set(key, v);
    return v;
  }
  memoText<T>(key: string, fn: () => T): T {
    return this.memo(key, () => {
      const rows = this.rows();
      const row = this.cursor().y;
      const c = this.textMemo.get(key);
      if (c && c.rows === rows && c.title === this.title && c.osc9 === this.osc9 && c.row === row) return c.value as T;
      const value = fn();
      this.textMemo.set(key, { rows, title: this.title, osc9: this.osc9, row, value });
      return value;
    });
  }
}

/** Output fed to the screen, the scanner and the tail at once, at most. */
const SLICE = 1 << 20;

export class Observer {
  readonly screen: Screen;
  readonly tracker: Tracker;
  readonly tail = new IncrementalTail();
  private lastOutputAt = -Infinity;
  private firstOutputAt: number | null = null;
  private exited = false;
  private lastReportAt = -Infinity;
  private storeVersion = 0;
  /** Bumped by every applied event: the observation is current until then (detectors sampled at one instant share it). */
  private eventCount = 0;
  private seenT = NaN;
  private seenEvents = -1;
  private readonly live: LiveObservation;
  private processData: boolean;
  private hookData: boolean;
  private foreground: Foreground | null = null;
  private hook: (Hook & { t: number }) | null = null;
  /** The command's program when it is a shell (its name is what /proc/PGID/comm says while it runs the shell). */
  private readonly shellName: string | null;

  /**
   * Whether output is emulated. Without (`screen: false`), only what needs no emulator is
   * kept — the OSC 7501 store, the tail, timing, process and hook events — for detectors
   * whose kind reads no screen (kinds.ts `screen`); reading the screen then throws.
   */
  private readonly emulate: boolean;
  /** Output and resize events applied without an emulator: the screen version's stand-in (memo() stamps). */
  private writes = 0;

  constructor(header: Header, opts: { convertEol?: boolean; screen?: boolean } = {}) {
    this.emulate = opts.screen ?? true;
    const sources = declaredSources(header);
    this.processData = sources.has("process");
    this.hookData = sources.has("hooks");
    const prog = /^\S+/.exec(header.command ?? "")?.[0].split("/").pop()?.replace(/^-/, "") ?? "";
    this.shellName = SHELLS.has(prog) ? prog : null;
    this.screen = new Screen(header.cols, header.rows, { convertEol: opts.convertEol });
    this.tracker = new Tracker((e) => {
      if (e.type === "report") this.lastReportAt = e.t;
      if (e.type === "report" || e.type === "lifecycle") this.storeVersion++;
    });
    this.live = new LiveObservation(this);
  }

  apply(e: Event): void {
    this.eventCount++;
    switch (e.kind) {
      case "output":
        if (e.bytes.length === 0) return;
        // Output after an exit starts a new segment (docs/fixture-format.md convention 5:
        // `cat`, `record --append`): the program runs again, so nothing of the finished
        // one — its exit, its last hook, its foreground group, its start — speaks for it.
        if (this.exited) {
          this.exited = false;
          this.hook = null;
          this.foreground = null;
          this.firstOutputAt = null;
        }
        // One huge write (a 64 MiB event) is fed in slices: xterm decodes a write into
        // a buffer four times its size. The screen, the scanner and the tail are
        // streaming and give the same result for any split (their property tests).
        for (let at = 0; at < e.bytes.length; at += SLICE) {
          const b = e.bytes.length <= SLICE ? e.bytes : e.bytes.subarray(at, at + SLICE);
          if (this.emulate) this.screen.write(b, e.t);
          else this.writes++;
          this.tracker.feed(b, e.t);
          this.tail.push(b);
        }
        this.lastOutputAt = e.t;
        this.firstOutputAt ??= e.t;
        return;
      case "resize":
        if (this.emulate) this.screen.resize(e.cols, e.rows);
        else this.writes++;
        return;
      case "exit":
        this.tracker.exit(e.t);
        this.exited = true;
        return;
      case "other":
        if (e.code === PROCESS_CODE) {
          const f = parseForeground(e.data);
          if (!f) return;
          this.processData = true;
          this.foreground = f;
        } else if (e.code === HOOK_CODE) {
          this.hookData = true;
          const h = parseHook(e.data);
          if (h) this.hook = { ...h, t: e.t };
        }
        return;
    }
  }

  /**
   * The shell is in front: the recorded command's own group (the session's: the
   * command leads it) holds the terminal, and for a shell command it still runs the
   * shell, not a program it exec'd. A job the shell started has a group of its own.
   */
  private shellInFront(): boolean {
    const f = this.foreground;
    if (!f || f.pgid !== f.sid) return false;
    return this.shellName === null || f.name === this.shellName;
  }

  /** The screen, for a reader that needs it: an observer without one says so loudly, never blank. */
  emulated(): Screen {
    if (!this.emulate) {
      throw new Error("this observer emulates no screen (a detector that reads it was run without one)");
    }
    return this.screen;
  }

  /** The state as of time t (every event applied so far); the same object each time, refreshed. */
  observe(t: number): Observation {
    if (this.seenT === t && this.seenEvents === this.eventCount) return this.live;
    this.seenT = t;
    this.seenEvents = this.eventCount;
    const o = this.live, screen = this.screen;
    o.t = t;
    o.title = screen.title;
    o.osc9 = screen.osc9;
    o.altScreen = screen.altScreen;
    o.lastOutputAt = this.lastOutputAt;
    o.firstOutputAt = this.firstOutputAt;
    o.exited = this.exited;
    o.screenVersion = this.emulate ? screen.version : this.writes;
    o.tailVersion = this.tail.version;
    o.lastReportAt = this.lastReportAt;
    o.storeVersion = this.storeVersion;
    o.processData = this.processData;
    o.foreground = this.foreground;
    o.shellInFront = this.shellInFront();
    o.hookData = this.hookData;
    o.hook = this.hook;
    return o;
  }

  dispose(): void {
    this.screen.dispose();
  }
}
