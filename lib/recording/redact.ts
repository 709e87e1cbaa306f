// Redaction for bug reports (asciinema #657, #590, #216): scrub secrets from output,
// input, markers, events of unknown codes and every string and number of the header
// (tags, theme, env, unknown keys, pstlab's provenance), including what pstlab itself
// decodes inside OSC sequences, 7- or 8-bit (raw C1 too), at any tmux passthrough depth:
// OSC 7501 `msg`/`title` (base64: decoded, scrubbed, re-encoded valid), OSC 7501
// structural values (`id`, `app`, invalid `kind` and unknown keys' values: a placeholder
// of the same grammar, `redacted-N`, the same for the same secret, so the report still
// parses and counts the same; unknown key names: as many `x`), and OSC 52 clipboard
// payloads (base64). Valid `state`, `kind` and `progress` values and the protocol's keys
// are vocabulary, never secrets, and are left as they are.
//
// Secrets are often split across reads (a password typed one key per `i` event), so
// each stream is matched over a sliding window of consecutive reads; events are held
// back only as long as a match could still straddle them (`maxSecret` bytes), so
// memory stays bounded on any file size. Only the secret's bytes change: a replacement
// goes into the read where its part starts, the other reads lose their part of it, and
// everything else (an OSC sequence's keys and terminator, escape sequences between the
// characters of a secret as shown) stays in its read, so every report completes at the
// time it did. Every event still decodes. `redact --check` runs this same Redactor.

import { compilePattern, matchesOnlyEmpty, type Pattern, RegexError } from "../regex/pattern.ts";
import { UsageError } from "../errors.ts";
import { decodeBase64Strict, encodeBase64 } from "../osc7501/base64.ts";
import type { Event, Header } from "./model.ts";
import { MAX_ID_SEGMENT_BYTES } from "../osc7501/limits.ts";
import { KINDS, parseBody, STATES } from "../osc7501/parse.ts";
import { mapOsc94 } from "../osc7501/osc94.ts";

export interface RedactOptions {
  /** Through the one regex runner (lib/regex): a pattern that could backtrack catastrophically runs in linear time. */
  patterns: Pattern[];
  replace: string;
  /** Longest secret that is still found when split across reads (bytes). */
  maxSecret?: number;
  /** Bytes of a long event scanned at a time (default 1 MiB; tests make it tiny to cross windows often). */
  scanWindow?: number;
}

export interface RedactStats {
  output: number;
  input: number;
  /** OSC 7501 msg/title text (decoded from base64). */
  osc7501: number;
  /** OSC 7501 structural values (id, app, kind, unknown keys), replaced by placeholders. */
  osc7501Fields: number;
  /** OSC 52 clipboard payloads (decoded from base64). */
  osc52: number;
  markers: number;
  /** Events with codes pstlab does not know. */
  other: number;
  header: number;
}

/** Where replacements happened, for the one-line summary (and `--check`). */
export function describeStats(s: RedactStats): string {
  const parts: [string, number][] = [
    ["output", s.output],
    ["input", s.input],
    ["OSC 7501 text", s.osc7501],
    ["OSC 7501 fields", s.osc7501Fields],
    ["OSC 52", s.osc52],
    ["markers", s.markers],
    ["other events", s.other],
    ["header", s.header],
  ];
  return parts.map(([k, n]) => `${k} ${n}`).join(", ");
}

export function totalOf(s: RedactStats): number {
  return s.output + s.input + s.osc7501 + s.osc7501Fields + s.osc52 + s.markers + s.other + s.header;
}

const te = new TextEncoder();
const td = new TextDecoder();

/** One pattern with every pattern as an alternative (leftmost match wins). */
export function combine(patterns: Pattern[]): Pattern | null {
  if (patterns.length === 0) return null;
  if (patterns.length === 1) return patterns[0];
  return compilePattern(patterns.map((p) => `(?:${p.source})`).join("|"));
}

/**
 * The one matcher redact and `redact --check` share: every non-empty match of `re` in
 * `text` (the regex runner never yields an empty one: it would scrub nothing). Patterns
 * that can match only the empty string are refused up front (compilePatterns).
 */
export function matches(re: Pattern, text: string): Generator<{ index: number; end: number; text: string }> {
  return re.all(text);
}

/** Replaces every match in a string (with `replace`, or what `replacer` gives for the match); returns the new string and the count. */
export function redactString(
  s: string,
  re: Pattern | null,
  replace: string | null,
  replacer?: (m: string) => string,
): [string, number] {
  if (!re) return [s, 0];
  let n = 0, out = "", from = 0;
  for (const m of matches(re, s)) {
    n++;
    out += s.slice(from, m.index) + (replacer ? replacer(m.text) : replace!);
    from = m.end;
  }
  return n ? [out + s.slice(from), n] : [s, 0];
}

