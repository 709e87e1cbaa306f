// Every command's flags are declared once, in a table: name, short flag, argument name,
// parser (with its bounds) and help line. The table drives both the parser and the
// help text, so they cannot drift. The parser is ours rather than node:util's
// parseArgs because `record` needs options to end at the first positional (the command
// it runs takes its own flags), and because a value that starts with "-" (`--at -5`)
// must reach the value parser and get its one-line message, not Node's three lines.

import { UsageError } from "../errors.ts";
import { parseDuration, parseNumber, parseSize } from "../units.ts";
import {
  HOOK_MODES,
  type HookMode,
  PLAIN_HOOK_MODES,
  PLAIN_MODES,
  PROTOCOL_MODES,
  type ProtocolMode,
} from "../sim/modes.ts";
import { detectorHelp, repeatedDetector } from "../detect/kinds.ts";
import { BUNDLED } from "../detect/bundled.ts";

export interface Opt<T> {
  short?: string;
  /** Argument name in help (FILE, N, …); absent for a boolean flag. */
  arg?: string;
  /** Help text; "\n" starts a continuation line. */
  help: string;
  parse: (raw: string, flag: string) => T;
  /** Repeatable: every value is kept (the parsed values are collected in an array). */
  multiple?: boolean;
  /** Options that cannot be given with this one (asciinema's conflicts_with); the parser refuses both. */
  conflicts?: readonly string[];
  /** Options of which at least one must be given with this one (it means nothing alone). */
  requires?: readonly string[];
  /** Why the conflict, for its message ("--label takes capture times"). */
  reason?: string;
  /**
   * A file the command reads ("in": no output may replace it) or writes ("out": it goes
   * through the output gate, lib/recording/sink.ts). The gate's table test finds every
   * writing command from these marks.
   */
  file?: "in" | "out";
}

export type Options = Record<string, Opt<unknown>>;
export type Values<O extends Options> = {
  [K in keyof O]?: O[K] extends Opt<infer T> ? (O[K]["multiple"] extends true ? T[] : T)
    : never;
};

export interface CommandDef<O extends Options = Options> {
  name: string;
  summary: string;
  /** The positional arguments as usage shows them (`FILE…`, `IN OUT`); the options are added from the table. */
  synopsis: string;
  /** Positional arguments described in help ([name, text]). */
  args?: string[][];
  options: O;
  positionals?: {
    min?: number;
    max?: number; /** options end at the first positional (record) */
    stopAtFirst?: boolean;
    /** What the positionals are, in order, the last repeating: files read ("in") or written ("out"). */
    files?: readonly ("in" | "out")[];
  };
  notes?: string[];
  examples: string[];
}

export interface Parsed<O extends Options> {
  values: Values<O>;
  positionals: string[];
  /** The flags as typed, in order (for reports that print their own command line). */
  argv: string[];
}

// ---- option builders --------------------------------------------------------------------

export function flag(help: string, short?: string): Opt<boolean> {
  return { help, short, parse: () => true };
}

export function text(arg: string, help: string, short?: string): Opt<string> {
  return { arg, help, short, parse: (s) => s };
}

export function repeated(arg: string, help: string): Opt<string> & { multiple: true } {
  return { arg, help, parse: (s) => s, multiple: true };
}

export function number(
  arg: string,
  help: string,
  bounds: { min?: number; max?: number; integer?: boolean } = {},
): Opt<number> {
  return { arg, help, parse: (s, f) => parseNumber(s, f, bounds.min, bounds.max, bounds.integer) };
}

export function duration(arg: string, help: string): Opt<number> {
  return { arg, help, parse: (s, f) => parseDuration(s, f) };
}

export function choice<T extends string>(arg: string, values: readonly T[], help: string): Opt<T> {
  return {
    arg,
    help,
    parse: (s, f) => {
      if (!values.includes(s as T)) throw new UsageError(`bad ${f} "${s}" (use ${values.join(", ")})`);
      return s as T;
    },
  };
}

/** A comma-separated list; empty items are dropped, an empty list is an error. */
export function list(arg: string, help: string): Opt<string[]> {
  return {
    arg,
    help,
    parse: (s, f) => {
      const items = s.split(",").map((x) => x.trim()).filter(Boolean);
      if (items.length === 0) throw new UsageError(`${f} is empty`);
      return items;
    },
  };
}

