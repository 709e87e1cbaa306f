// Deno: a PTY from libc through FFI (the npm PTY addons fail on Bun or Deno). posix_openpt / grantpt /
// unlockpt / ptsname_r give the pair; posix_spawnp with POSIX_SPAWN_SETSID starts the
// child in a new session, and because the slave is opened (file action) after setsid it
// becomes the controlling tty. No fork: forking a multi-threaded V8 process that then
// returns into JS is unsafe. Reads run on Deno's FFI thread pool until EIO (EOF).

import { type Pty, type PtyExit, type PtySpawnOptions, signalGroup, SIGNALS, SpawnError } from "./common.ts";

// deno-lint-ignore no-explicit-any
type AnyFn = (...args: any[]) => any;
interface DenoFfi {
  dlopen(path: string, symbols: Record<string, unknown>): { symbols: Record<string, AnyFn>; close(): void };
  UnsafePointer: { of(buf: ArrayBufferView): unknown; value(p: unknown): bigint };
}

const O_RDWR = 0x2, O_NOCTTY = 0x100, O_CLOEXEC = 0x80000;
const TIOCSWINSZ = 0x5414;
// glibc's POSIX_SPAWN_* flags.
const SETSIGDEF = 0x04, SETSIGMASK = 0x08, SETSID = 0x80;
const SIGNAMES = Object.fromEntries(Object.entries(SIGNALS).map(([k, v]) => [v, k]));

let lib: ReturnType<DenoFfi["dlopen"]> | null = null;
function libc() {
  const D = (globalThis as unknown as { Deno: DenoFfi }).Deno;
  lib ??= D.dlopen("libc.so.6", {
    posix_openpt: { parameters: ["i32"], result: "i32" },
    grantpt: { parameters: ["i32"], result: "i32" },
    unlockpt: { parameters: ["i32"], result: "i32" },
    ptsname_r: { parameters: ["i32", "buffer", "usize"], result: "i32" },
    ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
    posix_spawnattr_init: { parameters: ["buffer"], result: "i32" },
    posix_spawnattr_setflags: { parameters: ["buffer", "i16"], result: "i32" },
    posix_spawnattr_setsigmask: { parameters: ["buffer", "buffer"], result: "i32" },
    posix_spawnattr_setsigdefault: { parameters: ["buffer", "buffer"], result: "i32" },
    posix_spawn_file_actions_init: { parameters: ["buffer"], result: "i32" },
    posix_spawn_file_actions_addopen: { parameters: ["buffer", "i32", "buffer", "i32", "u32"], result: "i32" },
    posix_spawn_file_actions_adddup2: { parameters: ["buffer", "i32", "i32"], result: "i32" },
    posix_spawnp: { parameters: ["buffer", "buffer", "buffer", "buffer", "buffer", "buffer"], result: "i32" },
    sigemptyset: { parameters: ["buffer"], result: "i32" },
    sigfillset: { parameters: ["buffer"], result: "i32" },
    read: { parameters: ["i32", "buffer", "usize"], result: "isize", nonblocking: true },
    write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
    close: { parameters: ["i32"], result: "i32" },
    waitpid: { parameters: ["i32", "buffer", "i32"], result: "i32", nonblocking: true },
    kill: { parameters: ["i32", "i32"], result: "i32" },
  });
  return lib.symbols;
}

const te = new TextEncoder();
const cstr = (s: string) => te.encode(s + "\0");

function pointerArray(D: DenoFfi, strings: Uint8Array[]): BigUint64Array {
  const arr = new BigUint64Array(strings.length + 1);
  strings.forEach((s, i) => (arr[i] = D.UnsafePointer.value(D.UnsafePointer.of(s))));
  return arr;
}

function winsize(cols: number, rows: number): Uint8Array {
  const ws = new Uint16Array([rows, cols, 0, 0]);
  return new Uint8Array(ws.buffer);
}

type Libc = ReturnType<typeof libc>;

/** A pseudo-terminal master at the given size, and its slave's path (NUL-terminated). */
function openPty(c: Libc, cols: number, rows: number): { master: number; slavePath: Uint8Array } {
  const master = c.posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC) as number;
  if (master < 0 || c.grantpt(master) !== 0 || c.unlockpt(master) !== 0) {
    throw new SpawnError("cannot allocate a pseudo-terminal");
  }
  const nameBuf = new Uint8Array(128);
  if (c.ptsname_r(master, nameBuf, BigInt(nameBuf.length)) !== 0) throw new SpawnError("ptsname_r failed");
  c.ioctl(master, BigInt(TIOCSWINSZ), winsize(cols, rows));
  return { master, slavePath: nameBuf.subarray(0, nameBuf.indexOf(0) + 1) };
}

