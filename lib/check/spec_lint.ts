// Spec lint: what a strict terminal makes of the program's reports, from the tracker's
// events over the whole capture.

import type { ProtocolEvent } from "../osc7501/tracker.ts";
import type { StoredRecord } from "../osc7501/store.ts";
import { type Finding, finding } from "./findings.ts";
import { fmtT } from "./intervals.ts";

/** The minimum a terminal must keep (docs/osc7501.md §3: at most 256, at least 64). */
export const MIN_TERMINAL_RECORDS = 64;
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** What the check reads of a capture's protocol side. */
export interface ProtocolLog {
  events: ProtocolEvent[];
  /**
   * The records in force just before each exit event, in order (empty: none). A capture
   * of segments (`cat`, `record --append`) has one per run, each checked on its own.
   */
  exits: { t: number; live: StoredRecord[] }[];
  /** When live records first exceeded MIN_TERMINAL_RECORDS, and how many. */
  overflow: { t: number; count: number } | null;
  /** Whether the recorder answered the query (provenance), null when unknown. */
  queryAnswered: boolean | null;
  /**
   * The recorded command is a terminal multiplexer (tmux, screen…), so the program ran inside it and
   * this capture holds what the multiplexer passed on to its own terminal.
   */
  multiplexer?: string | null;
  end: number;
}

const who = (id: string | null) => (id === null ? "(root)" : id);

/** A dropped pair as quoted in a finding: controls already \\xNN (showBytes), long values cut. */
function quote(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

interface DroppedGroup {
  code: string;
  key: string;
  value: string;
  why: string;
  blockedKind: boolean;
  first: number;
  last: number;
  count: number;
}

export function specLint(log: ProtocolLog): Finding[] {
  const out: Finding[] = [];
  // Every pair a strict terminal drops from a report it applies, grouped by (reason, key, value):
  // an emitter that sends the same bad pair in every report gets one line, with the count.
  const dropped = new Map<string, DroppedGroup>();
  let reports = 0, plain = 0, wrapped = 0, queries = 0, firstPlain = 0;
  for (const e of log.events) {
    if (e.type === "discarded" || e.type === "ignored") {
      out.push(finding("discarded-report", e.t, e.t, `${e.type} (${e.reason}): ${e.detail}`));
    } else if (e.type === "query") queries++;
    else if (e.type === "report" && e.source === "osc7501") {
      reports++;
      if (e.depth > 0) wrapped++;
      else if (plain++ === 0) firstPlain = e.t;
      let badKind = false;
      for (const n of e.notes) {
        if (n.code === "empty-body") continue;
        const blockedKind = n.code === "kind-dropped" && e.state === "blocked";
        badKind ||= blockedKind;
        const k = JSON.stringify([n.code, n.key, n.value, n.why, blockedKind]);
        const g = dropped.get(k);
        if (g) {
          g.count++;
          g.last = e.t;
        } else {
          dropped.set(k, { ...n, blockedKind, first: e.t, last: e.t, count: 1 });
        }
      }
      // An invalid kind is reported as invalid (dropped-field), not as a missing one.
      if (e.state === "blocked" && e.kind === null && !badKind) {
        out.push(
          finding("blocked-without-kind", e.t, e.t, `${who(e.id)} blocked without kind (permission, question or auth)`),
        );
      }
      for (const [k, v] of [["msg", e.msg], ["title", e.title]] as const) {
        if (v !== null && INVISIBLE.test(v)) {
          out.push(
            finding("invisible-text", e.t, e.t, `${who(e.id)} ${k} holds bidi overrides or invisible formatting`),
          );
        }
      }
    }
  }
  for (const g of dropped.values()) {
    const pair = g.value === "" && g.why === 'no "="' ? quote(g.key, 40) : `${quote(g.key, 24)}=${quote(g.value, 40)}`;
    const times = g.count === 1 ? "" : ` (${g.count} reports, ${fmtT(g.first)}–${fmtT(g.last)})`;
    const what = g.blockedKind
      ? `blocked with an invalid kind: ${pair} dropped [${g.code}: ${g.why}], so a terminal shows blocked without kind`
      : `${pair} dropped [${g.code}: ${g.why}]`;
    out.push(finding("dropped-field", g.first, g.last, what + times));
  }
  for (const exit of log.exits) {
    const left = exit.live.filter((r) => r.state === "working" || r.state === "blocked");
    if (left.length) {
      out.push(
        finding(
          "left-at-exit",
          exit.t,
          exit.t,
          `the program exited with ${
            left.map((r) => `${who(r.id)} ${r.state}`).join(", ")
          } (report done, error or idle before exiting)`,
        ),
      );
    }
  }
  if (log.exits.length === 0 && reports > 0) {
    out.push(finding("no-exit", log.end, log.end, "no exit event: the records left at exit are not checked"));
  }
  if (log.overflow) {
    out.push(
      finding(
        "too-many-records",
        log.overflow.t,
        log.overflow.t,
        `${log.overflow.count} live records (a terminal need support only ${MIN_TERMINAL_RECORDS}: past that it may evict the least recently updated)`,
      ),
    );
  }
  // Unwrapped reports are right outside tmux (docs/osc7501.md §6: wrapping is for a program inside
  // it), and right too when pstlab itself runs in a tmux pane: the program writes to pstlab's pty.
  // A program that wraps some reports and not others loses the plain ones inside tmux.
  if (plain > 0 && wrapped > 0) {
    out.push(
      finding(
        "tmux-passthrough",
        firstPlain,
        log.end,
        `${plain} report${plain === 1 ? "" : "s"} not wrapped for tmux passthrough, though ${wrapped} other${
          wrapped === 1 ? " is" : "s are"
        }: inside tmux they are dropped`,
      ),
    );
  }
  const mux = log.multiplexer ? multiplexerNote(log.multiplexer) : "";
  if (log.multiplexer) {
    out.push(
      finding(
        "multiplexer",
        0,
        log.end,
        `the recorded command is ${log.multiplexer}, a multiplexer: this capture holds what ${log.multiplexer} passed on (${reports} report${
          reports === 1 ? "" : "s"
        }, ${queries} quer${queries === 1 ? "y" : "ies"}). ${mux}`,
      ),
    );
  }
  if (reports > 0 && log.queryAnswered === false) {
    out.push(finding("query", 0, log.end, `${reports} reports although the terminal did not answer the query`));
  }
  // A check that passes on a capture with no protocol at all would pass a build whose
  // emitter is switched off, or the wrong file given to CI.
  if (reports === 0 && queries === 0) {
    out.push(
      finding(
        "no-reports",
        0,
        log.end,
        log.multiplexer
          ? `no OSC 7501 query and no report in the whole capture, and the recorded command is ${log.multiplexer}, which drops them unless the program wraps them for it (see multiplexer)`
          : "no OSC 7501 query and no report in the whole capture: is the emitter on, and is this the right file?",
      ),
    );
  }
  if (reports === 0 && queries > 0 && log.queryAnswered !== false) {
    out.push(finding("query", 0, log.end, "the query was answered but no report was ever sent"));
  }
  return out;
}

/** What a multiplexer between the program and the recorder does to the protocol. */
function multiplexerNote(name: string): string {
  return name === "tmux"
    ? "tmux drops OSC 7501 reports that are not wrapped for passthrough (DCS tmux;), drops wrapped ones too unless allow-passthrough is on, and neither answers nor forwards an unwrapped query"
    : `${name} drops OSC sequences it does not know unless the program wraps them for its passthrough`;
}

export { fmtT };
