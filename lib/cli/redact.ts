// `pstlab redact`: scrub secrets before a capture goes into a bug report.

import { err, defineCommand } from "./common.ts";
import { flag, IN_OUT, inAndOut, INPUT_OPTIONS, number, OUTPUT, RECORDING_OUTPUT_OPTIONS, repeated, text } from "./options.ts";
import { openInput, printWarnings } from "./input.ts";
import { openOutput, summarize, writeAll } from "./output.ts";
import { envValuePatterns, Redactor } from "../recording/redact.ts";
import { sameFile } from "../recording/sink.ts";
import { UsageError } from "../errors.ts";

export const spec = {
  name: "redact",
  summary: "scrub secrets from a capture (output, input, markers, header, OSC 7501 text)",
  usage: "pstlab redact IN OUT|-o OUT --pattern REGEX… [--env-values] [--replace TEXT]",
  options: {
    pattern: repeated("REGEX", "a JavaScript regular expression to scrub (repeatable)"),
    "env-values": flag("also scrub values of secret-looking environment variables\n(*TOKEN*, *SECRET*, *PASSW*, *API_KEY*, …) and of the header's env"),
    replace: text("TEXT", "replacement text (default [REDACTED])"),
    "max-secret": number("N", "longest secret still found when split across reads (default 4096)", { min: 1, max: 1 << 20, integer: true }),
    output: OUTPUT,
    ...RECORDING_OUTPUT_OPTIONS,
    ...INPUT_OPTIONS,
  },
  positionals: IN_OUT,
  notes: [
    "Matches are found across read boundaries (a password typed one key per event) and",
    "inside OSC sequences; OSC 7501 msg/title are base64 and are decoded, scrubbed and",
    "re-encoded. The result is still byte-consistent: every event decodes.",
  ],
  examples: [
    "pstlab redact session.cast public.cast --pattern 'sk-[A-Za-z0-9]{20,}' --env-values",
    "pstlab redact session.cast public.cast --pattern '/home/[a-z]+' --replace '~'",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const [inPath, outPath] = inAndOut("redact", p.positionals, p.values.output);
  if (sameFile(inPath, outPath) || (inPath === outPath && inPath !== "-")) throw new UsageError(`redact: refusing to write over the input ${inPath} (keep the original until you have checked the result)`);
  const patterns: RegExp[] = [];
  for (const src of p.values.pattern ?? []) {
    try {
      patterns.push(new RegExp(src, "gu"));
    } catch {
      try {
        patterns.push(new RegExp(src, "g"));
      } catch (e) {
        throw new UsageError(`redact: bad --pattern ${JSON.stringify(src)}: ${(e as Error).message}`);
      }
    }
  }
  const rec = await openInput(inPath, p.values);
  if (p.values["env-values"]) patterns.push(...envValuePatterns(process.env, rec.header.env));
  if (patterns.length === 0) throw new UsageError("redact: nothing to scrub (give --pattern and/or --env-values)");
  const red = new Redactor({
    patterns,
    replace: p.values.replace ?? "[REDACTED]",
    maxSecret: p.values["max-secret"],
  });
  const o = openOutput(outPath, red.header(rec.header), p.values);
  await writeAll(o, rec.events, (e) => red.push(e), () => red.end());
  printWarnings(rec);
  summarize(outPath, o);
  const s = red.stats;
  const total = s.output + s.input + s.osc7501 + s.markers + s.header;
  err(`pstlab: ${total} replacement${total === 1 ? "" : "s"} (output ${s.output}, input ${s.input}, OSC 7501 text ${s.osc7501}, markers ${s.markers}, header ${s.header})\n`);
  return 0;
});
