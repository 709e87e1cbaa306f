// asciicast v2: times are absolute seconds from the start (a time that goes backwards
// is held at the previous one, with a warning); size as width/height, TERM in env.

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

const KNOWN = new Set([
  "version",
  "width",
  "height",
  "timestamp",
  "duration",
  "idle_time_limit",
  "command",
  "title",
  "env",
  "theme",
  "pstlab",
]);

export function parseV2Header(file: string, h: Record<string, unknown>): Header {
  const env = strMap(h.env);
  const header: Header = {
    cols: dim(file, h.width, "width"),
    rows: dim(file, h.height, "height"),
    termType: env?.TERM,
    theme: h.theme,
    timestamp: optNum(h, "timestamp"),
    idleTimeLimit: optNum(h, "idle_time_limit"),
    command: optStr(h, "command"),
    title: optStr(h, "title"),
    env,
    envExtra: nonStrMap(h.env),
    provenance: isObj(h.pstlab) ? h.pstlab as Provenance : undefined,
  };
  return finishHeader(header, h, KNOWN);
}

export function v2Clock(file: string, warnings: string[]): EventClock {
  let lastUs = 0;
  return {
    field: "time",
    at(time: number, no: number) {
      let us = Math.round(time * 1e6);
      if (us < lastUs) {
        warnings.push(`${file}:${no}: time goes backwards (${time} s); treated as ${lastUs / 1e6} s`);
        us = lastUs;
      }
      lastUs = us;
      return us / 1e6;
    },
  };
}

export function readV2Events(
  file: string,
  chunks: AsyncIterable<Uint8Array>,
  warnings: string[],
): AsyncIterable<Event> {
  return eventReaderFn()(file, chunks, v2Clock(file, warnings), warnings);
}

export function headerV2(h: Header): Record<string, unknown> {
  const out: Record<string, unknown> = { version: 2, width: h.cols, height: h.rows };
  if (h.timestamp !== undefined) out.timestamp = Math.round(h.timestamp);
  if (h.idleTimeLimit !== undefined) out.idle_time_limit = h.idleTimeLimit;
  if (h.command !== undefined) out.command = h.command;
  if (h.title !== undefined) out.title = h.title;
  const env: Record<string, unknown> = { ...(h.env ?? {}), ...h.envExtra };
  if (h.termType !== undefined && env.TERM === undefined) env.TERM = h.termType;
  if (Object.keys(env).length) out.env = env;
  if (h.theme !== undefined) out.theme = h.theme;
  if (h.provenance !== undefined) out.pstlab = h.provenance;
  return out;
}
