// Golden comparison: the protocol transitions (id, state, kind) of a new capture of a
// scripted scenario against a known-good capture of the same scenario, aligned in order
// (longest common subsequence), then compared in time. A transition missing or extra
// is a violation; the same one off by more than the tolerance a warning; a different
// msg is reported apart, as info.

import type { ProtocolEvent } from "../osc7501/tracker.ts";
import { type Finding, finding } from "./findings.ts";
import { fmtT } from "./intervals.ts";

export interface Transition {
  t: number;
  id: string | null;
  state: string;
  kind: string | null;
  msg: string | null;
}

/** Accepted OSC 7501 reports that change their record's (state, kind), in order. */
export function transitions(events: ProtocolEvent[]): Transition[] {
  const last = new Map<string, string>();
  const out: Transition[] = [];
  for (const e of events) {
    if (e.type !== "report" || e.source !== "osc7501") continue;
    const key = e.id ?? "";
    const sk = `${e.state}|${e.kind}`;
    if (last.get(key) === sk) continue;
    last.set(key, sk);
    out.push({ t: e.t, id: e.id, state: e.state, kind: e.kind, msg: e.msg });
  }
  return out;
}

const keyOf = (x: Transition) => `${x.id ?? ""}|${x.state}|${x.kind ?? ""}`;
const show = (x: Transition) => `${x.id ?? "(root)"} ${x.state}${x.kind ? `:${x.kind}` : ""}`;
/** Beyond this many cells the alignment falls back to a greedy walk (memory stays small). */
const MAX_CELLS = 16_000_000;

/** Index pairs of a longest common subsequence of the two key lists. */
function align(a: string[], b: string[]): [number, number][] {
  if (a.length * b.length > MAX_CELLS) return greedy(a, b);
  const w = b.length + 1;
  const dp = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      dp[i * w + j] = a[i] === b[j] ? dp[(i + 1) * w + j + 1] + 1 : Math.max(dp[(i + 1) * w + j], dp[i * w + j + 1]);
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (dp[(i + 1) * w + j] >= dp[i * w + j + 1]) i++;
    else j++;
  }
  return pairs;
}

function greedy(a: string[], b: string[]): [number, number][] {
  const pairs: [number, number][] = [];
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const k = b.indexOf(a[i], j);
    if (k >= 0 && k - j < 50) {
      pairs.push([i, k]);
      j = k + 1;
    }
  }
  return pairs;
}

export function compareGolden(
  now: Transition[],
  golden: Transition[],
  tolerance: number,
  goldenName: string,
): Finding[] {
  const pairs = align(now.map(keyOf), golden.map(keyOf));
  const out: Finding[] = [];
  const matchedNow = new Set(pairs.map(([i]) => i)), matchedGolden = new Set(pairs.map(([, j]) => j));
  golden.forEach((g, j) => {
    if (!matchedGolden.has(j)) {
      out.push(finding("golden-missing", g.t, g.t, `${show(g)} at ${fmtT(g.t)} in ${goldenName} never happens here`));
    }
  });
  now.forEach((x, i) => {
    if (!matchedNow.has(i)) {
      out.push(finding("golden-extra", x.t, x.t, `${show(x)} at ${fmtT(x.t)} is not in ${goldenName}`));
    }
  });
  for (const [i, j] of pairs) {
    const x = now[i], g = golden[j];
    const dt = x.t - g.t;
    if (Math.abs(dt) > tolerance) {
      out.push(
        finding(
          "golden-timing",
          Math.min(x.t, g.t),
          Math.max(x.t, g.t),
          `${show(x)} at ${fmtT(x.t)}, ${Math.abs(dt).toFixed(2)} s ${
            dt > 0 ? "later" : "earlier"
          } than in ${goldenName} (tolerance ${tolerance} s)`,
        ),
      );
    }
    if (x.msg !== g.msg) {
      out.push(finding("golden-msg", x.t, x.t, `${show(x)} at ${fmtT(x.t)}: msg differs from ${goldenName}`));
    }
  }
  return out.sort((a, b) => a.start - b.start);
}
