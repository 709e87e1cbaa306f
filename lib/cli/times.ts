// One rule for every command that takes --at, --from or --to (screen, status, detect, explain,
// trim, play): a time past the capture's end is one warning line — the command still shows what
// it has at the end, but a typo'd time must not pass for the moment asked for — and --to before
// --from is bad input (exit 2), never an empty result.

import { err } from "./common.ts";
import { UsageError } from "../errors.ts";
import { disarm } from "../text.ts";
import type { Event } from "../recording/model.ts";

/** --to before --from: one line, exit 2. */
export function checkWindow(command: string, from: number | undefined, to: number | undefined): void {
  if (from !== undefined && to !== undefined && to < from) {
    throw new UsageError(`${command}: --to (${to}) is before --from (${from})`);
  }
}

/**
 * The warning for a time after the capture's end (`end`: the last event's time), or nothing.
 * `what` says what the command gives instead ("the screen at the end").
 */
export function warnPastEnd(
  flag: "--at" | "--from" | "--to",
  value: number | undefined,
  path: string,
  end: number,
  what: string,
): void {
  if (value === undefined || value === Infinity || !(value > end)) return;
  err(`pstlab: warning: ${flag} ${value} s is past the end of ${disarm(path)} (${end.toFixed(3)} s): ${what}\n`);
}

/**
 * The events, passed through, noting the last time read and whether the stream was read to its
 * end: a command that stops reading at --to knows afterwards whether its window ran past the end.
 */
export function watchEnd(events: AsyncIterable<Event>): {
  events: AsyncIterable<Event>;
  /** The capture's end (its last event's time) when every event was read, else null. */
  end: () => number | null;
} {
  let last = 0, done = false;
  return {
    events: (async function* () {
      for await (const e of events) {
        last = e.t;
        yield e;
      }
      done = true;
    })(),
    end: () => (done ? last : null),
  };
}

/**
 * After a window [from, to] of a capture was read: one warning when it starts past the end
 * (nothing of the capture is in it), else when it ends past the end.
 */
export function warnWindowPastEnd(
  path: string,
  end: number | null,
  from: number | undefined,
  to: number | undefined,
  what: { from: string; to: string },
): void {
  if (end === null) return; // stopped reading at --to: the capture goes on past it
  if (from !== undefined && from > end) warnPastEnd("--from", from, path, end, what.from);
  else warnPastEnd("--to", to, path, end, what.to);
}
