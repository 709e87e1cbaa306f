// The one timer gate (timers.ts): a delay past what setTimeout keeps is waited in steps,
// and no product source calls setTimeout but timers.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { later, MAX_TIMER_MS, sleep } from "./timers.ts";
import { ROOT } from "./testkit.ts";

test("a delay past 2^31 − 1 ms does not fire at once (setTimeout's own does)", async () => {
  let fired = 0;
  const timers = [MAX_TIMER_MS + 1, MAX_TIMER_MS * 3, 2520000 * 1000].map((ms) => later(() => fired++, ms));
  await sleep(150);
  assert.equal(fired, 0);
  for (const t of timers) t.clear();
});

test("short, zero, negative and NaN delays fire; a cleared timer does not", async () => {
  const seen: string[] = [];
  later(() => seen.push("short"), 5);
  later(() => seen.push("zero"), 0);
  later(() => seen.push("negative"), -5);
  later(() => seen.push("nan"), NaN);
  later(() => seen.push("cleared"), 5).clear();
  await sleep(60);
  assert.deepEqual(seen.sort(), ["nan", "negative", "short", "zero"]);
});

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".") || e.name === "dist") continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) out.push(p);
  }
  return out;
}

test("no product source sets a timer but through timers.ts", () => {
  const allowed = new Set(["lib/timers.ts", "lib/testkit.ts"]);
  const offenders = sources(ROOT)
    .map((f) => path.relative(ROOT, f))
    .filter((f) => !allowed.has(f) && /\bsetTimeout\s*\(/.test(fs.readFileSync(path.join(ROOT, f), "utf8")));
  assert.deepEqual(offenders, []);
});