// ---- options several commands share (each declared once) ----------------------------------

export const OUTPUT: Opt<string> = { ...text("FILE", "write here (default stdout; `-` is stdout)", "o"), file: "out" };

/** A file the command reads (marked for the output gate). */
export function inputFile(arg: string, help: string): Opt<string> {
  return { ...text(arg, help), file: "in" };
}

/** A file the command writes (marked for the output gate). */
export function outputFile(arg: string, help: string, short?: string): Opt<string> {
  return { ...text(arg, help, short), file: "out" };
}
export const JOBS = number("N", "analyse files in parallel on N worker threads (default: half the cores)", {
  min: 1,
  max: 64,
  integer: true,
});
export const AT = duration("SECONDS", "the time to look at (default: the end); 12, 1.5, 500ms, 1m30s");
export const MANIFEST = inputFile(
  "NAME|PATH",
  `rules: ${
    Object.keys(BUNDLED).join(", ")
  },\na .toml file (Herdr's format or first-match), or auto (the default: chosen\nfrom the recording's command, title or screen)`,
);
const DETECTOR_LIST = list("LIST", "comma-separated detector names (default: the full set for --manifest)");
/** A detector named twice would be two identical rows (and two gates on one): refused. */
export const DETECTORS: Opt<string[]> = {
  ...DETECTOR_LIST,
  parse: (s, f) => {
    const items = DETECTOR_LIST.parse(s, f);
    const again = repeatedDetector(items);
    if (again !== null) throw new UsageError(`${f}: ${again} is named twice`);
    return items;
  },
};
/** The detector kinds, for the notes of every command that takes detector names. */
export const DETECTOR_NOTES = [
  "Detectors (<m>: a bundled manifest, auto or a .toml path; <iv>: 50ms, 0.7s, write …):",
  ...detectorHelp(),
];
export const SIZE: Opt<{ cols: number; rows: number }> = {
  arg: "COLSxROWS",
  help: "size for inputs without one (raw, ttyrec); default 120x32",
  parse: (s, f) => parseSize(s, f),
};
/** `--protocol MODE` of the simulated agent (sim, demo). */
export const PROTOCOL: Opt<ProtocolMode> = {
  arg: "MODE",
  help: `how the agent reports: ${
    PROTOCOL_MODES.map((m) => m.name).join(", ")
  }\n(correct by default; see pstlab sim --help)`,
  parse: (s, f) => {
    const late = /^late=(.+)$/.exec(s);
    if (late) return { mode: "late", delay: parseDuration(late[1], f) };
    const plain = PLAIN_MODES.find((m) => m === s);
    if (plain) return { mode: plain };
    throw new UsageError(`bad ${f} "${s}" (use ${PROTOCOL_MODES.map((m) => m.name).join(", ")})`);
  },
};

/** `--hooks MODE` of the simulated agent (sim, demo): how it calls `pstlab hook`. */
export const HOOKS: Opt<HookMode> = {
  arg: "MODE",
  help: `how the agent calls its hooks (pstlab hook): ${HOOK_MODES.map((m) => m.name).join(", ")}`,
  parse: (s, f) => {
    const late = /^late=(.+)$/.exec(s);
    if (late) return { mode: "late", delay: parseDuration(late[1], f) };
    const plain = PLAIN_HOOK_MODES.find((m) => m === s);
    if (plain) return { mode: plain };
    throw new UsageError(`bad ${f} "${s}" (use ${HOOK_MODES.map((m) => m.name).join(", ")})`);
  },
};

export const INPUT_FORMATS = ["v3", "v2", "raw", "ttyrec", "script", "snapshot"] as const;

/** How every reading command opens its input. */
export const INPUT_OPTIONS = {
  raw: flag("read the input as raw bytes even if it looks like asciicast"),
  "input-format": choice("F", INPUT_FORMATS, `force the input format: ${INPUT_FORMATS.join(", ")}`),
  size: SIZE,
  chunk: number("N", "raw input: split into N-byte reads (default: one read)", { min: 1, max: 1 << 30, integer: true }),
  timing: inputFile("FILE", "util-linux script: FILE is the output log, this the timing file"),
  "log-in": inputFile("FILE", "util-linux script: the input log (advanced format)"),
};

