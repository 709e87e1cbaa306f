// `pstlab sim`: the bundled simulated agent, in this terminal.

import { type CommandSpec, parseFlags, parseNumber } from "./common.ts";
import { runAgent } from "../sim/agent.ts";

export const spec: CommandSpec = {
  name: "sim",
  summary: "run the bundled simulated agent (a Claude-like TUI that reports with OSC 7501)",
  usage: "pstlab sim [--seed N] [--tasks N] [--scale F] [--prompt-rate P] [--always-report]",
  options: [
    "  --seed N            random seed (default 7)",
    "  --tasks N           tasks before it accepts /exit (default 30)",
    "  --scale F           multiply every duration (0.25 = four times faster; default 1)",
    "  --prompt-rate P     chance of a permission prompt per task (default 0.9)",
    "  --always-report     emit OSC 7501 even when the terminal does not answer the query",
  ],
  notes: [
    "Type a task and Enter; answer prompts with 1/2/3; /exit quits. It writes its true",
    "state to $PSTLAB_LABELS when recorded by pstlab record, so captures carry truth.",
  ],
  examples: ["pstlab sim", "pstlab record -o sim.cast -- pstlab sim --tasks 3", "pstlab demo   # records it with a simulated user and scores the detectors"],
};

export async function run(argv: string[]): Promise<number> {
  const p = parseFlags(argv, spec, { seed: { type: "string" }, tasks: { type: "string" }, scale: { type: "string" }, "prompt-rate": { type: "string" }, "always-report": { type: "boolean" } }, { maxPositionals: 0 });
  if (!p) return 0;
  const v = p.values;
  const code = await runAgent({
    seed: v.seed ? parseNumber(v.seed, "--seed", 0) : 7,
    tasks: v.tasks ? parseNumber(v.tasks, "--tasks", 0, 10000) : 30,
    scale: v.scale ? parseNumber(v.scale, "--scale", 0.001, 100) : 1,
    promptRate: v["prompt-rate"] ? parseNumber(v["prompt-rate"], "--prompt-rate", 0, 1) : 0.9,
    alwaysReport: !!v["always-report"],
  });
  const stdin = process.stdin as unknown as { setRawMode?: (b: boolean) => void; isTTY?: boolean };
  if (stdin.isTTY) stdin.setRawMode?.(false);
  process.exit(code);
}