/** Work arrays reused from one scan window to the next (the garbage of 40 windows was most of redact's peak memory). */
export class Scratch {
  private a16: Uint16Array[] = [];
  private a32: Uint32Array[] = [];
  u16(slot: number, n: number): Uint16Array {
    if (!this.a16[slot] || this.a16[slot].length < n) this.a16[slot] = new Uint16Array(Math.max(n, 1024));
    return this.a16[slot].subarray(0, n);
  }
  u32(slot: number, n: number): Uint32Array {
    if (!this.a32[slot] || this.a32[slot].length < n) this.a32[slot] = new Uint32Array(Math.max(n, 1024));
    return this.a32[slot].subarray(0, n);
  }
}

/** UTF-8 decode keeping, for every UTF-16 unit, the byte offset it came from. */
export function decodeWithMap(b: Uint8Array, scratch?: Scratch): { text: string; map: Uint32Array } {
  // Typed arrays, not a JS value per unit: at most one unit per byte (a 4-byte character
  // is two), so b.length bounds both; reused from `scratch` window after window.
  const units = scratch ? scratch.u16(0, b.length) : new Uint16Array(b.length);
  const map = scratch ? scratch.u32(0, b.length + 1) : new Uint32Array(b.length + 1);
  let m = 0;
  let i = 0;
  const push = (u: number, at: number) => {
    units[m] = u;
    map[m++] = at;
  };
  while (i < b.length) {
    const c = b[i];
    let cp = -1, len = 1;
    if (c < 0x80) cp = c;
    else if (c >= 0xc2 && c < 0xe0 && i + 1 < b.length && (b[i + 1] & 0xc0) === 0x80) {
      cp = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f);
      len = 2;
    } else if (c >= 0xe0 && c < 0xf0 && i + 2 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80) {
      cp = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
      len = 3;
      if (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000)) cp = -1;
    } else if (
      c >= 0xf0 && c < 0xf5 && i + 3 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80 &&
      (b[i + 3] & 0xc0) === 0x80
    ) {
      cp = ((c & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
      len = 4;
      if (cp < 0x10000 || cp > 0x10ffff) cp = -1;
    }
    if (cp < 0) {
      // A lone byte 0x80–0x9F is an 8-bit C1 control (a raw OSC 0x9D … ST 0x9C, stored
      // as a "b" event): decoded as that control, so the OSC scrubbers see the sequence.
      push(c >= 0x80 && c < 0xa0 ? c : 0xfffd, i);
      i += 1;
      continue;
    }
    if (cp >= 0x10000) {
      push(0xd800 + ((cp - 0x10000) >> 10), i);
      push(0xdc00 + ((cp - 0x10000) & 0x3ff), i);
    } else push(cp, i);
    i += len;
  }
  map[m] = b.length;
  let text = "";
  for (let k = 0; k < m; k += 8192) text += String.fromCharCode(...units.subarray(k, Math.min(m, k + 8192)));
  return { text, map: map.subarray(0, m + 1) };
}

/** One replacement: bytes [s, e) of the joined stream window become `with`. */
interface Part {
  s: number;
  e: number;
  with: Uint8Array;
}

/**
 * One match (or one OSC 7501/52 sequence): its extent, which a cut between writes never
 * falls inside, and its parts, applied where they are. Splitting a match into parts keeps
 * what is not secret (a sequence's keys and terminator, escape sequences between the
 * characters a person sees) in the read it was in: a report completes when it completed.
 */
interface Span {
  s: number; // byte offsets in the joined stream window
  e: number;
  parts: Part[];
  /** Replacements inside an OSC sequence, by location (counted when applied); null: one plain match. */
  osc: Partial<RedactStats> | null;
}

// An OSC 7501 or OSC 52 sequence, plain or inside tmux passthrough (every inner ESC
// doubled per level): the introducer's ESCs, the code, the body, the terminator.
// The 8-bit form (C1 OSC U+009D … ST U+009C or BEL) too: pstlab's parser treats C1 as
// payload, but a terminal emulator may not, so its bytes are scrubbed all the same.
const OSC = [
  /(\x1b+\])(7501|52);([^\x07\x1b\x18\x1a]*)(\x07|\x1b+\\)/g,
  /(\u009d)(7501|52);([^\x07\x1b\x18\x1a\u009c]*)(\x07|\u009c)/g,
];
/**
 * Values that are protocol vocabulary, not free text: a valid one is never replaced (a
 * pattern `working` must not turn a report invalid). An invalid one (a secret pasted
 * into `state=`) is free text: the report is rejected either way, and it is scrubbed.
 */
const VOCABULARY: Record<string, (v: string) => boolean> = {
  state: (v) => (STATES as readonly string[]).includes(v),
  kind: (v) => (KINDS as readonly string[]).includes(v),
  progress: (v) => /^[0-9]+$/.test(v),
};
/** OSC 7501 keys the protocol defines; any other key name is free text, scrubbed like a value. */
const KNOWN_KEYS = new Set(["state", "progress", "id", "app", "kind", "msg", "title"]);

/** A replacement inside a string: [a, b) becomes `with`. */
interface TextEdit {
  a: number;
  b: number;
  with: string;
}
const PLACEHOLDER_MAX = MAX_ID_SEGMENT_BYTES;

