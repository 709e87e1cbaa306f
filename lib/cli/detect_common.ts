// Shared by detect / explain / screen / play: the manifest a command uses and feeding a
// recording into an observer up to a time.

import type { Recording } from "../recording/model.ts";
import { Observer } from "../detect/observer.ts";
import { resolveManifest } from "../detect/bundled.ts";
import type { Manifest } from "../detect/manifest.ts";
import { type ManifestChoice, manifestFor } from "../detect/choose.ts";
import type { OpenOptions } from "../recording/open.ts";

/** --manifest: a name or path as given, or `auto` (the default) chosen from the recording; loaded. */
export async function pickManifest(
  rec: Recording,
  flag: string | undefined,
  open: OpenOptions = {},
): Promise<ManifestChoice & { manifest: Manifest }> {
  const choice = await manifestFor(rec.path, rec.header, flag, open);
  return { ...choice, manifest: resolveManifest(choice.name) };
}

/** Feeds events with t ≤ at into a fresh observer; returns it and the time reached. */
export async function observeAt(
  rec: Recording,
  at = Infinity,
): Promise<{ observer: Observer; t: number; pastEnd: number | null }> {
  const observer = new Observer(rec.header);
  let t = 0, more = false;
  for await (const e of rec.events) {
    if (e.t > at) {
      more = true;
      break;
    }
    observer.apply(e);
    t = e.t;
  }
  // `pastEnd`: the capture's end when `at` is after it (the screen shown is the last one).
  return { observer, t: at === Infinity ? t : at, pastEnd: at !== Infinity && !more && at > t ? t : null };
}
