// Shared CLI plumbing: flag parsing with one-line usage errors, help with examples,
// the error boundary (exit 2 for anything a user can cause, never a stack trace),
// colour (NO_COLOR), and small value parsers.

import { parseArgs, type ParseArgsConfig } from "node:util";
import { FixtureError } from "../recording/model.ts";
import { InputError } from "../recording/source.ts";
import { BrokenPipe, writeAllSync } from "../recording/sink.ts";

/** Bad usage or bad input: one line on stderr, exit 2. */
export class UsageError extends Error {}

/** A command that wants a specific exit code without an error message (e.g. `--return`). */
export class ExitCode extends Error {
  constructor(readonly code: number, message = "") {
    super(message);
  }
}

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  /** Option lines for help ("  --json        one JSON object per line"). */
  options: string[];
  examples: string[];
  /** Extra paragraphs after the options. */
  notes?: string[];
}

export function helpText(c: CommandSpec): string {
  const out = [`pstlab ${c.name} — ${c.summary}`, "", `Usage: ${c.usage}`];
  if (c.notes?.length) out.push("", ...c.notes);
  out.push("", "Options:", ...c.options, "  -h, --help          show this help", "", "Examples:", ...c.examples.map((e) => `  ${e}`));
  return out.join("\n") + "\n";
}

const te = new TextEncoder();

export function out(s: string): void {
  writeAllSync(1, te.encode(s));
}

export function err(s: string): void {
  try {
    writeAllSync(2, te.encode(s));
  } catch { /* stderr gone: nothing left to tell */ }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * node:util parseArgs with `-h/--help` handled and its errors turned into one-line
 * usage errors. Returns null when help was printed.
 */
export function parseFlags<O extends Options>(
  argv: string[],
  spec: CommandSpec,
  options: O,
  opts: { allowPositionals?: boolean; maxPositionals?: number; minPositionals?: number } = {},
) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: opts.allowPositionals ?? true,
      strict: true,
    });
  } catch (e) {
    const msg = (e as Error).message.replace(/\. To specify a positional argument.*$/s, "").replace(/^Unknown option/, "unknown option");
    throw new UsageError(`${spec.name}: ${msg} (see pstlab ${spec.name} --help)`);
  }
  if ((parsed.values as Record<string, unknown>).help) {
    out(helpText(spec));
    return null;
  }
  const n = parsed.positionals.length;
  if (opts.maxPositionals !== undefined && n > opts.maxPositionals) {
    throw new UsageError(`${spec.name}: unexpected argument "${parsed.positionals[opts.maxPositionals]}" (see pstlab ${spec.name} --help)`);
  }
  if (opts.minPositionals !== undefined && n < opts.minPositionals) {
    throw new UsageError(`${spec.name}: missing argument (usage: ${spec.usage})`);
  }
  return parsed;
}

/** Seconds from "12", "1.5", "500ms", "2s", "1m30s", "1h". */
export function parseDuration(s: string, what = "duration"): number {
  const t = s.trim();
  if (/^[0-9]+(\.[0-9]+)?$/.test(t)) return Number(t);
  const re = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/gy;
  let total = 0, matched = 0, m: RegExpExecArray | null;
  while ((m = re.exec(t))) {
    const n = Number(m[1]);
    total += m[2] === "ms" ? n / 1000 : m[2] === "s" ? n : m[2] === "m" ? n * 60 : n * 3600;
    matched = re.lastIndex;
  }
  if (matched !== t.length || t.length === 0) throw new UsageError(`bad ${what} "${s}" (use seconds, or e.g. 500ms, 2s, 1m30s)`);
  return total;
}

export function parseNumber(s: string, what: string, min = -Infinity, max = Infinity): number {
  const n = Number(s);
  if (s.trim() === "" || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`bad ${what} "${s}"${min > -Infinity || max < Infinity ? ` (expected ${min}–${max})` : ""}`);
  }
  return n;
}

export function parseSizeFlag(s: string): { cols: number; rows: number } {
  const m = /^([0-9]+)x([0-9]+)$/.exec(s);
  const cols = m ? Number(m[1]) : 0, rows = m ? Number(m[2]) : 0;
  if (!m || cols < 2 || rows < 2 || cols > 1000 || rows > 1000) throw new UsageError(`bad size "${s}" (use COLSxROWS, e.g. 120x32)`);
  return { cols, rows };
}

export function colorEnabled(fd: 1 | 2 = 1): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  if (process.env.TERM === "dumb") return false;
  const stream = fd === 1 ? process.stdout : process.stderr;
  return !!(stream as { isTTY?: boolean }).isTTY;
}

export function paint(on: boolean, code: string, s: string): string {
  return on ? `\x1b[${code}m${s}\x1b[0m` : s;
}

/** Text from a capture, safe to print on a terminal: controls made visible. */
export function visible(s: string): string {
  return s.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => {
    if (c === "\x1b") return "\\e";
    if (c === "\x07") return "\\a";
    return "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0");
  });
}

/** Spec §7: before showing text outside the grid, remove bidi overrides and invisible formatting. */
export function disarm(s: string): string {
  return visible(s.replace(/[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, ""));
}

/** The error boundary shared by every command. */
export async function runCommand(fn: () => Promise<number | void>): Promise<number> {
  try {
    return (await fn()) ?? 0;
  } catch (e) {
    return reportError(e);
  }
}

export function reportError(e: unknown): number {
  if (e instanceof ExitCode) {
    if (e.message) err(`pstlab: ${e.message}\n`);
    return e.code;
  }
  if (e instanceof BrokenPipe) return 0;
  if (e instanceof UsageError || e instanceof InputError) {
    err(`pstlab: ${e.message}\n`);
    return 2;
  }
  if (e instanceof FixtureError) {
    err(`pstlab: ${e.toString()}\n`);
    return 2;
  }
  const code = (e as { code?: string }).code;
  if (code === "EPIPE") return 0;
  if (process.env.PSTLAB_DEBUG) err(String((e as Error).stack ?? e) + "\n");
  err(`pstlab: internal error: ${(e as Error).message ?? e} (set PSTLAB_DEBUG=1 for details; please report it)\n`);
  return 70;
}

export function round6(t: number): number {
  return Math.round(t * 1e6) / 1e6;
}

/** Columns padded to their widest cell (cells may contain colour codes). */
export function alignRows(rows: string[][], rightAlign: Set<number> = new Set()): string[] {
  const w = (s: string) => [...s.replace(/\x1b\[[0-9;]*m/g, "")].length;
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, w(c))));
  return rows.map((r) => r.map((c, i) => {
    if (i === r.length - 1 && !rightAlign.has(i)) return c;
    const pad = " ".repeat(widths[i] - w(c));
    return rightAlign.has(i) ? pad + c : c + pad;
  }).join("  ").trimEnd());
}
