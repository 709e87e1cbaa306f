// One table of renderers per report kind (hyperfine's Exporter): the CLI's --format
// choices, its --export-FORMAT flags and the -o extensions all come from these lists, so
// adding a format is one row here.

import type { Report } from "./model.ts";
import { renderMarkdown, renderTable } from "./text.ts";
import { renderCsv, renderJson, renderJunit } from "./data.ts";
import { renderHtml } from "./html.ts";
import type { Judged } from "../score/snapshots.ts";
import type { SnapshotScore } from "../score/snapshots.ts";
import {
  renderSnapshotCsv,
  renderSnapshotHtml,
  renderSnapshotJson,
  renderSnapshotJunit,
  renderSnapshotMarkdown,
  renderSnapshotTable,
} from "./snapshots.ts";

export const REPORT_FORMATS = ["table", "markdown", "json", "csv", "junit", "html"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Formats named by an output file's extension (-o, --export-*). */
export const BY_EXTENSION: Record<string, ReportFormat> = {
  ".html": "html",
  ".htm": "html",
  ".json": "json",
  ".md": "markdown",
  ".csv": "csv",
  ".xml": "junit",
};

/** What a renderer may be handed besides the report: options, colour, and (HTML) the recordings to embed. */
export interface RenderContext {
  color?: boolean;
  perFile?: boolean;
  episodes?: boolean;
  /** HTML only: file i's recording as asciicast v3 text, or null (not embedded). */
  casts?: (string | null)[];
  /** HTML only: why file i's recording is not embedded (null: it is, or the default reason). */
  notEmbedded?: (string | null)[];
}

/** What each format is called in help ("also write the JSON report here"). */
export const FORMAT_NAMES: Record<ReportFormat, string> = {
  table: "terminal table",
  markdown: "markdown report",
  json: "JSON report",
  csv: "CSV",
  junit: "JUnit XML",
  html: "HTML report",
};

export const REPORT_EXPORTERS: Record<ReportFormat, (r: Report, ctx: RenderContext) => string> = {
  table: (r, c) => renderTable(r, { color: c.color, perFile: c.perFile, episodes: c.episodes }),
  markdown: (r, c) => renderMarkdown(r, { perFile: c.perFile, episodes: c.episodes }),
  json: (r) => renderJson(r),
  csv: (r) => renderCsv(r),
  junit: (r) => renderJunit(r),
  html: (r, c) => renderHtml(r, c.casts ?? r.files.map(() => null), c.notEmbedded),
};

/** A snapshot report: each detector's verdicts on labelled screens. */
export interface SnapshotReport {
  scores: SnapshotScore[];
  judged: Judged[];
  /** Detectors asked for that cannot judge one instant. */
  dropped: string[];
}

export const SNAPSHOT_EXPORTERS: Record<ReportFormat, (r: SnapshotReport) => string> = {
  table: (r) => renderSnapshotTable(r.scores, r.judged.length, r.dropped),
  markdown: (r) => renderSnapshotMarkdown(r.scores, r.judged.length, r.dropped),
  json: (r) => renderSnapshotJson(r.scores, r.judged.length, r.dropped),
  csv: (r) => renderSnapshotCsv(r.scores),
  junit: (r) => renderSnapshotJunit(r.scores, r.judged.map((j) => j.path)),
  html: (r) => renderSnapshotHtml(r.scores, r.judged.length, r.dropped),
};
