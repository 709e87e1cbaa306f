// What one analysed capture yields: the input's identity, its truth, every scored
// detector and the change points the HTML timeline draws. Produced by replay/analyze.ts,
// read by the report model and its renderers (which never re-read the capture).

import type { DetectorScore } from "./metrics.ts";
import type { TruthSegment } from "./truth.ts";

export interface FileResult {
  path: string;
  sha256: string;
  format: string;
  cols: number;
  rows: number;
  duration: number;
  outputBytes: number;
  command: string | null;
  /** The manifest `auto` chose for this file, and why (null: no detector asked for auto). */
  manifest: { name: string; why: string } | null;
  truth: string;
  truthSegments: TruthSegment[];
  blockedEpisodes: number;
  scores: DetectorScore[];
  warnings: string[];
  markers: { t: number; label: string }[];
  /** Change points per detector, for timelines (HTML). */
  timelines: { detector: string; points: { t: number; state: string; needsYou: boolean; rule: string | null }[] }[];
}
