// What a pattern's every match must contain, and whether a match can cross a line, found
// from the pattern's own structure when it is compiled (issue 25). Both answers are
// conservative: a literal is reported only when the structure forces it into every
// match, and a pattern is called "within a line" only when nothing in it can take or see
// a line break. The runner (pattern.ts) skips a regex on a text that lacks every
// required literal; the manifest engine evaluates a within-a-line pattern row by row.
//
// Input is the JavaScript translation (rust.ts: u flag, i the only other flag, (?m)^ and
// $ spelled as look-arounds, \b as look-arounds on Unicode word classes). Anything this
// reader does not understand (inline modifier groups) gives "no literal, may span".

import { readQuantifier } from "./guard.ts";
/** A disjunction: every match contains at least one of these (non-empty) strings. */
export type Literals = string[];

interface Info {
  /** The node always matches exactly this text (null: not a fixed string). */
  exact: string | null;
  /** Every match of the node contains one of these; null: nothing known. */
  req: Literals | null;
}

/** Most alternatives a disjunction may hold (more costs more than the regex saves). */
const MAX_ALTERNATIVES = 16;

class Unsupported extends Error {}

/** A zero-width node: an assertion, a look-around. */
const ZERO: Info = { exact: null, req: null };

class Reader {
  i = 0;
  /** Look-arounds met, as written (for the within-a-line check). */
  readonly looks: string[] = [];
  /** A bare ^ or $ (text edges, not line edges: the translation spells (?m) ones as look-arounds). */
  edges = false;
  constructor(readonly s: string) {}

  alternation(): Info {
    const alts = [this.sequence()];
    while (this.s[this.i] === "|") {
      this.i++;
      alts.push(this.sequence());
    }
    if (alts.length === 1) return alts[0];
    const all: string[] = [];
    for (const a of alts) {
      const r = a.exact ? [a.exact] : a.req;
      if (!r) return { exact: null, req: null };
      all.push(...r);
    }
    const req = [...new Set(all)];
    return { exact: null, req: req.length <= MAX_ALTERNATIVES ? req : null };
  }

  sequence(): Info {
    const candidates: Literals[] = [];
    let run = "", exact = true;
    const flush = () => {
      if (run) candidates.push([run]);
      run = "";
    };
    while (this.i < this.s.length && this.s[this.i] !== "|" && this.s[this.i] !== ")") {
      const { info, zeroWidth } = this.atom();
      const q = this.quantifier();
      if (zeroWidth) {
        // An assertion matches no text: the literals on either side need not be adjacent
        // in every way the reader could prove, so the run stops here.
        exact = false;
        flush();
        continue;
      }
      if (q.min === 1 && q.max === 1 && info.exact !== null) {
        run += info.exact;
        continue;
      }
      exact = false;
      if (q.min === 0) {
        flush();
        continue;
      }
      if (info.exact) {
        // x{2,}: the run reaches into the first copy; the last copy starts the next run.
        run += info.exact;
        flush();
        run = info.exact;
        continue;
      }
      flush();
      if (info.req) candidates.push(info.req);
    }
    flush();
    if (exact) return { exact: candidates.length ? candidates[0][0] : "", req: candidates[0] ?? null };
    return { exact: null, req: best(candidates) };
  }

  quantifier(): { min: number; max: number } {
    const q = readQuantifier(this.s, this.i);
    if (!q) throw new Unsupported();
    this.i = q.next;
    return q;
  }

