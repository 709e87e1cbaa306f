// `pstlab detect`: what a detector says at a time.

import { defineCommand, out } from "./common.ts";
import { AT, DETECTOR_NOTES, flag, INPUT_OPTIONS, MANIFEST, ONE_FILE, text } from "./options.ts";
import { openInput, openOptions, printWarnings } from "./input.ts";
import { AUTO } from "../detect/choose.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { createDetector, manifestForDetector, withManifest } from "../detect/kinds.ts";
import { runDetectors } from "../../replay/clock.ts";
import { verdictAt } from "../detect/timeline.ts";
import { disarm, round6 } from "../text.ts";
import { summaryOf } from "./commands.ts";
import { warnPastEnd } from "./times.ts";

export const spec = {
  name: "detect",
  summary: summaryOf("detect"),
  synopsis: "FILE",
  options: {
    manifest: MANIFEST,
    at: AT,
    detector: text("NAME", "another detector (see below), replayed from the start at its own rate"),
    json: flag('{"t", "state", "needsYou", "rule", "evidence", "manifest", …}'),
    ...INPUT_OPTIONS,
  },
  positionals: ONE_FILE,
  notes: [
    "Works on recordings, raw streams and screen snapshots (.ansi.txt, .snap); --size sets the size of raw input.",
    "",
    ...DETECTOR_NOTES,
  ],
  examples: [
    "pstlab detect session.cast --at 61.2",
    "pstlab detect prompt.ansi.txt --json",
    "pstlab detect session.cast --detector combined:claude --at 30",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const rec = await openInput(p.positionals[0], p.values);
  const asked = p.values.detector ?? `screen:${AUTO}@write`;
  const chosen = await manifestForDetector(asked, rec, p.values.manifest, openOptions(p.values));
  const detector = createDetector(withManifest(asked, chosen.name), resolveManifest);
  const at = p.values.at;
  const { timelines, end, pastEnd } = await runDetectors(rec.header, rec.events, [detector], { until: at });
  if (pastEnd !== null) warnPastEnd("--at", at, rec.path, pastEnd, "the verdict at the end");
  const v = verdictAt(timelines[0], end)!;
  const result = {
    t: round6(end),
    state: v.state,
    needsYou: v.needsYou,
    rule: v.rule,
    evidence: v.evidence,
    kind: v.kind ?? null,
    detector: detector.name,
    manifest: { name: chosen.name, why: chosen.why },
  };
  if (p.values.json) out(JSON.stringify(result) + "\n");
  else {
    out(`manifest ${chosen.name} (${disarm(chosen.why)})\n`);
    out(
      `${end.toFixed(3)} s  ${detector.name}: ${v.state}${
        v.needsYou ? " (needs you" + (v.kind ? `: ${v.kind}` : "") + ")" : ""
      }` +
        `${v.rule ? `  rule ${v.rule}` : "  (no rule matched)"}${
          v.evidence ? `  evidence "${disarm(v.evidence)}"` : ""
        }\n`,
    );
  }
  printWarnings(rec);
  return 0;
});
