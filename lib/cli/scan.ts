// `pstlab scan`: every protocol event of a capture, in order.

import { colorEnabled, defineCommand, out } from "./common.ts";
import { flag, INPUT_OPTIONS, OPTIONAL_FILE } from "./options.ts";
import { openInput, printWarnings, trackRecording } from "./input.ts";
import type { ProtocolEvent } from "../osc7501/tracker.ts";
import { OutputFile } from "../recording/sink.ts";
import { alignRows, disarm, paint, round6, visible } from "../text.ts";
import { summaryOf } from "./commands.ts";
import { type Provenance, QUERY_ANSWERED_MARKER } from "../recording/model.ts";

/**
 * What the recorder did with the program's queries, from the header: answered at once (the reply
 * is shown at the query), never (--no-answer), late (--answer-delay: the answers sent are `answer`
 * rows at the time sent, from the recorder's markers), or unknown (an import, tmux).
 */
type Answering = "at-once" | "never" | "late" | "unknown";
function answering(pv: Provenance | undefined): Answering {
  if (typeof pv?.query_answer_delay_s === "number" && pv.query_answer_delay_s > 0) return "late";
  return pv?.query_answered === true ? "at-once" : pv?.query_answered === false ? "never" : "unknown";
}

export const spec = {
  name: "scan",
  summary: summaryOf("scan"),
  synopsis: "[FILE|-]",
  options: { json: flag("one JSON object per line (t, type, …)"), ...INPUT_OPTIONS },
  positionals: OPTIONAL_FILE,
  notes: [
    "FILE is an asciicast v2/v3 recording (its exit event is a process-exit lifetime",
    "event), a ttyrec or script capture, or raw bytes; `-` or no FILE reads stdin.",
    "Rejected reports carry a reason code (bad-base64, key-too-long, bad-id, …).",
  ],
  examples: [
    "pstlab scan fixtures/captures/fake-claude.cast",
    "pstlab scan --json session.cast | jq 'select(.type==\"discarded\")'",
    "printf '\\e]7501;state=working:progress=40\\e\\\\' | pstlab scan -",
  ],
};

const ids = (xs: (string | null)[]) => xs.map((x) => x ?? "(root)").join(", ");

export function toJson(e: ProtocolEvent, how: Answering = "unknown"): Record<string, unknown> {
  const t = round6(e.t);
  switch (e.type) {
    case "report":
      return {
        t,
        type: e.type,
        id: e.id,
        state: e.state,
        kind: e.kind,
        progress: e.progress,
        app: e.app,
        title: e.title,
        msg: e.msg,
        source: e.source,
        removed: e.removed,
        evicted: e.evicted,
        notes: e.notes.map((n) => n.code),
        depth: e.depth,
      };
    case "discarded":
    case "ignored":
      return { t, type: e.type, reason: e.reason, detail: e.detail, raw: e.raw, depth: e.depth };
    case "query":
      // `reply` is the answer pstlab gives; `answered` says whether it was sent then.
      return {
        t,
        type: e.type,
        reply: e.reply,
        ...(how === "never" || how === "late" ? { answered: how } : {}),
        depth: e.depth,
      };
    case "lifecycle":
      return { t, type: e.type, event: e.event, removed: e.removed };
  }
}

function textRow(e: ProtocolEvent, color: boolean, how: Answering = "unknown"): string[] {
  const t = e.t.toFixed(3);
  switch (e.type) {
    case "report": {
      const fields = [
        e.kind && `kind=${e.kind}`,
        e.progress !== null && `progress=${e.progress}`,
        e.app && `app=${e.app}`,
        e.title !== null && `title="${disarm(e.title)}"`,
        e.msg !== null && `msg="${disarm(e.msg)}"`,
        e.source !== "osc7501" && `source=${e.source}`,
        e.removed.length > 0 && `removed: ${ids(e.removed)}`,
        e.evicted.length > 0 && `evicted: ${ids(e.evicted)}`,
        // The dropped key too: "malformed-pair" alone does not say which pair to fix.
        e.notes.length > 0 &&
        `notes: ${e.notes.map((n) => n.key ? `${n.code}(${visible(n.key.slice(0, 24))})` : n.code).join(",")}`,
        e.depth > 0 && `tmux×${e.depth}`,
      ].filter(Boolean).join(" ");
      const st = e.state === "blocked"
        ? paint(color, "1;31", e.state)
        : e.state === "error"
        ? paint(color, "31", e.state)
        : e.state;
      return [t, "report", e.id ?? "(root)", st, fields];
    }
    case "discarded":
    case "ignored":
      return [t, paint(color, "33", e.type), e.reason, "", `${visible(e.raw)}  (${visible(e.detail)})`];
    case "query":
      return [
        t,
        "query",
        "",
        "",
        how === "never"
          ? "not answered (recorded with --no-answer)"
          : how === "late"
          ? `answer ${visible(e.reply)} due late (--answer-delay): sent only where an answer row follows`
          : `reply ${visible(e.reply)}`,
      ];
    case "lifecycle":
      return [t, "lifecycle", e.event, "", e.removed.length ? `removed: ${ids(e.removed)}` : "nothing removed"];
  }
}

/** Rows are aligned per block, so memory stays flat however many events a capture holds. */
const BLOCK = 1000;

export const command = defineCommand(spec, async (p) => {
  const rec = await openInput(p.positionals[0], p.values);
  const json = !!p.values.json;
  const color = colorEnabled(1);
  let rows: string[][] = [["TIME", "TYPE", "ID/REASON", "STATE", "DETAILS"]];
  let any = false;
  const stdout = OutputFile.open("-"); // buffered: one write per MiB, not per event
  const flush = () => {
    if (rows.length) stdout.write(alignRows(rows, new Set([0])).join("\n") + "\n");
    rows = [];
  };
  try {
    const how = answering(rec.header.provenance);
    await trackRecording(
      rec,
      (e) => {
        any = true;
        if (json) return stdout.write(JSON.stringify(toJson(e, how)) + "\n");
        rows.push(textRow(e, color, how));
        if (rows.length >= BLOCK) flush();
      },
      Infinity,
      (t, label) => {
        // A late answer the recorder sent, at the time it sent it.
        if (label !== QUERY_ANSWERED_MARKER || how !== "late") return;
        any = true;
        if (json) return stdout.write(JSON.stringify({ t: round6(t), type: "answer" }) + "\n");
        rows.push([t.toFixed(3), "answer", "", "", "the late answer to the query, sent by the recorder"]);
      },
    );
    if (!json && any) flush();
  } finally {
    stdout.close();
  }
  if (!json && !any) out("no OSC 7501 events\n");
  printWarnings(rec);
  return 0;
});
