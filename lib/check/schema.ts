// The JSON Schema of `check --format json` (render.ts renderCheckJson), published as
// docs/schemas/check.json for CI jobs that read it; the tests validate every check JSON
// the suite produces against it.

import { CHECK_SCHEMA } from "./render.ts";
import { CHECKS } from "./findings.ts";
import { DIMENSION_ORDER, MATRIX_SCHEMA } from "./matrix.ts";
import { MAX_TIME } from "../recording/model.ts";

const str = { type: "string" };
const secs = { type: "number", minimum: 0, maximum: MAX_TIME };
const count = { type: "integer", minimum: 0 };
const obj = (properties: Record<string, unknown>) => ({
  type: "object",
  required: Object.keys(properties),
  properties,
});
const SEVERITY = { enum: ["violation", "warning", "info"] };
const COUNTS = obj({ violation: count, warning: count, info: count });

export const CHECK_JSON_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "pstlab check --format json",
  ...obj({
    schema: { const: CHECK_SCHEMA },
    tool: obj({ name: str, version: str }),
    passed: { type: "boolean" },
    strict: { type: "boolean" },
    tolerance_s: secs,
    against: { type: ["string", "null"] },
    rules: { type: ["string", "null"] },
    counts: COUNTS,
    files: {
      type: "array",
      items: obj({
        path: str,
        sha256: { type: "string", pattern: "^([0-9a-f]{64})?$" },
        duration_s: secs,
        reports: count,
        manifest: obj({ name: str, why: str }),
        counts: COUNTS,
        findings: {
          type: "array",
          items: obj({
            check: { enum: Object.keys(CHECKS) },
            severity: SEVERITY,
            start_s: secs,
            end_s: secs,
            message: str,
          }),
        },
      }),
    },
  }),
};

const FINDING = obj({
  check: { enum: Object.keys(CHECKS) },
  severity: SEVERITY,
  start_s: secs,
  end_s: secs,
  message: str,
});
const maybeSecs = { type: ["number", "null"], minimum: -MAX_TIME, maximum: MAX_TIME };

/** `check --matrix … --format json` (matrix.ts renderMatrixJson), published as docs/schemas/check-matrix.json. */
export const MATRIX_JSON_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "pstlab check --matrix --format json",
  ...obj({
    schema: { const: MATRIX_SCHEMA },
    tool: obj({ name: str, version: str }),
    passed: { type: "boolean" },
    strict: { type: "boolean" },
    tolerance_s: secs,
    repeat: { type: "integer", minimum: 1 },
    dimensions: {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(DIMENSION_ORDER.map((d) => [d, { type: "array", items: str }])),
    },
    cells: {
      type: "array",
      items: obj({
        cell: {
          type: "object",
          additionalProperties: false,
          properties: Object.fromEntries(DIMENSION_ORDER.map((d) => [d, str])),
        },
        name: { type: "string", pattern: "^[A-Za-z0-9._-]+$" },
        exit: {
          enum: [0, 1],
          description:
            "check's verdict on this cell as an exit status: 0 passed, 1 failed (the text CHECK column). Not the recorded program's exit code",
        },
        findings: { type: "array", items: FINDING },
        capture: str,
        query: str,
        latency: obj({ samples: count, median_s: maybeSecs, p95_s: maybeSecs, max_s: maybeSecs, spread_s: maybeSecs }),
        cell_findings: { type: "array", items: FINDING },
        finding_runs: {
          type: "object",
          additionalProperties: false,
          properties: Object.fromEntries(Object.keys(CHECKS).map((c) => [c, count])),
        },
        runs: {
          type: "array",
          minItems: 1,
          items: obj({
            capture: str,
            query: str,
            reports: count,
            duration_s: secs,
            latencies_s: { type: "array", items: { type: "number" } },
            findings: { type: "array", items: FINDING },
          }),
        },
      }),
    },
  }),
};
