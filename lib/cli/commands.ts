// The subcommand registry: name, one-line summary, and how to load the command. main.ts
// only dispatches. Each command's module is imported only when that command runs (or its
// help is asked for): `pstlab --version` and `pstlab scan` need not load the emulator,
// the manifest engine and every renderer (issue 25: a start-up a user does not feel).
// The summary is declared here, once; the command's spec reads it with summaryOf.

import type { Command } from "./common.ts";

export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: CommandEntry[] = [
  {
    name: "record",
    summary: "record a program in a real PTY to an asciicast v3 fixture (answers the OSC 7501 query)",
    load: async () => (await import("./record.ts")).command,
  },
  {
    name: "play",
    summary: "replay a capture in the terminal (optionally side by side with live detector verdicts)",
    load: async () => (await import("./play.ts")).command,
  },
  {
    name: "report",
    summary: "score every detector against the truth: latency, missed, carried, linger, false alarms",
    load: async () => (await import("./report.ts")).command,
  },
  {
    name: "check",
    summary: "check an emitter's capture: spec lint, agreement with the screen, a golden capture, assertions",
    load: async () => (await import("./check.ts")).command,
  },
  {
    name: "scan",
    summary: "list every OSC 7501 event in a capture (reports, rejects, queries, lifetime events)",
    load: async () => (await import("./scan.ts")).command,
  },
  {
    name: "status",
    summary: "show the OSC 7501 records a terminal would hold at a time",
    load: async () => (await import("./status.ts")).command,
  },
  {
    name: "emit",
    summary: "print one OSC 7501 sequence (or the query) for shell scripts",
    load: async () => (await import("./emit.ts")).command,
  },
  {
    name: "hook",
    summary: "record one agent hook event in the pstlab record --hooks session around it",
    load: async () => (await import("./hook.ts")).command,
  },
  {
    name: "hooks",
    summary: "print hook settings for an agent that call pstlab hook (claude: a --settings JSON)",
    load: async () => (await import("./hook.ts")).hooksCommand,
  },
  {
    name: "info",
    summary: "summarize a capture: size, duration, events, markers, exit status, OSC 7501 reports",
    load: async () => (await import("./info.ts")).command,
  },
  {
    name: "convert",
    summary: "convert a capture between asciicast v3/v2, raw, ttyrec and script timing files",
    load: async () => (await import("./convert.ts")).command,
  },
  {
    name: "cat",
    summary: "concatenate captures into one (resize events inserted where sizes differ)",
    load: async () => (await import("./cat.ts")).command,
  },
  {
    name: "trim",
    summary: "keep the part of a capture between two times",
    load: async () => (await import("./trim.ts")).command,
  },
  {
    name: "redact",
    summary:
      "scrub secrets from a capture (output, input, markers, header, OSC 7501 and OSC 52), or check that none remain",
    load: async () => (await import("./redact.ts")).command,
  },
  {
    name: "detect",
    summary: "the verdict of a detector (default: the manifest's screen rules) at a time",
    load: async () => (await import("./detect.ts")).command,
  },
  {
    name: "explain",
    summary: "show every manifest rule at a time: matched or not, and the text it saw",
    load: async () => (await import("./explain.ts")).command,
  },
  {
    name: "screen",
    summary: "print the emulated screen (viewport) at a time",
    load: async () => (await import("./screen.ts")).command,
  },
  {
    name: "lint",
    summary: "check manifests: rules that can never win, stale-title hazards, scan windows, case, regex engines",
    load: async () => (await import("./lint.ts")).command,
  },
  {
    name: "sim",
    summary: "run the bundled simulated agent (a Claude-like TUI that reports with OSC 7501)",
    load: async () => (await import("./sim.ts")).command,
  },
  {
    name: "demo",
    summary: "score the detectors on the bundled capture, then on a live simulated session",
    load: async () => (await import("./demo.ts")).command,
  },
];

/** A command's one-line summary (its spec's `summary`). */
export function summaryOf(name: string): string {
  const c = COMMANDS.find((c) => c.name === name);
  if (!c) throw new Error(`no command ${name} in the table`);
  return c.summary;
}

/** Every command, loaded (tests and tools that read every option table). */
export const loadCommands = (): Promise<Command[]> => Promise.all(COMMANDS.map((c) => c.load()));
