// OSC 7501 body parser (docs/osc7501.md §1.2–§3, and the decisions D1–D21 of its §8).
// Forgiving about single pairs, strict about the report as a whole: a malformed
// pair or unknown key is skipped, while any limit breach, unusable text or an
// invalid id rejects the whole report before anything is applied.

import { decodeBase64Strict } from "./base64.ts";
import {
  INTRODUCER,
  INTRODUCER_BYTES,
  MAX_APP_BYTES,
  MAX_ID_BYTES,
  MAX_ID_SEGMENT_BYTES,
  MAX_ID_SEGMENTS,
  MAX_KEY_BYTES,
  MAX_MSG_DECODED_BYTES,
  MAX_MSG_ENCODED_BYTES,
  MAX_PROGRESS,
  MAX_SEQUENCE_BYTES,
  MAX_TITLE_DECODED_BYTES,
  MAX_TITLE_ENCODED_BYTES,
} from "./limits.ts";
import { dispositionOf, type Reason } from "./reasons.ts";

export const STATES = ["idle", "working", "done", "blocked", "error", "clear"] as const;
export const KINDS = ["permission", "question", "auth"] as const;
export type State = (typeof STATES)[number];
export type RecordState = Exclude<State, "clear">;
export type Kind = (typeof KINDS)[number];
export type Terminator = "st" | "bel";

/** A report's fields, declared once: parsed reports, stored records and scanned report events all carry them. */
export interface ReportFields<S extends string = State> {
  state: S;
  /** null is the root record. */
  id: string | null;
  kind: Kind | null;
  progress: number | null;
  app: string | null;
  title: string | null;
  msg: string | null;
}

export type Report = ReportFields<State>;

/** Something in an accepted report that was skipped or dropped (for `check`/`explain`). */
export interface ParseNote {
  code:
    | "empty-body"
    | "malformed-pair"
    | "raw-control" // D4: a raw C0 byte in the body made its pair malformed
    | "unknown-key"
    | "kind-dropped"
    | "progress-dropped"
    | "app-dropped";
  detail: string;
  /** The pair's key and value as sent, controls shown as \xNN (a whole pair without `=` is its key). */
  key: string;
  value: string;
  /** Why it was dropped, without the pair itself (check quotes the pair truncated). */
  why: string;
}

export type ParseResult =
  | { type: "query"; terminator: Terminator; reply: Uint8Array }
  | { type: "report"; report: Report; notes: ParseNote[] }
  | { type: "rejected"; disposition: "discarded" | "ignored"; reason: Reason; detail: string };

const KNOWN_VALUE_LIMITS: Record<string, number> = {
  app: MAX_APP_BYTES,
  id: MAX_ID_BYTES,
  title: MAX_TITLE_ENCODED_BYTES,
  msg: MAX_MSG_ENCODED_BYTES,
};

const STATE_SET = new Set<string>(STATES);
const KIND_SET = new Set<string>(KINDS);

// value = [A-Za-z0-9_.,+/=-]*  (never needs escaping)
const VALUE_BYTE = new Uint8Array(256);
// id segment / app = [A-Za-z0-9_.+-]
const NAME_BYTE = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  const name = alnum || c === 0x5f || c === 0x2e || c === 0x2b || c === 0x2d;
  NAME_BYTE[c] = name ? 1 : 0;
  VALUE_BYTE[c] = name || c === 0x2c || c === 0x2f || c === 0x3d ? 1 : 0;
}

const COLON = 0x3a, EQ = 0x3d, QMARK = 0x3f, SPACE = 0x20, TAB = 0x09, SLASH = 0x2f;
const ST = new Uint8Array([0x1b, 0x5c]);
const BEL = new Uint8Array([0x07]);

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function ascii(b: Uint8Array, s: number, e: number): string {
  let out = "";
  for (let i = s; i < e; i++) out += String.fromCharCode(b[i]);
  return out;
}

/** A readable rendering of body bytes for diagnostics (controls as \xNN). */
export function showBytes(b: Uint8Array, s = 0, e = b.length): string {
  let out = "";
  for (let i = s; i < e; i++) {
    const c = b[i];
    out += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : "\\x" + c.toString(16).padStart(2, "0");
  }
  return out;
}

function terminatorBytes(t: Terminator): Uint8Array {
  return t === "st" ? ST : BEL;
}

/** The exact bytes a supporting terminal answers to the query (D14: mirrored terminator). */
export function queryReply(t: Terminator): Uint8Array {
  const term = terminatorBytes(t);
  const out = new Uint8Array(INTRODUCER_BYTES + 1 + term.length);
  out.set(INTRODUCER, 0);
  out[INTRODUCER_BYTES] = QMARK;
  out.set(term, INTRODUCER_BYTES + 1);
  return out;
}

