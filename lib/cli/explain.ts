// `pstlab explain`: every rule of a manifest, matched or not, with the text it saw
// (like `herdr agent explain`).

import { colorEnabled, defineCommand, out } from "./common.ts";
import { AT, flag, INPUT_OPTIONS, MANIFEST, ONE_FILE } from "./options.ts";
import { openInput, openOptions, printWarnings } from "./input.ts";
import { observeAt, pickManifest } from "./detect_common.ts";
import { evaluate, FALLBACK_RULE } from "../detect/manifest.ts";
import { disarm, paint, round6 } from "../text.ts";
import { summaryOf } from "./commands.ts";
import { warnPastEnd } from "./times.ts";

export const spec = {
  name: "explain",
  summary: summaryOf("explain"),
  synopsis: "FILE",
  options: {
    manifest: MANIFEST,
    at: AT,
    full: flag("print each rule's whole region text"),
    json: flag("machine-readable output"),
    ...INPUT_OPTIONS,
  },
  positionals: ONE_FILE,
  examples: [
    "pstlab explain session.cast --at 61.2",
    "pstlab explain screen.ansi.txt --manifest my-rules.toml",
  ],
};

export const command = defineCommand(spec, async (p) => {
  const rec = await openInput(p.positionals[0], p.values);
  const chosen = await pickManifest(rec, p.values.manifest, openOptions(p.values));
  const m = chosen.manifest;
  const at = p.values.at ?? Infinity;
  const { observer, t, pastEnd } = await observeAt(rec, at);
  if (pastEnd !== null) warnPastEnd("--at", at, rec.path, pastEnd, "the rules on the screen at the end");
  const e = evaluate(m, observer.observe(t), { explain: true });
  if (p.values.json) {
    out(
      JSON.stringify({
        t: round6(t),
        manifest: m.name,
        manifest_why: chosen.why,
        style: m.style,
        state: e.state,
        rule: e.rule?.id ?? null,
        visible: e.visible,
        skip: e.skip,
        rules: e.results!.map((r) => ({
          id: r.rule.id,
          state: r.rule.state,
          priority: r.rule.priority,
          region: r.rule.region.key,
          matched: r.matched,
          matchers: r.matchers,
          regionText: r.regionText,
        })),
      }) + "\n",
    );
    printWarnings(rec);
    return 0;
  }
  const color = colorEnabled(1);
  const lines: string[] = [];
  lines.push(
    `${m.name} (${m.style}${m.version ? `, version ${m.version}` : ""}) at ${t.toFixed(3)} s → ${e.state}` +
      ` by ${e.rule ? e.rule.id : m.style === "herdr" ? FALLBACK_RULE : "no match (idle)"}${
        e.visible ? " (visible)" : ""
      }${e.skip ? " (skip state update)" : ""}`,
  );
  lines.push(`manifest chosen by ${disarm(chosen.why)}`, "");
  for (const r of e.results!) {
    const mark = r.matched ? paint(color, "32", "✓") : "·";
    const win = r.rule === e.rule ? paint(color, "1", "  ← wins") : "";
    lines.push(
      `${mark} ${r.rule.id}  ${r.rule.state}${
        m.style === "herdr" ? ` prio ${r.rule.priority}` : ""
      }  region ${r.rule.region.key}${win}`,
    );
    for (const x of r.matchers) {
      lines.push(
        `    ${x.matched ? "+" : "-"} ${x.kind} ${JSON.stringify(x.pattern)}${
          x.evidence ? `  → "${disarm(x.evidence)}"` : ""
        }`,
      );
    }
    const text = r.regionText;
    const shown = p.values.full ? text.split("\n") : text.split("\n").filter((l) => l.trim()).slice(-3);
    if (text.length === 0) lines.push("    (region is empty)");
    else for (const l of shown) lines.push(`    │ ${disarm(l)}`);
  }
  out(lines.join("\n") + "\n");
  printWarnings(rec);
  return 0;
});
