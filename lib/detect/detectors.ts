// The detectors pstlab replays side by side. One interface: given what a terminal
// observer can see at a sample time, return a verdict. The sampling policy is part of
// a detector's identity (`screen:claude@700ms` is not `screen:claude@50ms`); names and
// how each kind is built are in kinds.ts.

import { type DetState, evaluate, type Evaluation, FALLBACK_RULE, type Manifest, ruleMemo } from "./manifest.ts";
import { RegionView } from "./regions.ts";
import { sameChange, type Verdict } from "./timeline.ts";
import type { Observation } from "./observer.ts";
import type { Kind } from "../osc7501/parse.ts";
import type { StoredRecord } from "../osc7501/store.ts";
import type { Hook } from "../recording/sources.ts";

export interface Detector {
  name: string;
  /** Sampling period in seconds; 0 = after every event ("@write"). */
  every: number;
  judge(o: Observation): Verdict;
  /**
   * Called right after judge(o): if no event comes after o.t, the verdict stays the one
   * just given for every sample before the returned time (Infinity: until the next
   * event; o.t or less: no promise). The clock skips those samples in closed form, so a
   * silent hour costs what one sample costs. Absent: every sample is judged.
   */
  holdsUntil?(o: Observation): number;
  /** The samples from `from` to `to` (inclusive) were skipped on holdsUntil's promise: advance internal clocks as if they ran. */
  skipped?(from: number, to: number): void;
}

/** A margin below a threshold time, so a sample that rounds onto it is still judged. */
const BEFORE = 1e-6;
const UNTIL_NEXT_EVENT = () => Infinity;

const v = (
  state: DetState,
  rule: string | null,
  evidence: string | null = null,
  kind: Kind | null = null,
): Verdict => ({ state, needsYou: state === "blocked", rule, evidence, kind });

const EXITED = v("idle", "process-exited");

/** The attention record (docs/osc7501.md D20) as a verdict: blocked is the only "needs you". */
export function recordVerdict(rec: StoredRecord | null): Verdict {
  if (!rec) return v("unknown", null);
  const state: DetState = rec.state === "blocked" ? "blocked" : rec.state === "working" ? "working" : "idle";
  return v(state, `record:${rec.id ?? "root"}:${rec.state}`, rec.msg, rec.kind);
}

const screenKeys = new WeakMap<Manifest, string>();

function screenEval(m: Manifest, o: Observation) {
  let key = screenKeys.get(m);
  if (key === undefined) screenKeys.set(m, key = `screen:${m.name}`);
  return o.memoText(key, () => evaluate(m, new RegionView(o, o.rules), { memo: o.rules }));
}

function fromEval(e: Evaluation, fallback: string | null = null): Verdict {
  return v(e.state, e.rule?.id ?? fallback, e.evidence, e.kind);
}

function screenVerdict(m: Manifest, o: Observation): Verdict {
  return fromEval(screenEval(m, o));
}

export class ProtocolDetector implements Detector {
  /** A function of the record store: only an event changes it. */
  readonly holdsUntil = UNTIL_NEXT_EVENT;
  private last: { version: number; verdict: Verdict } | null = null;
  constructor(readonly name: string, readonly every: number) {}
  judge(o: Observation): Verdict {
    // Judged after every event ("@write"): the attention ranking is recomputed only when the store changed.
    if (this.last?.version !== o.storeVersion) {
      this.last = { version: o.storeVersion, verdict: recordVerdict(o.store.attention()) };
    }
    return this.last.verdict;
  }
}

export class ScreenDetector implements Detector {
  constructor(readonly name: string, readonly manifest: Manifest, readonly every: number) {}
  /** A function of the screen, the tail or the records: only an event changes it. */
  readonly holdsUntil = UNTIL_NEXT_EVENT;
  judge(o: Observation): Verdict {
    return o.exited ? EXITED : screenVerdict(this.manifest, o);
  }
}

/**
 * A manifest read from one view of the terminal (the tail's bytes, the title): a
 * function of what events changed, evaluated once per screen state and shared by every
 * detector on the same view and manifest.
 */
abstract class ManifestViewDetector implements Detector {
  readonly holdsUntil = UNTIL_NEXT_EVENT;
  private readonly key: string;
  constructor(readonly name: string, readonly manifest: Manifest, readonly every: number, view: "tail8k" | "title") {
    this.key = `${view}:${manifest.name}`;
  }
  protected abstract evaluateOn(o: Observation): Evaluation;
  judge(o: Observation): Verdict {
    if (o.exited) return EXITED;
    return fromEval(o.memo(this.key, () => this.evaluateOn(o)));
  }
}

export class TailDetector extends ManifestViewDetector {
  constructor(name: string, manifest: Manifest, every: number) {
    super(name, manifest, every, "tail8k");
  }
  /** The naive observer sees bytes only: no title, no OSC 9. */
  private readonly rules = ruleMemo();
  protected evaluateOn(o: Observation): Evaluation {
    return evaluate(this.manifest, new RegionView({ rows: () => o.tailRows(), title: "", osc9: null }, this.rules), {
      memo: this.rules,
    });
  }
}