export class Redactor {
  readonly stats: RedactStats = {
    output: 0,
    input: 0,
    osc7501: 0,
    osc7501Fields: 0,
    osc52: 0,
    markers: 0,
    other: 0,
    header: 0,
  };
  /** Secret → placeholder inside OSC 7501 values: the same secret always reads the same. */
  private readonly placeholders = new Map<string, string>();
  private re: Pattern | null;
  private queue: Event[] = [];
  private held = { output: 0, input: 0 };
  private readonly max: number;
  private readonly window: number;
  private readonly scratch = new Scratch();
  private readonly scan: number;

  constructor(private readonly opts: RedactOptions) {
    this.re = combine(opts.patterns);
    this.max = opts.maxSecret ?? 4096;
    this.window = Math.max(65536, this.max * 4);
    this.scan = opts.scanWindow ?? SCAN_WINDOW;
  }

  /** Every string in the header, at any depth (keys of unknown fields included). */
  header(h: Header): Header {
    const deep = (v: unknown): unknown => {
      if (typeof v === "string") {
        const [x, n] = redactString(v, this.re, this.opts.replace);
        this.stats.header += n;
        return x;
      }
      // A number is matched as its JSON text (a numeric token in env is still a secret);
      // scrubbed, it becomes the replacement string.
      if (typeof v === "number") {
        const [x, n] = redactString(String(v), this.re, this.opts.replace);
        this.stats.header += n;
        return n ? x : v;
      }
      if (Array.isArray(v)) return v.map(deep);
      if (v && typeof v === "object") {
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [deep(k) as string, deep(x)]));
      }
      return v;
    };
    // Every string, env's names and its non-string values (envExtra) included: a name
    // can carry a secret as well as a value can.
    // Not the format's own numbers: the terminal size, the start time and the playback
    // idle limit are not free text (`redact --help` says so), and stay numbers.
    const { cols, rows, timestamp, idleTimeLimit, ...rest } = h;
    const out = deep(rest) as Header;
    out.cols = cols;
    out.rows = rows;
    if (timestamp !== undefined) out.timestamp = timestamp;
    if (idleTimeLimit !== undefined) out.idleTimeLimit = idleTimeLimit;
    return out;
  }

  /** Feeds one event; returns the events that are now safe to write, in order. */
  push(e: Event): Event[] {
    if (e.kind === "marker") {
      // A truth label's state (and kind) is what the capture is scored against: the
      // vocabulary stays, whatever the pattern; the rest of the label is free text.
      const keep = truthVocabulary(e.label);
      const [rest, n] = redactString(e.label.slice(keep), this.re, this.opts.replace);
      this.stats.markers += n;
      e = { ...e, label: e.label.slice(0, keep) + rest };
    } else if (e.kind === "other") {
      const [data, n] = redactString(e.data, this.re, this.opts.replace);
      this.stats.other += n;
      e = { ...e, data };
    }
    this.queue.push(e);
    if (e.kind === "output" || e.kind === "input") this.held[e.kind] += e.bytes.length;
    else if (this.held.output === 0 && this.held.input === 0) return this.take(this.queue.length);
    if (this.held.output + this.held.input < this.window + this.max) return [];
    return this.process(false);
  }

  /** End of input: everything left. */
  end(): Event[] {
    return this.process(true);
  }

  private take(n: number): Event[] {
    const out = this.queue.splice(0, n);
    for (const e of out) if (e.kind === "output" || e.kind === "input") this.held[e.kind] -= e.bytes.length;
    return out;
  }

  private process(final: boolean): Event[] {
    // For each stream: the queue position up to which its reads can no longer be
    // part of a match that is not fully inside the window.
    let cut = this.queue.length;
    const plans: { kind: "output" | "input"; idx: number[]; spans: Span[]; offsets: number[] }[] = [];
    for (const kind of ["output", "input"] as const) {
      const idx: number[] = [];
      this.queue.forEach((e, i) => e.kind === kind && idx.push(i));
      if (idx.length === 0) continue;
      const offsets: number[] = [0];
      for (const i of idx) offsets.push(offsets.at(-1)! + (this.queue[i] as { bytes: Uint8Array }).bytes.length);
      const joined = new Uint8Array(offsets.at(-1)!);
      idx.forEach((i, k) => joined.set((this.queue[i] as { bytes: Uint8Array }).bytes, offsets[k]));
      const spans = this.findSpansWindowed(joined, kind === "output");
      let safeEnd = final ? joined.length : Math.max(0, joined.length - this.max);
      // Never cut inside a match: move the cut to the end of the read holding its end.
      for (const sp of spans) if (sp.s < safeEnd && sp.e > safeEnd) safeEnd = sp.e;
      let k = 0; // reads fully before safeEnd
      while (k < idx.length && offsets[k + 1] <= safeEnd) k++;
      if (k < idx.length && spans.some((sp) => sp.s < offsets[k] && sp.e > offsets[k])) {
        while (k < idx.length && spans.some((sp) => sp.s < offsets[k] && sp.e > offsets[k])) k++;
      }
      if (k < idx.length) cut = Math.min(cut, idx[k]);
      plans.push({ kind, idx, spans, offsets });
    }
    // Apply the spans that start in the part being written.
    for (const { kind, idx, spans, offsets } of plans) {
      const limitRead = idx.findIndex((i) => i >= cut);
      const nReads = limitRead < 0 ? idx.length : limitRead;
      const limitByte = offsets[nReads];
      const parts: Uint8Array[][] = Array.from({ length: nReads }, () => []);
      const readOf = (b: number) => {
        let lo = 0, hi = nReads - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (offsets[mid] <= b) lo = mid;
          else hi = mid - 1;
        }
        return lo;
      };
      let pos = 0;
      const copy = (from: number, to: number) => {
        while (from < to) {
          const r = readOf(from);
          const end = Math.min(to, offsets[r + 1]);
          parts[r].push(
            (this.queue[idx[r]] as { bytes: Uint8Array }).bytes.subarray(from - offsets[r], end - offsets[r]),
          );
          from = end;
        }
      };
      const edits: Part[] = [];
      for (const sp of spans) {
        if (sp.s >= limitByte) break;
        if (sp.parts.length === 0) continue;
        edits.push(...sp.parts);
        if (sp.osc) { for (const [k, n] of Object.entries(sp.osc)) this.stats[k as keyof RedactStats] += n; }
        else this.stats[kind]++;
      }
      if (edits.length === 0) continue;
      // A replacement goes into the read where its part starts; the bytes around it stay
      // in their reads (a part never holds a sequence's structure: see findSpans).
      for (const p of edits.sort((a, b) => a.s - b.s)) {
        copy(pos, p.s);
        parts[readOf(p.s)].push(p.with);
        pos = p.e;
      }
      copy(pos, limitByte);
      for (let r = 0; r < nReads; r++) {
        const e = this.queue[idx[r]] as { bytes: Uint8Array };
        const len = parts[r].reduce((n, p) => n + p.length, 0);
        const b = new Uint8Array(len);
        let o = 0;
        for (const p of parts[r]) {
          b.set(p, o);
          o += p.length;
        }
        this.held[kind] += b.length - e.bytes.length;
        this.queue[idx[r]] = { ...(this.queue[idx[r]] as Event), bytes: b } as Event;
      }
    }
    return this.take(cut);
  }

  /** A placeholder for a secret inside a structural value: valid in ids, app names and values. */
  private placeholder(secret: string): string {
    let p = this.placeholders.get(secret);
    if (!p) this.placeholders.set(secret, p = `redacted-${this.placeholders.size + 1}`);
    return p.length <= PLACEHOLDER_MAX ? p : `r${this.placeholders.size}`;
  }

  /**
   * A secret masked at its own length in bytes, each byte of the class the parser tells
   * apart (a name character stays a name character, `/` `,` `=` `.` `+` `-` and
   * controls stay), ending in the secret's number so two secrets stay two ids.
   */
  private mask(secret: string): string {
    const n = this.placeholder(secret).replace(/^\D*/, "");
    const out: string[] = [];
    for (const ch of secret) {
      const c = ch.codePointAt(0)!;
      if (/[A-Za-z0-9_]/.test(ch)) out.push("x");
      else if (c < 0x20 || c === 0x7f || "/,=.+-".includes(ch)) out.push(ch);
      else out.push("!".repeat(te.encode(ch).length));
    }
    // The number replaces the last name characters (as many as there are).
    let k = n.length - 1;
    for (let i = out.length - 1; i >= 0 && k >= 0; i--) if (out[i] === "x") out[i] = n[k--];
    return out.join("");
  }

  /**
   * base64 text decoded, scrubbed and re-encoded; null when it is not base64 (then it is
   * scrubbed as plain text). Decoded leniently — whitespace and line breaks skipped, as
   * the OSC 52 decoders of real terminals and tmux do — even in OSC 7501 `msg`, where the
   * spec calls such a pair malformed: the bytes are in the file either way.
   */
  private base64Text(
    value: string,
    counts: Partial<RedactStats>,
    where: "osc7501" | "osc52",
    mask = false,
  ): string | null {
    const raw = decodeBase64Strict(te.encode(value)) ?? decodeBase64Strict(te.encode(value.replace(/\s+/g, "")));
    if (!raw) return null;
    // mask: as many bytes as the secret had, so the decoded length (and its limit) is kept.
    const [v, n] = redactString(
      td.decode(raw),
      this.re,
      this.opts.replace,
      mask ? (m) => "*".repeat(te.encode(m).length) : undefined,
    );
    if (n === 0) return value;
    counts[where] = (counts[where] ?? 0) + n;
    const enc = encodeBase64(te.encode(v));
    if (!mask) return enc;
    // Masked, the text is as long as it was, so is its base64: the spaces and line breaks
    // the original carried (a malformed pair the parser notes) go back where they were.
    const gaps = value.match(/\s/g)?.length ?? 0;
    if (gaps === 0 || value.length - gaps !== enc.length) return enc;
    let k = 0;
    return value.replace(/\S/g, () => enc[k++]);
  }

  /**
   * Edits inside an OSC 7501 body, by position in the body: only the values (and unknown
   * keys) that hold a secret change; keys, separators, the introducer and the terminator
   * stay where they were, so a report split across reads still completes in the read it
   * completed in (the parser sees the same structure at the same time).
   */
  private osc7501Edits(body: string, term: string, counts: Partial<RedactStats>): TextEdit[] {
    const first: Partial<RedactStats> = {};
    const edits = this.osc7501EditsAs(body, first, false);
    // The gate: the parser must judge the scrubbed body as it judged the original (the
    // same acceptance or rejection reason, the same fields present, the same notes). A
    // placeholder can cross a limit the secret was over (an id segment of 40 bytes was
    // rejected; redacted-1 is not): then every secret is masked at its own length.
    if (edits.length === 0 || verdictOf(body, term) === verdictOf(applyEdits(body, edits), term)) {
      addCounts(counts, first);
      return edits;
    }
    const masked: Partial<RedactStats> = {};
    const out = this.osc7501EditsAs(body, masked, true);
    addCounts(counts, masked);
    return out;
  }

  private osc7501EditsAs(body: string, counts: Partial<RedactStats>, mask: boolean): TextEdit[] {
    const edits: TextEdit[] = [];
    const re = this.re!;
    const fields = (s: string, at: number, key = false) => {
      for (const m of matches(re, s)) {
        // A key becomes as long as it was: its length decides whether the parser rejects
        // the report (over MAX_KEY_BYTES), so a shorter placeholder would make a rejected
        // report count. Unknown keys are ignored, so they need not stay distinct.
        edits.push({
          a: at + m.index,
          b: at + m.end,
          with: key ? "x".repeat(te.encode(m.text).length) : mask ? this.mask(m.text) : this.placeholder(m.text),
        });
        counts.osc7501Fields = (counts.osc7501Fields ?? 0) + 1;
      }
    };
    let start = 0;
    for (const pair of body.split(":")) {
      const at = start;
      start += pair.length + 1;
      const eq = pair.indexOf("=");
      // Not a pair (malformed): still bytes in the file, scrubbed as text.
      if (eq < 0) {
        fields(pair, at);
        continue;
      }
      const key = pair.slice(0, eq).trim();
      if (Object.hasOwn(VOCABULARY, key) && VOCABULARY[key](pair.slice(eq + 1).trim())) continue;
      // A key pstlab does not know is free text as much as its value is.
      if (!KNOWN_KEYS.has(key)) fields(pair.slice(0, eq), at, true);
      const value = pair.slice(eq + 1);
      if (key === "msg" || key === "title") {
        const text = this.base64Text(value.trim(), counts, "osc7501", mask);
        if (text !== null) {
          if (text !== value.trim()) edits.push({ a: at + eq + 1, b: at + pair.length, with: text });
          continue;
        }
      }
      fields(value, at + eq + 1);
    }
    return edits;
  }

  /** OSC 52: `Pc ; Pd` with Pd base64 (or `?`, a query): the edit of Pd, if any. */
  private osc52Edits(body: string, counts: Partial<RedactStats>): TextEdit[] {
    const semi = body.indexOf(";");
    if (semi < 0) return [];
    const text = this.base64Text(body.slice(semi + 1), counts, "osc52");
    return text === null || text === body.slice(semi + 1) ? [] : [{ a: semi + 1, b: body.length, with: text }];
  }

  /**
   * findSpans over windows of SCAN_WINDOW bytes that overlap by maxSecret, so the working
   * memory (text, byte map, visible text: ~10 bytes per byte) is bounded per window, not
   * per event: one 40 MB `o` event needed 2.4 GB. A match is taken from the window it
   * starts in (before the overlap); a window never ends inside an OSC string (OSC 52 and
   * 7501 payloads are decoded whole), it is extended to the string's terminator.
   */
  private findSpansWindowed(joined: Uint8Array, isOutput: boolean): Span[] {
    if (joined.length <= this.scan + this.max) return this.findSpans(joined, isOutput);
    const spans: Span[] = [];
    let from = 0;
    while (from < joined.length) {
      let limit = Math.min(joined.length, from + this.scan);
      limit = oscSafeEnd(joined, from, limit);
      const end = Math.min(joined.length, Math.max(limit, oscSafeEnd(joined, from, limit + this.max)));
      const last = end >= joined.length;
      let next = limit;
      for (const sp of this.findSpans(joined.subarray(from, end), isOutput)) {
        const s = sp.s + from;
        // Taken from this window: a span starting before the limit, or inside one taken
        // (an OSC sequence within a plain match that skips it). The next window starts
        // after everything taken, so nothing is found twice.
        if (!last && s >= limit && s >= next) break;
        spans.push({
          s,
          e: sp.e + from,
          parts: sp.parts.map((p) => ({ s: p.s + from, e: p.e + from, with: p.with })),
          osc: sp.osc,
        });
        next = Math.max(next, sp.e + from);
      }
      if (last) break;
      from = next;
    }
    return spans;
  }

  /**
   * Replacement spans, by start: one per OSC 7501/52 sequence (its extent, and the edits
   * of the values inside it; none when nothing in it matched — then the sequence still
   * claims its bytes, so a plain match cannot cut into the protocol's structure), then
   * one per plain match (raw text, then the text as a terminal shows it), whose parts
   * skip those sequences and, for a match on the shown text, the bytes not shown.
   */
  private findSpans(joined: Uint8Array, isOutput: boolean): Span[] {
    if (!this.re) return [];
    const { text, map } = decodeWithMap(joined, this.scratch);
    const spans: Span[] = [];
    const seqs = new Disjoint<Span>();
    if (isOutput) {
      for (const osc of OSC) {
        osc.lastIndex = 0;
        for (let m; (m = osc.exec(text));) {
          const [whole, intro, code, body, term] = m;
          const s = map[m.index], e = map[m.index + whole.length];
          if (seqs.overlaps(s, e)) continue; // one 8-bit inside a 7-bit body: scrubbed with it
          const counts: Partial<RedactStats> = {};
          const edits = code === "7501" ? this.osc7501Edits(body, term, counts) : this.osc52Edits(body, counts);
          const at = m.index + intro.length + code.length + 1;
          seqs.add({
            s,
            e,
            parts: edits.map((x) => ({ s: map[at + x.a], e: map[at + x.b], with: te.encode(x.with) })),
            osc: counts,
          });
        }
      }
      spans.push(...seqs.list);
    }
    const re = this.re;
    const plainParts = new Disjoint<Part>();
    const replacement = te.encode(this.opts.replace);
    const empty = new Uint8Array(0);
    /** A match covering these byte ranges (in order): the first gets the replacement, the others are removed. */
    const fixed = isOutput ? structure(text, map, seqs.list) : [];
    const add = (ranges: [number, number][]) => {
      const pieces: [number, number][] = [];
      for (const [s, e] of ranges) {
        let from = s;
        // The first fixed range ending after `s` (they are disjoint and sorted).
        let lo = 0, hi = fixed.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (fixed[mid][1] <= s) lo = mid + 1;
          else hi = mid;
        }
        for (let k = lo; k < fixed.length && fixed[k][0] < e; k++) {
          if (fixed[k][0] > from) pieces.push([from, fixed[k][0]]);
          from = Math.max(from, fixed[k][1]);
        }
        if (from < e) pieces.push([from, e]);
      }
      if (pieces.length === 0) return; // inside a protocol sequence (scrubbed with it) or structure only
      if (pieces.some(([s, e]) => plainParts.overlaps(s, e))) return; // handled already
      const parts = pieces.map(([s, e], k) => ({ s, e, with: k === 0 ? replacement : empty }));
      for (const p of parts) plainParts.add(p);
      spans.push({ s: ranges[0][0], e: ranges[ranges.length - 1][1], parts, osc: null });
    };
    for (const m of matches(re, text)) add([[map[m.index], map[m.end]]]);
    // What a person sees: the output's text with escape sequences skipped
    // (`grep --color=always` splits a key with SGR). Only the characters shown are the
    // secret: the bytes between them (sequences, controls, a character a backspace
    // overwrote) are kept where they were, so no report or mode change moves or vanishes.
    if (isOutput) {
      const { visible, at } = visibleText(text, this.scratch);
      if (visible.length !== text.length) {
        for (const m of matches(re, visible)) {
          const ranges: [number, number][] = [];
          let runStart = at[m.index];
          for (let j = m.index + 1; j <= m.end; j++) {
            if (j < m.end && at[j] === at[j - 1] + 1) continue;
            ranges.push([map[runStart], map[at[j - 1] + 1]]);
            if (j < m.end) runStart = at[j];
          }
          add(ranges);
        }
      }
    }
    return spans.sort((a, b) => a.s - b.s);
  }
}

