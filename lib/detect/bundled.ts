// The manifests bundled with pstlab (fixtures/manifests/), embedded in the binary by
// text imports (Bun and Deno both support `with { type: "text" }`). A NAME resolves to
// a bundled manifest; anything with a slash or a .toml suffix is a path.

import * as path from "node:path";
import claude from "../../fixtures/manifests/claude.toml" with { type: "text" };
import codex from "../../fixtures/manifests/codex.toml" with { type: "text" };
import generic from "../../fixtures/manifests/generic.toml" with { type: "text" };
import gemini from "../../fixtures/manifests/gemini.toml" with { type: "text" };
import opencode from "../../fixtures/manifests/opencode.toml" with { type: "text" };
import copilot from "../../fixtures/manifests/copilot.toml" with { type: "text" };
import cursor from "../../fixtures/manifests/cursor.toml" with { type: "text" };
import amp from "../../fixtures/manifests/amp.toml" with { type: "text" };
import aider from "../../fixtures/manifests/aider.toml" with { type: "text" };
import amazonq from "../../fixtures/manifests/amazonq.toml" with { type: "text" };
import auggie from "../../fixtures/manifests/auggie.toml" with { type: "text" };
import pi from "../../fixtures/manifests/pi.toml" with { type: "text" };
import qwen from "../../fixtures/manifests/qwen.toml" with { type: "text" };
import cline from "../../fixtures/manifests/cline.toml" with { type: "text" };
import droid from "../../fixtures/manifests/droid.toml" with { type: "text" };
import goose from "../../fixtures/manifests/goose.toml" with { type: "text" };
import kimi from "../../fixtures/manifests/kimi.toml" with { type: "text" };
import kiro from "../../fixtures/manifests/kiro.toml" with { type: "text" };
import agy from "../../fixtures/manifests/agy.toml" with { type: "text" };
import grok from "../../fixtures/manifests/grok.toml" with { type: "text" };
import crush from "../../fixtures/manifests/crush.toml" with { type: "text" };
import osfoundry from "../../fixtures/manifests/osfoundry.toml" with { type: "text" };
import { loadManifest, type Manifest } from "./manifest.ts";
import { readTextFile } from "../recording/source.ts";
import { ManifestError } from "../errors.ts";

export const BUNDLED: Record<string, string> = {
  claude,
  codex,
  gemini,
  opencode,
  copilot,
  cursor,
  amp,
  aider,
  amazonq,
  auggie,
  pi,
  qwen,
  cline,
  droid,
  goose,
  kimi,
  kiro,
  agy,
  grok,
  crush,
  generic,
  osfoundry,
};

const cache = new Map<string, Manifest>();

/** `claude` → bundled; `path/to/x.toml` → that file, named `x` (or `path/to/x.toml` when `x` is bundled, e.g. herdr's claude.toml). */
export function resolveManifest(spec: string): Manifest {
  const hit = cache.get(spec);
  if (hit) return hit;
  let m: Manifest;
  if (!spec.includes("/") && !spec.endsWith(".toml")) {
    const text = BUNDLED[spec];
    if (text === undefined) {
      throw new ManifestError(
        spec,
        `no bundled manifest "${spec}" (bundled: ${Object.keys(BUNDLED).join(", ")}; or give a path to a .toml file)`,
      );
    }
    m = loadManifest(text, spec, `bundled:${spec}`);
  } else {
    const text = readTextFile(spec);
    // Named by its file (`my-rules` for ./my-rules.toml), not by the folder it sits in;
    // a name a bundled manifest has is shown as the path, so the two never read alike.
    const base = path.basename(spec, ".toml");
    m = loadManifest(text, Object.hasOwn(BUNDLED, base) ? spec : base, spec);
  }
  cache.set(spec, m);
  return m;
}