export const RECORDING_FORMATS = ["v3", "v2", "raw"] as const;

/** How every command that writes a recording writes it. */
export const RECORDING_OUTPUT_OPTIONS = {
  format: choice("FORMAT", RECORDING_FORMATS, "output format: v3 (default; .cast), v2, raw (default for .raw)"),
  overwrite: flag("replace an existing non-empty output file"),
  "time-precision": choice("P", ["ms", "us"] as const, "v3 intervals: ms (default, as asciinema) or us"),
};

/**
 * The output format: an explicit --format wins, then the -o extension, then the default.
 * One helper for reports and recordings, so `-o x.json` means JSON everywhere.
 */
export function formatFor<T extends string>(
  explicit: T | undefined,
  output: string | undefined,
  byExtension: Record<string, T>,
  fallback: T,
): T {
  if (explicit) return explicit;
  if (output && output !== "-") {
    const lower = output.toLowerCase();
    for (const [ext, f] of Object.entries(byExtension)) if (lower.endsWith(ext)) return f;
  }
  return fallback;
}

/** Positional counts most commands use. */
const READS = ["in"] as const;
export const ONE_FILE = { min: 1, max: 1, files: READS };
export const AT_LEAST_ONE_FILE = { min: 1, files: READS };
export const OPTIONAL_FILE = { max: 1, files: READS };
/** IN OUT, or IN -o OUT (see inAndOut). */
export const IN_OUT = { min: 1, max: 2, files: ["in", "out"] as const };
/**
 * The -o of a command that takes IN_OUT: the output is required (OUT or -o), so its help
 * must not promise a default (a test holds every IN_OUT command to this option).
 */
export const OUTPUT_OR_OUT: Opt<string> = {
  ...text("FILE", "write here instead of OUT (OUT or -o is required; `-` is stdout)", "o"),
  file: "out",
};
/** Usage and argument help of an IN_OUT command, said once. */
export const IN_OUT_SYNOPSIS = "IN OUT";
export const IN_OUT_ARGS = [
  ["IN", "the capture to read (`-` is stdin)"],
  ["OUT", "the file to write, or `-` for stdout (or give -o FILE instead)"],
];

/** The files a parsed command line reads and writes, from the marks in its table. */
export function fileArguments(
  cmd: CommandDef,
  p: { values: Record<string, unknown>; positionals: string[] },
): { inputs: string[]; outputs: string[] } {
  const inputs: string[] = [], outputs: string[] = [];
  for (const [name, o] of Object.entries(cmd.options)) {
    const v = p.values[name];
    if (!o.file || v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) if (typeof x === "string") (o.file === "in" ? inputs : outputs).push(x);
  }
  const roles = cmd.positionals?.files;
  if (roles?.length) {
    p.positionals.forEach((x, i) => (roles[Math.min(i, roles.length - 1)] === "in" ? inputs : outputs).push(x));
  }
  return { inputs, outputs };
}
export const NONE = { max: 0 };

/** The input and output of a converting command: `IN OUT` or `IN -o OUT`, not both. */
export function inAndOut(command: string, positionals: string[], output: string | undefined): [string, string] {
  const [inPath, outPos] = positionals;
  if (outPos !== undefined && output !== undefined) {
    throw new UsageError(`${command}: give the output once (OUT or -o OUT, not both)`);
  }
  const outPath = outPos ?? output;
  if (outPath === undefined) {
    throw new UsageError(`${command}: missing the output (give OUT, or -o OUT; \`-\` is stdout)`);
  }
  return [inPath, outPath];
}

// ---- parsing ------------------------------------------------------------------------------

const HELP: Opt<boolean> = flag("show this help", "h");

function findLong<O extends Options>(cmd: CommandDef<O>, name: string): [string, Opt<unknown>] | null {
  if (name === "help") return ["help", HELP];
  return Object.hasOwn(cmd.options, name) ? [name, cmd.options[name]] : null;
}

