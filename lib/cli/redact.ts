// `pstlab redact`: scrub secrets before a capture goes into a bug report.

import { defineCommand, err, out } from "./common.ts";
import {
  flag,
  IN_OUT,
  IN_OUT_ARGS,
  IN_OUT_SYNOPSIS,
  inAndOut,
  INPUT_OPTIONS,
  number,
  OUTPUT_OR_OUT,
  RECORDING_OUTPUT_OPTIONS,
  repeated,
  text,
} from "./options.ts";
import type { Recording } from "../recording/model.ts";
import { disarm } from "../text.ts";
import { openInput, printWarnings } from "./input.ts";
import { openOutput, summarize, writeAll } from "./output.ts";
import {
  compilePatterns,
  describeStats,
  envValuePatterns,
  MIN_ENV_SECRET,
  Redactor,
  totalOf,
} from "../recording/redact.ts";
import { sameFile } from "../recording/sink.ts";
import { UsageError } from "../errors.ts";
import { summaryOf } from "./commands.ts";

export const spec = {
  name: "redact",
  summary: summaryOf("redact"),
  synopsis: IN_OUT_SYNOPSIS,
  args: IN_OUT_ARGS,
  options: {
    pattern: repeated("REGEX", "a regular expression to scrub, Rust syntax as in manifests (repeatable)"),
    "env-values": flag(
      `also scrub values of secret-looking environment variables\n(*TOKEN*, *SECRET*, *PASSW*, *API_KEY*, …) and of the header's env;\nvalues shorter than ${MIN_ENV_SECRET} characters, or that are the --replace text, are not secrets`,
    ),
    "allow-empty": flag(
      "when --env-values finds no secret-looking variable and no --pattern is given:\nwrite OUT unchanged and exit 0 (default: exit 2, nothing to scrub)",
    ),
    replace: text("TEXT", "replacement text (default [REDACTED]; printable: no control characters)"),
    check: {
      ...flag("write nothing: report how many matches remain in FILE, by place (exit 1 if any)"),
      conflicts: ["output"],
      reason: "--check writes nothing",
    },
    "max-secret": number("N", "longest secret still found when split across reads (default 4096)", {
      min: 1,
      max: 1 << 20,
      integer: true,
    }),
    output: OUTPUT_OR_OUT,
    ...RECORDING_OUTPUT_OPTIONS,
    ...INPUT_OPTIONS,
  },
  positionals: IN_OUT,
  notes: [
    "Matches are found across read boundaries (a password typed one key per event), in",
    "every header string, markers and unknown events, and inside OSC sequences at any tmux",
    "passthrough depth: OSC 7501 msg/title and OSC 52 clipboard data are base64 and are",
    "decoded, scrubbed and re-encoded; OSC 7501 id/app values become redacted-N (the same",
    "secret, the same N; masked at its own length when the parser would judge redacted-N",
    "otherwise). Valid state/kind/progress values, the protocol's keys, truth markers'",
    "state and kind and every sequence's introducer and terminator are never changed, and",
    "only the secret's bytes move, so each report completes in the read it did: the",
    "capture's reports still parse and score the same.",
    '8-bit (C1) OSC 52/7501 are decoded too, raw bytes ("b" events) included. Output is',
    "also matched as a terminal shows it: escape sequences, controls, DEL and zero-width",
    "/bidi marks skipped, a character then backspace overwritten. Header env names and",
    "non-string env values (numbers, nested objects and arrays) are scrubbed too: a number",
    "matched as its JSON text becomes the replacement string; only term size, timestamp",
    "and idle_time_limit are left as they are.",
    "An empty --pattern (an unset \$TOKEN) or one that can only match the empty string",
    "is refused (exit 2).",
    "The result is byte-consistent: every event decodes. Check before publishing:",
    "  pstlab redact --check public.cast --pattern … (exit 1 while any match remains).",
  ],
  examples: [
    "pstlab redact session.cast public.cast --pattern 'sk-[A-Za-z0-9]{20,}' --env-values",
    "pstlab redact session.cast public.cast --pattern '/home/[a-z]+' --replace '~'",
    "pstlab redact --check public.cast --pattern 'sk-[A-Za-z0-9]{20,}'",
  ],
};

async function check(rec: Recording, red: Redactor): Promise<number> {
  red.header(rec.header);
  for await (const e of rec.events) red.push(e);
  red.end();
  printWarnings(rec);
  const n = totalOf(red.stats);
  // Counts and places only: the matches themselves are what must not be printed.
  const inPath = disarm(rec.path);
  out(
    n === 0
      ? `${inPath}: no match of any pattern\n`
      : `${inPath}: ${n} match${n === 1 ? "" : "es"} remain (${describeStats(red.stats)})\n`,
  );
  return n === 0 ? 0 : 1;
}

export const command = defineCommand(spec, async (p) => {
  const patterns = compilePatterns(p.values.pattern ?? []);
  if (p.values.check) {
    if (p.positionals.length !== 1) {
      throw new UsageError("redact --check takes one FILE and writes nothing");
    }
  }
  const [inPath, outPath] = p.values.check
    ? [p.positionals[0], ""]
    : inAndOut("redact", p.positionals, p.values.output);
  if (!p.values.check && (sameFile(inPath, outPath) || (inPath === outPath && inPath !== "-"))) {
    throw new UsageError(
      `redact: refusing to write over the input ${inPath} (keep the original until you have checked the result)`,
    );
  }
  const rec = await openInput(inPath, p.values);
  const replace = p.values.replace ?? "[REDACTED]";
  // The replacement is written into the output stream: a control character in it (ESC,
  // BEL, C1) would start or end sequences there, and could forge or swallow a report.
  if (/[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/.test(replace)) {
    throw new UsageError(
      "redact: --replace must be printable text: a control or invisible formatting character in it would act in the output",
    );
  }
  // A replacement its own pattern matches: every later `redact --check` would find it.
  const matched = patterns.find((pt) => pt.first(replace) !== null);
  if (matched) {
    throw new UsageError(
      `redact: the --replace text is matched by --pattern ${
        JSON.stringify(matched.source)
      }: redact --check would find it wherever it replaced a secret`,
    );
  }
  // The placeholder a previous redact wrote into the header's env is not a secret.
  if (p.values["env-values"]) {
    patterns.push(...envValuePatterns(process.env, { ...rec.header.envExtra, ...rec.header.env }, [replace]));
  }
  if (patterns.length === 0) {
    if (!p.values["env-values"]) throw new UsageError("redact: nothing to scrub (give --pattern and/or --env-values)");
    // Asked to scrub the environment's secrets and there are none: say that, not "give
    // --env-values"; a pipeline that expects this says --allow-empty.
    // --check asks whether any secret remains; with none to look for, none remains.
    if (!p.values["allow-empty"] && !p.values.check) {
      throw new UsageError(
        "redact: --env-values found no secret-looking variable (in the environment or the header's env) and no --pattern was given: nothing to scrub (--allow-empty writes OUT unchanged)",
      );
    }
    err("pstlab: --env-values found no secret-looking variable: nothing to scrub\n");
  }
  const red = new Redactor({ patterns, replace, maxSecret: p.values["max-secret"] });
  if (p.values.check) return await check(rec, red);
  const o = openOutput(outPath, red.header(rec.header), p.values);
  await writeAll(o, rec.events, (e) => red.push(e), () => red.end());
  printWarnings(rec);
  summarize(outPath, o);
  const total = totalOf(red.stats);
  err(`pstlab: ${total} replacement${total === 1 ? "" : "s"} (${describeStats(red.stats)})\n`);
  return 0;
});
