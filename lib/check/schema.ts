// The JSON Schema of `check --format json` (render.ts renderCheckJson), published as
// docs/schemas/check.json for CI jobs that read it; the tests validate every check JSON
// the suite produces against it.

import { CHECK_SCHEMA } from "./render.ts";
import { CHECKS } from "./findings.ts";
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
