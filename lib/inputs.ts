// The inputs of the running command, by identity (device + inode): what the output gate
// (lib/recording/sink.ts OutputFile) refuses to write over. A registry rather than a list
// each command passes, so an input read anywhere (a capture, a manifest, labels, rules, a
// baseline, a shard) is guarded without the command having to remember it.

import * as fs from "node:fs";
import * as path from "node:path";
import { InputError } from "./errors.ts";

/** dev:ino of every input named or opened by this command → the name it was given by. */
const inputs = new Map<string, string>();

function identity(st: fs.Stats): string | null {
  // Devices are excepted: `-o /dev/null` or a tty read as input and written as output is no loss.
  if (st.isCharacterDevice() || st.isBlockDevice()) return null;
  return `${st.dev}:${st.ino}`;
}

/** Marks `p` as an input of this command: no output may be written over it (stdin and missing files are no-ops). */
export function noteInput(p: string): void {
  if (p === "-" || p === "") return;
  try {
    const id = identity(fs.statSync(p));
    if (id && !inputs.has(id)) inputs.set(id, p);
  } catch { /* missing: the reader says so */ }
}

/** The same for an input already open (its identity cannot change under us). */
export function noteInputFd(fd: number, p: string): void {
  try {
    const id = identity(fs.fstatSync(fd));
    if (id && !inputs.has(id)) inputs.set(id, p);
  } catch { /* a closed fd: nothing to guard */ }
}

/** For tests that run several commands in one process. */
export function forgetInputs(): void {
  inputs.clear();
}

export function refuseInput(p: string, st: fs.Stats): void {
  const id = identity(st);
  const input = id ? inputs.get(id) : undefined;
  if (input !== undefined) {
    throw new InputError(
      `${p}: is ${
        input === p ? "" : `the same file as ${input}, `
      }an input of this command; write the output elsewhere`,
    );
  }
}

/**
 * Where a write to `p` lands: a symlink (a chain of them, dangling or not) is followed to
 * its target, so the target is written and its identity checked, and the link stays a link.
 */
export function writeTarget(p: string): string {
  for (let hops = 0; hops < 40; hops++) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return p; // missing: created where named (a dangling link's target included)
    }
    if (!st.isSymbolicLink()) return p;
    // What stands for an open pipe or socket (/proc/self/fd/1 → "pipe:[5808816]", when
    // stdout is a pipe) is no path: the link itself is opened, and reaches the pipe.
    // (Followed as a path, it named a folder that does not exist.)
    const to = fs.readlinkSync(p);
    if (/^[a-z_]+:\[\d+\]$/.test(to) || /^anon_inode:/.test(to)) return p;
    p = path.resolve(path.dirname(p), to);
  }
  throw new InputError(`${p}: too many levels of symbolic links`);
}

/**
 * The captures one command scores are distinct files (by identity): `report a.cast
 * ./a.cast` counted its episodes twice and weighed its rows double. Pipes and devices are
 * read once each, whatever their names.
 */
export function refuseSameInputs(inputs: string[]): void {
  const seen = new Map<string, string>();
  for (const p of inputs) {
    if (p === "-") continue;
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      continue; // missing: its reader says so
    }
    if (!st.isFile()) continue;
    const k = `${st.dev}:${st.ino}`;
    const other = seen.get(k);
    if (other !== undefined) {
      throw new InputError(
        `${p}: ${other === p ? "is given twice" : `is the same file as ${other}`}; give each capture once`,
      );
    }
    seen.set(k, p);
  }
}

/** The outputs of one command line are distinct files (by resolved path and by identity): `-o a --export-csv a` would write one over the other. */
export function refuseSameOutputs(outputs: string[]): void {
  const seen = new Map<string, string>();
  for (const o of outputs) {
    if (o === "-" || o === "") continue;
    const target = writeTarget(o);
    let keys: string[];
    try {
      const st = fs.statSync(target);
      if (st.isCharacterDevice() || st.isBlockDevice() || st.isFIFO()) continue; // /dev/null twice is no loss
      keys = [`id:${st.dev}:${st.ino}`];
    } catch {
      let dir = path.dirname(path.resolve(target));
      try {
        dir = fs.realpathSync(dir);
      } catch { /* a missing folder: the gate says so when it opens */ }
      keys = [`path:${path.join(dir, path.basename(target))}`];
    }
    for (const k of keys) {
      const other = seen.get(k);
      if (other !== undefined) {
        throw new InputError(
          `${o}: is ${
            other === o ? "given twice as an output" : `the same file as the output ${other}`
          }; give each output its own file`,
        );
      }
      seen.set(k, o);
    }
  }
}

/**
 * Every byte of an open file, up to `max`: `tooBig()` is thrown once more than that has
 * been read. Counted while reading, because a device or a FIFO (`/dev/zero`, a process
 * substitution) has no size to check first. The one bounded whole-file read: foreign
 * JSON (lib/foreign_json.ts) and small text inputs (lib/recording/source.ts) use it.
 */
export function readAllBounded(fd: number, max: number, tooBig: () => Error): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  const buf = new Uint8Array(1 << 20);
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) {
    if ((size += n) > max) throw tooBig();
    parts.push(buf.slice(0, n));
  }
  const all = new Uint8Array(size);
  let o = 0;
  for (const p of parts) all.set(p, o), o += p.length;
  return all;
}
