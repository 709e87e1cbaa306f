// Hooks against the protocol (check's hook-* findings): a stretch one source says late, after
// the other's has ended, is late by so much (which first), not "never said" twice — the same
// late-vs-never rule as prompt-late (agreement.ts).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { hookAgreement } from "./hooks.ts";
import type { Timeline } from "../detect/timeline.ts";

/** A timeline blocked over the given stretches, working between (hooks: rules `hook:*`). */
function tl(detector: string, blocked: [number, number][]): Timeline {
  const rule = detector === "hooks" ? "hook:x" : "record:x";
  const points = [{ t: 0, verdict: { state: "working" as const, needsYou: false, rule, evidence: null } }];
  for (const [a, b] of blocked) {
    points.push({ t: a, verdict: { state: "blocked" as never, needsYou: true, rule, evidence: null } });
    points.push({ t: b, verdict: { state: "working", needsYou: false, rule, evidence: null } });
  }
  return { detector, points, samples: points.length };
}

const CASES: { name: string; protocol: [number, number][]; hooks: [number, number][]; want: RegExp[] }[] = [
  {
    name: "agree",
    protocol: [[2, 4]],
    hooks: [[2.1, 4]],
    want: [/^hook-agree: .*the protocol first, the hooks 0\.10 s later$/],
  },
  {
    name: "protocol late, after the hooks' blocked ended (demo --protocol late=2s)",
    protocol: [[4.5, 6]],
    hooks: [[2, 4]],
    want: [
      /^hook-lag: blocked at 2\.00 s: the hooks first, the protocol 2\.50 s later \(the hooks' blocked had already ended/,
    ],
  },
  {
    name: "hooks late, after the protocol's blocked ended",
    protocol: [[2, 4]],
    hooks: [[5, 7]],
    want: [/^hook-lag: blocked at 2\.00 s: the protocol first, the hooks 3\.00 s later \(the protocol's blocked/],
  },
  {
    name: "hooks never: the next hook stretch belongs to the next protocol stretch",
    protocol: [[2, 4], [8, 9]],
    hooks: [[8, 9]],
    want: [/^hook-missed: blocked 2\.00 s–4\.00 s by the protocol/, /^hook-agree: blocked at 8\.00 s/],
  },
  {
    name: "protocol never: its only stretch is the hooks' next one",
    protocol: [[8, 9]],
    hooks: [[2, 4], [8, 9]],
    want: [/^protocol-missed: blocked 2\.00 s–4\.00 s by the hooks/, /^hook-agree: blocked at 8\.00 s/],
  },
  {
    name: "late only up to the source's next stretch",
    protocol: [[2, 3], [5, 6]],
    hooks: [[7, 8]],
    want: [
      /^hook-missed: blocked 2\.00 s/,
      /^hook-lag: blocked at 5\.00 s: the protocol first, the hooks 2\.00 s later/,
    ],
  },
];

describe("hooks against the protocol: late is late, never is never", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const got = hookAgreement(tl("protocol", c.protocol), tl("hooks", c.hooks), 20, 0.5)
        .map((f) => `${f.check}: ${f.message}`);
      assert.equal(got.length, c.want.length, got.join("\n"));
      c.want.forEach((re, i) => assert.match(got[i], re, got.join("\n")));
    });
  }
});