export class TitleDetector extends ManifestViewDetector {
  constructor(name: string, manifest: Manifest, every: number) {
    super(name, manifest, every, "title");
  }
  /** Title and OSC 9 rules only; their results are kept by region text (a spinner redraw changes neither). */
  protected evaluateOn(o: Observation): Evaluation {
    return evaluate(this.manifest, o, {
      only: (r) => r.region.name === "osc_title" || r.region.name === "osc_progress",
      memo: o.rules,
    });
  }
}

export class QuestionDetector implements Detector {
  constructor(readonly name: string, readonly every: number) {}
  /** A function of the screen, the tail or the records: only an event changes it. */
  readonly holdsUntil = UNTIL_NEXT_EVENT;
  judge(o: Observation): Verdict {
    if (o.exited) return EXITED;
    return o.memoText("question", () => {
      for (const row of o.rows()) {
        // Most rows end in a printable ASCII character (screen rows come right-trimmed):
        // only a row ending otherwise can have white space to trim.
        const c = row.charCodeAt(row.length - 1);
        const t = c > 32 && c < 127 ? row : row.trimEnd();
        if (t.endsWith("?")) return v("blocked", "line-ends-with-?", t.trim(), "question");
      }
      return v("idle", null);
    });
  }
}

export class QuietDetector implements Detector {
  constructor(readonly name: string, readonly seconds: number, readonly every: number) {}
  private quiet(o: Observation): boolean {
    // Sample times are k·interval: compare in µs so 0.55 - 0.05 ≥ 0.5 holds.
    return Math.round((o.t - Math.max(o.lastOutputAt, 0)) * 1e6) >= Math.round(this.seconds * 1e6);
  }
  judge(o: Observation): Verdict {
    if (o.exited) return EXITED;
    return this.quiet(o)
      ? v("blocked", "quiet", `no output for ${(o.t - Math.max(o.lastOutputAt, 0)).toFixed(2)} s`)
      : v("working", "output", null);
  }
  /** Quiet flips once, at the last output + N; then it holds until output comes. */
  holdsUntil(o: Observation): number {
    if (o.exited || this.quiet(o)) return Infinity;
    return Math.max(o.t, Math.max(o.lastOutputAt, 0) + this.seconds - BEFORE);
  }
}

/** Claude Squad: capture hash changed ⇒ Running, unchanged ⇒ Ready (needs you). */
export class HashDetector implements Detector {
  private prev: string | null = null;
  constructor(readonly name: string, readonly every: number) {}
  judge(o: Observation): Verdict {
    if (o.exited) return EXITED;
    const now = o.memo("rows-text", () => o.rows().join("\n"));
    const prev = this.prev;
    this.prev = now;
    this.stable = prev === now;
    if (prev === null) return v("unknown", null);
    return now === prev ? v("blocked", "unchanged", null) : v("working", "changed", null);
  }
  private stable = false;
  /** Once two samples saw the same screen, every later one does until an event. */
  holdsUntil(o: Observation): number {
    return this.stable || o.exited ? Infinity : o.t;
  }
}

/** A hook event as a verdict: blocked is the only "needs you", done and error count as idle (fixture convention 3). */
export function hookVerdict(h: Hook): Verdict {
  const state: DetState = h.state === "blocked" ? "blocked" : h.state === "working" ? "working" : "idle";
  return v(state, `hook:${h.state}`, h.msg, h.kind);
}

const NO_PROCESS_DATA = v("unknown", "no-process-data", "no process data in this capture");
const NO_HOOK_DATA = v("unknown", "no-hook-data", "no hook data in this capture");

/**
 * The process table (the write-up's third source): idle while the shell holds the
 * terminal, working while another program does. It never says blocked: the process
 * table tells who runs and when it exits, not whether it waits for you.
 */
export class ProcessDetector implements Detector {
  constructor(readonly name: string, readonly every: number) {}
  /** A function of the recorded foreground group: only an event changes it. */
  readonly holdsUntil = UNTIL_NEXT_EVENT;
  judge(o: Observation): Verdict {
    if (!o.processData) return NO_PROCESS_DATA;
    if (o.exited) return EXITED;
    const f = o.foreground;
    if (!f) return v("unknown", null);
    return o.shellInFront ? v("idle", "process:shell", f.name) : v("working", "process:foreground", f.name);
  }
}

/** Agent hooks (`record --hooks`): the newest hook event holds until the next. */
export class HooksDetector implements Detector {
  constructor(readonly name: string, readonly every: number) {}
  /** A function of the recorded hook events: only an event changes it. */
  readonly holdsUntil = UNTIL_NEXT_EVENT;
  judge(o: Observation): Verdict {
    if (!o.hookData) return NO_HOOK_DATA;
    if (o.exited) return EXITED;
    return o.hook ? hookVerdict(o.hook) : v("unknown", null);
  }
}