/**
 * Ranges that do not overlap, kept sorted, each overlap test a binary search: a test
 * against every span so far made a read with 75,000 matches take 32 s (300 KB of one
 * repeated secret; 243 s at 1 MB), during which no signal was handled.
 */
class Disjoint<T extends { s: number; e: number }> {
  readonly list: T[] = [];

  /** The index of the first range ending after s. */
  private after(s: number): number {
    const l = this.list;
    let lo = 0, hi = l.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (l[mid].e > s) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  overlaps(s: number, e: number): boolean {
    const i = this.after(s);
    return i < this.list.length && this.list[i].s < e;
  }

  /** Adds a range that overlaps none (callers test first); matches come in order, so mostly at the end. */
  add(r: T): void {
    const i = this.after(r.s);
    if (i === this.list.length) this.list.push(r);
    else this.list.splice(i, 0, r);
  }
}

// A string sequence (OSC, DCS, SOS, PM, APC; 7- or 8-bit): its introducer (with an OSC's
// number and `;`), its payload, its terminator when there is one.
const STRING_SEQ =
  /(\x1b\][0-9]*;?|\x1b[P^_X]|\u009d[0-9]*;?|[\u0090\u0098\u009e\u009f])[^\x07\x1b\u009c]*(\x07|\x1b\\|\u009c)?/g;

