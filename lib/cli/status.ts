// `pstlab status`: the record table at a time.

import { defineCommand, out } from "./common.ts";
import { AT, flag, INPUT_OPTIONS, OPTIONAL_FILE } from "./options.ts";
import { openInput, printWarnings, trackRecording } from "./input.ts";
import type { Store } from "../osc7501/store.ts";
import { alignRows, disarm, round6 } from "../text.ts";
import { summaryOf } from "./commands.ts";
import { warnPastEnd } from "./times.ts";

export const spec = {
  name: "status",
  summary: summaryOf("status"),
  synopsis: "[FILE|-]",
  options: { at: AT, json: flag('{"records":[…]}: root first, then ids in lexicographic order'), ...INPUT_OPTIONS },
  positionals: OPTIONAL_FILE,
  examples: [
    "pstlab status fixtures/captures/deploy.cast --at 1.0",
    "pstlab status --json session.cast",
  ],
};

export function recordsJson(store: Store): Record<string, unknown>[] {
  return store.list().map((r) => ({
    id: r.id,
    state: r.state,
    kind: r.kind,
    progress: r.progress,
    app: r.app,
    effectiveApp: store.effectiveApp(r.id),
    title: r.title,
    msg: r.msg,
  }));
}

export const command = defineCommand(spec, async (p) => {
  const at = p.values.at ?? Infinity;
  const rec = await openInput(p.positionals[0], p.values);
  const { tracker, end, complete } = await trackRecording(rec, () => {}, at);
  if (complete) warnPastEnd("--at", at, rec.path, end, "the records at the end");
  const store = tracker.store;
  const t = at === Infinity ? end : at;
  if (p.values.json) {
    const att = store.attention();
    out(
      JSON.stringify({
        t: round6(t),
        records: recordsJson(store),
        attention: att ? { id: att.id, state: att.state } : null,
      }) + "\n",
    );
  } else if (store.size === 0) {
    out(`no records at ${t.toFixed(3)} s\n`);
  } else {
    const rows = store.list().map((r) => {
      const eff = store.effectiveApp(r.id);
      return [
        r.id ?? "(root)",
        r.state,
        r.kind ?? "-",
        r.progress !== null ? `${r.progress}%` : "-",
        r.app ?? (eff ? `(${eff})` : "-"),
        r.title !== null ? disarm(r.title) : "-",
        r.msg !== null ? disarm(r.msg) : "-",
      ];
    });
    out(`records at ${t.toFixed(3)} s:\n`);
    out(alignRows([["ID", "STATE", "KIND", "PROGRESS", "APP", "TITLE", "MSG"], ...rows]).join("\n") + "\n");
    const att = store.attention();
    if (att) out(`attention: ${att.id ?? "(root)"} ${att.state}\n`);
  }
  printWarnings(rec);
  return 0;
});
