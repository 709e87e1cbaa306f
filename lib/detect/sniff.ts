// `--manifest auto` when the recording names no program (raw streams, snapshots, other
// recorders' files): the screen says which one it is. The first 256 KB of output are
// replayed into a screen and its text searched for the programs' own markers.

import * as fs from "node:fs";
import { type OpenOptions, openRecording } from "../recording/open.ts";
import { Screen } from "../screen/screen.ts";

const SNIFF_BYTES = 256 * 1024;

function regularFile(path: string): boolean {
  try {
    return fs.statSync(path).isFile();
  } catch {
    return false; // the reader says why
  }
}

/**
 * Screen rows after the first SNIFF_BYTES of output; null for anything but a regular file
 * (stdin, a FIFO, a process substitution): it cannot be read twice, and opening a FIFO
 * whose writer is gone waits for ever (report on a FIFO hung here, unkillable).
 */
export async function sniffScreen(path: string, open: OpenOptions): Promise<string[] | null> {
  if (path === "-" || !regularFile(path)) return null;
  const rec = await openRecording(path, open);
  const screen = new Screen(rec.header.cols, rec.header.rows, { convertEol: rec.format === "snapshot" });
  let seen = 0, rows: string[] = [];
  try {
    for await (const e of rec.events) {
      if (e.kind === "resize") screen.resize(e.cols, e.rows);
      if (e.kind !== "output") continue;
      screen.write(e.bytes, e.t);
      seen += e.bytes.length;
      if (seen >= SNIFF_BYTES) break;
    }
    rows = screen.rows();
  } finally {
    screen.dispose();
  }
  return rows;
}
