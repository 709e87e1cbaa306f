// The import-direction rule, checked: data flows bytes → recording → clock →
// observation → verdicts → episodes → metrics → renderers → CLI, and no module imports
// from a layer downstream of it. Run by `npm run check` and by tools/layers_test.ts.
// Tests (*_test.ts) and test kits are exempt: they may drive a layer through a higher one.

import * as fs from "node:fs";
import * as path from "node:path";

/** Each layer and the layers it may import (besides itself). Order follows the data flow. */
export const ALLOWED: Record<string, string[]> = {
  "lib": [], // errors.ts, text.ts, units.ts, runtime.ts, version.ts: the floor
  "lib/regex": ["lib"],
  "lib/osc7501": ["lib"],
  "lib/pty": ["lib"],
  "lib/recording": ["lib", "lib/regex", "lib/osc7501"],
  "lib/screen": ["lib", "lib/regex", "lib/osc7501", "lib/recording"],
  "lib/detect": ["lib", "lib/regex", "lib/osc7501", "lib/recording", "lib/screen", "fixtures/manifests"],
  "lib/score": ["lib", "lib/regex", "lib/osc7501", "lib/recording", "lib/detect"],
  "lib/report": ["lib", "lib/regex", "lib/osc7501", "lib/recording", "lib/detect", "lib/score"],
  "lib/check": ["lib", "lib/regex", "lib/osc7501", "lib/recording", "lib/detect"],
  "lib/session": ["lib", "lib/regex", "lib/osc7501", "lib/pty", "lib/recording", "lib/screen"],
  "lib/sim": ["lib", "lib/regex", "lib/osc7501"],
  "replay": ["lib", "lib/regex", "lib/osc7501", "lib/recording", "lib/screen", "lib/detect", "lib/score", "lib/check"],
  "bench": [
    "lib",
    "lib/regex",
    "lib/osc7501",
    "lib/recording",
    "lib/screen",
    "lib/detect",
    "lib/score",
    "lib/sim",
    "replay",
  ],
  "lib/cli": [
    "lib",
    "lib/regex",
    "lib/osc7501",
    "lib/pty",
    "lib/recording",
    "lib/screen",
    "lib/detect",
    "lib/score",
    "lib/report",
    "lib/check",
    "lib/session",
    "lib/sim",
    "replay",
  ],
  ".": ["lib", "lib/cli", "lib/osc7501"], // main.ts
  "tools": [],
};

const IMPORT =
  /^\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

function* sources(root: string, dir = root): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".") || e.name === "dist") continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sources(root, p);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts") && !e.name.startsWith("testkit")) yield p;
  }
}

/** "file: imports X (layer A may not import layer B)" for every import that points the wrong way. */
export function layerViolations(root: string): string[] {
  const out: string[] = [];
  for (const file of sources(root)) {
    const from = path.relative(root, path.dirname(file)) || ".";
    const allowed = ALLOWED[from];
    const rel = path.relative(root, file);
    if (!allowed) {
      out.push(`${rel}: folder ${from} has no layer (add it to tools/layers.ts ALLOWED)`);
      continue;
    }
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec.startsWith(".")) continue; // packages and node:*
      const to = path.relative(root, path.dirname(path.resolve(path.dirname(file), spec))) || ".";
      if (to !== from && !allowed.includes(to)) out.push(`${rel}: imports ${spec} (${from} may not import ${to})`);
    }
  }
  return out;
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname ?? ".", "..");
  const bad = layerViolations(root);
  for (const b of bad) console.error(b);
  console.error(
    bad.length
      ? `layers: ${bad.length} import(s) point the wrong way (see ARCHITECTURE.md)`
      : "layers: every import points downstream",
  );
  process.exitCode = bad.length ? 1 : 0;
}
