// How the simulated agent reports, as a table: each mode's name and what it does, read by
// the agent, by `--protocol`'s parser and by `sim --help`. Apart from the agent so the
// option tables import the list, not the agent.

/** The modes that take no value; `late` takes a duration (`late=2s`). */
export const PLAIN_MODES = ["correct", "none", "no-blocked", "stale", "malformed", "children", "flap"] as const;

/** A correct emitter, or one of the regressions `check` must catch. */
export type ProtocolMode =
  | { mode: (typeof PLAIN_MODES)[number] }
  | { mode: "late"; delay: number };

/** Every mode as written on the command line, with its help line, in help order. */
export const PROTOCOL_MODES: readonly { name: string; help: string }[] = [
  { name: "correct", help: "reports as Claude Code does (the default)" },
  { name: "none", help: "never reports" },
  { name: "late=DURATION", help: "every report delayed, e.g. late=2s" },
  { name: "no-blocked", help: "never reports blocked, though the prompt shows" },
  { name: "stale", help: "exits still reporting working (no final idle)" },
  { name: "malformed", help: "every fourth report broken: bad base64, an oversize msg, a control character" },
  { name: "children", help: "a root record plus a child record task/N per task, done at its end" },
  { name: "flap", help: "at each prompt: blocked → working → blocked within 100 ms" },
];

/** How the simulated agent calls its hooks (`--hooks`): off unless given. */
export const PLAIN_HOOK_MODES = ["correct", "silent", "no-notification"] as const;

export type HookMode =
  | { mode: (typeof PLAIN_HOOK_MODES)[number] }
  | { mode: "late"; delay: number };

/** Every hook mode as written on the command line, with its help line, in help order. */
export const HOOK_MODES: readonly { name: string; help: string }[] = [
  { name: "correct", help: "calls `pstlab hook` as Claude Code's hooks would (see pstlab hooks claude)" },
  { name: "late=DURATION", help: "every hook call delayed, e.g. late=2s" },
  { name: "silent", help: "every hook fails without a word (the write-up's stale or missing hook)" },
  { name: "no-notification", help: "no Notification hook: never says blocked" },
];
