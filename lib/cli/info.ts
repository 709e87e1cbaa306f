// `pstlab info`: what is in a capture.

import { defineCommand, out } from "./common.ts";
import { flag, INPUT_OPTIONS, ONE_FILE } from "./options.ts";
import { openInput, printWarnings } from "./input.ts";
import { type ProtocolEvent, Tracker } from "../osc7501/tracker.ts";
import type { Event, Recording } from "../recording/model.ts";
import { disarm, plural, round6 } from "../text.ts";
import { summaryOf } from "./commands.ts";

export const spec = {
  name: "info",
  summary: summaryOf("info"),
  synopsis: "FILE",
  options: { json: flag("machine-readable output"), ...INPUT_OPTIONS },
  positionals: ONE_FILE,
  examples: ["pstlab info fixtures/captures/fake-claude.cast", "pstlab info --json session.cast | jq .osc7501"],
};

const FFFD = [0xef, 0xbf, 0xbd];
function hasReplacementChar(b: Uint8Array): boolean {
  for (let i = b.indexOf(0xef); i >= 0 && i + 2 < b.length; i = b.indexOf(0xef, i + 1)) {
    if (b[i + 1] === FFFD[1] && b[i + 2] === FFFD[2]) return true;
  }
  return false;
}

type Proto = {
  reports: number;
  discarded: number;
  ignored: number;
  queries: number;
  lifecycle: number;
  reasons: Record<string, number>;
  apps: Set<string>;
};

function countProtocol(proto: Proto, e: ProtocolEvent): void {
  if (e.type === "report") {
    proto.reports++;
    if (e.app) proto.apps.add(e.app);
  } else if (e.type === "query") proto.queries++;
  else if (e.type === "lifecycle") proto.lifecycle++;
  else {
    proto[e.type]++;
    proto.reasons[e.reason] = (proto.reasons[e.reason] ?? 0) + 1;
  }
}

/** One pass over the capture: everything `info` prints, as data (the JSON is this object). */
async function gather(rec: Recording) {
  const counts: Record<Event["kind"], number> = { output: 0, input: 0, resize: 0, marker: 0, exit: 0, other: 0 };
  const bytes = { output: 0, input: 0 };
  const resizes: { t: number; cols: number; rows: number }[] = [];
  const markers: { t: number; label: string }[] = [];
  const labels: Record<string, number> = {};
  const proto: Proto = { reports: 0, discarded: 0, ignored: 0, queries: 0, lifecycle: 0, reasons: {}, apps: new Set() };
  const tracker = new Tracker((e) => countProtocol(proto, e));
  const text = rec.format === "v3" || rec.format === "v2";
  let exit: number | null = null, duration = 0, lossy = 0;
  for await (const e of rec.events) {
    counts[e.kind]++;
    duration = e.t;
    if (e.kind === "output") {
      bytes.output += e.bytes.length;
      tracker.feed(e.bytes, e.t);
      if (text && hasReplacementChar(e.bytes)) lossy++;
    } else if (e.kind === "input") bytes.input += e.bytes.length;
    else if (e.kind === "resize") resizes.push({ t: round6(e.t), cols: e.cols, rows: e.rows });
    else if (e.kind === "marker") {
      markers.push({ t: round6(e.t), label: e.label });
      if (e.label.startsWith("truth:")) labels[e.label] = (labels[e.label] ?? 0) + 1;
    } else if (e.kind === "exit") {
      exit = e.status;
      tracker.exit(e.t);
    }
  }
  tracker.end(duration);
  const h = rec.header;
  return {
    path: rec.path,
    format: rec.format,
    size: { cols: h.cols, rows: h.rows },
    term: h.termType ?? null,
    command: h.command ?? null,
    title: h.title ?? null,
    timestamp: h.timestamp ?? null,
    duration_s: round6(duration),
    events: counts,
    bytes,
    resizes,
    markers,
    labels,
    exit_status: exit,
    osc7501: {
      reports: proto.reports,
      discarded: proto.discarded,
      ignored: proto.ignored,
      queries: proto.queries,
      lifecycle: proto.lifecycle,
      reasons: proto.reasons,
      apps: [...proto.apps].sort(),
    },
    byte_exact: !text || lossy === 0,
    byte_exact_reason: !text
      ? `${rec.format} stores raw bytes`
      : lossy === 0
      ? "every output event is valid UTF-8 or carries its raw bytes in a b event"
      : `${plural(lossy, "output event")} ${
        lossy === 1 ? "holds" : "hold"
      } U+FFFD without raw bytes: the program's bytes may have been invalid UTF-8, lost`,
    provenance: h.provenance ?? null,
    warnings: rec.warnings,
  };
}

/** The human-readable summary; every string from the capture goes through disarm. */
function render(i: Awaited<ReturnType<typeof gather>>): string {
  const o = i.osc7501, pv = i.provenance;
  const kv = (r: Record<string, number>, strip = 0) =>
    Object.entries(r).map(([k, n]) => `${disarm(k.slice(strip))}×${n}`).join(", ");
  const lines = [
    `file        ${disarm(i.path)} (${i.format})`,
    `size        ${i.size.cols}x${i.size.rows}${i.term ? ` ${disarm(i.term)}` : ""}`,
    i.command !== null ? `command     ${disarm(i.command)}` : "",
    i.title !== null ? `title       ${disarm(i.title)}` : "",
    `duration    ${i.duration_s.toFixed(3)} s`,
    `events      ${
      Object.entries(i.events).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(", ") || "none"
    }`,
    `bytes       output ${i.bytes.output}${i.bytes.input ? `, input ${i.bytes.input}` : ""}`,
    i.resizes.length ? `resizes     ${i.resizes.map((r) => `${r.t}s→${r.cols}x${r.rows}`).join(", ")}` : "",
    i.markers.length
      ? `markers     ${i.markers.length}${Object.keys(i.labels).length ? ` (truth: ${kv(i.labels, 6)})` : ""}`
      : "",
    `exit        ${i.exit_status === null ? "unknown" : i.exit_status}`,
    `osc 7501    ${plural(o.reports, "report")}, ${o.discarded} discarded, ${o.ignored} ignored, ${
      plural(o.queries, "query", "queries")
    }${Object.keys(o.reasons).length ? ` (${kv(o.reasons)})` : ""}${
      o.apps.length ? `; apps ${o.apps.map(disarm).join(", ")}` : ""
    }`,
    `byte-exact  ${i.byte_exact ? "yes" : "no"} (${i.byte_exact_reason})`,
    pv
      ? `provenance  ${
        disarm(
          // A header may name the tool and leave out the rest (written by hand, or by another tool).
          [`${pv.tool ?? "unknown tool"}${pv.version === undefined ? "" : ` ${pv.version}`}`].concat(
            pv.osc7501_revision === undefined ? [] : [`OSC 7501 rev ${pv.osc7501_revision}`],
          ).join(", "),
        )
      }${
        typeof pv.query_answer_delay_s === "number" && pv.query_answer_delay_s > 0
          ? `, query answered ${pv.query_answer_delay_s} s late if the program still ran (scan shows each answer sent)`
          : pv.query_answered === true
          ? ", query answered"
          : pv.query_answered === false
          ? ", query not answered"
          : ""
      }`
      : "",
  ];
  return lines.filter(Boolean).join("\n") + "\n";
}

export const command = defineCommand(spec, async (p) => {
  const rec = await openInput(p.positionals[0], p.values);
  const info = await gather(rec);
  if (p.values.json) {
    out(JSON.stringify(info) + "\n");
    return 0;
  }
  out(render(info));
  printWarnings(rec);
  return 0;
});
