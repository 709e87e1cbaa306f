// Shard files: `report --shard K/N` analyses every N-th file from the K-th and writes its
// FileResults with their places in the full list; `report --merge` checks and pools
// them into exactly the report one run over all the files would give (the scores are
// per episode, so pooling is concatenation in the original order). Pure: no I/O here.

import * as path from "node:path";
import type { FileResult } from "./result.ts";
import { MAX_SHARDS, SHARD_SCHEMA, SHARD_VERSION } from "./shard_schema.ts";
import { InputError, UsageError } from "../errors.ts";
import { parseForeign, validator } from "../foreign_json.ts";

export { MAX_SHARD_FILES, MAX_SHARDS, SHARD_VERSION } from "./shard_schema.ts";

export interface Shard {
  pstlab_shard: typeof SHARD_VERSION;
  shard: string;
  total: number;
  detectors: string[];
  truth: string;
  /** `--label-tolerance` of the run, seconds (0: off): shards scored with different ones do not pool. */
  label_tolerance_s: number;
  files: { index: number; result: FileResult }[];
}

/** "K/N" → numbers, 1 ≤ K ≤ N ≤ MAX_SHARDS. */
export function parseShardSpec(s: string): { k: number; n: number } {
  const m = /^([0-9]{1,6})\/([0-9]{1,6})$/.exec(s);
  const k = m ? Number(m[1]) : 0, n = m ? Number(m[2]) : 0;
  if (!m || n < 1 || n > MAX_SHARDS || k < 1 || k > n) {
    throw new UsageError(`report: bad --shard "${s}" (use K/N with 1 ≤ K ≤ N ≤ ${MAX_SHARDS}, e.g. 2/4)`);
  }
  return { k, n };
}

/** The K-th of N slices of a list: every N-th item from the K-th, with its index in the list. */
export function shardSlice<T>(items: T[], k: number, n: number): { item: T; index: number }[] {
  return items.map((item, index) => ({ item, index })).filter(({ index }) => index % n === k - 1);
}

export function makeShard(
  spec: string,
  total: number,
  detectors: string[],
  truth: string,
  labelTolerance: number,
  files: { index: number; result: FileResult }[],
): Shard {
  return {
    pstlab_shard: SHARD_VERSION,
    shard: spec,
    total,
    detectors,
    truth,
    label_tolerance_s: labelTolerance,
    files,
  };
}

const checkShard = validator<Shard>(SHARD_SCHEMA, "shard file");

/** A shard file's text, checked against the shard schema (docs/schemas/shard.json). */
export function parseShard(text: string, file: string): Shard {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new InputError(`${file}: not a shard file (not JSON; shard files come from report --shard)`);
  }
  const version = (doc as { pstlab_shard?: unknown })?.pstlab_shard;
  if (typeof version === "number" && version !== SHARD_VERSION) {
    throw new InputError(
      `${file}: a shard of format ${version}, made with other scoring definitions (this pstlab reads format ${SHARD_VERSION}): run its --shard again`,
    );
  }
  return parseForeign(text, file, checkShard, "shard file");
}

export interface Merged {
  files: FileResult[];
  detectors: string[];
  truth: string;
  labelTolerance: number;
  /** For each file, the shard file it came from (its recording is looked for beside that file). */
  from: string[];
}

/** The files of all shards in their original order: every index exactly once, the same run everywhere. */
export function mergeShards(parts: { file: string; shard: Shard }[]): Merged {
  const first = parts[0].shard;
  for (const { file, shard } of parts) {
    const differs = shard.total !== first.total
      ? "files"
      : shard.truth !== first.truth
      ? "truth"
      : shard.detectors.join(",") !== first.detectors.join(",")
      ? "detectors"
      : shard.label_tolerance_s !== first.label_tolerance_s
      ? "label tolerance"
      : null;
    if (differs) {
      throw new UsageError(
        `report --merge: ${file} comes from a different run (its ${differs} differ from ${parts[0].file})`,
      );
    }
  }
  // The schema bounds total and every index, so this array is never absurd.
  const files: (FileResult | undefined)[] = new Array(first.total);
  const from: string[] = new Array(first.total);
  for (const { file, shard } of parts) {
    for (const f of shard.files) {
      if (f.index >= first.total) {
        throw new InputError(`${file}: file index ${f.index} is past the run's ${first.total} files`);
      }
      if (f.result.scores.length !== first.detectors.length) {
        throw new InputError(
          `${file}: file ${f.index + 1} has ${f.result.scores.length} scores for ${first.detectors.length} detectors`,
        );
      }
      if (files[f.index]) {
        throw new UsageError(`report --merge: file ${f.index + 1} (${f.result.path}) is in two shards`);
      }
      files[f.index] = f.result;
      from[f.index] = file;
    }
  }
  const missing: number[] = [];
  for (let i = 0; i < files.length; i++) if (!files[i]) missing.push(i + 1); // (flatMap would skip the holes)
  if (missing.length) {
    throw new UsageError(
      `report --merge: ${missing.length} of ${first.total} files missing (file ${missing.slice(0, 5).join(", ")}${
        missing.length > 5 ? ", …" : ""
      }): a shard is missing`,
    );
  }
  return {
    files: files as FileResult[],
    detectors: first.detectors,
    truth: first.truth,
    labelTolerance: first.label_tolerance_s,
    from,
  };
}

/**
 * Where a merged report may look for a shard's recording: the shard's relative path,
 * resolved against the shard file's own folder. Null for an absolute path, a path with
 * a `..` part, or stdin: a shard never makes pstlab read a file it names elsewhere (a
 * fork's CI artifact could otherwise publish ~/.ssh/id_ed25519 in the page). The caller
 * still embeds the file only when its sha256 is the shard's.
 */
export function recordingBeside(shardFile: string, recorded: string): string | null {
  if (recorded === "" || recorded === "-" || path.isAbsolute(recorded) || /^[a-zA-Z]:|^[\\/]/.test(recorded)) {
    return null;
  }
  if (recorded.split(/[\\/]/).includes("..")) return null;
  return path.join(path.dirname(shardFile), recorded);
}
