// `pstlab convert`: between asciicast v3, v2, raw, ttyrec and script timing files.

import { defineCommand } from "./common.ts";
import {
  IN_OUT,
  IN_OUT_ARGS,
  IN_OUT_SYNOPSIS,
  inAndOut,
  INPUT_OPTIONS,
  OUTPUT_OR_OUT,
  RECORDING_OUTPUT_OPTIONS,
} from "./options.ts";
import { openInput, printWarnings } from "./input.ts";
import { openOutput, provenance, summarize, writeAll } from "./output.ts";
import { sameFile } from "../recording/sink.ts";
import { UsageError } from "../errors.ts";
import { summaryOf } from "./commands.ts";

export const spec = {
  name: "convert",
  summary: summaryOf("convert"),
  synopsis: IN_OUT_SYNOPSIS,
  args: IN_OUT_ARGS,
  options: { output: OUTPUT_OR_OUT, ...RECORDING_OUTPUT_OPTIONS, ...INPUT_OPTIONS },
  positionals: IN_OUT,
  notes: [
    "Formats are inferred from extensions (.cast → v3, .raw → raw; input by content).",
    "Conversion to v3 is byte-exact: reads that are not valid UTF-8 keep their bytes in",
    'a private "b" event; a character split across reads moves to the later read (reported).',
    "`-` is stdin/stdout. v2 output plays in asciinema 2.x (it has no exit event).",
  ],
  examples: [
    "pstlab convert session.ttyrec session.cast",
    "pstlab convert typescript session.cast --timing timing.log",
    "pstlab convert session.cast old-player.cast --format v2",
    "pstlab convert capture.cast - --format raw | less -R",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const [inPath, outPath] = inAndOut("convert", p.positionals, p.values.output);
  if (sameFile(inPath, outPath)) throw new UsageError(`convert: refusing to write over the input ${inPath}`);
  const rec = await openInput(inPath, p.values);
  const header = {
    ...rec.header,
    provenance: rec.header.provenance ?? provenance({ query_answered: null, converted_from: rec.format }),
  };
  const o = openOutput(outPath, header, p.values);
  await writeAll(o, rec.events);
  printWarnings(rec);
  summarize(outPath, o);
  return 0;
});
