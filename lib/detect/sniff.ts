// `--manifest auto` when the recording names no program (raw streams, snapshots, other
// recorders' files): the screen says which one it is. The first 256 KB of output are
// replayed into a screen and its text searched for the programs' own markers.

import { type OpenOptions, openRecording } from "../recording/open.ts";
import { Screen } from "../screen/screen.ts";

const SNIFF_BYTES = 256 * 1024;

/** Screen rows after the first SNIFF_BYTES of output (null for stdin, which cannot be read twice). */
export async function sniffScreen(path: string, open: OpenOptions): Promise<string[] | null> {
  if (path === "-") return null;
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