function rejected(reason: Reason, detail: string): ParseResult {
  return { type: "rejected", disposition: dispositionOf(reason), reason, detail };
}

/** Grammar of §2.6: 1–8 segments of [A-Za-z0-9_.+-]{1,32} joined by single `/`. */
export function idProblem(b: Uint8Array, s: number, e: number): string | null {
  if (e === s) return "empty id";
  if (e - s > MAX_ID_BYTES) return `id is ${e - s} bytes, over the limit of ${MAX_ID_BYTES}`;
  let segs = 1, segStart = s;
  for (let i = s; i <= e; i++) {
    if (i === e || b[i] === SLASH) {
      const len = i - segStart;
      if (len === 0) return "empty id segment";
      if (len > MAX_ID_SEGMENT_BYTES) return `id segment is ${len} bytes, over the limit of ${MAX_ID_SEGMENT_BYTES}`;
      if (i < e) {
        segs++;
        if (segs > MAX_ID_SEGMENTS) return `id has more than ${MAX_ID_SEGMENTS} segments`;
      }
      segStart = i + 1;
    } else if (!NAME_BYTE[b[i]]) {
      return `byte ${showBytes(b, i, i + 1)} is not allowed in an id`;
    }
  }
  return null;
}

/** Validates one title/msg occurrence (D3); returns the decoded text or a rejection. */
function decodeText(
  key: string,
  b: Uint8Array,
  s: number,
  e: number,
  maxDecoded: number,
): string | ParseResult {
  const bytes = decodeBase64Strict(b.subarray(s, e));
  if (bytes === null) return rejected("bad-base64", `${key} is not valid standard base64`);
  if (bytes.length > maxDecoded) {
    return rejected("text-too-long", `${key} decodes to ${bytes.length} bytes, over the limit of ${maxDecoded}`);
  }
  // Fast path: printable ASCII needs neither the UTF-8 decoder nor the control check.
  let printable = true;
  for (let i = 0; i < bytes.length && printable; i++) printable = bytes[i] >= 0x20 && bytes[i] < 0x7f;
  if (printable) return ascii(bytes, 0, bytes.length);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return rejected("bad-utf8", `${key} does not decode to valid UTF-8`);
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) {
      return rejected(
        "control-char",
        `${key} contains control character U+${c.toString(16).toUpperCase().padStart(4, "0")}`,
      );
    }
  }
  return text;
}

/** `progress` (D8/D9): digits only, value 0–100, leading zeros allowed. */
export function parseProgress(v: string): number | null {
  if (!/^[0-9]+$/.test(v)) return null;
  const digits = v.replace(/^0+(?=.)/, "");
  if (digits.length > 3) return null;
  const n = Number(digits);
  return n <= MAX_PROGRESS ? n : null;
}

interface Pair {
  key: string | null; // null when the key is not [a-z]+
  ks: number;
  ke: number;
  vs: number;
  ve: number;
  hasControl: boolean;
}

/**
 * Parses one body (the bytes between `ESC ] 7501 ;` and the terminator).
 * `terminator` is needed for the sequence limit (D7) and the query reply (D14).
 * Three passes, in the order decision D2 requires: lengths before charsets
 * (splitPairs, D2), per-pair validation in body order (readPairs), then the fields
 * that depend on the state (toReport).
 */
export function parseBody(body: Uint8Array, terminator: Terminator): ParseResult {
  const total = INTRODUCER_BYTES + body.length + terminatorBytes(terminator).length;
  if (total > MAX_SEQUENCE_BYTES) {
    return rejected("sequence-too-long", `sequence is ${total} bytes, over the limit of ${MAX_SEQUENCE_BYTES}`);
  }
  if (body.length === 1 && body[0] === QMARK) {
    return { type: "query", terminator, reply: queryReply(terminator) };
  }
  const notes: ParseNote[] = [];
  if (body.length === 0) {
    notes.push({ code: "empty-body", detail: "empty body", key: "", value: "", why: "empty body" });
  }
  const pairs = splitPairs(body, notes);
  if (!Array.isArray(pairs)) return pairs;
  const fields = readPairs(body, pairs, notes);
  if ("type" in fields) return fields;
  const r = toReport(fields, notes);
  // `state=blocked;kind=permission` (fields split as in OSC 8 or 1337): the state is
  // plainly there, so say why it was not read.
  if (r.type === "rejected" && (r.reason === "no-state" || r.reason === "unknown-state") && body.includes(0x3b)) {
    return { ...r, detail: `${r.detail} (fields are separated by ":", not ";")` };
  }
  return r;
}