/**
 * osFoundry's signals::combine, in its order (docs/detection.md): a blocked verdict read
 * from the screen always counts; then the newest report from the agent — an OSC 7501
 * record or a hook, whichever came last (records have no heartbeat, so a present
 * record is the program's latest word, and a hook holds until the next); then the
 * shell back in front (idle); then "the program exited"; then the rest of the screen
 * rules. Each source is used only when the capture has it.
 */
export class CombinedDetector implements Detector {
  constructor(readonly name: string, readonly manifest: Manifest, readonly every: number) {}
  /** A function of the screen, the tail, the records, hooks and the process table: only an event changes it. */
  readonly holdsUntil = UNTIL_NEXT_EVENT;
  judge(o: Observation): Verdict {
    const screen = o.exited ? null : screenVerdict(this.manifest, o);
    if (screen?.state === "blocked") return { ...screen, rule: `screen:${screen.rule}` };
    const rec = o.store.attention();
    const hook = o.hook;
    // A hook newer than the last OSC 7501 report replaces it; a record newer than the hook replaces the hook.
    if (hook && (!rec || hook.t > o.lastReportAt)) return hookVerdict(hook);
    if (rec) return recordVerdict(rec);
    if (o.exited) return EXITED;
    if (o.shellInFront) return v("idle", "process:shell", o.foreground!.name);
    return { ...screen!, rule: screen!.rule === null ? null : `screen:${screen!.rule}` };
  }
}

/**
 * Herdr's publish logic (docs/detection.md §5) over its manifest: a 300 ms tick, 100 ms
 * rechecks while confirming working → plain idle (3 more idle reads or 700 ms,
 * whichever first), visible idle/blocker published at once, skip_state_update freezing
 * the state, and a 3 s startup grace with no verdicts after the program appears.
 * Sampled on a 100 ms grid; every third sample is a normal tick.
 */
export class HerdrDetector implements Detector {
  readonly every = 0.1;
  static readonly TICK = 0.3;
  static readonly CONFIRMATIONS = 3;
  static readonly CAP = 0.7;
  static readonly GRACE = 3;
  private published: Verdict = v("unknown", null);
  private pendingSince: number | null = null;
  private confirmations = 0;
  private lastTick = -Infinity;
  private skippingGrace = false;

  constructor(readonly name: string, readonly manifest: Manifest) {}

  judge(o: Observation): Verdict {
    if (o.exited) return (this.published = { ...EXITED });
    if (o.firstOutputAt === null || o.t - o.firstOutputAt < HerdrDetector.GRACE) return this.published;
    const isTick = Math.round((o.t - this.lastTick) * 1e6) >= Math.round(HerdrDetector.TICK * 1e6);
    if (!isTick && this.pendingSince === null) return this.published;
    if (isTick) this.lastTick = o.t;
    const e = screenEval(this.manifest, o);
    if (e.skip) return this.published;
    const raw = fromEval(e, FALLBACK_RULE);
    if (raw.state === "idle" && !e.visible && this.published.state === "working") {
      if (this.pendingSince === null) {
        this.pendingSince = o.t;
        this.confirmations = 0;
        return this.published;
      }
      this.confirmations++;
      if (this.confirmations >= HerdrDetector.CONFIRMATIONS || o.t - this.pendingSince >= HerdrDetector.CAP - 1e-9) {
        this.pendingSince = null;
        return (this.published = raw);
      }
      return this.published;
    }
    this.pendingSince = null;
    return (this.published = raw);
  }

  /**
   * Steady once past the grace, not confirming, and the next tick would publish what is
   * published already (or the screen freezes updates): then nothing changes until an event.
   */
  holdsUntil(o: Observation): number {
    if (o.exited || o.firstOutputAt === null) return Infinity;
    const graceEnd = o.firstOutputAt + HerdrDetector.GRACE;
    this.skippingGrace = o.t < graceEnd;
    if (this.skippingGrace) return graceEnd - BEFORE; // no ticks run in the grace
    if (this.pendingSince !== null) return o.t;
    const e = screenEval(this.manifest, o);
    if (e.skip) return Infinity;
    const raw = fromEval(e, FALLBACK_RULE);
    if (raw.state === "idle" && !e.visible && this.published.state === "working") return o.t;
    return sameChange(this.published, raw) ? Infinity : o.t;
  }

  /** The ticks that would have run in the skipped samples: every third sample from the last tick. */
  skipped(from: number, to: number): void {
    if (this.skippingGrace) return;
    const step = Math.round(HerdrDetector.TICK / this.every);
    const a = Math.round(from / this.every), b = Math.round(to / this.every);
    const first = this.lastTick === -Infinity ? a : Math.max(a, Math.round(this.lastTick / this.every) + step);
    if (first > b) return;
    this.lastTick = Math.round((first + step * Math.floor((b - first) / step)) * this.every * 1e6) / 1e6;
  }
}
