// The recording the HTML report embeds for its player: re-read with the same input
// options the analysis used (so `--size 80x24` on a raw stream embeds 80x24), as
// asciicast v3 without pstlab's provenance. Over MAX_EMBED_BYTES it is not embedded.

import { openRecording, type OpenOptions } from "../lib/recording/open.ts";
import { AsciicastWriter } from "../lib/recording/asciicast.ts";

export const MAX_EMBED_BYTES = 64 << 20;

export async function castText(path: string, open: OpenOptions): Promise<string | null> {
  if (path === "-") return null;
  const rec = await openRecording(path, open);
  const parts: string[] = [];
  let size = 0;
  const w = new AsciicastWriter({ write: (s) => { parts.push(s); size += s.length; } }, 3);
  w.header({ ...rec.header, provenance: undefined, extra: undefined });
  let last = 0;
  for await (const e of rec.events) {
    w.event(e);
    last = e.t;
    if (size > MAX_EMBED_BYTES) return null;
  }
  w.end(last);
  return parts.join("");
}
