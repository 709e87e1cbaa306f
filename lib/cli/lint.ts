// `pstlab lint`: findings on manifests before they ship (lib/detect/lint.ts), with a
// labelled corpus of pane captures when given.

import { defineCommand, err, ExitCode, out } from "./common.ts";
import { AT_LEAST_ONE_FILE, flag, inputFile } from "./options.ts";
import { BUNDLED, resolveManifest } from "../detect/bundled.ts";
import { type Finding, lintManifest, type LintScreen, unrunnableRules } from "../detect/lint.ts";
import { ManifestError } from "../errors.ts";
import { readTextFile } from "../recording/source.ts";
import { openRecording } from "../recording/open.ts";
import { Observer } from "../detect/observer.ts";
import { parseSnapshotLabels, type SnapshotLabel } from "../score/snapshots.ts";
import { chooseManifest } from "../detect/choose.ts";
import { loadManifest, type Manifest } from "../detect/manifest.ts";
import { disarm } from "../text.ts";
import { summaryOf } from "./commands.ts";

export const spec = {
  name: "lint",
  summary: summaryOf("lint"),
  synopsis: "MANIFEST…",
  options: {
    labels: inputFile(
      "FILE",
      "a labelled corpus of pane captures (PATH<TAB>state…, see report --labels):\nrules are also judged on its screens",
    ),
    strict: flag("warnings fail too (exit 1)"),
    json: flag('{"manifests": [{"file", "findings": [{"level", "rule", "message"}]}], "errors", "warnings"}'),
  },
  positionals: AT_LEAST_ONE_FILE,
  notes: [
    "MANIFEST is a .toml path (Herdr's format or first-match) or a bundled name (claude, generic, …).",
    "Errors (exit 1): a rule that can never win — a copy of an earlier rule, after a catch-all, or",
    "matching screens of the corpus but never first; a title/OSC rule outranking every blocked rule",
    "that reads the screen (a stale busy title hides a dialog); a pattern no engine can run.",
    "Warnings (exit 0 unless --strict): a scan window shorter than a menu of the corpus, a",
    "case-sensitive pattern whose wording the corpus shows in another case, a pattern that leaves",
    "JavaScript's fast path on a full screen (the regex runner's verdict).",
    "With a program column in the labels, a manifest is judged on the screens of its program.",
  ],
  examples: [
    "pstlab lint my-rules.toml",
    "pstlab lint fixtures/manifests/*.toml --labels corpus/labels.tsv --strict",
    "pstlab lint my-rules.toml --json",
  ],
};

/** The screen at the end of each labelled capture, read as `report --labels` reads it. */
async function corpusScreens(file: string): Promise<{ label: SnapshotLabel; screen: LintScreen }[]> {
  const labels = parseSnapshotLabels(readTextFile(file), file);
  const out: { label: SnapshotLabel; screen: LintScreen }[] = [];
  for (const label of labels) {
    const rec = await openRecording(label.path, label.size ? { size: label.size } : {});
    const observer = new Observer(rec.header);
    let t = 0;
    try {
      for await (const e of rec.events) {
        observer.apply(e);
        t = e.t;
      }
      const o = observer.observe(t);
      const rows = [...o.rows()], cursor = o.cursor();
      out.push({
        label,
        screen: {
          name: label.given,
          source: { rows: () => rows, title: o.title, osc9: o.osc9, cursor: () => cursor },
          truth: label.state,
        },
      });
    } finally {
      observer.dispose();
    }
    for (const w of rec.warnings) err(`pstlab: warning: ${w.split(label.path).join(label.given)}\n`);
  }
  return out;
}

/** The corpus screens of a manifest's program when the labels name programs, else all of them. */
function screensFor(m: Manifest, corpus: { label: SnapshotLabel; screen: LintScreen }[]): LintScreen[] {
  const named = corpus.filter(({ label }) => {
    if (!label.program) return false;
    const p = label.program;
    return p === m.name || p === m.id || chooseManifest({ cols: 1, rows: 1, command: p }).name === m.name;
  });
  return (named.length ? named : corpus).map((c) => c.screen);
}

function lintOne(spec: string, corpus: { label: SnapshotLabel; screen: LintScreen }[] | null): Finding[] {
  let m: Manifest;
  try {
    m = resolveManifest(spec);
  } catch (e) {
    if (!(e instanceof ManifestError)) throw e;
    const text = BUNDLED[spec] ?? readTextFile(spec);
    const { findings, rest } = unrunnableRules(text);
    if (!findings.length) return [{ level: "error", rule: null, message: e.message }];
    if (rest === null) return findings;
    // The loader stopped at the first unrunnable pattern: lint every other rule too, so one
    // run reports every problem (a duplicate rule next to a backreference, say).
    try {
      m = loadManifest(rest!, spec, spec);
    } catch (e2) {
      if (!(e2 instanceof ManifestError)) throw e2;
      return [...findings, { level: "error", rule: null, message: e2.message }];
    }
    return [...findings, ...lintManifest(m, corpus ? screensFor(m, corpus) : null)];
  }
  return lintManifest(m, corpus ? screensFor(m, corpus) : null);
}

export const command = defineCommand(spec, async (p) => {
  const corpus = p.values.labels ? await corpusScreens(p.values.labels) : null;
  const results = p.positionals.map((file) => ({ file, findings: lintOne(file, corpus) }));
  const all = results.flatMap((r) => r.findings);
  const errors = all.filter((f) => f.level === "error").length, warnings = all.length - errors;
  if (p.values.json) {
    out(JSON.stringify({ manifests: results, errors, warnings }) + "\n");
  } else {
    const lines = results.flatMap(({ file, findings }) =>
      findings.map((f) =>
        `${disarm(file)}: ${f.level}: ${f.rule ? `rule "${disarm(f.rule)}": ` : ""}${disarm(f.message)}`
      )
    );
    if (lines.length) out(lines.join("\n") + "\n");
    err(
      `lint: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${
        warnings === 1 ? "" : "s"
      } in ${results.length} manifest${results.length === 1 ? "" : "s"}\n`,
    );
  }
  if (errors || (p.values.strict && warnings)) throw new ExitCode(1, "");
  return 0;
});
