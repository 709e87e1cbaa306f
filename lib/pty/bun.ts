// Bun's built-in PTY (`Bun.spawn(argv, { terminal })`, Bun 1.4.5): window size, resize/SIGWINCH, input, exit
// status, and no lost bytes at exit — the terminal's `exit` callback is the master's
// EOF, which comes after the last byte.

import { type Pty, type PtyExit, type PtySpawnOptions, signalGroup, SpawnError } from "./common.ts";

interface BunTerminal {
  write(d: string | Uint8Array): void;
  resize(cols: number, rows: number): void;
  close(): void;
}
interface BunProc {
  pid: number;
  exited: Promise<number>;
  signalCode: string | null;
  exitCode: number | null;
  kill(sig?: string | number): void;
  terminal: BunTerminal;
}
type BunSpawn = (argv: string[], opts: Record<string, unknown>) => BunProc;

export function spawnBun(opts: PtySpawnOptions): Pty {
  const spawn = (globalThis as unknown as { Bun: { spawn: BunSpawn } }).Bun.spawn;
  let resolveDrained!: () => void;
  const drained = new Promise<void>((r) => (resolveDrained = r));
  let proc: BunProc;
  try {
    proc = spawn(opts.argv, {
      env: opts.env,
      cwd: opts.cwd,
      terminal: {
        cols: opts.cols,
        rows: opts.rows,
        name: opts.env.TERM ?? "xterm-256color",
        data(_t: unknown, bytes: Uint8Array) {
          opts.onData(bytes); // a fresh buffer per call: none changed or shared an ArrayBuffer across 200 reads
        },
        exit() {
          resolveDrained();
        },
      },
    });
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new SpawnError(
      code === "ENOENT"
        ? `command not found: ${opts.argv[0]}`
        : `cannot start ${opts.argv[0]}: ${(e as Error).message}`,
    );
  }
  const exited: Promise<PtyExit> = proc.exited.then(() => ({
    code: proc.signalCode ? null : proc.exitCode,
    signal: proc.signalCode ?? null,
  }));
  let closed = false;
  return {
    pid: proc.pid,
    write: (d) => {
      if (!closed) proc.terminal.write(d);
    },
    resize: (c, r) => {
      if (!closed) proc.terminal.resize(c, r);
    },
    kill: (sig = "SIGTERM") => {
      if (!signalGroup(proc.pid, sig)) {
        try {
          proc.kill(sig);
        } catch { /* already gone */ }
      }
    },
    exited,
    drained,
    close: () => {
      if (closed) return;
      closed = true;
      try {
        proc.terminal.close();
      } catch { /* already closed */ }
      resolveDrained();
    },
  };
}
