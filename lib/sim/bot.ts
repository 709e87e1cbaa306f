// The simulated user that drives lib/sim/agent.ts inside a headless recording: it
// answers a permission prompt 3–8 s after it appears and types the next task 3–10 s
// after a turn ends (docs/detection.md §6.3), reading the agent's truth labels as they are
// recorded. Seeded, so a session is reproducible up to scheduling jitter.

import { between, pick, rng } from "./rng.ts";
import { TASKS } from "./agent.ts";
import { sleep as sleepMs } from "../timers.ts";

export interface BotHost {
  now(): number;
  send(data: string): void;
  exited(): boolean;
  /** Labels recorded so far. */
  labels(): string[];
}

const sleep = (s: number) => sleepMs(s * 1000);

export async function runBot(
  host: BotHost,
  o: { seed: number; tasks: number; scale: number; log?: (s: string) => void },
): Promise<void> {
  const r = rng(o.seed ^ 0x5eed);
  let seen = 0;
  let typed = 0;
  const log = o.log ?? (() => {});
  while (!host.exited()) {
    const labels = host.labels();
    if (labels.length === seen) {
      await sleep(0.02);
      continue;
    }
    const l = labels[labels.length - 1];
    seen = labels.length;
    if (l === "truth:blocked:permission") {
      const wait = between(r, 3, 8) * o.scale;
      log(`prompt up: answering in ${wait.toFixed(1)} s`);
      await sleep(wait);
      host.send(r() < 0.9 ? "1" : "2");
    } else if (l === "truth:idle") {
      const wait = between(r, 3, 10) * o.scale;
      await sleep(wait);
      if (host.labels().length !== seen) continue; // something else happened meanwhile
      const text = typed >= o.tasks ? "/exit" : pick(r, TASKS);
      if (typed < o.tasks) log(`task ${typed + 1}/${o.tasks}: "${text}"`);
      typed++;
      for (const ch of text) {
        host.send(ch);
        await sleep(between(r, 0.02, 0.06) * Math.min(1, o.scale * 2));
      }
      host.send("\r");
      if (text === "/exit") return;
    }
  }
}
