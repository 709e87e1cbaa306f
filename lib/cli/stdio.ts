// stdout and stderr for the CLI, in a module of their own: main.ts prints its usage and
// version with them before any command module is loaded (commands.ts).

import { writeAllSync } from "../recording/sink.ts";

const te = new TextEncoder();

export function out(s: string): void {
  writeAllSync(1, te.encode(s));
}

export function err(s: string): void {
  try {
    writeAllSync(2, te.encode(s));
  } catch { /* stderr gone: nothing left to tell */ }
}
