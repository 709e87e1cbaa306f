// Test helpers for lib/regex (exempt from the layer check: tests may read the manifests).
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseToml } from "smol-toml";
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