  atom(): { info: Info; zeroWidth: boolean } {
    const s = this.s, c = s[this.i];
    const lit = (ch: string) => ({ info: { exact: ch, req: [ch] }, zeroWidth: false });
    const other = { info: { exact: null, req: null }, zeroWidth: false };
    if (c === "^" || c === "$") {
      this.i++;
      this.edges = true;
      return { info: ZERO, zeroWidth: true };
    }
    if (c === ".") {
      this.i++;
      return other;
    }
    if (c === "[") {
      let j = this.i + 1;
      if (s[j] === "^") j++;
      if (s[j] === "]") j++;
      while (j < s.length && s[j] !== "]") j += s[j] === "\\" ? 2 : 1;
      if (j >= s.length) throw new Unsupported();
      this.i = j + 1;
      return other;
    }
    if (c === "(") {
      const start = this.i;
      this.i++;
      let look = false;
      if (s[this.i] === "?") {
        const rest = s.slice(this.i);
        if (rest.startsWith("?:")) this.i += 2;
        else if (rest.startsWith("?=") || rest.startsWith("?!")) this.i += 2, look = true;
        else if (rest.startsWith("?<=") || rest.startsWith("?<!")) this.i += 3, look = true;
        else if (/^\?<[A-Za-z_$][\w$]*>/.test(rest)) this.i = s.indexOf(">", this.i) + 1;
        else throw new Unsupported(); // modifier groups: not read
      }
      const inner = this.alternation();
      if (s[this.i] !== ")") throw new Unsupported();
      this.i++;
      if (look) {
        this.looks.push(s.slice(start, this.i));
        return { info: ZERO, zeroWidth: true };
      }
      return { info: inner, zeroWidth: false };
    }
    if (c === "\\") {
      const n = s[this.i + 1];
      if (n === undefined) throw new Unsupported();
      const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v" };
      if (n in simple) {
        this.i += 2;
        return lit(simple[n]);
      }
      if (n === "u" && s[this.i + 2] === "{") {
        const end = s.indexOf("}", this.i);
        const cp = parseInt(s.slice(this.i + 3, end), 16);
        this.i = end + 1;
        return lit(String.fromCodePoint(cp));
      }
      if (n === "u" && /^[0-9a-fA-F]{4}$/.test(s.slice(this.i + 2, this.i + 6))) {
        const cp = parseInt(s.slice(this.i + 2, this.i + 6), 16);
        this.i += 6;
        // A lone surrogate half is not a character of its own: not read as a literal.
        return cp >= 0xd800 && cp <= 0xdfff ? other : lit(String.fromCharCode(cp));
      }
      if (n === "x" && /^[0-9a-fA-F]{2}$/.test(s.slice(this.i + 2, this.i + 4))) {
        this.i += 4;
        return lit(String.fromCharCode(parseInt(s.slice(this.i - 2, this.i), 16)));
      }
      if (n === "b" || n === "B") {
        this.i += 2;
        return { info: ZERO, zeroWidth: true };
      }
      if ((n === "p" || n === "P") && s[this.i + 2] === "{") {
        this.i = s.indexOf("}", this.i) + 1;
        return other;
      }
      if (n === "k" && s[this.i + 2] === "<") {
        this.i = s.indexOf(">", this.i) + 1;
        return other;
      }
      if (n === "c") {
        this.i += 3;
        return other;
      }
      if (/[A-Za-z0-9]/.test(n)) {
        // \d \w \s \D \W \S, \0, back-references: classes, never one fixed character.
        this.i += 2;
        while (/[0-9]/.test(s[this.i] ?? "")) this.i++;
        return other;
      }
      const cp = s.codePointAt(this.i + 1)!;
      this.i += cp > 0xffff ? 3 : 2;
      return lit(String.fromCodePoint(cp));
    }
    if ("*+?{".includes(c)) throw new Unsupported(); // a quantifier with nothing to repeat
    const cp = s.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return lit(String.fromCodePoint(cp));
  }
}

/** The strongest of several conjoined requirements: the one whose shortest string is longest. */
function best(cands: Literals[]): Literals | null {
  let out: Literals | null = null, score = 0;
  for (const c of cands) {
    const s = Math.min(...c.map((x) => x.length)) * 64 - c.length;
    if (s > score) out = c, score = s;
  }
  return out;
}

export interface Structure {
  /** Every match contains one of these; null: no such literal found. */
  literals: Literals | null;
  /**
   * No match can contain a line break, and no part of the pattern reads across one (no
   * text-edge ^ $, no look-around but the line-edge and word-boundary ones, whose answer
   * at a row's edge is the same alone as next to a "\n"). Such a pattern matches a text
   * iff it matches one of its lines, at the same place in that line.
   */
  withinLine: boolean;
}

/**
 * Look-arounds that give the same answer at a row's edge whether the row stands alone
 * or sits next to "\n": each looks at one character of a class without "\n" (the
 * translation's (?m)^ and $, and the sides of a word boundary).
 */
const lookCache = new Map<string, boolean>();
function lineSafeLook(look: string): boolean {
  let v = lookCache.get(look);
  if (v === undefined) lookCache.set(look, v = readLook(look));
  return v;
}

function readLook(look: string): boolean {
  const m = /^\(\?<?[=!](.*)\)$/s.exec(look);
  if (!m) return false;
  const body = m[1];
  // One character class or one escape, nothing else.
  if (!/^(?:\[(?:\\.|[^\]\\])*\]|\\[pP]\{[^}]*\}|\\[dwDW])$/su.test(body)) return false;
  try {
    return !new RegExp(`^${body}$`, "u").test("\n");
  } catch {
    return false;
  }
}

export function structure(source: string, lineBounded: boolean): Structure {
  const r = new Reader(source);
  let info: Info;
  try {
    info = r.alternation();
    if (r.i !== source.length) throw new Unsupported();
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    return { literals: null, withinLine: false };
  }
  const literals = info.exact ? [info.exact] : info.req;
  const withinLine = lineBounded && !r.edges && r.looks.every(lineSafeLook);
  return { literals: literals && literals.length ? literals : null, withinLine };
}

/** A test for "the text holds one of the literals", exact under the pattern's own case rule. */
export function literalTest(literals: Literals, flags: string): (text: string) => boolean {
  if (flags.includes("i")) {
    // Case-insensitive: the same engine, same flags, on the literals alone — its case
    // folding is the pattern's own, so no folding rule is re-implemented here.
    const re = new RegExp(
      literals.map((l) => [...l].map((ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`).join("")).join("|"),
      flags.replace(/[gy]/g, ""),
    );
    return (text) => re.test(text);
  }
  if (literals.length === 1) {
    const [l] = literals;
    return (text) => text.includes(l);
  }
  return (text) => literals.some((l) => text.includes(l));
}
