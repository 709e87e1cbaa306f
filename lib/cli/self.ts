// How to run pstlab itself as a child (the demo records `pstlab sim`): the compiled
// binary is its own entry; from a checkout it is the runtime plus main.ts.
import * as path from "node:path";

export function selfArgv(): string[] {
  const g = globalThis as { Deno?: unknown };
  const script = process.argv[1] ?? "";
  const compiled = import.meta.url.includes("/$bunfs/");
  if (compiled) return [process.execPath];
  const main = script.endsWith("main.ts") ? script : path.resolve(import.meta.dirname ?? ".", "../../main.ts");
  if (g.Deno) return [process.execPath, "run", "-A", "--no-check", "--quiet", main];
  return [process.execPath, main];
}
