// asciicast v3: times are intervals since the previous event, accumulated in integer
// microseconds so a v3 → v3 round trip reproduces every interval exactly; the header
// keeps the terminal under `term`.

import type { Event, Header, Provenance } from "./model.ts";
import {
  dim,
  type EventClock,
  eventReaderFn,
  finishHeader,
  isObj,
  nonStrMap,
  optNum,
  optStr,
  strMap,
} from "./asciicast_common.ts";
import { FixtureError } from "../errors.ts";

const KNOWN = new Set(["version", "term", "timestamp", "idle_time_limit", "command", "title", "env", "tags", "pstlab"]);

export function parseV3Header(file: string, h: Record<string, unknown>): Header {
  const term = h.term;
  if (!isObj(term)) throw new FixtureError(file, 1, "header: term must be an object with cols and rows");
  const header: Header = {
    cols: dim(file, term.cols, "term.cols"),
    rows: dim(file, term.rows, "term.rows"),
    termType: optStr(term, "type"),
    termVersion: optStr(term, "version"),
    theme: term.theme,
    timestamp: optNum(h, "timestamp"),
    idleTimeLimit: optNum(h, "idle_time_limit"),
    command: optStr(h, "command"),
    title: optStr(h, "title"),
    env: strMap(h.env),
    envExtra: nonStrMap(h.env),
    tags: Array.isArray(h.tags) ? h.tags.filter((x): x is string => typeof x === "string") : undefined,
    provenance: isObj(h.pstlab) ? h.pstlab as Provenance : undefined,
  };
  return finishHeader(header, h, KNOWN);
}

export function v3Clock(): EventClock {
  let accUs = 0;
  return {
    field: "interval",
    at(time: number) {
      accUs += Math.round(time * 1e6);
      return accUs / 1e6;
    },
  };
}

export function readV3Events(
  file: string,
  chunks: AsyncIterable<Uint8Array>,
  warnings: string[],
): AsyncIterable<Event> {
  return eventReaderFn()(file, chunks, v3Clock(), warnings);
}

export function headerV3(h: Header): Record<string, unknown> {
  const term: Record<string, unknown> = { cols: h.cols, rows: h.rows };
  if (h.termType !== undefined) term.type = h.termType;
  if (h.termVersion !== undefined) term.version = h.termVersion;
  if (h.theme !== undefined) term.theme = h.theme;
  const out: Record<string, unknown> = { version: 3, term };
  if (h.timestamp !== undefined) out.timestamp = h.timestamp;
  if (h.idleTimeLimit !== undefined) out.idle_time_limit = h.idleTimeLimit;
  if (h.command !== undefined) out.command = h.command;
  if (h.title !== undefined) out.title = h.title;
  if (h.env !== undefined || h.envExtra !== undefined) out.env = { ...h.env, ...h.envExtra };
  if (h.tags !== undefined) out.tags = h.tags;
  if (h.extra) { for (const [k, v] of Object.entries(h.extra)) if (!(k in out)) out[k] = v; }
  if (h.provenance !== undefined) out.pstlab = h.provenance;
  return out;
}
