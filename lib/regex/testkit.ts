// Test helpers for lib/regex (exempt from the layer check: tests may read the manifests).
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseToml } from "smol-toml";
import fc from "fast-check";
import { BUNDLED } from "../detect/bundled.ts";

const ROOT = path.resolve(import.meta.dirname ?? ".", "../..");
const HERDR = path.resolve(ROOT, "../shared/manifests/herdr");

/** Every regex of the bundled and (when present) Herdr manifests. */
export function manifestPatterns(): string[] {
  const sources = new Set<string>();
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) o.forEach(walk);
    else if (o && typeof o === "object") {
      for (const [k, v] of Object.entries(o)) {
        if (["regex", "line_regex", "any", "all", "not"].includes(k) && Array.isArray(v)) {
          for (const x of v) if (typeof x === "string") sources.add(x);
        }
        if (typeof v === "object") walk(v);
      }
    }
  };
  for (const text of Object.values(BUNDLED)) walk(parseToml(text));
  if (fs.existsSync(HERDR)) {
    for (const f of fs.readdirSync(HERDR).filter((f) => f.endsWith(".toml"))) {
      walk(parseToml(fs.readFileSync(path.join(HERDR, f), "utf8")));
    }
  }
  return [...sources];
}

/**
 * Random Rust-syntax patterns for the property tests: atoms with quantifiers, groups of
 * up to three nodes, alternations and anchors, behind one of the given leading flags.
 */
export function randomPattern(
  atoms: string[],
  quants: string[],
  anchors: string[],
  flags: string[],
): fc.Arbitrary<string> {
  const atom: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.tuple(fc.constantFrom(...atoms), fc.constantFrom(...quants)).map(([a, q]) => a + q),
      fc.tuple(fc.array(tie("node"), { minLength: 1, maxLength: 3 }), fc.constantFrom(...quants)).map(([xs, q]) =>
        `(?:${xs.join("")})${q}`
      ),
      fc.tuple(tie("node"), tie("node")).map(([a, b]) => `(?:${a}|${b})`),
      fc.constantFrom(...anchors),
    ),
  })).node;
  return fc.tuple(fc.constantFrom(...flags), fc.array(atom, { minLength: 1, maxLength: 5 }))
    .map(([f, xs]) => f + xs.join(""));
}
