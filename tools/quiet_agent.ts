// Makes the "quiet agent" capture of docs/scoring.md from a capture of the simulated
// agent: the same session, times unchanged, with less output between prompts — its
// 10 Hz spinner thinned to 1 Hz (every tenth spinner-only redraw kept) and the user's
// next task pasted rather than typed (of the input box's redraws, about 800 bytes per
// typed character, only the last of each burst kept). An agent and user that write this
// little leave an answered prompt in the last 8 KB of output across the next prompts:
// the case where a linger cut at the next episode and a latency of 0 for a carried
// alarm flatter the byte-tail detector.
//
//   npx bun main.ts demo --no-report --tasks 30 --scale 1 --seed 7 --record sim.cast   # ~12 min
//   npx bun tools/quiet_agent.ts sim.cast quiet.cast     # or from fixtures/captures/fake-claude.cast
//   npx bun main.ts report quiet.cast --detectors tail8k:claude,question,screen:claude@50ms

import * as fs from "node:fs";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: bun tools/slow_spinner.ts IN.cast OUT.cast");
  process.exit(2);
}
/** A redraw of the spinner line and nothing else (no report, no title, no new text). */
const SPINNER_ONLY = /^\x1b\[4A\r\x1b\[2K.*esc to interrupt\)\x1b\[4B\r$/;
/** A redraw of the idle input box (the prompt line as the user types). */
const INPUT_BOX = /^\r\x1b\[3A\x1b\[J\x1b\[2K─+\r\r\n\x1b\[2K\x1b\[38;5;246m❯/;
const KEEP_EVERY = 10;
/** Input-box redraws closer than this belong to one burst of typing. */
const BURST = 0.5;

const lines = fs.readFileSync(input, "utf8").split("\n");
const events = lines.slice(1).filter((l) => l.trim() !== "" && !l.startsWith("#")).map((l) =>
  JSON.parse(l) as [number, string, string]
);
const drop = new Set<number>();
let frames = 0;
events.forEach(([, code, data], i) => {
  if (code === "o" && SPINNER_ONLY.test(data) && frames++ % KEEP_EVERY !== 0) drop.add(i);
  // A redraw followed within BURST by the next one: an intermediate keystroke.
  if (code === "o" && INPUT_BOX.test(data)) {
    let dt = 0;
    for (let j = i + 1; j < events.length; j++) {
      dt += events[j][0];
      if (dt > BURST) break;
      if (events[j][1] === "o" && INPUT_BOX.test(events[j][2])) {
        drop.add(i);
        break;
      }
    }
  }
});
const out = [lines[0]]; // the header
let carry = 0;
events.forEach(([dt, code, data], i) => {
  if (drop.has(i)) {
    carry += dt; // v3 times are intervals: a dropped event's time goes to the next kept one
    return;
  }
  out.push(JSON.stringify([Math.round((dt + carry) * 1e6) / 1e6, code, data]));
  carry = 0;
});
fs.writeFileSync(output, out.join("\n") + "\n");
console.error(`wrote ${output}: ${out.length - 1} of ${events.length} events`);
