// `pstlab redact`: scrub secrets before a capture goes into a bug report.

import { type CommandSpec, err, parseFlags, parseNumber, UsageError } from "./common.ts";
import { INPUT_HELP, INPUT_OPTIONS, openInput, printWarnings } from "./input.ts";
import { OUTPUT_HELP, OUTPUT_OPTIONS, openOutput, summarize, writeAll } from "./output.ts";
import { envValuePatterns, Redactor } from "../recording/redact.ts";
import { sameFile } from "../recording/sink.ts";

export const spec: CommandSpec = {
  name: "redact",
  summary: "scrub secrets from a capture (output, input, markers, header, OSC 7501 text)",
  usage: "pstlab redact IN OUT --pattern REGEX… [--env-values] [--replace TEXT]",
  options: [
    "  --pattern REGEX     a JavaScript regular expression to scrub (repeatable)",
    "  --env-values        also scrub values of secret-looking environment variables",
    "                      (*TOKEN*, *SECRET*, *PASSW*, *API_KEY*, …) and of the header's env",
    "  --replace TEXT      replacement text (default [REDACTED])",
    "  --max-secret N      longest secret still found when split across reads (default 4096)",
    ...OUTPUT_HELP,
    ...INPUT_HELP,
  ],
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

export async function run(argv: string[]): Promise<number> {
  const p = parseFlags(argv, spec, {
    ...INPUT_OPTIONS, ...OUTPUT_OPTIONS, pattern: { type: "string", multiple: true }, "env-values": { type: "boolean" },
    replace: { type: "string" }, "max-secret": { type: "string" },
  }, { minPositionals: 2, maxPositionals: 2 });
  if (!p) return 0;
  const [inPath, outPath] = p.positionals;
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
    maxSecret: p.values["max-secret"] ? parseNumber(p.values["max-secret"], "--max-secret", 1, 1 << 20) : undefined,
  });
  const o = openOutput(outPath, red.header(rec.header), p.values);
  await writeAll(o, rec.events, (e) => red.push(e), () => red.end());
  printWarnings(rec);
  summarize(outPath, o);
  const s = red.stats;
  const total = s.output + s.input + s.osc7501 + s.markers + s.header;
  err(`pstlab: ${total} replacement${total === 1 ? "" : "s"} (output ${s.output}, input ${s.input}, OSC 7501 text ${s.osc7501}, markers ${s.markers}, header ${s.header})\n`);
  return 0;
}
