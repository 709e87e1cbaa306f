// What a rule change flips: the same labelled screens judged by a manifest and by the
// one it replaces, detector by detector — both accuracies and every file whose verdict
// changed, with the rule that fired on each side. How a manifest goes through CI when
// an agent ships a new UI (issue 21).

import { type Judged, scoreSnapshots } from "./snapshots.ts";

export interface SideScore {
  detector: string;
  correct: number;
  total: number;
  accuracy: number;
}

export type FlipKind = "fixed" | "broken" | "changed";

export interface Flip {
  path: string;
  truth: string;
  /** The detector's kind (screen, tail8k, title, combined): one row per pair. */
  detector: string;
  kind: FlipKind;
  old: { verdict: string; rule: string | null };
  new: { verdict: string; rule: string | null };
}

export interface Comparison {
  oldManifest: string;
  newManifest: string;
  files: number;
  /** Pairs: the same detector with the old manifest and with the new one. */
  pairs: { kind: string; old: SideScore; new: SideScore }[];
  flips: Flip[];
}

const verdictOf = (v: { state: string; needsYou: boolean }) => (v.needsYou ? "blocked" : v.state);
const kindOf = (name: string) => name.split(/[:@]/)[0];

/** `judgedNew[i]` and `judgedOld[i]` are the same file; their verdicts come in the same detector order. */
export function compareJudged(
  judgedNew: Judged[],
  judgedOld: Judged[],
  names: { newManifest: string; oldManifest: string },
): Comparison {
  const side = (j: Judged[]): SideScore[] =>
    scoreSnapshots(j).map((s) => ({ detector: s.detector, correct: s.correct, total: s.total, accuracy: s.accuracy }));
  const n = side(judgedNew), o = side(judgedOld);
  const pairs = n.map((s, i) => ({ kind: kindOf(s.detector), old: o[i], new: s }));
  const flips: Flip[] = [];
  judgedNew.forEach((jn, f) => {
    const jo = judgedOld[f];
    const truth = jn.truth.state;
    jn.verdicts.forEach((vn, i) => {
      const vo = jo.verdicts[i];
      const a = verdictOf(vo), b = verdictOf(vn);
      if (a === b) return;
      flips.push({
        path: jn.path,
        truth: `${truth}${jn.truth.kind ? `:${jn.truth.kind}` : ""}`,
        detector: kindOf(vn.detector),
        kind: b === truth ? "fixed" : a === truth ? "broken" : "changed",
        old: { verdict: a, rule: vo.rule },
        new: { verdict: b, rule: vn.rule },
      });
    });
  });
  return { ...names, files: judgedNew.length, pairs, flips };
}

/** Flips a `--fail-on-worse LIST` gate counts: right files made wrong, for the listed detectors (or all). */
export function worse(c: Comparison, list: string[]): Flip[] {
  const all = list.includes("all");
  return c.flips.filter((f) =>
    f.kind === "broken" &&
    (all || list.some((d) => d === f.detector || c.pairs.some((p) => p.kind === f.detector && p.new.detector === d)))
  );
}
