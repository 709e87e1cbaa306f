// Shared by the screen worker and its in-process fallback: feed a read to the screen up
// to each answered query, sending the answer at that point, so our OSC 7501 reply and
// xterm's own replies (DA1, CPR…) go out in stream order.

import type { Screen } from "../screen/screen.ts";

export interface Answer {
  at: number;
  reply: Uint8Array;
}

export function feedWithAnswers(
  screen: Screen,
  bytes: Uint8Array,
  answers: Answer[],
  reply: (data: Uint8Array) => void,
): void {
  let from = 0;
  for (const a of answers) {
    const at = Math.max(from, Math.min(bytes.length, a.at));
    screen.write(bytes.subarray(from, at), 0);
    from = at;
    reply(a.reply);
  }
  screen.write(bytes.subarray(from), 0);
}
