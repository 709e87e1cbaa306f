// Redaction for bug reports (asciinema #657, #590, #216): scrub secrets from output,
// input, markers and header fields, including text inside OSC sequences — OSC 7501
// `msg`/`title` are base64, so they are decoded, scrubbed and re-encoded.
//
// Secrets are often split across reads (a password typed one key per `i` event), so
// each stream is matched over a sliding window of consecutive reads; events are held
// back only as long as a match could still straddle them (`maxSecret` bytes), so
// memory stays bounded on any file size. Replacement bytes go into the read where the
// match starts; the other reads lose their part of it. Every event still decodes.

import { decodeBase64Strict, encodeBase64 } from "../osc7501/base64.ts";
import type { Event, Header } from "./model.ts";

export interface RedactOptions {
  patterns: RegExp[];
  replace: string;
  /** Longest secret that is still found when split across reads (bytes). */
  maxSecret?: number;
}

export interface RedactStats {
  output: number;
  input: number;
  osc7501: number;
  markers: number;
  header: number;
}

const te = new TextEncoder();
const td = new TextDecoder();

/** One regex with every pattern as an alternative (leftmost match wins). */
export function combine(patterns: RegExp[]): RegExp | null {
  if (patterns.length === 0) return null;
  const flags = new Set(["g"]);
  for (const p of patterns) for (const f of p.flags) if ("imsu".includes(f)) flags.add(f);
  return new RegExp(patterns.map((p) => `(?:${p.source})`).join("|"), [...flags].join(""));
}

/** Replaces every match in a string; returns the new string and the count. */
export function redactString(s: string, re: RegExp | null, replace: string): [string, number] {
  if (!re) return [s, 0];
  let n = 0;
  const out = s.replace(re, (m) => {
    if (m.length === 0) return m;
    n++;
    return replace;
  });
  return [out, n];
}

/** UTF-8 decode keeping, for every UTF-16 unit, the byte offset it came from. */
export function decodeWithMap(b: Uint8Array): { text: string; map: Uint32Array } {
  const units: number[] = [];
  const map = new Uint32Array(b.length + 1);
  let m = 0;
  let i = 0;
  const push = (u: number, at: number) => {
    units.push(u);
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
    } else if (c >= 0xf0 && c < 0xf5 && i + 3 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80 && (b[i + 3] & 0xc0) === 0x80) {
      cp = ((c & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
      len = 4;
      if (cp < 0x10000 || cp > 0x10ffff) cp = -1;
    }
    if (cp < 0) {
      push(0xfffd, i);
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
  for (let k = 0; k < units.length; k += 8192) text += String.fromCharCode(...units.slice(k, k + 8192));
  return { text, map: map.subarray(0, m + 1) };
}

interface Span {
  s: number; // byte offsets in the joined stream window
  e: number;
  with: Uint8Array;
  osc: boolean;
}

const OSC7501 = /\x1b\]7501;([^\x07\x1b\x18\x1a]*)(\x07|\x1b\\)/g;

export class Redactor {
  readonly stats: RedactStats = { output: 0, input: 0, osc7501: 0, markers: 0, header: 0 };
  private re: RegExp | null;
  private queue: Event[] = [];
  private held = { output: 0, input: 0 };
  private readonly max: number;
  private readonly window: number;

  constructor(private readonly opts: RedactOptions) {
    this.re = combine(opts.patterns);
    this.max = opts.maxSecret ?? 4096;
    this.window = Math.max(65536, this.max * 4);
  }

  header(h: Header): Header {
    const r = (s: string | undefined) => {
      if (s === undefined) return s;
      const [v, n] = redactString(s, this.re, this.opts.replace);
      this.stats.header += n;
      return v;
    };
    const out: Header = { ...h, command: r(h.command), title: r(h.title) };
    if (h.env) out.env = Object.fromEntries(Object.entries(h.env).map(([k, v]) => [k, r(v)!]));
    for (const k of ["command", "title"] as const) if (out[k] === undefined) delete out[k];
    return out;
  }

  /** Feeds one event; returns the events that are now safe to write, in order. */
  push(e: Event): Event[] {
    if (e.kind === "marker") {
      const [label, n] = redactString(e.label, this.re, this.opts.replace);
      this.stats.markers += n;
      e = { ...e, label };
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
      const spans = this.findSpans(joined, kind === "output");
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
          parts[r].push((this.queue[idx[r]] as { bytes: Uint8Array }).bytes.subarray(from - offsets[r], end - offsets[r]));
          from = end;
        }
      };
      let applied = 0;
      for (const sp of spans) {
        if (sp.s >= limitByte) break;
        copy(pos, sp.s);
        parts[readOf(sp.s)].push(sp.with);
        pos = sp.e;
        applied++;
        if (sp.osc) this.stats.osc7501++;
        else this.stats[kind]++;
      }
      if (applied === 0) continue;
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

  /** Non-overlapping replacement spans, in order: OSC 7501 reports first, then plain matches. */
  private findSpans(joined: Uint8Array, isOutput: boolean): Span[] {
    if (!this.re) return [];
    const { text, map } = decodeWithMap(joined);
    const spans: Span[] = [];
    if (isOutput) {
      OSC7501.lastIndex = 0;
      for (let m; (m = OSC7501.exec(text));) {
        const body = m[1];
        let changed = 0;
        const pairs = body.split(":").map((pair) => {
          const eq = pair.indexOf("=");
          const key = eq < 0 ? "" : pair.slice(0, eq).trim();
          if (key === "msg" || key === "title") {
            const raw = decodeBase64Strict(te.encode(pair.slice(eq + 1).trim()));
            if (raw) {
              const [v, n] = redactString(td.decode(raw), this.re, this.opts.replace);
              if (n) {
                changed += n;
                return `${key}=${encodeBase64(te.encode(v))}`;
              }
              return pair;
            }
          }
          const [v, n] = redactString(pair, this.re, this.opts.replace);
          changed += n;
          return v;
        });
        if (changed) {
          spans.push({ s: map[m.index], e: map[m.index + m[0].length], with: te.encode(`\x1b]7501;${pairs.join(":")}${m[2]}`), osc: true });
        }
      }
    }
    const re = this.re;
    re.lastIndex = 0;
    const plain: Span[] = [];
    for (let m; (m = re.exec(text));) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const s = map[m.index], e = map[m.index + m[0].length];
      if (spans.some((o) => s < o.e && e > o.s)) continue; // inside a 7501 report: handled above
      plain.push({ s, e, with: te.encode(this.opts.replace), osc: false });
    }
    return [...spans, ...plain].sort((a, b) => a.s - b.s);
  }
}

/** Names of environment variables whose values look like secrets (`--env-values`). */
export const SECRET_ENV = /(TOKEN|SECRET|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|AUTH|COOKIE|SESSION|_KEY$|^KEY$)/i;

/** Literal patterns for secret-looking values of `env` (and of the header's env block). */
export function envValuePatterns(env: Record<string, string | undefined>, header?: Record<string, string>): RegExp[] {
  const values = new Set<string>();
  for (const [k, v] of Object.entries(env)) if (v && v.length >= 6 && SECRET_ENV.test(k)) values.add(v);
  for (const [k, v] of Object.entries(header ?? {})) if (v && v.length >= 6 && k !== "SHELL" && k !== "TERM") values.add(v);
  return [...values].sort((a, b) => b.length - a.length).map((v) => new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g"));
}