/**
 * Byte ranges a plain match never changes, disjoint and sorted: OSC 7501/52 sequences
 * whole (their own scrubber handles them) and every other string sequence's introducer
 * and terminator. A pattern like `token=\S*` then cannot eat a title's BEL and leave the
 * sequence open over the reports after it; a secret in a title's text is still scrubbed.
 */
function structure(text: string, map: Uint32Array, seqs: Span[]): [number, number][] {
  const r: [number, number][] = seqs.map((q) => [q.s, q.e]);
  STRING_SEQ.lastIndex = 0;
  for (let m; (m = STRING_SEQ.exec(text));) {
    const end = m.index + m[0].length;
    // OSC 9;4 progress is a report too (the tracker maps it onto the root record): a
    // valid one is vocabulary, whole, like a valid OSC 7501 state.
    if (m[2] && /^(?:\x1b\]|\u009d)9;$/.test(m[1]) && mapOsc94(m[0].slice(m[1].length, -m[2].length)) !== null) {
      r.push([map[m.index], map[end]]);
      continue;
    }
    r.push([map[m.index], map[m.index + m[1].length]]);
    if (m[2]) r.push([map[end - m[2].length], map[end]]);
  }
  r.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const x of r) {
    const last = out.at(-1);
    if (last && x[0] <= last[1]) last[1] = Math.max(last[1], x[1]);
    else out.push([x[0], x[1]]);
  }
  return out;
}