/** posix_spawnp in a new session with the slave as its controlling terminal on fds 0–2, signals reset. */
function spawnOnSlave(c: Libc, opts: PtySpawnOptions, master: number, slavePath: Uint8Array): number {
  const D = (globalThis as unknown as { Deno: DenoFfi & { cwd(): string; chdir(p: string): void } }).Deno;
  const attr = new Uint8Array(1024), fa = new Uint8Array(1024), sigs = new Uint8Array(128), none = new Uint8Array(128);
  c.posix_spawnattr_init(attr);
  c.sigfillset(sigs);
  c.sigemptyset(none);
  c.posix_spawnattr_setsigdefault(attr, sigs);
  c.posix_spawnattr_setsigmask(attr, none);
  c.posix_spawnattr_setflags(attr, SETSID | SETSIGDEF | SETSIGMASK);
  c.posix_spawn_file_actions_init(fa);
  c.posix_spawn_file_actions_addopen(fa, 0, slavePath, O_RDWR, 0);
  c.posix_spawn_file_actions_adddup2(fa, 0, 1);
  c.posix_spawn_file_actions_adddup2(fa, 0, 2);
  const argv = opts.argv.map(cstr);
  const env = Object.entries(opts.env).map(([k, v]) => cstr(`${k}=${v}`));
  const pidBuf = new Int32Array(1);
  const prevCwd = opts.cwd ? D.cwd() : null;
  if (opts.cwd) D.chdir(opts.cwd);
  const rc = c.posix_spawnp(
    new Uint8Array(pidBuf.buffer),
    argv[0],
    fa,
    attr,
    pointerArray(D, argv),
    pointerArray(D, env),
  ) as number;
  if (prevCwd) D.chdir(prevCwd);
  if (rc !== 0) {
    c.close(master);
    throw new SpawnError(
      rc === 2 ? `command not found: ${opts.argv[0]}` : `cannot start ${opts.argv[0]} (posix_spawnp error ${rc})`,
    );
  }
  return pidBuf[0];
}

/** How the child ended, normalised like Bun's: a signal name, never `signal: 0`. */
async function waitExit(c: Libc, pid: number): Promise<PtyExit> {
  const status = new Int32Array(1);
  const r = await c.waitpid(pid, new Uint8Array(status.buffer), 0);
  if (r < 0) return { code: null, signal: null };
  const s = status[0];
  const sig = s & 0x7f;
  return sig === 0 ? { code: (s >> 8) & 0xff, signal: null } : { code: null, signal: SIGNAMES[sig] ?? `SIG${sig}` };
}

export function spawnDeno(opts: PtySpawnOptions): Pty {
  const c = libc();
  const { master, slavePath } = openPty(c, opts.cols, opts.rows);
  const pid = spawnOnSlave(c, opts, master, slavePath);
  let closed = false;
  let resolveDrained!: () => void;
  const drained = new Promise<void>((r) => (resolveDrained = r));
  (async () => {
    while (!closed) {
      const buf = new Uint8Array(65536);
      const n = Number(await c.read(master, buf, BigInt(buf.length)));
      if (n <= 0) break; // EIO: every slave fd is closed
      opts.onData(buf.slice(0, n));
    }
    resolveDrained();
  })();
  const exited = waitExit(c, pid);

  return {
    pid,
    write(d) {
      if (closed) return;
      let b = typeof d === "string" ? te.encode(d) : d;
      while (b.length > 0) {
        const n = Number(c.write(master, b, BigInt(b.length)));
        if (n <= 0) break;
        b = b.subarray(n);
      }
    },
    resize(cols, rows) {
      if (!closed) c.ioctl(master, BigInt(TIOCSWINSZ), winsize(cols, rows));
    },
    kill(sig = "SIGTERM") {
      if (!signalGroup(pid, sig)) c.kill(pid, SIGNALS[sig]);
    },
    exited,
    drained,
    close() {
      if (closed) return;
      closed = true;
      c.close(master);
      resolveDrained();
    },
  };
}