/** Pass 1 (D2): key lengths for every pair with `=`, then known keys' value lengths, before any charset validation. Limits apply to every occurrence (§3). */
function splitPairs(body: Uint8Array, notes: ParseNote[]): Pair[] | ParseResult {
  const pairs: Pair[] = [];
  let start = 0;
  for (let i = 0; i <= body.length; i++) {
    if (i < body.length && body[i] !== COLON) continue;
    const s = start, e = i;
    start = i + 1;
    if (s === e) continue; // empty pairs are harmless
    let eq = -1;
    for (let j = s; j < e; j++) {
      if (body[j] === EQ) {
        eq = j;
        break;
      }
    }
    if (eq < 0) {
      notes.push({
        code: "malformed-pair",
        detail: `"${showBytes(body, s, e)}" has no "="`,
        key: showBytes(body, s, e),
        value: "",
        why: 'no "="',
      });
      continue;
    }
    let ks = s, ke = eq, vs = eq + 1, ve = e;
    // D17: whitespace is ASCII space and tab only.
    while (ks < ke && (body[ks] === SPACE || body[ks] === TAB)) ks++;
    while (ke > ks && (body[ke - 1] === SPACE || body[ke - 1] === TAB)) ke--;
    while (vs < ve && (body[vs] === SPACE || body[vs] === TAB)) vs++;
    while (ve > vs && (body[ve - 1] === SPACE || body[ve - 1] === TAB)) ve--;
    if (ke - ks > MAX_KEY_BYTES) {
      return rejected(
        "key-too-long",
        `key "${showBytes(body, ks, Math.min(ke, ks + 24))}…" is ${ke - ks} bytes, over the limit of ${MAX_KEY_BYTES}`,
      );
    }
    let keyOk = ke > ks;
    let hasControl = false;
    for (let j = ks; j < ke; j++) {
      const c = body[j];
      if (c < 0x61 || c > 0x7a) keyOk = false;
      if (c < 0x20 || c === 0x7f) hasControl = true;
    }
    const key = keyOk ? ascii(body, ks, ke) : null;
    if (key !== null && key in KNOWN_VALUE_LIMITS && ve - vs > KNOWN_VALUE_LIMITS[key]) {
      return rejected("value-too-long", `${key} is ${ve - vs} bytes, over the limit of ${KNOWN_VALUE_LIMITS[key]}`);
    }
    for (let j = vs; j < ve && !hasControl; j++) {
      const c = body[j];
      if (c < 0x20 || c === 0x7f) hasControl = true;
    }
    pairs.push({ key, ks, ke, vs, ve, hasControl });
  }

  return pairs;
}

interface RawFields {
  state?: string;
  id: string | null;
  idBad: string | null;
  kind?: string;
  progress?: string;
  app?: string;
  title: string | null;
  msg: string | null;
}

/** Pass 2: per-pair validation in body order; the last occurrence wins. */
function readPairs(body: Uint8Array, pairs: Pair[], notes: ParseNote[]): RawFields | ParseResult {
  const f: RawFields = { id: null, idBad: null, title: null, msg: null };
  for (const p of pairs) {
    // Built only when a note needs it: this loop is on the scan hot path.
    const shown = () => `${showBytes(body, p.ks, p.ke)}=${showBytes(body, p.vs, p.ve)}`;
    const pair = () => ({ key: showBytes(body, p.ks, p.ke), value: showBytes(body, p.vs, p.ve) });
    if (p.key === null) {
      notes.push({
        code: p.hasControl ? "raw-control" : "malformed-pair",
        detail: `"${shown()}": key must be [a-z]+`,
        ...pair(),
        why: "key must be [a-z]+",
      });
      continue;
    }
    let valueOk = true;
    for (let j = p.vs; j < p.ve; j++) {
      if (!VALUE_BYTE[body[j]]) {
        valueOk = false;
        break;
      }
    }
    if (p.key === "id") {
      // D1: an id outside the alphabet rejects the report; it must never fall back
      // to the root (so `state=clear:id=bad!` clears nothing). Every occurrence counts.
      const problem = valueOk
        ? idProblem(body, p.vs, p.ve)
        : `"${showBytes(body, p.vs, p.ve)}" has bytes outside the value set`;
      if (problem !== null) f.idBad ??= problem;
      else f.id = ascii(body, p.vs, p.ve);
      continue;
    }
    if (!valueOk) {
      // D4: raw C0 bytes stay in the body and make their pair malformed.
      notes.push({
        code: p.hasControl ? "raw-control" : "malformed-pair",
        detail: `"${shown()}": value has bytes outside [A-Za-z0-9_.,+/=-]`,
        ...pair(),
        why: "value has bytes outside [A-Za-z0-9_.,+/=-]",
      });
      continue;
    }
    const v = ascii(body, p.vs, p.ve);
    switch (p.key) {
      case "state":
        f.state = v;
        break;
      case "kind":
        f.kind = v;
        break;
      case "progress":
        f.progress = v;
        break;
      case "app":
        f.app = v;
        break;
      case "title":
      case "msg": {
        // D3: every occurrence must be valid, even one a later duplicate replaces.
        // D16: empty text is absent.
        if (p.ve === p.vs) {
          if (p.key === "title") f.title = null;
          else f.msg = null;
          break;
        }
        const max = p.key === "title" ? MAX_TITLE_DECODED_BYTES : MAX_MSG_DECODED_BYTES;
        const text = decodeText(p.key, body, p.vs, p.ve, max);
        if (typeof text !== "string") return text;
        if (p.key === "title") f.title = text;
        else f.msg = text;
        break;
      }
      default:
        notes.push({
          code: "unknown-key",
          detail: `unknown key "${p.key}" ignored`,
          key: p.key,
          value: v,
          why: "unknown key",
        });
    }
  }

  return f;
}