/** The parser's judgement of a body, as much as a report or its scoring can see of it. */
function verdictOf(body: string, term: string): string {
  const r = parseBody(te.encode(body), term === "\x07" ? "bel" : "st");
  if (r.type !== "report") return r.type === "rejected" ? `${r.disposition}:${r.reason}` : r.type;
  const p = r.report;
  const has = (v: unknown) => v === null ? "-" : "+";
  return [p.state, has(p.id), p.kind, p.progress, has(p.app), has(p.title), has(p.msg), ...r.notes.map((n) => n.code)]
    .join("|");
}

function applyEdits(s: string, edits: TextEdit[]): string {
  let out = "", from = 0;
  for (const x of [...edits].sort((a, b) => a.a - b.a)) {
    out += s.slice(from, x.a) + x.with;
    from = x.b;
  }
  return out + s.slice(from);
}

function addCounts(into: Partial<RedactStats>, from: Partial<RedactStats>): void {
  for (const [k, n] of Object.entries(from)) into[k as keyof RedactStats] = (into[k as keyof RedactStats] ?? 0) + n;
}

/**
 * How much of a marker label is truth vocabulary: `truth:STATE` and `:KIND` when they are
 * the protocol's words (score/truth.ts reads them; its states are among STATES).
 */
export function truthVocabulary(label: string): number {
  const m = /^truth:([a-z]+)(?::([a-z]+))?/.exec(label);
  if (!m || !(STATES as readonly string[]).includes(m[1])) return 0;
  return m[2] !== undefined && (KINDS as readonly string[]).includes(m[2]) ? m[0].length : 6 + m[1].length;
}

