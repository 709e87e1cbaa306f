// The import-direction rule, checked: data flows bytes → recording → clock →
// observation → verdicts → episodes → metrics → renderers → CLI, and no module imports
// from a layer downstream of it — nor starts a worker from one (workerUrl("…") counts as
// an import). Run by `npm run check` and by tools/layers_test.ts. Tests (*_test.ts) and
// test kits are exempt: they may drive a layer through a higher one.

import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The layers in the order data flows, upstream first: a layer may import only layers
 * listed before it. A new folder gets its place here. `lib` is the floor (errors, text,
 * units, runtime, version); `fixtures/manifests` the bundled text lib/detect imports,
 * `fixtures/captures` the demo's bundled capture;
 * `.` is main.ts.
 */
export const ORDER = [
  ..."lib lib/regex lib/osc7501 lib/pty fixtures/manifests fixtures/captures lib/recording lib/screen lib/detect".split(
    " ",
  ),
  "lib/score",
  ..."lib/report lib/check lib/session lib/sim replay bench lib/cli . tools".split(" "),
];

/**
 * The imports between layers in use, and only those: a new one is a new pair here (and
 * must point upstream in ORDER); a pair nothing uses any more is reported, so the table
 * stays a true map of who depends on whom.
 */
export const USES: Record<string, string[]> = Object.fromEntries(
  Object.entries({
    "lib": "",
    "lib/regex": "",
    "lib/osc7501": "",
    "lib/pty": "lib",
    "lib/recording": "lib lib/regex lib/osc7501",
    "lib/screen": "lib lib/recording",
    "lib/detect": "lib lib/regex lib/osc7501 fixtures/manifests lib/recording lib/screen",
    "lib/score": "lib lib/recording lib/detect",
    "lib/report": "lib lib/osc7501 lib/recording lib/detect lib/score",
    "lib/check": "lib lib/osc7501 lib/recording lib/detect lib/score",
    "lib/session": "lib lib/regex lib/osc7501 lib/pty lib/recording lib/screen lib/score",
    "lib/sim": "lib lib/osc7501",
    "replay": "lib lib/osc7501 lib/recording lib/detect lib/score lib/check",
    "bench": "lib lib/osc7501 lib/recording lib/screen lib/detect lib/sim replay",
    "lib/cli":
      "lib lib/osc7501 lib/pty fixtures/captures lib/recording lib/detect lib/score lib/report lib/check lib/session lib/sim replay",
    ".": "lib lib/osc7501 lib/cli",
    "tools": "",
  }).map(([layer, uses]) => [layer, uses ? uses.split(" ") : []]),
);

const IMPORT =
  /^\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;
/** A worker started by its path from the checkout's root (lib/runtime.ts workerUrl) depends on that file too. */
const WORKER = /\bworkerUrl\(\s*["']([\w./-]+\.ts)["']\s*\)/g;

function* sources(root: string, dir = root): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".") || e.name === "dist") continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sources(root, p);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts") && !e.name.startsWith("testkit")) yield p;
  }
}

/** Every dependency of one source file: its relative imports and the workers it starts, as [as written, folder]. */
function dependencies(root: string, file: string): [string, string][] {
  const text = fs.readFileSync(file, "utf8");
  const out: [string, string][] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith(".")) continue; // packages and node:*
    out.push([spec, path.relative(root, path.dirname(path.resolve(path.dirname(file), spec))) || "."]);
  }
  for (const m of text.matchAll(WORKER)) out.push([`workerUrl("${m[1]}")`, path.dirname(m[1]) || "."]);
  return out;
}

/** "file: imports X (layer A may not import layer B)" for every import that points the wrong way. */
export function layerViolations(root: string, uses: Record<string, string[]> = USES): string[] {
  const out: string[] = [];
  for (const [from, tos] of Object.entries(uses)) {
    for (const to of tos) {
      if (!ORDER.includes(from) || !ORDER.includes(to) || ORDER.indexOf(to) >= ORDER.indexOf(from)) {
        out.push(`tools/layers.ts: USES lets ${from} import ${to}, which is not upstream of it in ORDER`);
      }
    }
  }
  for (const file of sources(root)) {
    const from = path.relative(root, path.dirname(file)) || ".";
    const allowed = uses[from];
    const rel = path.relative(root, file);
    if (!allowed) {
      out.push(`${rel}: folder ${from} has no layer (add it to tools/layers.ts ORDER and USES)`);
      continue;
    }
    for (const [spec, to] of dependencies(root, file)) {
      if (to !== from && !allowed.includes(to)) out.push(`${rel}: imports ${spec} (${from} may not import ${to})`);
    }
  }
  return out;
}

/** Pairs USES lists that no file uses any more. */
export function unusedPairs(root: string, uses: Record<string, string[]> = USES): string[] {
  const seen = new Set<string>();
  for (const file of sources(root)) {
    const from = path.relative(root, path.dirname(file)) || ".";
    for (const [, to] of dependencies(root, file)) seen.add(`${from} → ${to}`);
  }
  return Object.entries(uses).flatMap(([from, tos]) =>
    tos.filter((to) => !seen.has(`${from} → ${to}`)).map((to) =>
      `tools/layers.ts: USES lists ${from} → ${to}, which nothing uses (remove it)`
    )
  );
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname ?? ".", "..");
  const bad = [...layerViolations(root), ...unusedPairs(root)];
  for (const b of bad) console.error(b);
  console.error(
    bad.length
      ? `layers: ${bad.length} import(s) point the wrong way (see ARCHITECTURE.md)`
      : "layers: every import points downstream",
  );
  process.exitCode = bad.length ? 1 : 0;
}
