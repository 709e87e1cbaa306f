// The two sources beside the screen and OSC 7501 that a recording may carry
// (docs/fixture-format.md §2 conventions 7 and 8): the process table (which process
// group holds the terminal) and agent hooks (`pstlab hook`). Each is a one-character
// event code, not a marker, because players stop at markers (asciinema's, and
// pstlab's own `]` key and --pause-on-markers) and skip codes they do not know. Both
// travel as `other` events through every reader and writer untouched; this module is
// the one place their data is written and read.

import * as fs from "node:fs";
import { type Kind, KINDS } from "../osc7501/parse.ts";
import type { Header } from "./model.ts";

/**
 * The foreground process group changed: data `"PGID SID NAME"` — the group, the session
 * (the recorded command's own pid: it leads the pty's session, so PGID = SID means its
 * own group is in front) and NAME, /proc/PGID/comm, which may hold spaces.
 */
export const PROCESS_CODE = "p";
/** An agent hook said its state: data `"STATE[:KIND][ MESSAGE]"`. */
export const HOOK_CODE = "h";

export interface Foreground {
  pgid: number;
  /** The session: the recorded command's pid (its group is the session's own). */
  sid: number;
  name: string;
}

export const HOOK_STATES = ["idle", "working", "blocked", "done", "error"] as const;
export type HookState = (typeof HOOK_STATES)[number];

export interface Hook {
  state: HookState;
  kind: Kind | null;
  msg: string | null;
}

/** The longest message a hook event keeps (a hook's payload is not a transcript). */
export const MAX_HOOK_MSG = 1000;

export function formatForeground(f: Foreground): string {
  return `${f.pgid} ${f.sid} ${f.name}`;
}

export function parseForeground(data: string): Foreground | null {
  const m = /^([0-9]{1,10}) ([0-9]{1,10}) (.*)$/s.exec(data);
  if (!m) return null;
  const pgid = Number(m[1]), sid = Number(m[2]);
  return pgid > 0 && pgid <= 2 ** 31 && sid > 0 && sid <= 2 ** 31 ? { pgid, sid, name: m[3] } : null;
}

export function formatHook(h: Hook): string {
  const head = h.kind ? `${h.state}:${h.kind}` : h.state;
  return h.msg ? `${head} ${h.msg}` : head;
}

/** One hook line (`pstlab hook`'s, or a line echoed into $PSTLAB_HOOKS); null when it is not STATE[:KIND] [MESSAGE]. */
export function parseHook(data: string): Hook | null {
  const m = /^([a-z]+)(?::([a-z]+))?(?:[ \t]+(.*))?$/s.exec(data.trim());
  if (!m) return null;
  const state = m[1] as HookState;
  if (!(HOOK_STATES as readonly string[]).includes(state)) return null;
  const kind = (m[2] ?? null) as Kind | null;
  if (kind !== null && (state !== "blocked" || !(KINDS as readonly string[]).includes(kind))) return null;
  const msg = m[3]?.trim() ? [...m[3].trim()].slice(0, MAX_HOOK_MSG).join("") : null;
  return { state, kind, msg };
}

export type SourceName = "process" | "hooks";

/** The sources a recorder declared it captured (provenance `sources`): their absence is "no data", not "nothing happened". */
export function declaredSources(header: Header): Set<SourceName> {
  const s = header.provenance?.sources;
  const out = new Set<SourceName>();
  if (Array.isArray(s)) { for (const x of s) if (x === "process" || x === "hooks") out.add(x); }
  return out;
}

/**
 * The sources an asciicast file's header declares, read from its first line only (what
 * `report` needs to choose its default set before the analysis): anything that is not
 * such a header declares none, and its errors are the analysis's to report.
 */
export function declaredSourcesOfFile(path: string): Set<SourceName> {
  if (path === "-") return new Set(); // stdin can be read once, by the analysis
  let head: string;
  try {
    // So can a FIFO or a process substitution: peeking at it would eat what the analysis reads.
    if (!fs.statSync(path).isFile()) return new Set();
    const fd = fs.openSync(path, "r");
    try {
      const buf = new Uint8Array(65536);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      head = new TextDecoder().decode(buf.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return new Set();
  }
  const nl = head.indexOf("\n");
  if (nl < 0) return new Set();
  try {
    const h = JSON.parse(head.slice(0, nl));
    return declaredSources({ cols: 1, rows: 1, provenance: h?.pstlab });
  } catch {
    return new Set();
  }
}
