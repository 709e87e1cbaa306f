// Pure transforms over event streams (asciinema's limit_idle_time / accelerate
// iterator adapters). Each takes and returns an AsyncIterable and never buffers
// more than one event.

import type { Event } from "./model.ts";

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
}

/** Events with from ≤ t ≤ to, rebased so `from` is 0. */
export async function* slice(events: AsyncIterable<Event>, o: SliceOptions): AsyncIterable<Event> {
  const from = o.from ?? 0, to = o.to ?? Infinity;
  for await (const e of events) {
    if (e.t > to) {
      // The exit status is still worth keeping when the window reaches the end.
      continue;
    }
    if (e.t < from) {
      if (o.keepPrelude && (e.kind === "output" || e.kind === "resize")) yield { ...e, t: 0 };
      continue;
    }
    yield { ...e, t: e.t - from };
  }
}

/** Shifts every event by `offset` seconds (used by `cat`). */
export async function* shift(events: AsyncIterable<Event>, offset: number): AsyncIterable<Event> {
  for await (const e of events) yield { ...e, t: e.t + offset };
}
