// Judging snapshots: each labelled file replayed into a fresh screen, every detector
// that can judge one instant asked once, at its end.

import { type OpenOptions, openRecording } from "../lib/recording/open.ts";
import {
  createDetector,
  formatDetectorName,
  judgesInstant,
  parseDetectorName,
  withManifest,
} from "../lib/detect/kinds.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { manifestFor } from "../lib/detect/choose.ts";
import { verdictAt } from "../lib/detect/timeline.ts";
import { runDetectors } from "./clock.ts";
import type { Judged, SnapshotLabel } from "../lib/score/snapshots.ts";

/** The detectors that judge an instant (no timers, no history), named without an interval; the rest are dropped. */
export function instantDetectors(names: string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [], dropped: string[] = [];
  for (const n of names) {
    const name = formatDetectorName({ ...parseDetectorName(n), every: null });
    (judgesInstant(n) ? kept : dropped).push(name);
  }
  return { kept: [...new Set(kept)], dropped };
}

export async function judgeSnapshot(
  label: SnapshotLabel,
  detectors: string[],
  manifest: string,
  open: OpenOptions,
): Promise<Judged> {
  // The label's size wins over --size: it is this pane's own (the capture's real size).
  const opened = label.size ? { ...open, size: label.size } : open;
  const rec = await openRecording(label.path, opened);
  // A `program` column names the program on screen: auto chooses as for a recorded command.
  const header = label.program ? { ...rec.header, command: rec.header.command ?? label.program } : rec.header;
  const chosen = (await manifestFor(label.path, header, manifest, opened)).name;
  const ds = detectors.map((n) =>
    createDetector(formatDetectorName({ ...parseDetectorName(withManifest(n, chosen)), every: 0 }), resolveManifest)
  );
  const { timelines, end } = await runDetectors(rec.header, rec.events, ds);
  return {
    path: label.given,
    warnings: rec.warnings.map((w) => w.split(label.path).join(label.given)),
    truth: label,
    verdicts: timelines.map((tl, i) => {
      const v = verdictAt(tl, end);
      return {
        detector: withManifest(detectors[i], chosen),
        state: v?.state ?? "unknown",
        needsYou: v?.needsYou ?? false,
        rule: v?.rule ?? null,
      };
    }),
  };
}
