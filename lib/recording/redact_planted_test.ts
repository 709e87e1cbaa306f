// A secret planted anywhere a person or a program could still read it back, and redact
// must leave no trace of it: split at random byte offsets across reads, each piece
// wrapped in random SGR/OSC/DCS sequences, base64 with random line breaks in an OSC 7501
// `msg` (malformed, but in the file) or an OSC 52 payload. Checked on the bytes, on the
// text a person would see (escape sequences skipped), on every base64 payload decoded as
// a terminal would, and by a second redactor (what `redact --check` runs).
import { compilePattern } from "../regex/pattern.ts";
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Redactor, visibleText } from "./redact.ts";
import type { Event } from "./model.ts";
import { encodeBase64 } from "../osc7501/base64.ts";

const te = new TextEncoder();
const td = new TextDecoder();
const PATTERN = compilePattern("sk-[A-Za-z0-9]{16}");

function run(events: Event[]): Event[] {
  const r = new Redactor({ patterns: [PATTERN], replace: "[REDACTED]", maxSecret: 4096 });
  return [...events.flatMap((e) => r.push(e)), ...r.end()];
}

const WRAPS = ["\x1b[1;31m", "\x1b[0m", "\x1b[K", "\x1b]0;title\x07", "\x1bP1$r0m\x1b\\", "\x1b]8;;http://x\x1b\\", ""];
const lenient = (s: string) => {
  try {
    return td.decode(Uint8Array.from(atob(s.replace(/\s+/g, "")), (c) => c.charCodeAt(0)));
  } catch {
    return "";
  }
};

/** Every trace of `secret` a reader could find in the output bytes. */
function traces(out: Event[], secret: string): string[] {
  const text = td.decode(
    Uint8Array.from(out.flatMap((e) => (e.kind === "output" ? [...e.bytes] : []))),
  );
  const found: string[] = [];
  if (text.includes(secret)) found.push("bytes");
  if (visibleText(text).visible.includes(secret)) found.push("visible text");
  for (const m of text.matchAll(/\x1b\](?:7501|52);([^\x07\x1b]*)/g)) {
    for (const part of m[1].split(/[:;]/)) {
      if (lenient(part.replace(/^[a-z]+=/, "")).includes(secret)) found.push("base64");
    }
  }
  return found;
}

test("a planted secret leaves no trace after redact, and a second pass finds nothing (property)", () => {
  fc.assert(
    fc.property(
      fc.stringMatching(/^[A-Za-z0-9]{16}$/),
      fc.constantFrom("split", "wrapped", "osc7501-msg", "osc52"),
      fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat({ max: WRAPS.length - 1 }), { minLength: 19, maxLength: 19 }),
      fc.nat({ max: 10 }),
      (tail, how, filler, cuts, wraps, at) => {
        const secret = `sk-${tail}`;
        let planted: string;
        if (how === "wrapped") {
          planted = [...secret].map((c, i) => WRAPS[wraps[i]] + c).join("") + "\x1b[0m";
        } else if (how === "split") planted = secret;
        else {
          const b64 = encodeBase64(te.encode(`key ${secret} end`));
          let broken = "";
          for (let i = 0, k = 0; i < b64.length; k++) {
            const n = 1 + (cuts[k % cuts.length] % 12);
            broken += b64.slice(i, i + n) + (k % 2 ? "\r\n" : "\n");
            i += n;
          }
          planted = how === "osc52" ? `\x1b]52;c;${broken}\x07` : `\x1b]7501;state=working:msg=${broken}\x1b\\`;
        }
        const stream = te.encode([...filler.slice(0, at % filler.length), planted, ...filler].join(""));
        // Cut the stream into reads at random byte offsets (a secret across reads).
        const events: Event[] = [];
        let pos = 0, t = 0;
        for (const c of cuts) {
          if (pos >= stream.length) break;
          const end = Math.min(stream.length, pos + 1 + c);
          events.push({ t: t += 0.01, kind: "output", bytes: stream.slice(pos, end) });
          pos = end;
        }
        if (pos < stream.length) events.push({ t: t + 0.01, kind: "output", bytes: stream.slice(pos) });
        const out = run(events);
        assert.deepEqual(traces(out, secret), [], JSON.stringify({ how, planted }));
        const again = new Redactor({ patterns: [PATTERN], replace: "[REDACTED]" });
        for (const e of out) again.push(e);
        again.end();
        assert.equal(Object.values(again.stats).reduce((a, b) => a + b, 0), 0, "a second pass still matched");
      },
    ),
    { numRuns: 300 },
  );
});