/** Pass 3: the state decides which other fields apply (clear carries only its id, §2). */
function toReport(f: RawFields, notes: ParseNote[]): ParseResult {
  const { state, id, kind, progress, app, title, msg } = f;
  if (f.idBad !== null) return rejected("bad-id", f.idBad);
  if (state === undefined || state === "") return rejected("no-state", "no state");
  if (!STATE_SET.has(state)) return rejected("unknown-state", `unknown state "${state}"`);
  const st = state as State;

  // A clear carries only its id (§2): other keys were validated above, nothing else applies.
  if (st === "clear") {
    return {
      type: "report",
      report: { state: st, id, kind: null, progress: null, app: null, title: null, msg: null },
      notes,
    };
  }

  let k: Kind | null = null;
  if (kind !== undefined && kind !== "") {
    if (st === "blocked" && KIND_SET.has(kind)) k = kind as Kind;
    else {notes.push({
        code: "kind-dropped",
        detail: st === "blocked" ? `unknown kind "${kind}"` : `kind applies only to blocked`,
        key: "kind",
        value: kind,
        why: st === "blocked" ? "not permission, question or auth" : "kind applies only to blocked",
      });}
  }
  let pr: number | null = null;
  if (progress !== undefined && progress !== "") {
    const n = parseProgress(progress);
    if (n !== null && (st === "working" || st === "blocked")) pr = n;
    else {notes.push({
        code: "progress-dropped",
        detail: n === null
          ? `progress "${progress}" is not an integer 0–100`
          : `progress applies only to working and blocked`,
        key: "progress",
        value: progress,
        why: n === null ? "not an integer 0–100" : "progress applies only to working and blocked",
      });}
  }
  let a: string | null = null;
  if (app !== undefined && app !== "") {
    let ok = true;
    for (let i = 0; i < app.length && ok; i++) ok = NAME_BYTE[app.charCodeAt(i)] === 1;
    if (ok) a = app;
    else {
      notes.push({
        code: "app-dropped",
        detail: `app "${app}" has characters outside [A-Za-z0-9_.+-]`,
        key: "app",
        value: app,
        why: "characters outside [A-Za-z0-9_.+-]",
      });
    }
  }
  return { type: "report", report: { state: st, id, kind: k, progress: pr, app: a, title, msg }, notes };
}

/**
 * Program side (D15, D21): a terminal's answer to the query. `?` alone or `?:k=v:…`
 * means supported; capability pairs are parsed leniently (unknown pairs kept as data,
 * malformed ones ignored). Returns null for anything else. The simulated agent's
 * feature detection reads the terminal's answer with it.
 */
export function parseQueryReplyBody(body: Uint8Array): { capabilities: Record<string, string> } | null {
  if (body.length === 0 || body[0] !== QMARK) return null;
  if (body.length > 1 && body[1] !== COLON) return null;
  const capabilities: Record<string, string> = {};
  const text = ascii(body, Math.min(2, body.length), body.length);
  for (const pair of text.split(":")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    const k = pair.slice(0, eq).trim(), v = pair.slice(eq + 1).trim();
    if (/^[a-z]+$/.test(k)) capabilities[k] = v;
  }
  return { capabilities };
}
