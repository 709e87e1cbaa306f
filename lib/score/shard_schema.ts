// The JSON Schema of a shard file (`report --shard K/N`): every FileResult field with its
// type and bounds, so `report --merge` reads nothing it has not checked. Published as
// docs/schemas/shard.json (lib/schema_docs_test.ts keeps the file equal to this).

import { DRAWN_POINTS } from "./result.ts";
import { MAX_DIMENSION, MAX_TIME } from "../recording/model.ts";

/** The shard format's version: 2 since the scoring definitions of docs/scoring.md (carried, uncut linger). */
export const SHARD_VERSION = 2;
/** The most files one sharded run may split (an index or total past it is refused before any array is made). */
export const MAX_SHARD_FILES = 1_000_000;
/** The most a shard's N may be (K/N). */
export const MAX_SHARDS = 100_000;
/** The largest label tolerance pstlab accepts, in seconds. */
export const MAX_LABEL_TOLERANCE = 60;
/** Longest text field in a shard (paths, names, warnings). */
export const MAX_TEXT = 65536;

const str = { type: "string", maxLength: MAX_TEXT };
const strOrNull = { type: ["string", "null"], maxLength: MAX_TEXT };
const time = { type: "number", minimum: 0, maximum: MAX_TIME };
const timeOrNull = { type: ["number", "null"], minimum: 0, maximum: MAX_TIME };
const count = { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
const seconds = time;
const obj = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: "object",
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});

const falseAlarm = obj({ count, seconds });
const verdictRow = obj({ working: seconds, idle: seconds, blocked: seconds, unknown: seconds });
const TRUTH_STATES = ["idle", "working", "blocked", "unlabeled"];
const DET_STATES = ["idle", "working", "blocked", "unknown"];

export const EPISODE_SCHEMA = obj({
  start: time,
  end: time,
  kind: strOrNull,
  detectedAt: timeOrNull,
  latency: timeOrNull,
  carried: { type: "boolean" },
  linger: time,
  lingerIntoNext: { type: "boolean" },
});

export const FILE_RESULT_SCHEMA = obj({
  path: str,
  sha256: { type: "string", pattern: "^([0-9a-f]{64})?$" },
  format: str,
  cols: { type: "integer", minimum: 1, maximum: MAX_DIMENSION },
  rows: { type: "integer", minimum: 1, maximum: MAX_DIMENSION },
  duration: time,
  outputBytes: count,
  command: strOrNull,
  manifest: { oneOf: [{ type: "null" }, obj({ name: str, why: str })] },
  truth: str,
  truthSegments: {
    type: "array",
    maxItems: DRAWN_POINTS + 1,
    items: obj({ start: time, state: { enum: TRUTH_STATES }, kind: strOrNull }),
  },
  truthChanges: count,
  blockedEpisodes: count,
  scores: {
    type: "array",
    items: obj({
      detector: str,
      episodes: { type: "array", items: EPISODE_SCHEMA },
      falseAlarms: obj({ working: falseAlarm, idle: falseAlarm, unlabeled: falseAlarm }),
      confusion: obj({ working: verdictRow, idle: verdictRow, blocked: verdictRow, unlabeled: verdictRow }),
      samples: count,
    }),
  },
  warnings: { type: "array", items: str },
  timelines: {
    type: "array",
    items: obj({
      detector: str,
      points: {
        type: "array",
        maxItems: DRAWN_POINTS + 1,
        items: obj({ t: time, state: { enum: DET_STATES }, needsYou: { type: "boolean" }, rule: strOrNull }),
      },
      changes: count,
    }, ["changes"]),
  },
}, ["truthChanges"]);

export const SHARD_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "pstlab shard file (report --shard K/N), read by report --merge",
  ...obj({
    pstlab_shard: { const: SHARD_VERSION },
    shard: { type: "string", pattern: "^[0-9]{1,6}/[0-9]{1,6}$" },
    total: { type: "integer", minimum: 1, maximum: MAX_SHARD_FILES },
    detectors: { type: "array", minItems: 1, maxItems: 1024, items: str },
    truth: str,
    label_tolerance_s: { type: "number", minimum: 0, maximum: MAX_LABEL_TOLERANCE },
    files: {
      type: "array",
      maxItems: MAX_SHARD_FILES,
      items: obj({ index: { type: "integer", minimum: 0, maximum: MAX_SHARD_FILES - 1 }, result: FILE_RESULT_SCHEMA }),
    },
  }),
};
