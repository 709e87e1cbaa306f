// What `pstlab check` reports: findings, each a severity, the check that found it, a
// time range and one line of explanation. A violation fails CI (exit 1); a warning
// only with --strict; info never.

import type { Transition } from "./golden.ts";

export type Severity = "violation" | "warning" | "info";

/** Every check, with the severity its findings have and what it looks at (help, JUnit names). */
export const CHECKS = {
  "discarded-report": {
    severity: "violation",
    about: "a report a strict terminal discards or ignores (the user never sees that state)",
  },
  "blocked-without-kind": { severity: "warning", about: "blocked without kind (permission, question or auth)" },
  "dropped-field": {
    severity: "warning",
    about: "a key=value pair a strict terminal drops from an applied report (key, value, reason code; grouped)",
  },
  "left-at-exit": {
    severity: "violation",
    about: "working or blocked records still there when the program exited (report done, error or idle first)",
  },
  "too-many-records": {
    severity: "warning",
    about:
      "more than 64 live records (a terminal need support only 64: past that it may evict the least recently updated)",
  },
  "invisible-text": { severity: "warning", about: "bidi overrides or invisible formatting in msg or title" },
  "tmux-passthrough": {
    severity: "info",
    about: "reports wrapped for tmux passthrough only sometimes (inside tmux the plain ones are dropped)",
  },
  "multiplexer": {
    severity: "info",
    about: "the recorded command is a multiplexer (tmux new-session …): what it drops of the protocol",
  },
  "query": { severity: "info", about: "reports without an answered query, or an answered query and no report" },
  "prompt-unreported": {
    severity: "violation",
    about: "the screen shows a prompt and the protocol never reports blocked (not even late, before the next prompt)",
  },
  "prompt-late": {
    severity: "violation",
    about: "blocked reported later than the tolerance after the prompt appears (or only after it was answered)",
  },
  "blocked-linger": { severity: "violation", about: "still blocked later than the tolerance after the prompt goes" },
  "blocked-unseen": { severity: "warning", about: "the protocol says blocked while the screen shows no prompt" },
  "flap": { severity: "warning", about: "blocked left and re-entered within 250 ms while one prompt stays" },
  "disagreement": {
    severity: "warning",
    about: "the protocol says working while the screen shows idle (or the reverse) for long",
  },
  "hooks-silent": {
    severity: "warning",
    about: "recorded with hooks (record --hooks) and no hook said anything (a hook failing without a word)",
  },
  "hook-missed": {
    severity: "warning",
    about: "the protocol reports blocked and the hooks never do (not even late, before its next blocked)",
  },
  "protocol-missed": {
    severity: "warning",
    about: "the hooks say blocked and the protocol never does (not even late, before their next blocked)",
  },
  "hook-lag": {
    severity: "warning",
    about: "hooks and protocol both say blocked, one later than the other by more than the tolerance",
  },
  "hook-agree": { severity: "info", about: "hooks and protocol both say blocked within the tolerance (which first)" },
  "golden-missing": { severity: "violation", about: "a transition of the golden capture that this one lacks" },
  "golden-none": {
    severity: "violation",
    about: "check --against DIR: no golden run for this cell in DIR (nothing to compare with)",
  },
  "golden-extra": { severity: "violation", about: "a transition this capture has and the golden lacks" },
  "golden-timing": {
    severity: "warning",
    about:
      "a transition later or earlier than the golden's by more than the tolerance, counted from the first transition both share (a start-up shift is info)",
  },
  "golden-msg": { severity: "info", about: "the same transition with a different msg" },
  "rule": { severity: "violation", about: "an assertion of the --rules file that does not hold" },
  "no-reports": {
    severity: "warning",
    about: "no OSC 7501 query and no report in the whole capture (is the emitter on, is this the right file?)",
  },
  "session": {
    severity: "violation",
    about: "the scripted session did not finish: a script wait timed out, or the program ran into the cell timeout",
  },
  "no-exit": { severity: "info", about: "the capture has no exit event, so exit state is not checked" },
} as const satisfies Record<string, { severity: Severity; about: string }>;

export type CheckName = keyof typeof CHECKS;

export interface Finding {
  check: CheckName;
  severity: Severity;
  /** Seconds from the capture's start. */
  start: number;
  end: number;
  message: string;
}

export function finding(
  check: CheckName,
  start: number,
  end: number,
  message: string,
  severity: Severity = CHECKS[check].severity,
): Finding {
  return { check, severity, start, end, message };
}

export interface FileCheck {
  path: string;
  sha256: string;
  duration: number;
  manifest: { name: string; why: string };
  reports: number;
  findings: Finding[];
  /** Protocol minus screen latency of each reported prompt (agreement.ts promptLatencies). */
  latencies?: number[];
  /** OSC 7501 queries the program sent that reached the capture. */
  queries?: number;
  /** Recorded with --answer-delay: the delay, and when each answer was actually sent. */
  answerDelay?: number;
  answersSent?: number[];
  /** The protocol's transitions (golden.ts), for comparisons across runs. */
  transitions?: Transition[];
}

export interface CheckRun {
  files: FileCheck[];
  /** The command line that reproduces the run. */
  argv: string[];
  tolerance: number;
  against: string | null;
  rules: string | null;
  strict: boolean;
}

export function counts(findings: Finding[]): Record<Severity, number> {
  const c = { violation: 0, warning: 0, info: 0 };
  for (const f of findings) c[f.severity]++;
  return c;
}

/** 1 when anything fails: violations, or warnings too under --strict. */
export function exitCodeOf(run: CheckRun): number {
  const all = run.files.flatMap((f) => f.findings);
  const c = counts(all);
  return c.violation > 0 || (run.strict && c.warning > 0) ? 1 : 0;
}
