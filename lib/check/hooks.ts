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
  const p = intervalsOf(protocol, end, (v) => v.needsYou);
  const h = intervalsOf(hooks, end, (v) => v.needsYou);
  const pairs: { a: Interval; b: Interval; after: "protocol" | "hooks" | null }[] = [];
  const paired = new Set<Interval>();
  // A pair is the hook's blocked stretch that overlaps the protocol's, or starts within the tolerance of it.
  const near = (a: Interval, b: Interval) => b.start < a.end + tolerance && b.end > a.start - tolerance;
  for (const a of p) {
    const b = h.find((x) => !paired.has(x) && near(a, x));
    if (!b) continue;
    paired.add(a).add(b);
    pairs.push({ a, b, after: null });
  }
  // As prompt-late reads a late report (agreement.ts): a stretch of one source with no partner is
  // the other's, said late, when the other's first unpaired stretch starts after it ended and
  // before that source's next stretch, and touches no other stretch of it. Only with none was
  // it never said.
  const late = (x: Interval, own: Interval[], other: Interval[]): Interval | undefined => {
    const next = own.find((o) => o.start > x.start)?.start ?? Infinity;
    return other.find((y) =>
      !paired.has(y) && y.start >= x.end && y.start < next &&
      !own.some((o) => o !== x && near(o, y))
    );
  };
  for (const a of p) {
    if (paired.has(a)) continue;
    const b = late(a, p, h);
    if (b) {
      paired.add(a).add(b);
      pairs.push({ a, b, after: "protocol" });
    }
  }
  for (const b of h) {
    if (paired.has(b)) continue;
    const a = late(b, h, p);
    if (a) {
      paired.add(a).add(b);
      pairs.push({ a, b, after: "hooks" });
    }
  }
  const out: Finding[] = [];
  for (const { a, b, after } of pairs) {
    const d = b.start - a.start;
    const who = d >= 0 ? "the protocol first, the hooks" : "the hooks first, the protocol";
    const gone = after === null
      ? ""
      : ` (${after === "protocol" ? "the protocol's" : "the hooks'"} blocked had already ended at ${
        fmtT(after === "protocol" ? a.end : b.end)
      })`;
    const msg = `blocked at ${fmtT(Math.min(a.start, b.start))}: ${who} ${Math.abs(d).toFixed(2)} s later${gone}`;
    out.push(
      Math.abs(d) > tolerance || after !== null
        ? finding(
          "hook-lag",
          Math.min(a.start, b.start),
          Math.max(a.start, b.start),
          `${msg} (tolerance ${tolerance} s)`,
        )
        : finding("hook-agree", Math.min(a.start, b.start), Math.max(a.start, b.start), msg),
    );
  }
  for (const a of p) {
    if (paired.has(a)) continue;
    out.push(
      finding(
        "hook-missed",
        a.start,
        a.end,
        `blocked ${fmtT(a.start)}–${fmtT(a.end)} by the protocol; the hooks never said blocked`,
      ),
    );
  }
  for (const b of h) {
    if (paired.has(b)) continue;
    out.push(
      finding(
        "protocol-missed",
        b.start,
        b.end,
        `blocked ${fmtT(b.start)}–${fmtT(b.end)} by the hooks; the protocol never said blocked`,
      ),
    );
  }
  return out.sort((x, y) => x.start - y.start);
}
