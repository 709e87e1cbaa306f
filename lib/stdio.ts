// The one terminal writer: every byte pstlab sends to stdout or stderr goes through
// here (tools/stdio_lint.ts fails `npm run check` on a write anywhere else).
// - out()/err(): text. Whatever reaches them is made safe for a terminal: ESC and every
//   other C0 control but newline and tab (a CR only before a newline), DEL, the C1
//   controls (U+0080–U+009F: U+009B is CSI, U+009D is OSC to many terminals) and bidi
//   overrides and invisible formatting are shown as escapes, never sent. The only escape
//   sequences that pass are pstlab's own styling, written by paint()/OWN in lib/text.ts
//   with a per-process token a capture cannot know.
// - raw(): bytes sent unchanged, for the channels whose job is to write capture bytes or
//   protocol sequences, listed once in RAW_CHANNELS.

import * as fs from "node:fs";
import { InputError } from "./errors.ts";
import { OWN_SEQUENCE, uEscape, visible } from "./text.ts";

/** The commands and parts whose job is to send bytes as they are; nothing else may. */
export const RAW_CHANNELS = {
  play: "pstlab play: the capture's bytes to the terminal, and the side-by-side panel's drawing",
  emit: "pstlab emit: the OSC 7501 / OSC 9;4 sequences it exists to write",
  "recording to stdout": "convert/cat/trim/redact - : a recording written to stdout, byte for byte",
  "recorder passthrough":
    "pstlab record: the recorded program's output to the user's terminal, its title, and the live side-by-side panel",
  "sim agent": "pstlab sim: the simulated agent's own screen and OSC 7501 reports (a program being recorded)",
  "html page":
    "an HTML page to a stdout that is not a terminal (`report --format html > r.html`): its exact bytes, which its scripts' CSP hashes pin",
} as const;
export type RawChannel = keyof typeof RAW_CHANNELS;

/** Blocking write that survives a non-blocking stdout pipe (EAGAIN). */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let off = 0;
  let spins = 0;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
      spins = 0;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "EAGAIN" && spins++ < 100000) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      if (code === "EPIPE") throw new BrokenPipe();
      if (fd === 1 || fd === 2) {
        // A full (or closed) stdout is the user's setup, not a bug: one line and exit 2
        // (`pstlab info x > /dev/full` was an "internal error", exit 70).
        const name = fd === 1 ? "standard output" : "standard error";
        const why = code === "ENOSPC"
          ? "no space left on device"
          : code === "EBADF"
          ? "it is closed"
          : code === "EFBIG"
          ? "file too large"
          : code === "EIO"
          ? "input/output error"
          : (e as Error).message;
        throw new InputError(`${name}: cannot write: ${why}`);
      }
      throw e;
    }
  }
}

/** The reader went away (`pstlab scan x | head`): stop quietly. */
export class BrokenPipe extends Error {}

const te = new TextEncoder();

/** Text made safe for a terminal, pstlab's own styling (OWN_SEQUENCE) turned into escapes. */
export function forTerminal(s: string): string {
  // deno-lint-ignore no-control-regex
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ue000]/.test(s)) {
    return s;
  }
  return s.split(OWN_SEQUENCE.token).map((piece, i) => {
    let rest = piece;
    let own = "";
    if (i > 0) {
      const m = OWN_SEQUENCE.code.exec(piece);
      if (m) {
        own = m[1] === "r" ? "\r" : `\x1b[${m[1]}`;
        rest = piece.slice(m[0].length);
      }
    }
    return own + defuse(rest);
  }).join("");
}

function defuse(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, (c) => visible(c))
    .replace(/[\x80-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ue000]/g, uEscape);
}

/** Text to stdout, through the gate. */
export function out(s: string): void {
  writeAllSync(1, te.encode(forTerminal(s)));
}

/** Text to stderr, through the gate; a closed stderr is ignored (nothing left to tell). */
export function err(s: string): void {
  try {
    writeAllSync(2, te.encode(forTerminal(s)));
  } catch { /* stderr gone */ }
}

/** Bytes to stdout unchanged, for one of the RAW_CHANNELS only. */
export function raw(_channel: RawChannel, bytes: Uint8Array | string): void {
  writeAllSync(1, typeof bytes === "string" ? te.encode(bytes) : bytes);
}
