// The one small interface behind which the runtime-specific PTY code lives:
// Bun's built-in terminal (`Bun.spawn(argv, { terminal })`) or, on Deno, libc through
// FFI (posix_openpt + posix_spawnp with setsid). Everything else in pstlab is plain
// node:* and web APIs.

export interface PtyExit {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  /** Signal name (SIGTERM…) when killed, else null. */
  signal: string | null;
}

export interface PtySpawnOptions {
  argv: string[];
  cols: number;
  rows: number;
  env: Record<string, string>;
  cwd?: string;
  /** Called for every read from the pty master, in order; the buffer is the caller's to keep. */
  onData(bytes: Uint8Array): void;
}

export interface Pty {
  readonly pid: number;
  write(data: Uint8Array | string): void;
  resize(cols: number, rows: number): void;
  kill(signal?: "SIGTERM" | "SIGKILL" | "SIGHUP" | "SIGINT"): void;
  /** The child's status. */
  readonly exited: Promise<PtyExit>;
  /** Resolves once the master reads EOF: every byte the child wrote has been delivered. */
  readonly drained: Promise<void>;
  close(): void;
}

export class SpawnError extends Error {}

export const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 };

/** 128 + signal number, as shells and `script -e` report a killed child. */
export function exitStatus(e: PtyExit): number {
  if (e.code !== null) return e.code;
  return 128 + (SIGNALS[e.signal ?? ""] ?? 15);
}

export async function spawnPty(opts: PtySpawnOptions): Promise<Pty> {
  const g = globalThis as { Bun?: unknown; Deno?: unknown };
  if (g.Bun) return (await import("./bun.ts")).spawnBun(opts);
  if (g.Deno) return (await import("./deno.ts")).spawnDeno(opts);
  throw new SpawnError("recording needs Bun or Deno (no PTY support in this runtime)");
}
