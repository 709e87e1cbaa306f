// `pstlab check`: does an emitter's capture keep the protocol? Spec lint, agreement
// with what the screen showed, a golden capture and an assertions file; exit 1 on a
// violation (on a warning too with --strict), for CI.

import { colorEnabled, defineCommand, ExitCode } from "./common.ts";
import {
  AT_LEAST_ONE_FILE,
  choice,
  duration,
  flag,
  formatFor,
  INPUT_OPTIONS,
  inputFile,
  MANIFEST,
  OUTPUT,
  text,
} from "./options.ts";
import { openOptions } from "./input.ts";
import { writeText } from "./output.ts";
import { AUTO } from "../detect/choose.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { checkFile, readCapture } from "../../replay/check.ts";
import { parseRules } from "../check/rules.ts";
import { type CheckRun, CHECKS, exitCodeOf } from "../check/findings.ts";
import { renderCheckJson, renderCheckJunit, renderCheckMarkdown, renderCheckText } from "../check/render.ts";
import { readTextFile } from "../recording/source.ts";

const FORMATS = ["text", "json", "junit", "markdown"] as const;
type CheckFormat = (typeof FORMATS)[number];
const BY_EXTENSION: Record<string, CheckFormat> = { ".json": "json", ".xml": "junit", ".md": "markdown" };

export const spec = {
  name: "check",
  summary: "check an emitter's capture: spec lint, agreement with the screen, a golden capture, assertions",
  synopsis: "FILE…",
  options: {
    manifest: { ...MANIFEST, help: "screen rules the protocol is checked against (default: auto)" },
    rules: inputFile(
      "FILE",
      "assertions (TOML): [[expect]] when/then/within, final, reports_min/max; [[forbid]] state",
    ),
    against: text("GOLDEN", "a known-good capture of the same scripted scenario: compare the transitions"),
    tolerance: duration(
      "DURATION",
      "how late the protocol may follow the screen, or a transition the golden (default 500ms)",
    ),
    format: choice("FORMAT", FORMATS, "text (default), json, junit, markdown (default: from -o's extension)"),
    output: OUTPUT,
    strict: flag("warnings fail too (exit 1)"),
    ...INPUT_OPTIONS,
  },
  positionals: AT_LEAST_ONE_FILE,
  notes: [
    "Findings, each a violation, warning or info with a time range:",
    ...Object.entries(CHECKS).map(([k, v]) => `  ${k.padEnd(21)}${v.severity.padEnd(10)}${v.about}`),
    "The screen is read with the manifest's rules at 50 ms; a prompt shorter than 0.3 s is",
    "not counted; disagreements are reported after 5 s; a flap is a gap under 250 ms.",
    "Exit 0 when there is no violation, 1 when there is (or a warning, with --strict), 2 for",
    "bad usage or unreadable input.",
  ],
  examples: [
    "pstlab check session.cast",
    "pstlab check ci.cast --against fixtures/golden.cast --format junit -o check.xml",
    "pstlab check ci.cast --rules expect.toml --strict",
    "pstlab check fixtures/captures/sim-late.cast --format markdown",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const format = formatFor(v.format, v.output, BY_EXTENSION, "text");
  const manifest = v.manifest ?? AUTO;
  if (manifest !== AUTO) resolveManifest(manifest);
  const tolerance = v.tolerance ?? 0.5;
  const open = openOptions(v);
  const rules = v.rules ? { file: v.rules, rules: parseRules(readTextFile(v.rules), v.rules) } : undefined;
  const golden = v.against ? { name: v.against, log: (await readCapture(v.against, manifest, {})).log } : undefined;
  const files = [];
  for (const path of p.positionals) files.push(await checkFile(path, { manifest, tolerance, open, golden, rules }));
  const run: CheckRun = {
    files,
    argv: [
      "check",
      ...p.argv.filter((a, i) =>
        a !== "-o" && a !== "--output" && p.argv[i - 1] !== "-o" && p.argv[i - 1] !== "--output"
      ),
    ],
    tolerance,
    against: v.against ?? null,
    rules: v.rules ?? null,
    strict: !!v.strict,
  };
  const text = format === "json"
    ? renderCheckJson(run)
    : format === "junit"
    ? renderCheckJunit(run)
    : format === "markdown"
    ? renderCheckMarkdown(run)
    : renderCheckText(run, !v.output && colorEnabled(1));
  writeText(v.output ?? "-", text);
  const code = exitCodeOf(run);
  if (code !== 0) throw new ExitCode(code);
  return 0;
});