/** Bytes of one event (or of reads joined) scanned at a time: see findSpansWindowed. */
const SCAN_WINDOW = 1 << 20;

/**
 * `end`, or further when it falls inside an OSC string (ESC ] or U+009D up to the first
 * BEL, ESC, CAN, SUB or U+009C): then just past that string's terminator (or the end).
 */
export function oscSafeEnd(b: Uint8Array, from: number, end: number): number {
  if (end >= b.length) return b.length;
  // A C1 control either UTF-8 encoded (C2 9C) or raw (a byte 0x9C that no lead byte
  // claims: decodeWithMap reads it as the control).
  const c1 = (i: number, c: number) => b[i] === c && (b[i - 1] === 0xc2 || i === 0 || b[i - 1] < 0x80);
  const isTerm = (i: number) => b[i] === 0x07 || b[i] === 0x1b || b[i] === 0x18 || b[i] === 0x1a || c1(i, 0x9c);
  let q = end - 1;
  while (q >= from && !isTerm(q)) q--;
  // After the last terminator byte: an OSC is open if that byte is ESC ] or a U+009D follows it.
  let open = q >= from && b[q] === 0x1b && b[q + 1] === 0x5d && q + 1 < end;
  for (let i = Math.max(q + 1, from); !open && i < end; i++) open = c1(i, 0x9d);
  if (!open) return end;
  let i = end;
  while (i < b.length && !isTerm(i)) i++;
  return Math.min(b.length, i + 2);
}

// Escape sequences a terminal does not show: CSI (7- and 8-bit), OSC/DCS/SOS/PM/APC
// strings (to BEL or ST, or cut off), and two-byte escapes.
const INVISIBLE =
  /\x1b\[[0-?]*[ -\/]*[@-~]|\u009b[0-?]*[ -\/]*[@-~]|(?:\x1b[\]P^_X]|[\u0090\u0098\u009d-\u009f])[^\x07\x1b\u009c]*(?:\x07|\x1b\\|\u009c)?|\x1b[ -\/]*[0-~]/g;

// Characters a terminal does not draw, so a secret split by them still reads whole on the
// screen: C0 controls other than \t \n \r (and \b, which overwrites: below), DEL, C1, and
// zero-width, bidi and other invisible formatting characters.
const HIDDEN =
  /[\x00-\x07\x0b\x0c\x0e-\x1f\x7f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8]/;
const isHidden = (c: number) =>
  c < 0x80
    ? (c < 0x20 && c !== 9 && c !== 10 && c !== 13 && c !== 8) || c === 0x7f
    : HIDDEN.test(String.fromCharCode(c));

