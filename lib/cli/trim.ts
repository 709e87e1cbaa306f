// `pstlab trim`: keep a time window of a capture.

import { defineCommand, err } from "./common.ts";
import {
  duration,
  flag,
  IN_OUT,
  IN_OUT_ARGS,
  IN_OUT_SYNOPSIS,
  inAndOut,
  INPUT_OPTIONS,
  OUTPUT_OR_OUT,
  RECORDING_OUTPUT_OPTIONS,
} from "./options.ts";
import { openInput, printWarnings } from "./input.ts";
import { openOutput, summarize, writeAll } from "./output.ts";
import { slice } from "../recording/transforms.ts";
import { sameFile } from "../recording/sink.ts";
import { UsageError } from "../errors.ts";
import { summaryOf } from "./commands.ts";
import { checkWindow, warnWindowPastEnd, watchEnd } from "./times.ts";

export const spec = {
  name: "trim",
  summary: summaryOf("trim"),
  synopsis: IN_OUT_SYNOPSIS,
  args: IN_OUT_ARGS,
  options: {
    from: duration("S", "start (seconds, or 1m30s …); default 0"),
    to: duration("S", "end; default the end of the capture"),
    "keep-prelude": flag("keep earlier output at t=0 so the first frame and records are right"),
    output: OUTPUT_OR_OUT,
    ...RECORDING_OUTPUT_OPTIONS,
    ...INPUT_OPTIONS,
  },
  positionals: IN_OUT,
  examples: [
    "pstlab trim long.cast prompt.cast --from 61 --to 75",
    "pstlab trim long.cast tail.cast --from 5m --keep-prelude",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const [inPath, outPath] = inAndOut("trim", p.positionals, p.values.output);
  if (sameFile(inPath, outPath)) throw new UsageError(`trim: refusing to write over the input ${inPath}`);
  const from = p.values.from ?? 0;
  const to = p.values.to ?? Infinity;
  checkWindow("trim", p.values.from, p.values.to);
  const rec = await openInput(inPath, p.values);
  const o = openOutput(outPath, rec.header, p.values);
  const read = watchEnd(rec.events);
  const cut: string[] = [], counts = { outputs: 0 };
  await writeAll(
    o,
    slice(read.events, { from, to, keepPrelude: !!p.values["keep-prelude"], warnings: cut, counts }),
  );
  printWarnings(rec);
  for (const w of cut) err(`pstlab: warning: ${w}\n`);
  warnWindowPastEnd(rec.path, read.end(), p.values.from, p.values.to, {
    from: "nothing of the capture is in the clip",
    to: "the clip ends at the end",
  });
  // A window with no output in it (--from 1 --to 1, a stretch of silence) is a clip with
  // nothing to see: said, as a window past the end is (that one says it already).
  const end = read.end();
  const pastEnd = end !== null && p.values.from !== undefined && p.values.from > end;
  if (!pastEnd && counts.outputs === 0) {
    err(`pstlab: warning: the clip holds no output (nothing was written between ${from} s and ${to} s)\n`);
  }
  summarize(outPath, o);
  return 0;
});
