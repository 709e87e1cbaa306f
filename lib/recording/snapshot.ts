// Screen snapshots: whole screens without timing (claudeless `.ansi.txt`, codex-rs
// insta `.snap`). They are written with bare LF line endings, so LF becomes CR LF;
// an insta header (`---` … `---`) is dropped and `terminal.backend()` rows, which insta
// prints as JSON strings, are unquoted.

import type { Event } from "./model.ts";

export function isSnapshotPath(p: string): boolean {
  const l = p.toLowerCase();
  return l.endsWith(".snap") || l.endsWith(".ansi.txt") || l.endsWith(".screen.txt");
}

export function snapshotBytes(raw: Uint8Array): Uint8Array {
  let text = new TextDecoder().decode(raw);
  const insta = /^---\n[\s\S]*?\n---\n/.exec(text);
  if (insta) {
    text = text.slice(insta[0].length);
    const lines = text.replace(/\n$/, "").split("\n");
    if (lines.length > 0 && lines.every((l) => /^".*"$/.test(l))) {
      try {
        text = lines.map((l) => JSON.parse(l) as string).join("\n");
      } catch { /* not JSON after all: keep the text */ }
    }
  }
  text = text.replace(/\r?\n$/, "").replace(/\r?\n/g, "\r\n");
  return new TextEncoder().encode(text);
}

export async function* readSnapshotEvents(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Event> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c.slice());
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  yield { t: 0, kind: "output", bytes: snapshotBytes(all) };
}
