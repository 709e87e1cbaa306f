// Agreement with the screen: whenever the screen manifest shows a prompt for longer
// than a grace period, the protocol must report blocked within the tolerance and leave
// blocked within the tolerance after the prompt goes; long stretches where one says
// working and the other idle are disagreements; blocked left and re-entered while one
// prompt stays is flapping.

import { type Finding, finding } from "./findings.ts";
import { fmtT, intersect } from "./intervals.ts";
import { type Interval, intervalsOf, type Timeline } from "../detect/timeline.ts";

/** A prompt shorter than this on screen is not a prompt (a redraw passing through). */
export const SCREEN_GRACE = 0.3;
/** Blocked left and re-entered within this, under one prompt, is a flap. */
export const FLAP_GAP = 0.25;
/** Working on one side and idle on the other for this long is a disagreement. */
export const DISAGREE_AFTER = 5;

/**
 * `inputs`: the times of the capture's input events (`record --capture-input`), when it
 * has them: a blocked report that begins after the prompt's answer was typed is late
 * however close to the prompt it came (the screen clears the prompt a sample later, so
 * by the screen alone it looked on time, and only its linger was flagged).
 */
export function agreement(
  protocol: Timeline,
  screen: Timeline,
  end: number,
  tolerance: number,
  inputs: readonly number[] = [],
): Finding[] {
  const out: Finding[] = [];
  const prompts = intervalsOf(screen, end, (v) => v.needsYou).filter((s) => s.end - s.start >= SCREEN_GRACE);
  const blocked = intervalsOf(protocol, end, (v) => v.needsYou);
  const allPrompts = intervalsOf(screen, end, (v) => v.needsYou);
  // A blocked report that arrives only after its prompt was answered belongs to that prompt: it is
  // late, not missing, and its interval is not a second, unrelated "blocked while no prompt".
  const claimed = new Set<Interval>();
  prompts.forEach((s, i) => {
    const next = prompts[i + 1]?.start ?? Infinity;
    out.push(...promptFindings(s, blocked, tolerance, next, allPrompts, claimed, inputs));
  });
  // Blocked with no prompt anywhere near: a prompt the rules do not know, or a report no prompt explains.
  for (const b of blocked) {
    if (claimed.has(b)) continue;
    const near = allPrompts.some((s) => s.end > b.start - tolerance && s.start < b.end + tolerance);
    if (!near && b.end - b.start > tolerance) {
      out.push(
        finding(
          "blocked-unseen",
          b.start,
          b.end,
          `blocked for ${(b.end - b.start).toFixed(2)} s while the screen shows no prompt`,
        ),
      );
    }
  }
  const pWorking = intervalsOf(protocol, end, (v) => v.state === "working");
  const pIdle = intervalsOf(protocol, end, (v) => v.state === "idle" && v.rule !== "process-exited");
  const sWorking = intervalsOf(screen, end, (v) => v.state === "working");
  const sIdle = intervalsOf(screen, end, (v) => v.state === "idle" && v.rule !== "process-exited");
  for (
    const [a, b, what] of [[pWorking, sIdle, "the protocol says working while the screen shows idle"], [
      pIdle,
      sWorking,
      "the protocol says idle while the screen shows work",
    ]] as const
  ) {
    for (const i of intersect(a as Interval[], b as Interval[])) {
      if (i.end - i.start >= DISAGREE_AFTER) {
        out.push(finding("disagreement", i.start, i.end, `${what} for ${(i.end - i.start).toFixed(1)} s`));
      }
    }
  }
  return out;
}

/**
 * The findings for one prompt. With no blocked during it, the first blocked interval that starts
 * after it was answered and before the next prompt (and touches no other prompt on screen) is its
 * report arriving late; only when there is none did the protocol never report it.
 */
function promptFindings(
  s: Interval,
  blocked: Interval[],
  tolerance: number,
  next: number,
  allPrompts: Interval[],
  claimed: Set<Interval>,
  inputs: readonly number[],
): Finding[] {
  const out: Finding[] = [];
  const during = blocked.filter((b) => b.end > s.start - tolerance && b.start < s.end);
  const shown = `the prompt shown ${fmtT(s.start)}–${fmtT(s.end)}`;
  if (during.length === 0) {
    const after = blocked.find((b) =>
      b.start >= s.end && b.start < next && !claimed.has(b) &&
      !allPrompts.some((o) => o !== s && o.start > s.end - 1e-9 && o.start < b.end + tolerance)
    );
    if (!after) return [finding("prompt-unreported", s.start, s.end, `${shown}: the protocol never reported blocked`)];
    claimed.add(after);
    return [
      finding(
        "prompt-late",
        s.start,
        after.start,
        `${shown}: blocked reported ${(after.start - s.start).toFixed(2)} s after the prompt appeared and ${
          (after.start - s.end).toFixed(2)
        } s after it was answered (tolerance ${tolerance} s); then blocked ${
          (after.end - after.start).toFixed(2)
        } s with no prompt on screen`,
      ),
    ];
  }
  const first = during[0];
  // The answer: the first input typed while the prompt was up.
  const answer = inputs.find((t) => t >= s.start && t <= s.end);
  if (answer !== undefined && first.start > answer && first.start <= s.start + tolerance) {
    out.push(
      finding(
        "prompt-late",
        s.start,
        first.start,
        `${shown}: blocked reported ${(first.start - s.start).toFixed(2)} s after it appeared, ${
          (first.start - answer).toFixed(2)
        } s after it was answered (input at ${fmtT(answer)})`,
      ),
    );
  } else if (first.start > s.start + tolerance) {
    out.push(
      finding(
        "prompt-late",
        s.start,
        first.start,
        `${shown}: blocked reported ${
          (first.start - s.start).toFixed(2)
        } s after it appeared (tolerance ${tolerance} s)`,
      ),
    );
  }
  const last = during[during.length - 1];
  if (last.end > s.end + tolerance) {
    out.push(
      finding(
        "blocked-linger",
        s.end,
        last.end,
        `${shown}: still blocked ${(last.end - s.end).toFixed(2)} s after it went (tolerance ${tolerance} s)`,
      ),
    );
  }
  for (let i = 1; i < during.length; i++) {
    const gap = during[i].start - during[i - 1].end;
    if (gap <= FLAP_GAP) {
      out.push(
        finding(
          "flap",
          during[i - 1].end,
          during[i].start,
          `${shown}: blocked left and re-entered within ${Math.round(gap * 1000)} ms`,
        ),
      );
    }
  }
  return out;
}

/**
 * The protocol's latency relative to the screen, one value per prompt it reported: when blocked
 * began minus when the prompt appeared (negative: reported before the screen showed it). The
 * report counted is the first blocked that is still up within the tolerance before the prompt and
 * starts before the next prompt (a late report after the prompt was answered counts, as in
 * prompt-late). Prompts never reported have no value (prompt-unreported says so).
 */
export function promptLatencies(protocol: Timeline, screen: Timeline, end: number, tolerance: number): number[] {
  const prompts = intervalsOf(screen, end, (v) => v.needsYou).filter((s) => s.end - s.start >= SCREEN_GRACE);
  const blocked = intervalsOf(protocol, end, (v) => v.needsYou);
  const out: number[] = [];
  prompts.forEach((s, i) => {
    const next = prompts[i + 1]?.start ?? Infinity;
    const b = blocked.find((b) => b.end > s.start - tolerance && b.start < next);
    if (b) out.push(b.start - s.start);
  });
  return out;
}
