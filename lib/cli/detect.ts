// `pstlab detect`: what a detector says at a time.

import { type CommandSpec, disarm, out, parseDuration, parseFlags, round6, UsageError } from "./common.ts";
import { INPUT_HELP, INPUT_OPTIONS, openInput, printWarnings } from "./input.ts";
import { loadManifestFlag, MANIFEST_HELP, pickManifestName } from "./detect_common.ts";
import { createDetector, DetectorError } from "../detect/detectors.ts";
import { runDetectors, verdictAt } from "../../replay/clock.ts";

export const spec: CommandSpec = {
  name: "detect",
  summary: "the verdict of a detector (default: the manifest's screen rules) at a time",
  usage: "pstlab detect FILE [--manifest NAME|PATH] [--at SECONDS] [--detector NAME] [--json]",
  options: [
    MANIFEST_HELP,
    "  --at SECONDS        time to judge (default: the end)",
    "  --detector NAME     another detector: protocol, question, quiet>=2s, combined:claude,",
    "                      herdr:claude, hash@500ms, … (replayed from the start at its own rate)",
    "  --json              {\"t\", \"state\", \"needsYou\", \"rule\", \"evidence\", …}",
    ...INPUT_HELP,
  ],
  notes: ["Works on recordings, raw streams and screen snapshots (.ansi.txt, .snap); --size sets the size of raw input."],
  examples: [
    "pstlab detect session.cast --at 61.2",
    "pstlab detect ../shared/captures/claudeless-2.1.29/bash_permission_dialog.tui.ansi.txt --json",
    "pstlab detect session.cast --detector combined:claude --at 30",
  ],
};

export async function run(argv: string[]): Promise<number> {
  const p = parseFlags(argv, spec, { ...INPUT_OPTIONS, manifest: { type: "string" }, at: { type: "string" }, detector: { type: "string" }, json: { type: "boolean" } }, { minPositionals: 1, maxPositionals: 1 });
  if (!p) return 0;
  const rec = await openInput(p.positionals[0], p.values);
  const at = p.values.at !== undefined ? parseDuration(p.values.at, "time") : undefined;
  const mname = pickManifestName(rec, p.values.manifest);
  loadManifestFlag(mname);
  let detector;
  try {
    detector = createDetector(p.values.detector ?? `screen:${mname}@write`, loadManifestFlag);
  } catch (e) {
    if (e instanceof DetectorError) throw new UsageError(`detect: ${e.message}`);
    throw e;
  }
  const { timelines, end } = await runDetectors(rec.header, rec.events, [detector], { until: at });
  const v = verdictAt(timelines[0], end)!;
  const result = { t: round6(end), state: v.state, needsYou: v.needsYou, rule: v.rule, evidence: v.evidence, kind: v.kind ?? null, detector: detector.name };
  if (p.values.json) out(JSON.stringify(result) + "\n");
  else {
    out(`${end.toFixed(3)} s  ${detector.name}: ${v.state}${v.needsYou ? " (needs you" + (v.kind ? `: ${v.kind}` : "") + ")" : ""}` +
      `${v.rule ? `  rule ${v.rule}` : "  (no rule matched)"}${v.evidence ? `  evidence "${disarm(v.evidence)}"` : ""}\n`);
  }
  printWarnings(rec);
  return 0;
}