function findShort<O extends Options>(cmd: CommandDef<O>, ch: string): [string, Opt<unknown>] | null {
  if (ch === "h") return ["help", HELP];
  for (const [k, o] of Object.entries(cmd.options)) if (o.short === ch) return [k, o];
  return null;
}

/** Parses argv against the table. Returns null when `--help` was asked for (the caller prints helpText). */
export function parseCommand<O extends Options>(cmd: CommandDef<O>, argv: string[]): Parsed<O> | null {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const usage = (msg: string) => new UsageError(`${cmd.name}: ${msg} (see pstlab ${cmd.name} --help)`);
  const set = (name: string, o: Opt<unknown>, raw: string | undefined, shown: string) => {
    if (o.arg === undefined) {
      if (raw !== undefined) throw usage(`${shown} takes no value`);
      values[name] = true;
      return;
    }
    if (raw === undefined) throw usage(`${shown} needs a value (${o.arg})`);
    let v: unknown;
    try {
      v = o.parse(raw, `--${name}`);
    } catch (e) {
      if (e instanceof UsageError) throw new UsageError(`${cmd.name}: ${e.message}`);
      throw e;
    }
    if (o.multiple) ((values[name] ??= []) as unknown[]).push(v);
    else {
      // A file named twice: the last one won without a word (`--export-csv a.csv
      // --export-csv b.csv` wrote only b.csv, `-o - -o x.cast` only x.cast). Other options
      // keep the usual rule, the last one wins (an alias's default, overridden).
      if (o.file && Object.hasOwn(values, name)) throw usage(`${shown} is given twice (one file each)`);
      values[name] = v;
    }
  };
  // An option's value from the next word, unless that word is `--` or one of this
  // command's options: `-o -- true` wrote a file named `--` and ran nothing, `-o
  // --overwrite` a file named `--overwrite`. (A value that really starts so: `-o=--x`.)
  const nextValue = (at: number): string | undefined => {
    const w = argv[at];
    if (w === "--" || (w?.startsWith("--") && findLong(cmd, w.slice(2).split("=")[0]))) return undefined;
    return w;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      const found = findLong(cmd, name);
      if (!found) throw usage(`unknown option '--${name}'`);
      const [key, o] = found;
      set(key, o, eq > 0 ? a.slice(eq + 1) : o.arg !== undefined ? nextValue(++i) : undefined, `--${name}`);
    } else if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const found = findShort(cmd, a[j]);
        if (!found) throw usage(`unknown option '-${a[j]}'`);
        const [key, o] = found;
        if (o.arg === undefined) set(key, o, undefined, `-${a[j]}`);
        else {
          set(key, o, j + 1 < a.length ? a.slice(j + 1) : nextValue(++i), `-${a[j]}`);
          break;
        }
      }
    } else {
      if (cmd.positionals?.stopAtFirst) {
        positionals.push(...argv.slice(i));
        break;
      }
      positionals.push(a);
    }
  }
  if (values.help) return null;
  checkCombinations(cmd, values);
  const { min, max } = cmd.positionals ?? {};
  if (max !== undefined && positionals.length > max && !cmd.positionals?.stopAtFirst) {
    throw usage(`unexpected argument "${positionals[max]}"`);
  }
  if (min !== undefined && positionals.length < min) throw missingArgument(cmd);
  // Stdin can be read once: a second `-` among the inputs read nothing (`report - x -`).
  const roles = cmd.positionals?.files;
  if (roles && !cmd.positionals?.stopAtFirst) {
    const stdin = positionals.filter((a, i) => a === "-" && roles[Math.min(i, roles.length - 1)] === "in");
    if (stdin.length > 1) throw usage("- (stdin) is given more than once; it can be read only once");
  }
  return { values: values as Values<O>, positionals, argv };
}

/** `NAME: missing argument (usage: …)`, one line. */
export function missingArgument(cmd: CommandDef): UsageError {
  return new UsageError(`${cmd.name}: missing argument (usage: ${usageLine(cmd)})`);
}

const or = (names: readonly string[]) =>
  names.length < 2 ? `--${names[0]}` : `${names.slice(0, -1).map((n) => `--${n}`).join(", ")} or --${names.at(-1)}`;

