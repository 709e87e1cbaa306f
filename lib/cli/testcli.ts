// Runs the CLI as a subprocess on whichever runtime runs the tests (Bun or Deno).
import { spawnSync } from "node:child_process";
import * as path from "node:path";

export const ROOT = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "../..");
export const MAIN = path.join(ROOT, "main.ts");

export function runtimeArgv(): string[] {
  const g = globalThis as { Deno?: unknown; Bun?: unknown };
  if (g.Deno) return [process.execPath, "run", "-A", "--no-check", "--quiet"];
  return [process.execPath];
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  bytes: Uint8Array;
}

export function cli(args: string[], opts: { input?: string | Uint8Array; env?: Record<string, string>; cwd?: string; timeout?: number } = {}): CliResult {
  const [cmd, ...pre] = runtimeArgv();
  const r = spawnSync(cmd, [...pre, MAIN, ...args], {
    input: opts.input,
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    cwd: opts.cwd ?? ROOT,
    timeout: opts.timeout ?? 60000,
    maxBuffer: 1 << 28,
  });
  const bytes = new Uint8Array(r.stdout ?? []);
  return { code: r.status ?? -1, stdout: new TextDecoder().decode(bytes), stderr: String(r.stderr ?? ""), bytes };
}
