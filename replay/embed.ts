// The recording the HTML report embeds for its player: re-read with the same input
// options the analysis used (so `--size 80x24` on a raw stream embeds 80x24), as
// asciicast v3 without pstlab's provenance. Over MAX_EMBED_BYTES it is not embedded.

import { type OpenOptions, openRecording } from "../lib/recording/open.ts";
import { AsciicastWriter } from "../lib/recording/asciicast.ts";
import * as fs from "node:fs";

function fileSize(path: string): number {
  try {
    return fs.statSync(path).size;
  } catch {
    return 0; // openRecording reports it
  }
}

export const MAX_EMBED_BYTES = 64 << 20;
/**
 * What one HTML page embeds in all: past it the remaining captures get no player (60
 * captures once made an 89 MB page that a browser opens slowly, if at all).
 */
export const TOTAL_EMBED_BYTES = 48 << 20;

export async function castText(path: string, open: OpenOptions, max = MAX_EMBED_BYTES): Promise<string | null> {
  if (path === "-") return null;
  // A recording's v3 text is about its file's size (JSON never shrinks the bytes; only
  // comments and padding, which a file this big is not made of, would be dropped): a
  // file over twice the limit is refused before building 64 MB of text to throw away
  // (a 200 MB capture's HTML report peaked at 452 MB doing that).
  if (fileSize(path) > 2 * max) return null;
  const rec = await openRecording(path, open);
  const parts: string[] = [];
  let size = 0;
  const w = new AsciicastWriter({
    write: (s) => {
      parts.push(s);
      size += s.length;
    },
  }, 3);
  w.header({ ...rec.header, provenance: undefined, extra: undefined });
  let last = 0;
  for await (const e of rec.events) {
    w.event(e);
    last = e.t;
    if (size > max) return null;
  }
  w.end(last);
  return parts.join("");
}
