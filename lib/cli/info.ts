// `pstlab info`: what is in a capture.

import { out, defineCommand } from "./common.ts";
import { flag, INPUT_OPTIONS, ONE_FILE } from "./options.ts";
import { openInput, printWarnings } from "./input.ts";
import { Tracker } from "../osc7501/tracker.ts";
import type { Event } from "../recording/model.ts";
import { disarm, round6 } from "../text.ts";

export const spec = {
  name: "info",
  summary: "summarize a capture: size, duration, events, markers, exit status, OSC 7501 reports",
  usage: "pstlab info FILE [--json]",
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

export const command = defineCommand(spec, async (p) => {
  const rec = await openInput(p.positionals[0], p.values);
  const counts: Record<Event["kind"], number> = { output: 0, input: 0, resize: 0, marker: 0, exit: 0, other: 0 };
  const bytes = { output: 0, input: 0 };
  const resizes: { t: number; cols: number; rows: number }[] = [];
  const markers: { t: number; label: string }[] = [];
  const labels: Record<string, number> = {};
  const proto = { reports: 0, discarded: 0, ignored: 0, queries: 0, lifecycle: 0, reasons: {} as Record<string, number>, apps: new Set<string>() };
  let exit: number | null = null;
  let duration = 0;
  let lossy = 0;
  const tracker = new Tracker((e) => {
    if (e.type === "report") {
      proto.reports++;
      if (e.app) proto.apps.add(e.app);
    } else if (e.type === "query") proto.queries++;
    else if (e.type === "lifecycle") proto.lifecycle++;
    else {
      proto[e.type]++;
      proto.reasons[e.reason] = (proto.reasons[e.reason] ?? 0) + 1;
    }
  });
  for await (const e of rec.events) {
    counts[e.kind]++;
    duration = e.t;
    switch (e.kind) {
      case "output":
        bytes.output += e.bytes.length;
        tracker.feed(e.bytes, e.t);
        if ((rec.format === "v3" || rec.format === "v2") && hasReplacementChar(e.bytes)) lossy++;
        break;
      case "input":
        bytes.input += e.bytes.length;
        break;
      case "resize":
        resizes.push({ t: round6(e.t), cols: e.cols, rows: e.rows });
        break;
      case "marker":
        markers.push({ t: round6(e.t), label: e.label });
        if (e.label.startsWith("truth:")) labels[e.label] = (labels[e.label] ?? 0) + 1;
        break;
      case "exit":
        exit = e.status;
        tracker.exit(e.t);
        break;
    }
  }
  tracker.end(duration);
  const byteExact = rec.format === "v3" || rec.format === "v2"
    ? lossy === 0
    : true;
  const exactWhy = rec.format === "v3" || rec.format === "v2"
    ? (lossy === 0 ? "no output event holds a replacement character" : `${lossy} output events contain U+FFFD with no raw bytes: the original bytes may have been invalid UTF-8`)
    : `${rec.format} stores raw bytes`;
  const h = rec.header;
  const info = {
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
    osc7501: { reports: proto.reports, discarded: proto.discarded, ignored: proto.ignored, queries: proto.queries, lifecycle: proto.lifecycle, reasons: proto.reasons, apps: [...proto.apps].sort() },
    byte_exact: byteExact,
    byte_exact_reason: exactWhy,
    provenance: h.provenance ?? null,
    warnings: rec.warnings,
  };
  if (p.values.json) {
    out(JSON.stringify(info) + "\n");
    return 0;
  }
  const lines = [
    `file        ${rec.path} (${rec.format})`,
    `size        ${h.cols}x${h.rows}${h.termType ? ` ${h.termType}` : ""}`,
    h.command !== undefined ? `command     ${disarm(h.command)}` : "",
    h.title !== undefined ? `title       ${disarm(h.title)}` : "",
    `duration    ${duration.toFixed(3)} s`,
    `events      ${Object.entries(counts).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`,
    `bytes       output ${bytes.output}${bytes.input ? `, input ${bytes.input}` : ""}`,
    resizes.length ? `resizes     ${resizes.map((r) => `${r.t}s→${r.cols}x${r.rows}`).join(", ")}` : "",
    markers.length ? `markers     ${markers.length}${Object.keys(labels).length ? ` (truth: ${Object.entries(labels).map(([k, n]) => `${k.slice(6)}×${n}`).join(", ")})` : ""}` : "",
    `exit        ${exit === null ? "unknown" : exit}`,
    `osc 7501    ${proto.reports} reports, ${proto.discarded} discarded, ${proto.ignored} ignored, ${proto.queries} queries${Object.keys(proto.reasons).length ? ` (${Object.entries(proto.reasons).map(([k, n]) => `${k}×${n}`).join(", ")})` : ""}${proto.apps.size ? `; apps ${[...proto.apps].join(", ")}` : ""}`,
    `byte-exact  ${byteExact ? "yes" : "no"} (${exactWhy})`,
    h.provenance ? `provenance  ${h.provenance.tool} ${h.provenance.version}, OSC 7501 rev ${h.provenance.osc7501_revision}${h.provenance.query_answered === true ? ", query answered" : h.provenance.query_answered === false ? ", query not answered" : ""}` : "",
  ].filter(Boolean);
  out(lines.join("\n") + "\n");
  printWarnings(rec);
  return 0;
});
