// What both PTY backends (bun.ts, deno.ts) and their caller share: the interface, the
// spawn failure, and signalling the child's process group. Kept apart from index.ts,
// which loads a backend, so no backend imports the module that imports it.

import { UserError } from "../errors.ts";

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

/** The program could not be started (not found, no pty): the user's to fix, one line. */
export class SpawnError extends UserError {}

/**
 * Signals the child's whole process group (the child is a session leader, so its
 * group id is its pid): a grandchild that ignores SIGTERM is reached too. Falls back
 * to the child alone when the group is gone. Returns false when nothing was there.
 */
export function signalGroup(pid: number, sig: string): boolean {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, sig as NodeJS.Signals);
      return true;
    } catch { /* no such group or process: try the next */ }
  }
  return false;
}

/** Whether any process of the child's group is still alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

export const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** 128 + signal number, as shells and `script -e` report a killed child. */
export function exitStatus(e: PtyExit): number {
  if (e.code !== null) return e.code;
  return 128 + (SIGNALS[e.signal ?? ""] ?? 15);
}
