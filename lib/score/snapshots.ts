// Scoring single instants: a folder of labelled screen snapshots (tmux capture-pane,
// test fixtures, .ansi.txt, insta .snap) judged by every detector that can judge one
// instant — accuracy, the confusion matrix (truth × verdict) and the misjudged files
// with the rule that fired. How a manifest author checks rules against a hundred panes.

import * as path from "node:path";
import { FixtureError } from "../errors.ts";
import { forEachLabelLine, TRUTH_LABELS, truthStateOf } from "./truth.ts";

export interface SnapshotLabel {
  path: string;
  state: "idle" | "working" | "blocked";
  kind: string | null;
  line: number;
}

/** Whether a labels file labels snapshots (`PATH<TAB>state`) rather than times (`seconds<TAB>state`). */
export function isSnapshotLabels(text: string): boolean {
  const first = text.split("\n").find((l) => l.trim() !== "" && !l.startsWith("#"));
  return first !== undefined && !/^\s*[0-9.]+\t/.test(first);
}

/** `PATH<TAB>state[<TAB>kind]`, PATH relative to the labels file's folder. */
export function parseSnapshotLabels(text: string, file: string): SnapshotLabel[] {
  const base = path.dirname(file);
  const out: SnapshotLabel[] = [];
  forEachLabelLine(text, (f, line, l) => {
    if (f.length < 2 || f[0].trim() === "") {
      throw new FixtureError(file, line, `expected "PATH<TAB>state[<TAB>kind]", got ${JSON.stringify(l.slice(0, 60))}`);
    }
    const st = f[1].trim();
    const state = truthStateOf(st);
    if (!state) throw new FixtureError(file, line, `unknown state "${st}" (use ${TRUTH_LABELS.join(", ")})`);
    out.push({ path: path.resolve(base, f[0].trim()), state, kind: f[2]?.trim() || null, line });
  });
  if (out.length === 0) throw new FixtureError(file, null, "no labels");
  return out;
}

export interface Judged {
  path: string;
  truth: SnapshotLabel;
  /** detector name → its verdict on the snapshot. */
  verdicts: { detector: string; state: string; needsYou: boolean; rule: string | null }[];
}

export interface SnapshotScore {
  detector: string;
  total: number;
  correct: number;
  accuracy: number;
  /** truth state → verdict state → count. */
  confusion: Record<string, Record<string, number>>;
  misjudged: { path: string; truth: string; verdict: string; rule: string | null }[];
}

const verdictState = (v: { state: string; needsYou: boolean }) => (v.needsYou ? "blocked" : v.state);

export function scoreSnapshots(judged: Judged[]): SnapshotScore[] {
  const names = judged[0]?.verdicts.map((v) => v.detector) ?? [];
  return names.map((detector, i) => {
    const confusion: Record<string, Record<string, number>> = {};
    const misjudged: SnapshotScore["misjudged"] = [];
    let correct = 0;
    for (const j of judged) {
      const v = j.verdicts[i];
      const got = verdictState(v);
      const row = (confusion[j.truth.state] ??= {});
      row[got] = (row[got] ?? 0) + 1;
      if (got === j.truth.state) correct++;
      else {misjudged.push({
          path: j.path,
          truth: `${j.truth.state}${j.truth.kind ? `:${j.truth.kind}` : ""}`,
          verdict: got,
          rule: v.rule,
        });}
    }
    return {
      detector,
      total: judged.length,
      correct,
      accuracy: judged.length ? correct / judged.length : 0,
      confusion,
      misjudged,
    };
  });
}
