// The program side: build one well-formed sequence (pst key order
// `state, id, kind, progress, app, title, msg`; ST by default, as most encoders do). Every sequence is checked by our own parser before it is returned, so
// the encoder can never emit something a strict terminal would reject.

import { encodeBase64 } from "./base64.ts";
import { TMUX_PREFIX } from "./scanner.ts";
import { INTRODUCER } from "./limits.ts";
import { parseBody, queryReply, type State, type Terminator } from "./parse.ts";
import type { Reason } from "./reasons.ts";

export interface EncodeInput {
  state: State | string;
  id?: string | null;
  kind?: string | null;
  progress?: number | null;
  app?: string | null;
  title?: string | null;
  msg?: string | null;
}

export interface EncodeOptions {
  terminator?: Terminator;
  /** Wrap in tmux DCS passthrough this many times (every ESC doubled per level). */
  tmux?: number;
}

export type EncodeResult = { ok: true; bytes: Uint8Array } | { ok: false; reason: Reason | "dropped"; detail: string };

const te = new TextEncoder();

export function encodeBody(r: EncodeInput): string {
  const parts = [`state=${r.state}`];
  if (r.id != null) parts.push(`id=${r.id}`);
  if (r.kind != null) parts.push(`kind=${r.kind}`);
  if (r.progress != null) parts.push(`progress=${r.progress}`);
  if (r.app != null) parts.push(`app=${r.app}`);
  if (r.title != null) parts.push(`title=${encodeBase64(te.encode(r.title))}`);
  if (r.msg != null) parts.push(`msg=${encodeBase64(te.encode(r.msg))}`);
  return parts.join(":");
}

function frame(body: Uint8Array, t: Terminator): Uint8Array {
  const term = t === "st" ? [0x1b, 0x5c] : [0x07];
  const out = new Uint8Array(INTRODUCER.length + body.length + term.length);
  out.set(INTRODUCER, 0);
  out.set(body, INTRODUCER.length);
  out.set(term, INTRODUCER.length + body.length);
  return out;
}

/** tmux DCS passthrough: `ESC P tmux;` + the sequence with every ESC doubled + `ESC \`. */
export function wrapTmux(seq: Uint8Array, levels = 1): Uint8Array {
  let cur = seq;
  for (let l = 0; l < levels; l++) {
    const out: number[] = [0x1b, 0x50, ...TMUX_PREFIX];
    for (const b of cur) {
      out.push(b);
      if (b === 0x1b) out.push(0x1b);
    }
    out.push(0x1b, 0x5c);
    cur = new Uint8Array(out);
  }
  return cur;
}

export function encodeReport(r: EncodeInput, opts: EncodeOptions = {}): EncodeResult {
  const t = opts.terminator ?? "st";
  const body = te.encode(encodeBody(r));
  const parsed = parseBody(body, t);
  if (parsed.type === "rejected") return { ok: false, reason: parsed.reason, detail: parsed.detail };
  if (parsed.type !== "report") return { ok: false, reason: "no-state", detail: "not a report" };
  // Refuse input that a strict parser would silently drop (a kind on idle, a bad app…):
  // a script author asked for it, so they should hear that it would not arrive.
  if (parsed.notes.length > 0) {
    return {
      ok: false,
      reason: "dropped",
      detail: parsed.notes.map((n) => n.detail).join("; "),
    };
  }
  const seq = frame(body, t);
  return { ok: true, bytes: opts.tmux ? wrapTmux(seq, opts.tmux) : seq };
}

/** `ESC ] 7501 ; ? ST` (or BEL). */
/** The query; its framing is the reply's (docs/osc7501.md D14: the reply mirrors the query's terminator). */
export function encodeQuery(t: Terminator = "st"): Uint8Array {
  return queryReply(t);
}
