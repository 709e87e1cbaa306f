// The one small interface behind which the runtime-specific PTY code lives:
// Bun's built-in terminal (`Bun.spawn(argv, { terminal })`) or, on Deno, libc through
// FFI (posix_openpt + posix_spawnp with setsid). Everything else in pstlab is plain
// node:* and web APIs.

import { SpawnError } from "./common.ts";
import type { Pty, PtySpawnOptions } from "./common.ts";

export * from "./common.ts";

export async function spawnPty(opts: PtySpawnOptions): Promise<Pty> {
  const g = globalThis as { Bun?: unknown; Deno?: unknown };
  if (g.Bun) return (await import("./bun.ts")).spawnBun(opts);
  if (g.Deno) return (await import("./deno.ts")).spawnDeno(opts);
  throw new SpawnError("recording needs Bun or Deno (no PTY support in this runtime)");
}