/**
 * The text as a terminal displays it: escape sequences and invisible characters skipped,
 * a character followed by a backspace dropped (the next one overwrites it); for each of
 * its units, the index in `text` it came from. Typed arrays, not a unit per JS value: the
 * window can be megabytes.
 */
export function visibleText(text: string, scratch?: Scratch): { visible: string; at: Uint32Array } {
  const units = scratch ? scratch.u16(1, text.length) : new Uint16Array(text.length);
  const at = scratch ? scratch.u32(1, text.length) : new Uint32Array(text.length);
  let n = 0;
  const keep = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === 8) {
        // Backspace: the cursor goes back over the last character on this line.
        if (n > 0 && units[n - 1] !== 10 && units[n - 1] !== 13) {
          n--;
          if (n > 0 && units[n] >= 0xdc00 && units[n] < 0xe000 && units[n - 1] >= 0xd800 && units[n - 1] < 0xdc00) n--;
        }
        continue;
      }
      // Tag characters and supplementary variation selectors (U+E0000–E01EF): invisible.
      if (c === 0xdb40 && i + 1 < to) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xddf0) {
          i++;
          continue;
        }
      }
      if ((c < 0x20 || c >= 0x7f) && isHidden(c)) continue;
      units[n] = c;
      at[n++] = i;
    }
  };
  let pos = 0;
  INVISIBLE.lastIndex = 0;
  for (let m; (m = INVISIBLE.exec(text));) {
    keep(pos, m.index);
    pos = m.index + m[0].length;
  }
  keep(pos, text.length);
  let visible = "";
  for (let k = 0; k < n; k += 8192) visible += String.fromCharCode(...units.subarray(k, Math.min(n, k + 8192)));
  return { visible, at: at.subarray(0, n) };
}

/** Names of environment variables whose values look like secrets (`--env-values`). */
export const SECRET_ENV =
  /(TOKEN|SECRET|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|AUTH|COOKIE|SESSION|_KEY$|^KEY$)/i;

/**
 * Shortest environment value treated as a secret (`--env-values`): shorter values
 * ("1", "yes", "/bin") would scrub ordinary text everywhere. Documented in `redact --help`.
 */
export const MIN_ENV_SECRET = 6;

/**
 * Literal patterns for secret-looking values of `env` (and of the header's env block).
 * `placeholders` are the texts a previous redact left behind (`--replace`, default
 * [REDACTED]): a value made only of placeholders plus fewer than MIN_ENV_SECRET other
 * characters is the scrubbed remains of a secret, not a secret, so `redact --check
 * --env-values` on a redacted file does not count the placeholder as a match.
 */
export function envValuePatterns(
  env: Record<string, string | undefined>,
  header?: Record<string, unknown>,
  placeholders: string[] = ["[REDACTED]"],
): Pattern[] {
  const isSecret = (v: string | undefined): v is string => {
    if (!v) return false;
    let rest = v;
    for (const p of placeholders) if (p) rest = rest.split(p).join("");
    return rest.length >= MIN_ENV_SECRET && v.length >= MIN_ENV_SECRET;
  };
  const values = new Set<string>();
  for (const [k, v] of Object.entries(env)) if (isSecret(v) && SECRET_ENV.test(k)) values.add(v);
  // The header's env as written: a value that is not a string (a number, an object or
  // array of them) is in the file all the same; every string and number in it counts.
  const leaves = (v: unknown, into: string[]): string[] => {
    if (typeof v === "string") into.push(v);
    else if (typeof v === "number") into.push(String(v));
    else if (v && typeof v === "object") { for (const x of Object.values(v)) leaves(x, into); }
    return into;
  };
  for (const [k, v] of Object.entries(header ?? {})) {
    if (k === "SHELL" || k === "TERM") continue;
    for (const leaf of leaves(v, [])) if (isSecret(leaf)) values.add(leaf);
  }
  // A multi-line value reaches the capture as the pty shows it: each line break as \r\n.
  return [...values].sort((a, b) => b.length - a.length).map((v) =>
    compilePattern(v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\r?\n/g, "\\r?\\n"))
  );
}

/**
 * The patterns, through the one regex runner (Rust syntax, as manifests and script waits):
 * one that could backtrack catastrophically on a long output runs in linear time.
 */
export function compilePatterns(sources: string[]): Pattern[] {
  return sources.map((src) => {
    let p: Pattern;
    try {
      p = compilePattern(src);
    } catch (e) {
      if (!(e instanceof RegexError)) throw e;
      throw new UsageError(`redact: bad --pattern ${JSON.stringify(src)}: ${e.message}`);
    }
    // `--pattern "$TOKEN"` with TOKEN unset: scrubbing nothing and saying "0 replacements"
    // would publish the secret; so would a pattern that can match only the empty string
    // (`^`, `\b`, `(?:)`, `a{0}`).
    if (matchesOnlyEmpty(p, src)) {
      throw new UsageError(
        src === ""
          ? "redact: empty pattern (an unset shell variable?): it would scrub nothing"
          : `redact: empty pattern: ${JSON.stringify(src)} matches only the empty string, so it would scrub nothing`,
      );
    }
    return p;
  });
}
