// The JSON Schema of `report --format json` (published as docs/schemas/report.json;
// lib/schema_docs_test.ts keeps that file equal to this). `--baseline` reads an earlier
// report through it, and the tests validate every report this version writes.

import { MAX_TIME } from "../recording/model.ts";

/** 2: the scoring definitions of docs/scoring.md (carried, uncut linger, false alarms where they begin); truth an object. */
export const REPORT_SCHEMA_VERSION = 2;

const MAX_TEXT = 65536;
const str = { type: "string", maxLength: MAX_TEXT };
const strOrNull = { type: ["string", "null"], maxLength: MAX_TEXT };
const secs = { type: "number", minimum: 0, maximum: MAX_TIME };
const secsOrNull = { type: ["number", "null"], minimum: 0, maximum: MAX_TIME };
const count = { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
const obj = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: "object",
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});

const falseAlarm = obj({ count, seconds: secs });
const verdictRow = obj({ working: secs, idle: secs, blocked: secs, unknown: secs });

const DETECTOR_SUMMARY = {
  name: str,
  episodes: count,
  detected: count,
  latency_s: obj({ median: secsOrNull, p95: secsOrNull, max: secsOrNull, mean: secsOrNull }),
  latency_not_carried_s: obj({ median: secsOrNull, max: secsOrNull }),
  missed: count,
  carried: count,
  linger_s: secs,
  linger_total_s: secs,
  linger_max_s: secs,
  linger_into_next: count,
  false_alarms: obj({ working: falseAlarm, idle: falseAlarm, unlabeled: falseAlarm }),
  confusion_s: obj({ working: verdictRow, idle: verdictRow, blocked: verdictRow, unlabeled: verdictRow }),
  truth_for_files: count,
};

const EPISODE = obj({
  path: str,
  start_s: secs,
  end_s: secs,
  kind: strOrNull,
  detected_at_s: secsOrNull,
  latency_s: secsOrNull,
  carried: { type: "boolean" },
  linger_s: secs,
  linger_into_next: { type: "boolean" },
});

const MEASURE = { enum: ["median latency", "max latency", "missed", "carried", "linger", "false alarms"] };
const signed = { type: ["number", "null"], minimum: -MAX_TIME, maximum: Number.MAX_SAFE_INTEGER };

export const REPORT_JSON_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "pstlab report --format json",
  ...obj({
    schema: { const: REPORT_SCHEMA_VERSION },
    tool: obj({ name: str, version: str }),
    spec: obj({ osc7501_revision: str }),
    truth: obj({ source: str, note: str }),
    label_tolerance_s: secs,
    inputs: {
      type: "array",
      items: obj({
        path: str,
        sha256: { type: "string", pattern: "^([0-9a-f]{64})?$" },
        format: str,
        cols: count,
        rows: count,
        duration_s: secs,
        output_bytes: count,
        truth: str,
        blocked_episodes: count,
        manifest: { oneOf: [{ type: "null" }, obj({ name: str, why: str })] },
      }),
    },
    detectors: {
      type: "array",
      items: obj({
        ...DETECTOR_SUMMARY,
        per_input: { type: "array", items: obj({ path: str, ...DETECTOR_SUMMARY }) },
        episode_list: { type: "array", items: EPISODE },
      }),
    },
    gates: { type: "array", items: obj({ detector: str, failures: { type: "array", items: str } }) },
    baseline: {
      oneOf: [
        { type: "null" },
        obj({
          path: str,
          worse_tolerance_s: secs,
          detectors: {
            type: "array",
            items: obj({
              name: str,
              changes: {
                type: "array",
                items: obj({
                  measure: MEASURE,
                  old: signed,
                  new: signed,
                  delta: signed,
                  verdict: { enum: ["better", "worse", "same"] },
                }),
              },
            }),
          },
          failures: {
            type: "array",
            items: obj({ detector: str, worse: { type: "array", items: MEASURE } }),
          },
        }),
      ].map((b) =>
        "properties" in b
          ? {
            ...b,
            // Not required: a report written before it was added still reads as a baseline.
            properties: {
              ...b.properties,
              other_files: {
                type: ["string", "null"],
                description: "set when the baseline was made from other captures (by path and sha256): which",
              },
            },
          }
          : b
      ),
    },
  }),
};
