// `report --labels CORPUS --manifest NEW --compare-manifest OLD`: the labelled screens
// judged by both manifests (lib/score/compare.ts), written in every report format, with
// `--fail-on-worse` failing when a file that was right becomes wrong. Kept apart from
// report.ts: report calls `compareManifests` and gives it what it parsed.

import { ExitCode } from "./common.ts";
import { writeText } from "./output.ts";
import { UsageError } from "../errors.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { AUTO } from "../detect/choose.ts";
import { formatDetectorName, parseDetectorName } from "../detect/kinds.ts";
import type { OpenOptions } from "../recording/open.ts";
import type { Judged, SnapshotLabel } from "../score/snapshots.ts";
import { compareJudged, type Comparison, worse } from "../score/compare.ts";
import { judgeSnapshot } from "../../replay/snapshots.ts";
import {
  renderCompareCsv,
  renderCompareHtml,
  renderCompareJson,
  renderCompareJunit,
  renderCompareMarkdown,
  renderCompareTable,
} from "../report/compare.ts";

type Format = "table" | "markdown" | "json" | "csv" | "junit" | "html";

const RENDER: Record<Format, (c: Comparison) => string> = {
  table: renderCompareTable,
  markdown: renderCompareMarkdown,
  json: renderCompareJson,
  csv: renderCompareCsv,
  junit: renderCompareJunit,
  html: renderCompareHtml,
};

/** The manifest detectors among `kept`, and the same ones with the old manifest. */
function pairNames(kept: string[], manifest: string, old: string): { now: string[]; before: string[] } {
  const now: string[] = [], before: string[] = [];
  for (const name of kept) {
    const n = parseDetectorName(name);
    if (n.manifest !== manifest) continue; // question and other manifest-free detectors never flip
    now.push(name);
    before.push(formatDetectorName({ ...n, manifest: old }));
  }
  return { now, before };
}

export async function compareManifests(opts: {
  labels: SnapshotLabel[];
  kept: string[];
  manifest: string;
  old: string;
  open: OpenOptions;
  /** Where each format goes (the report's -o/--format and --export-FORMAT targets). */
  targets: [string, Format][];
  failOnWorse?: string[];
}): Promise<number> {
  if (opts.old === AUTO) throw new UsageError("report: --compare-manifest needs a manifest name or path, not auto");
  resolveManifest(opts.old);
  const { now, before } = pairNames(opts.kept, opts.manifest, opts.old);
  if (now.length === 0) {
    throw new UsageError(
      `report: --compare-manifest needs a detector that uses --manifest (screen:${opts.manifest}, tail8k:…, title:…, combined:…)`,
    );
  }
  const judgedNew: Judged[] = [], judgedOld: Judged[] = [];
  for (const l of opts.labels) {
    judgedNew.push(await judgeSnapshot(l, now, opts.manifest, opts.open));
    judgedOld.push(await judgeSnapshot(l, before, opts.old, opts.open));
  }
  const c = compareJudged(judgedNew, judgedOld, { newManifest: opts.manifest, oldManifest: opts.old });
  for (const [path, f] of opts.targets) writeText(path, RENDER[f](c), f);
  if (opts.failOnWorse) {
    const bad = worse(c, opts.failOnWorse);
    const files = [...new Set(bad.map((f) => f.path))];
    if (files.length) {
      throw new ExitCode(
        1,
        `report: ${files.length} labelled file${files.length === 1 ? "" : "s"} right with ${opts.old} ${
          files.length === 1 ? "is" : "are"
        } wrong with ${opts.manifest} (--fail-on-worse ${opts.failOnWorse.join(",")}): ${
          files.slice(0, 3).map((p) => `${p} (${bad.filter((f) => f.path === p).map((f) => f.detector).join(", ")})`)
            .join("; ")
        }${files.length > 3 ? "; …" : ""}`,
      );
    }
  }
  return 0;
}
