// `pstlab sim`: the bundled simulated agent, in this terminal.

import { defineCommand } from "./common.ts";
import { flag, HOOKS, NONE, number, PROTOCOL } from "./options.ts";
import { runAgent } from "../sim/agent.ts";
import { summaryOf } from "./commands.ts";
import { HOOK_MODES, PROTOCOL_MODES } from "../sim/modes.ts";
import { selfArgv } from "../runtime.ts";

export const spec = {
  name: "sim",
  summary: summaryOf("sim"),
  synopsis: "",
  options: {
    seed: number("N", "random seed (default 7)", { min: 0, max: 2 ** 32 - 1, integer: true }),
    tasks: number("N", "tasks before it accepts /exit (default 30)", { min: 0, max: 10000, integer: true }),
    scale: number("F", "multiply every duration (0.25 = four times faster; default 1)", { min: 0.001, max: 100 }),
    "prompt-rate": number("P", "chance of a permission prompt per task (default 0.9)", { min: 0, max: 1 }),
    "always-report": flag("emit OSC 7501 even when the terminal does not answer the query"),
    protocol: PROTOCOL,
    hooks: HOOKS,
  },
  positionals: NONE,
  notes: [
    "Type a task and Enter; answer prompts with 1/2/3; /exit quits. It writes its true",
    "state to $PSTLAB_LABELS when recorded by pstlab record, so captures carry truth.",
    "",
    "--protocol MODE makes it a regressed emitter, for testing `pstlab check`:",
    ...PROTOCOL_MODES.map((m) => `  ${m.name.padEnd(14)}${m.help}`),
    "",
    "--hooks MODE calls `pstlab hook` as Claude Code's hooks would, when recorded by",
    "pstlab record --hooks (or pstlab demo):",
    ...HOOK_MODES.map((m) => `  ${m.name.padEnd(16)}${m.help}`),
  ],
  examples: [
    "pstlab sim",
    "pstlab record -o sim.cast -- pstlab sim --tasks 3",
    "pstlab sim --protocol late=2s",
    "pstlab record --hooks -o h.cast -- pstlab sim --tasks 2 --hooks no-notification",
    "pstlab demo   # records it with a simulated user and scores the detectors",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  return await runAgent({
    seed: v.seed ?? 7,
    tasks: v.tasks ?? 30,
    scale: v.scale ?? 1,
    promptRate: v["prompt-rate"] ?? 0.9,
    alwaysReport: !!v["always-report"],
    protocol: v.protocol,
    hooks: v.hooks,
    hookArgv: selfArgv(),
  });
});
