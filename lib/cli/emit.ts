// `pstlab emit`: one well-formed sequence for shell scripts.

import { defineCommand } from "./common.ts";
import { raw } from "../stdio.ts";
import { flag, text } from "./options.ts";
import { encodeQuery, encodeReport, wrapTmux } from "../osc7501/encode.ts";
import { parseProgress } from "../osc7501/parse.ts";
import { osc94Mirror } from "../osc7501/osc94.ts";
import { UsageError } from "../errors.ts";
import { summaryOf } from "./commands.ts";

export const spec = {
  name: "emit",
  summary: summaryOf("emit"),
  synopsis: "STATE [MESSAGE]",
  args: [
    ["STATE", "idle, working, done, blocked, error, clear — or `query`"],
    ["MESSAGE", "one line of text (sent base64-encoded as msg)"],
  ],
  options: {
    id: text("ID", "record id, e.g. deploy/eu-west (default: the root record)"),
    app: text("APP", "machine-matchable program name, e.g. cargo"),
    kind: text("KIND", "blocked only: permission, question, auth"),
    progress: {
      arg: "N",
      help: "working/blocked only: 0–100",
      // The spec's own grammar (D8: decimal digits), so what emit takes a terminal takes:
      // Number() let "1e2", " 5" and "-0" through.
      parse: (s: string, f: string) => {
        const n = parseProgress(s);
        if (n === null) throw new UsageError(`bad ${f} "${s}" (expected an integer 0–100, digits only)`);
        return n;
      },
    },
    title: text("TEXT", "short label for the record"),
    bel: flag("terminate with BEL instead of ESC \\"),
    tmux: flag("wrap in tmux DCS passthrough (needs allow-passthrough on)"),
    osc94: {
      ...flag("also print the OSC 9;4 progress mirror for legacy terminals"),
      conflicts: ["id"],
      reason: "OSC 9;4 mirrors the root record only",
    },
  },
  positionals: { min: 1, max: 2 },
  notes: [
    "Refuses (exit 2, with the reason) anything a strict terminal would reject or",
    "silently drop, so a script learns at once that its report would not arrive.",
  ],
  examples: [
    'pstlab emit working "Syncing photos" --app rsync --progress 40',
    'pstlab emit blocked "Apply these changes?" --kind permission --app terraform',
    'rsync -a src dst && pstlab emit done "Synced" || pstlab emit error "rsync failed"',
    "pstlab emit query --bel",
  ],
};

export const command = defineCommand(spec, (p) => {
  const [state, message] = p.positionals;
  const v = p.values;
  const terminator = v.bel ? "bel" : "st";
  if (state === "query") {
    if (message !== undefined || v.id || v.app || v.kind || v.progress !== undefined || v.title) {
      throw new UsageError("emit query takes no message or fields");
    }
    const q = encodeQuery(terminator);
    raw("emit", v.tmux ? wrapTmux(q) : q);
    return 0;
  }
  // A clear carries only its id (docs/osc7501.md §2): anything else would be dropped.
  if (state === "clear") {
    const extra = [
      message !== undefined && "MESSAGE",
      v.kind && "--kind",
      v.progress !== undefined && "--progress",
      v.app && "--app",
      v.title && "--title",
    ].filter(Boolean);
    if (extra.length) {
      throw new UsageError(`emit clear carries only its id (--id): ${extra.join(", ")} would be dropped`);
    }
  }
  const progress = v.progress ?? null;
  const r = encodeReport(
    {
      state,
      id: v.id ?? null,
      kind: v.kind ?? null,
      progress,
      app: v.app ?? null,
      title: v.title ?? null,
      msg: message ?? null,
    },
    { terminator, tmux: v.tmux ? 1 : 0 },
  );
  if (!r.ok) throw new UsageError(`emit: refused: ${r.detail} (${r.reason})`);
  let s = new TextDecoder().decode(r.bytes);
  if (v.osc94) {
    const mirror = new TextEncoder().encode(
      `\x1b]9;${osc94Mirror(state, progress)}${terminator === "st" ? "\x1b\\" : "\x07"}`,
    );
    s += new TextDecoder().decode(v.tmux ? wrapTmux(mirror) : mirror);
  }
  raw("emit", s);
  return 0;
});
