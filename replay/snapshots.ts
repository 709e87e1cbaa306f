// Judging snapshots: each labelled file replayed into a fresh screen, every detector
// that can judge one instant asked once, at its end.

import { type OpenOptions, openRecording } from "../lib/recording/open.ts";
import { createDetector } from "../lib/detect/detectors.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { AUTO, withManifest } from "../lib/detect/choose.ts";
import { autoManifest } from "./analyze.ts";
import { verdictAt } from "../lib/detect/timeline.ts";
import { runDetectors } from "./clock.ts";
import type { Judged, SnapshotLabel } from "../lib/score/snapshots.ts";

/** Detectors that judge an instant (no timers, no history); named without an interval. */
export const INSTANT_KINDS = ["screen", "tail8k", "question", "title", "combined"];

export function instantDetectors(names: string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [], dropped: string[] = [];
  for (const n of names) {
    const kind = n.split(/[:@]/)[0];
    (INSTANT_KINDS.includes(kind) ? kept : dropped).push(n.replace(/@[^/]*$/, ""));
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
  const chosen = manifest === AUTO ? (await autoManifest(label.path, header, opened)).name : manifest;
  const ds = detectors.map((n) => createDetector(`${withManifest(n, chosen)}@write`, resolveManifest));
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
