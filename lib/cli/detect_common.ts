// Shared by detect / explain / screen / report: manifest choice and feeding a
// recording into an observer up to a time.

import type { Recording } from "../recording/model.ts";
import { Observer } from "../detect/observer.ts";
import { resolveManifest } from "../detect/bundled.ts";
import type { Manifest } from "../detect/manifest.ts";
import { ManifestError } from "../detect/manifest.ts";
import { UsageError } from "./common.ts";

export const MANIFEST_HELP = "  --manifest NAME|PATH  rules to use: claude, codex, generic, or a .toml file (Herdr's format\n                      or first-match); default from the recorded command (else claude)";

/** The manifest to use: --manifest, else guessed from the recorded command. */
export function pickManifestName(rec: Recording, flag: unknown): string {
  if (typeof flag === "string") return flag;
  const cmd = `${rec.header.command ?? ""} ${rec.header.provenance?.emitter ?? ""}`;
  if (/\bcodex\b/.test(cmd)) return "codex";
  if (/\bclaude\b/.test(cmd)) return "claude";
  if (rec.header.command) return "generic";
  return "claude";
}

export function loadManifestFlag(spec: string): Manifest {
  try {
    return resolveManifest(spec);
  } catch (e) {
    if (e instanceof ManifestError) throw new UsageError(`manifest ${e.toString()}`);
    throw e;
  }
}

/** Feeds events with t ≤ at into a fresh observer; returns it and the time reached. */
export async function observeAt(rec: Recording, at = Infinity): Promise<{ observer: Observer; t: number }> {
  const observer = new Observer(rec.header);
  let t = 0;
  for await (const e of rec.events) {
    if (e.t > at) break;
    observer.apply(e);
    t = e.t;
  }
  return { observer, t: at === Infinity ? t : at };
}
