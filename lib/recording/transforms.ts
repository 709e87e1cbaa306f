// Pure transforms over event streams (asciinema's limit_idle_time / accelerate
// iterator adapters). Each takes and returns an AsyncIterable and never buffers
// more than one event.

import type { Event } from "./model.ts";
import { EscapeState } from "./escape_state.ts";

/** Gaps longer than `limit` seconds are shortened to `limit`. */
export async function* limitIdleTime(events: AsyncIterable<Event>, limit: number): AsyncIterable<Event> {
  let prevIn = 0, prevOut = 0;
  for await (const e of events) {
    const gap = Math.max(0, e.t - prevIn);
    prevIn = e.t;
    prevOut += Math.min(gap, limit);
    yield { ...e, t: prevOut };
  }
}

/** Plays `speed` times faster. */
export async function* accelerate(events: AsyncIterable<Event>, speed: number): AsyncIterable<Event> {
  for await (const e of events) yield { ...e, t: e.t / speed };
}

export interface SliceOptions {
  from?: number;
  to?: number;
  /** Keep output before `from` at t=0 so the first frame (and protocol records) look right. */
  keepPrelude?: boolean;
  /** Said about the cut (a clip that ends inside an escape sequence), for the caller to print. */
  warnings?: string[];
  /** Counted as the clip is read: output events from inside the window (not the prelude). */
  counts?: { outputs: number };
}

/**
 * Events with from ≤ t ≤ to, rebased so `from` is 0. What was in force at `from` is
 * re-emitted at t=0 so a clip keeps its truth: the last `truth:` label (a clip of a
 * permission prompt is still labelled blocked) and the window size (the screen is the
 * size it was), with or without the prelude's output.
 */
export async function* slice(events: AsyncIterable<Event>, o: SliceOptions): AsyncIterable<Event> {
  const from = o.from ?? 0, to = o.to ?? Infinity;
  let label: Event | null = null, size: Event | null = null, carried = from <= 0;
  // Where the output stands at the cut: a sequence begun before `from` and finished after
  // it starts the clip with its head (escape_state.ts); one open at `to` is said.
  const before = new EscapeState(), within = new EscapeState();
  let openSince = 0;
  for await (const e of events) {
    if (e.t > to) {
      // The exit status is still worth keeping when the window reaches the end.
      continue;
    }
    if (e.t < from) {
      if (e.kind === "marker" && e.label.startsWith("truth:")) label = e;
      // The prelude replays in order (output before a resize was drawn at the old size);
      // without it only the last size matters.
      else if (e.kind === "resize" && !o.keepPrelude) size = e;
      if (o.keepPrelude && (e.kind === "output" || e.kind === "resize")) yield { ...e, t: 0 };
      else if (e.kind === "output") before.feed(e.bytes);
      continue;
    }
    if (!carried) {
      carried = true;
      if (size) yield { ...size, t: 0 };
      // A label at `from` itself replaces the carried one: write only one.
      if (label && !(e.kind === "marker" && e.label.startsWith("truth:") && e.t === from)) yield { ...label, t: 0 };
      const head = before.openSequence();
      if (head) {
        within.feed(head);
        openSince = 0;
        yield { t: 0, kind: "output", bytes: head };
      }
    }
    if (e.kind === "output") {
      within.feed(e.bytes);
      if (within.begunInLast) openSince = e.t - from;
      if (o.counts) o.counts.outputs++;
    }
    yield { ...e, t: e.t - from };
  }
  if (!carried) {
    if (size) yield { ...size, t: 0 };
    if (label) yield { ...label, t: 0 };
  }
  if (within.inside && to !== Infinity) {
    o.warnings?.push(
      `the clip ends inside an escape sequence begun at ${
        openSince.toFixed(3)
      } s (its end is after --to): a reader sees it cut short`,
    );
  }
}

/** Shifts every event by `offset` seconds (used by `cat`). */
export async function* shift(events: AsyncIterable<Event>, offset: number): AsyncIterable<Event> {
  for await (const e of events) yield { ...e, t: e.t + offset };
}
