// `pstlab emit`: one well-formed sequence for shell scripts.

import { type CommandSpec, out, parseFlags, UsageError } from "./common.ts";
import { encodeQuery, encodeReport, wrapTmux } from "../osc7501/encode.ts";
import { osc94Mirror } from "../osc7501/osc94.ts";

export const spec: CommandSpec = {
  name: "emit",
  summary: "print one OSC 7501 sequence (or the query) for shell scripts",
  usage: "pstlab emit STATE [MESSAGE] [--id ID] [--app APP] [--kind KIND] [--progress N] [--title TEXT] [--bel] [--tmux]",
  options: [
    "  STATE               idle, working, done, blocked, error, clear — or `query`",
    "  MESSAGE             one line of text (sent base64-encoded as msg)",
    "  --id ID             record id, e.g. deploy/eu-west (default: the root record)",
    "  --app APP           machine-matchable program name, e.g. cargo",
    "  --kind KIND         blocked only: permission, question, auth",
    "  --progress N        working/blocked only: 0–100",
    "  --title TEXT        short label for the record",
    "  --bel               terminate with BEL instead of ESC \\",
    "  --tmux              wrap in tmux DCS passthrough (needs allow-passthrough on)",
    "  --osc94             also print the OSC 9;4 progress mirror for legacy terminals",
  ],
  notes: [
    "Refuses (exit 2, with the reason) anything a strict terminal would reject or",
    "silently drop, so a script learns at once that its report would not arrive.",
  ],
  examples: [
    "pstlab emit working \"Syncing photos\" --app rsync --progress 40",
    "pstlab emit blocked \"Apply these changes?\" --kind permission --app terraform",
    "rsync -a src dst && pstlab emit done \"Synced\" || pstlab emit error \"rsync failed\"",
    "pstlab emit query --bel",
  ],
};

export function run(argv: string[]): Promise<number> {
  return Promise.resolve(runSync(argv));
}

function runSync(argv: string[]): number {
  const p = parseFlags(argv, spec, {
    id: { type: "string" }, app: { type: "string" }, kind: { type: "string" }, progress: { type: "string" },
    title: { type: "string" }, bel: { type: "boolean" }, tmux: { type: "boolean" }, osc94: { type: "boolean" },
  }, { maxPositionals: 2, minPositionals: 1 });
  if (!p) return 0;
  const [state, message] = p.positionals;
  const v = p.values;
  const terminator = v.bel ? "bel" : "st";
  if (state === "query") {
    if (message !== undefined || v.id || v.app || v.kind || v.progress || v.title) throw new UsageError("emit query takes no message or fields");
    const q = encodeQuery(terminator);
    out(new TextDecoder().decode(v.tmux ? wrapTmux(q) : q));
    return 0;
  }
  let progress: number | null = null;
  if (v.progress !== undefined) {
    if (!/^[0-9]+$/.test(v.progress) || Number(v.progress) > 100) throw new UsageError(`emit: progress must be an integer 0–100, got "${v.progress}"`);
    progress = Number(v.progress);
  }
  const r = encodeReport(
    { state, id: v.id ?? null, kind: v.kind ?? null, progress, app: v.app ?? null, title: v.title ?? null, msg: message ?? null },
    { terminator, tmux: v.tmux ? 1 : 0 },
  );
  if (!r.ok) throw new UsageError(`emit: refused: ${r.detail} (${r.reason})`);
  let s = new TextDecoder().decode(r.bytes);
  if (v.osc94) {
    if (v.id) throw new UsageError("emit: --osc94 mirrors the root record only (no --id)");
    const mirror = new TextEncoder().encode(`\x1b]9;${osc94Mirror(state, progress)}${terminator === "st" ? "\x1b\\" : "\x07"}`);
    s += new TextDecoder().decode(v.tmux ? wrapTmux(mirror) : mirror);
  }
  out(s);
  return 0;
}
