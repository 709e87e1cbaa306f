// Agreement between the agent's hooks and its OSC 7501 reports, on one capture that
// has both (`record --hooks`): for every blocked stretch, which source said it first
// and by how much, and which one missed it; and a capture recorded with hooks in which
// no hook ever fired (the write-up's stale or missing hook: one that fails without a
// word). Both are the agent's own word, so neither is the truth: the findings say how
// far an inbox that trusts one would be from one that trusts the other.

import { type Finding, finding } from "./findings.ts";
import { fmtT } from "./intervals.ts";
import { type Interval, intervalsOf, type Timeline } from "../detect/timeline.ts";

/** Whether the hooks timeline has data at all (the capture carries hooks). */
export function hasHookData(hooks: Timeline): boolean {
  return hooks.points.some((p) => p.verdict.rule !== "no-hook-data");
}

export function hookAgreement(protocol: Timeline, hooks: Timeline, end: number, tolerance: number): Finding[] {
  if (!hasHookData(hooks)) return [];
  if (!hooks.points.some((p) => p.verdict.rule?.startsWith("hook:"))) {
    return [
      finding(
        "hooks-silent",
        0,
        end,
        `recorded with hooks, and no hook said anything in ${fmtT(end)} (a hook failing without a word?)`,
      ),
    ];
  }
  const out: Finding[] = [];
  const p = intervalsOf(protocol, end, (v) => v.needsYou);
  const h = intervalsOf(hooks, end, (v) => v.needsYou);
  const used = new Set<Interval>();
  // A pair is the hook's blocked stretch that overlaps the protocol's, or starts within the tolerance of it.
  const near = (a: Interval, b: Interval) => b.start < a.end + tolerance && b.end > a.start - tolerance;
  for (const a of p) {
    const b = h.find((x) => !used.has(x) && near(a, x));
    if (!b) {
      out.push(
        finding(
          "hook-missed",
          a.start,
          a.end,
          `blocked ${fmtT(a.start)}–${fmtT(a.end)} by the protocol; the hooks never said blocked`,
        ),
      );
      continue;
    }
    used.add(b);
    const d = b.start - a.start;
    const who = d >= 0 ? "the protocol first, the hooks" : "the hooks first, the protocol";
    const msg = `blocked at ${fmtT(Math.min(a.start, b.start))}: ${who} ${Math.abs(d).toFixed(2)} s later`;
    out.push(
      Math.abs(d) > tolerance
        ? finding(
          "hook-lag",
          Math.min(a.start, b.start),
          Math.max(a.start, b.start),
          `${msg} (tolerance ${tolerance} s)`,
        )
        : finding("hook-agree", Math.min(a.start, b.start), Math.max(a.start, b.start), msg),
    );
  }
  for (const b of h) {
    if (used.has(b)) continue;
    out.push(
      finding(
        "protocol-missed",
        b.start,
        b.end,
        `blocked ${fmtT(b.start)}–${fmtT(b.end)} by the hooks; the protocol never said blocked`,
      ),
    );
  }
  return out;
}
