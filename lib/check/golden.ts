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
  // Times compare from the first transition both runs share: how long a program takes to
  // start (npx cold or warm: 2.4 s against 0.3 s) shifted every transition of a correct
  // build past the tolerance, and could hide a real change behind the same offset. The
  // shift itself is said once.
  const shift = pairs.length ? now[pairs[0][0]].t - golden[pairs[0][1]].t : 0;
  if (Math.abs(shift) > tolerance) {
    const x = now[pairs[0][0]], g = golden[pairs[0][1]];
    out.push(
      finding(
        "golden-timing",
        Math.min(x.t, g.t),
        Math.max(x.t, g.t),
        `the run starts ${Math.abs(shift).toFixed(2)} s ${shift > 0 ? "later" : "earlier"} than ${goldenName} (${
          show(x)
        } at ${fmtT(x.t)} vs ${fmtT(g.t)}): the times after it are compared from there`,
        "info",
      ),
    );
  }
  for (const [i, j] of pairs) {
    const x = now[i], g = golden[j];
    const dt = x.t - g.t - shift;
    if (Math.abs(dt) > tolerance) {
      out.push(
        finding(
          "golden-timing",
          Math.min(x.t, g.t),
          Math.max(x.t, g.t),
          `${show(x)} at ${fmtT(x.t)}, ${Math.abs(dt).toFixed(2)} s ${
            dt > 0 ? "later" : "earlier"
          } than in ${goldenName}${
            shift ? `, counted from the first transition both share` : ""
          } (tolerance ${tolerance} s)`,
        ),
      );
    }
    if (x.msg !== g.msg) {
      out.push(finding("golden-msg", x.t, x.t, `${show(x)} at ${fmtT(x.t)}: msg differs from ${goldenName}`));
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Each transition's n-th occurrence of its (id, state, kind), so repeated runs line up by name. */
function occurrences(run: Transition[]): Map<string, Transition> {
  const seen = new Map<string, number>(), out = new Map<string, Transition>();
  for (const x of run) {
    const k = keyOf(x);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    out.set(`${k}#${n}`, x);
  }
  return out;
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Per transition: its median time over the runs that have it, kept when at least half of them do. */
function medians(runs: Transition[][]): Map<string, { t: number; x: Transition; runs: number }> {
  const times = new Map<string, { ts: number[]; x: Transition }>();
  for (const run of runs) {
    for (const [k, x] of occurrences(run)) {
      const e = times.get(k);
      if (e) e.ts.push(x.t);
      else times.set(k, { ts: [x.t], x });
    }
  }
  const out = new Map<string, { t: number; x: Transition; runs: number }>();
  for (const [k, e] of times) {
    if (e.ts.length * 2 >= runs.length) out.set(k, { t: medianOf(e.ts), x: e.x, runs: e.ts.length });
  }
  return out;
}

/**
 * `--repeat` with `--against GOLDEN_DIR`: each transition's median time over this cell's runs
 * against its median over the golden runs, so a regression is told from the jitter of one run.
 * A transition most golden runs have and most of these lack is missing; the reverse extra.
 */
export function compareMedians(
  runs: Transition[][],
  goldenRuns: Transition[][],
  tolerance: number,
  goldenName: string,
): Finding[] {
  const now = medians(runs), golden = medians(goldenRuns);
  const out: Finding[] = [];
  const of = (n: number, total: number) => `${n} of ${total} run${total === 1 ? "" : "s"}`;
  for (const [k, g] of golden) {
    const x = now.get(k);
    if (!x) {
      out.push(
        finding(
          "golden-missing",
          g.t,
          g.t,
          `${show(g.x)} (golden median ${fmtT(g.t)}, in ${
            of(g.runs, goldenRuns.length)
          } of ${goldenName}) is in fewer than half of these ${runs.length} runs`,
        ),
      );
      continue;
    }
    const dt = x.t - g.t;
    if (Math.abs(dt) > tolerance) {
      out.push(
        finding(
          "golden-timing",
          Math.min(x.t, g.t),
          Math.max(x.t, g.t),
          `${show(x.x)}: median ${fmtT(x.t)} over ${of(x.runs, runs.length)}, ${Math.abs(dt).toFixed(2)} s ${
            dt > 0 ? "later" : "earlier"
          } than the golden median ${fmtT(g.t)} (${
            of(g.runs, goldenRuns.length)
          } of ${goldenName}; tolerance ${tolerance} s)`,
        ),
      );
    }
  }
  for (const [k, x] of now) {
    if (!golden.has(k)) {
      out.push(
        finding(
          "golden-extra",
          x.t,
          x.t,
          `${show(x.x)} (median ${fmtT(x.t)}, in ${of(x.runs, runs.length)}) is not in most runs of ${goldenName}`,
        ),
      );
    }
  }
  return out.sort((a, b) => a.start - b.start);
}
