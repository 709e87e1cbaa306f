// One list of worker entry points (runtime.ts WORKER_ENTRIES): a worker the compiled
// binary does not bundle fails only there, at run time, so the list, the build script and
// the source's workerUrl() calls are checked against each other here.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { WORKER_ENTRIES } from "./runtime.ts";
import { ROOT } from "./testkit.ts";

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".") || e.name === "dist") continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

test("the build script bundles every worker entry, and nothing else beside main.ts", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const entries = String(pkg.scripts.build).split(/\s+/).filter((w) => w.endsWith(".ts"));
  assert.deepEqual(entries, ["main.ts", ...WORKER_ENTRIES]);
});

test("every workerUrl() call names a listed entry that exists", () => {
  const called = new Set<string>();
  for (const f of sources(ROOT)) {
    if (f.endsWith("_test.ts")) continue;
    for (const m of fs.readFileSync(f, "utf8").matchAll(/\bworkerUrl\(\s*["']([\w./-]+\.ts)["']/g)) called.add(m[1]);
  }
  assert.deepEqual([...called].sort(), [...WORKER_ENTRIES].sort());
  for (const w of WORKER_ENTRIES) assert.ok(fs.existsSync(path.join(ROOT, w)), w);
});
