// Shared CLI plumbing: stdout/stderr, colour (NO_COLOR), the error boundary (one line
// and exit 2 for a UserError, exit 70 and no stack trace for a bug), and parsing a
// command's option table with --help handled.

import { armStopSignals, noteInput, refuseSameOutputs } from "../recording/sink.ts";
import { BrokenPipe } from "../stdio.ts";
import { UserError } from "../errors.ts";
import { type CommandDef, fileArguments, helpText, type Options, parseCommand, type Parsed } from "./options.ts";

/** A command that wants a specific exit code, with an optional message (`--return`, gates, script failures). */
export class ExitCode extends Error {
  constructor(readonly code: number, message = "") {
    super(message);
  }
}

// The terminal writer (lib/stdio.ts, through ./stdio.ts): every command prints through these.
export { err, out } from "./stdio.ts";
import { err, out } from "./stdio.ts";

export interface Command {
  spec: CommandDef<Options>;
  run(argv: string[]): Promise<number>;
}

/** Commands that handle their own signals (a recorder, a terminal UI, a program run under one). */
const OWN_SIGNALS = new Set(["record", "play", "sim", "demo", "emit", "hook", "hooks"]);

/** A command from its option table and its body: parsing and --help are done here, once. */
export function defineCommand<O extends Options>(
  spec: CommandDef<O>,
  body: (p: Parsed<O>) => number | Promise<number>,
): Command {
  return {
    spec: spec as unknown as CommandDef<Options>,
    run: async (argv) => {
      const p = parseFlags(spec, argv);
      if (!p) return 0;
      // Batch commands stop on SIGINT/SIGTERM (130/143, temp files removed) even when started
      // with those signals ignored; the interactive ones handle their own.
      if (!OWN_SIGNALS.has(spec.name)) armStopSignals();
      // The output gate refuses to write over any of these (lib/recording/sink.ts).
      const files = fileArguments(spec as unknown as CommandDef, p as Parsed<Options>);
      for (const f of files.inputs) noteInput(f);
      refuseSameOutputs(files.outputs);
      return await body(p);
    },
  };
}

/** Parses argv with the command's table; prints help and returns null for --help. */
export function parseFlags<O extends Options>(spec: CommandDef<O>, argv: string[]): Parsed<O> | null {
  const p = parseCommand(spec, argv);
  if (!p) out(helpText(spec as unknown as CommandDef));
  return p;
}

export function colorEnabled(fd: 1 | 2 = 1): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  if (process.env.TERM === "dumb") return false;
  const stream = fd === 1 ? process.stdout : process.stderr;
  return !!(stream as { isTTY?: boolean }).isTTY;
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
  if (e instanceof BrokenPipe || (e as { code?: string })?.code === "EPIPE") return 0;
  if (e instanceof UserError) {
    err(`pstlab: ${e.oneLine()}\n`);
    return 2;
  }
  if (process.env.PSTLAB_DEBUG) err(String((e as Error)?.stack ?? e) + "\n");
  err(`pstlab: internal error: ${(e as Error)?.message ?? e} (set PSTLAB_DEBUG=1 for details; please report it)\n`);
  return 70;
}