/** Every option's declared conflicts and requirements, checked once all flags are read. */
function checkCombinations(cmd: CommandDef, values: Record<string, unknown>): void {
  for (const [name, o] of Object.entries(cmd.options)) {
    if (values[name] === undefined) continue;
    const clash = o.conflicts?.find((c) => values[c] !== undefined);
    if (clash) {
      throw new UsageError(
        `${cmd.name}: --${name} and --${clash} cannot be used together${o.reason ? ` (${o.reason})` : ""}`,
      );
    }
    if (o.requires && !o.requires.some((r) => values[r] !== undefined)) {
      throw new UsageError(`${cmd.name}: --${name} needs ${or(o.requires)}`);
    }
  }
}

// ---- help ---------------------------------------------------------------------------------

const COL = 22;

function helpLines(left: string, help: string): string[] {
  const [first, ...rest] = help.split("\n");
  const head = left.length + 2 <= COL ? left.padEnd(COL) + first : `${left}  ${first}`;
  return [head, ...rest.map((l) => " ".repeat(COL) + l)];
}

/** How an option is written in usage: `[-o FILE]`, `[--json]`, `[--pattern RE]…`. */
function optionWord(name: string, o: Opt<unknown>): string {
  return `${o.short ? `-${o.short}` : `--${name}`}${o.arg ? ` ${o.arg}` : ""}`;
}

/** Every option of the table in brackets, conflicting ones as alternatives (`[--append | --overwrite]`). */
function optionWords(cmd: CommandDef): string[] {
  const words: string[] = [];
  const done = new Set<string>();
  for (const [name, o] of Object.entries(cmd.options)) {
    if (done.has(name)) continue;
    const alts = [name, ...(o.conflicts ?? []).filter((c) => Object.hasOwn(cmd.options, c) && !done.has(c))];
    alts.forEach((a) => done.add(a));
    words.push(`[${alts.map((a) => optionWord(a, cmd.options[a])).join(" | ")}]${o.multiple ? "…" : ""}`);
  }
  return words;
}

/** The one-line usage errors quote: `pstlab report [OPTIONS] FILE…`. */
export function usageLine(cmd: CommandDef): string {
  return [`pstlab ${cmd.name}`, "[OPTIONS]", cmd.synopsis].filter(Boolean).join(" ");
}

const USAGE_WIDTH = 100;

/** Help's usage: the positionals and every option of the table (record's options come before its command), wrapped. */
export function usageLines(cmd: CommandDef): string[] {
  const head = `Usage: pstlab ${cmd.name}`;
  const opts = optionWords(cmd);
  const words = (cmd.positionals?.stopAtFirst ? [...opts, cmd.synopsis] : [cmd.synopsis, ...opts]).filter(Boolean);
  const lines = [head];
  for (const w of words) {
    if (lines.at(-1)!.length + 1 + w.length > USAGE_WIDTH && lines.at(-1)!.trim() !== "") {
      lines.push(" ".repeat(head.length));
    }
    lines[lines.length - 1] += ` ${w}`;
  }
  return lines;
}

/** An option's help text, with what it cannot go with and what it needs. */
function optionHelp(o: Opt<unknown>): string {
  const notes = [
    ...(o.conflicts?.length ? [`not with ${or(o.conflicts)}`] : []),
    ...(o.requires?.length ? [`needs ${or(o.requires)}`] : []),
  ];
  return notes.length ? `${o.help} (${notes.join("; ")})` : o.help;
}

export function helpText(cmd: CommandDef): string {
  const out = [`pstlab ${cmd.name} — ${cmd.summary}`, "", ...usageLines(cmd)];
  if (cmd.args?.length) out.push("", "Arguments:", ...cmd.args.flatMap(([a, h]) => helpLines(`  ${a}`, h ?? "")));
  if (cmd.notes?.length) out.push("", ...cmd.notes);
  out.push("", "Options:");
  for (const [name, o] of [...Object.entries(cmd.options), ["help", HELP] as const]) {
    const left = `  ${o.short ? `-${o.short}, ` : ""}--${name}${o.arg ? ` ${o.arg}` : ""}`;
    out.push(...helpLines(left, optionHelp(o)));
  }
  out.push("", "Examples:", ...cmd.examples.map((e) => `  ${e}`));
  return out.join("\n") + "\n";
}
