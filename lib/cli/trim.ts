// `pstlab trim`: keep a time window of a capture.

import { type CommandSpec, parseDuration, parseFlags, UsageError } from "./common.ts";
import { INPUT_HELP, INPUT_OPTIONS, openInput, printWarnings } from "./input.ts";
import { OUTPUT_HELP, OUTPUT_OPTIONS, openOutput, summarize, writeAll } from "./output.ts";
import { slice } from "../recording/transforms.ts";
import { sameFile } from "../recording/sink.ts";

export const spec: CommandSpec = {
  name: "trim",
  summary: "keep the part of a capture between two times",
  usage: "pstlab trim IN OUT --from S --to S [--keep-prelude]",
  options: [
    "  --from S            start (seconds, or 1m30s …); default 0",
    "  --to S              end; default the end of the capture",
    "  --keep-prelude      keep earlier output at t=0 so the first frame and records are right",
    ...OUTPUT_HELP,
    ...INPUT_HELP,
  ],
  examples: ["pstlab trim long.cast prompt.cast --from 61 --to 75", "pstlab trim long.cast tail.cast --from 5m --keep-prelude"],
};

export async function run(argv: string[]): Promise<number> {
  const p = parseFlags(argv, spec, { ...INPUT_OPTIONS, ...OUTPUT_OPTIONS, from: { type: "string" }, to: { type: "string" }, "keep-prelude": { type: "boolean" } }, { minPositionals: 2, maxPositionals: 2 });
  if (!p) return 0;
  const [inPath, outPath] = p.positionals;
  if (sameFile(inPath, outPath)) throw new UsageError(`trim: refusing to write over the input ${inPath}`);
  const from = p.values.from ? parseDuration(p.values.from, "--from") : 0;
  const to = p.values.to ? parseDuration(p.values.to, "--to") : Infinity;
  if (to < from) throw new UsageError(`trim: --to (${to}) is before --from (${from})`);
  const rec = await openInput(inPath, p.values);
  const o = openOutput(outPath, rec.header, p.values);
  await writeAll(o, slice(rec.events, { from, to, keepPrelude: !!p.values["keep-prelude"] }));
  printWarnings(rec);
  summarize(outPath, o);
  return 0;
}
