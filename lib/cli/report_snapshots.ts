// `report SNAPSHOT… --labels FILE`: the report's snapshot mode (lib/cli/report.ts
// dispatches to it when the labels file names files, not times).

import { writeText } from "./output.ts";
import { AUTO } from "../detect/choose.ts";
import { instantDetectorNames, instantKinds } from "../detect/kinds.ts";
import { type ReportFormat, SNAPSHOT_EXPORTERS } from "../report/exporters.ts";
import { UsageError } from "../errors.ts";
import type { OpenOptions } from "../recording/open.ts";
import { type Judged, parseSnapshotLabels, scoreSnapshots } from "../score/snapshots.ts";
import { instantDetectors, judgeSnapshot } from "../../replay/snapshots.ts";
import { resolve as pathResolve } from "node:path";
import { compareManifests } from "./compare_manifest.ts";
import { err } from "./common.ts";

/**
 * `report SNAPSHOT… --labels FILE` where FILE labels files, not times: every detector
 * that can judge one instant, scored on the snapshots' labels.
 */
export async function snapshotReport(
  paths: string[],
  labelsFile: string,
  text: string,
  v: { manifest?: string; detectors?: string[]; "compare-manifest"?: string; "fail-on-worse"?: string[] },
  targets: [string, ReportFormat][],
  open: OpenOptions,
): Promise<number> {
  const labels = parseSnapshotLabels(text, labelsFile);
  const byPath = new Map(labels.map((l) => [l.path, l]));
  const chosen = paths.length
    ? paths.map((p) => {
      const l = byPath.get(pathResolve(p));
      if (!l) throw new UsageError(`report: ${p} has no label in ${labelsFile}`);
      return l;
    })
    : labels;
  const manifest = v.manifest ?? AUTO;
  const { kept, dropped } = instantDetectors(v.detectors ?? instantDetectorNames(manifest));
  if (kept.length === 0) {
    throw new UsageError(`report: none of ${dropped.join(", ")} can judge a single instant (use ${instantKinds()})`);
  }
  if (v["compare-manifest"]) {
    return await compareManifests({
      labels: chosen,
      kept,
      manifest,
      old: v["compare-manifest"],
      open,
      targets,
      failOnWorse: v["fail-on-worse"],
    });
  }
  const judged: Judged[] = [];
  for (const l of chosen) judged.push(await judgeSnapshot(l, kept, manifest, open));
  for (const j of judged) for (const w of j.warnings) err(`pstlab: warning: ${w}\n`);
  // Files whose `auto` manifest differs pool under the name they were asked by.
  for (let i = 0; i < kept.length; i++) {
    if (!judged.every((j) => j.verdicts[i].detector === judged[0].verdicts[i].detector)) {
      for (const j of judged) j.verdicts[i].detector = kept[i];
    }
  }
  const report = { scores: scoreSnapshots(judged), judged, dropped };
  for (const [path, f] of targets) writeText(path, SNAPSHOT_EXPORTERS[f](report), f);
  return 0;
}
