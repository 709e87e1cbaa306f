// How to run pstlab itself as a child (the demo records `pstlab sim`): the compiled
// binary is its own entry; from a checkout it is the runtime plus main.ts.
import * as path from "node:path";

/** Inside a `bun build --compile` binary every module is bundled into the entry. */
export function isCompiled(): boolean {
  return import.meta.url.includes("/$bunfs/");
}

/**
 * A worker entry point by its path from the project root. In a compiled binary the
 * entry's import.meta.url is `file:///$bunfs/root/<binary>` and the workers (extra entry
 * points in package.json "build") sit at their paths from the root; from a checkout this
 * file is lib/cli/self.ts.
 */
export function workerUrl(fromRoot: string): string {
  return new URL(isCompiled() ? `./${fromRoot}` : `../../${fromRoot}`, import.meta.url).href;
}

export function selfArgv(): string[] {
  const g = globalThis as { Deno?: unknown };
  const script = process.argv[1] ?? "";
  if (isCompiled()) return [process.execPath];
  const main = script.endsWith("main.ts") ? script : path.resolve(import.meta.dirname ?? ".", "../../main.ts");
  if (g.Deno) return [process.execPath, "run", "-A", "--no-check", "--quiet", main];
  return [process.execPath, main];
}
