// How much a pattern can backtrack in JavaScript's engine, found statically, so that the
// runner (pattern.ts) knows when the fast engine is safe for a text and when the
// linear-time one must run instead. Herdr's engine (Rust `regex`) runs in linear time
// whatever the pattern; JavaScript's backtracks, so an untrusted manifest or capture could
// freeze detection. Two findings, both from the pattern's structure alone:
//  1. exponential: an unbounded quantifier over a group whose iterations can split the
//     same text in more than one way — a repeated element inside (`(a+)+`) or
//     alternatives that can take the same character (`(a|a)*`) — unless every iteration
//     must start with one literal character that nothing else in the group can take
//     (`(?:\n[^\n]*)*`, Codex's transcript blocks: the split is then unique);
//  2. polynomial: the backtracking degree — the longest chain of repeated elements that
//     can take the same characters one after another (`\s*\s*`, `.*a.*`, `(.*a){12}`),
//     a bounded repetition multiplying its body's chain unless each iteration must start
//     with a character the body's repeated elements cannot take. On a text of n
//     characters such a pattern can take about n^(degree+1) steps (the search tries each
//     start).
// Both are deterministic: the same pattern gets the same answer on an idle machine and
// under load (a wall-clock budget did not). Character sets are compared on probe
// characters: a fixed set plus every literal character of the pattern itself (so range
// ends and literals are always probed), and an atom that matches none of them is taken
// to match everything — the approximation errs towards "overlapping", never towards safe.

export interface Analysis {
  /** Longest chain of repeated elements that can share characters; Infinity: exponential. */
  degree: number;
  /** Why the pattern is exponential, when it is. */
  nested: string | null;
  /** No part of the pattern can take a line break: a match lies within one line. */
  lineBounded: boolean;
}

/** Representative characters: an atom's "set" is which of these it matches. */
const BASE_PROBES = [..." \t\n\r\v\fa" + "xYé05.-_/:()[]?·…─│╰❯•⠋✳█\u0000!#*>\u00a0\u3000日ж"];

interface Term {
  min: number;
  max: number;
  set: bigint;
  group: Alt[] | null;
  /** One literal character (exactly probed, so disjointness claims about it are exact). */
  literal: boolean;
}
type Alt = Term[];

/** Every literal code point the source names: plain characters and \u{…} \uHHHH \xHH escapes. */
function literalChars(src: string): string[] {
  const out = new Set<string>();
  for (const m of src.matchAll(/\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\(.)|([^\\])/gsu)) {
    const hex = m[1] ?? m[2] ?? m[3];
    if (hex) {
      const cp = parseInt(hex, 16);
      if (cp <= 0x10ffff) out.add(String.fromCodePoint(cp));
    } else if (m[4] && !/[A-Za-z0-9]/.test(m[4])) out.add(m[4]);
    else if (m[5]) out.add(m[5]);
  }
  return [...out];
}

const LITERAL_ATOM =
  /^(?:\\[ntrfv]|\\u\{[0-9a-fA-F]+\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[^A-Za-z0-9]|[^\\[().|*+?{}^$])$/u;

class Parser {
  i = 0;
  readonly probes: string[];
  readonly all: bigint;
  constructor(readonly s: string, readonly flags: string) {
    this.probes = [...new Set([...BASE_PROBES, ...literalChars(s)])];
    this.all = (1n << BigInt(this.probes.length)) - 1n;
  }
  bit(ch: string): bigint {
    return 1n << BigInt(this.probes.indexOf(ch));
  }
  setOf(src: string): bigint {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${src})$`, this.flags.replace(/[gmy]/g, ""));
    } catch {
      return this.all;
    }
    let m = 0n;
    this.probes.forEach((p, k) => {
      if (re.test(p)) m |= 1n << BigInt(k);
    });
    // Matches none of the probes (a script, a class of unprobed characters): assume it
    // can take anything, so it is never judged disjoint from its neighbours.
    return m === 0n ? this.all : m;
  }
  quant(): { min: number; max: number } {
    const q = readQuantifier(this.s, this.i);
    if (!q) return { min: 1, max: 1 }; // a `{` that is no quantifier: a literal brace
    this.i = q.next;
    return q;
  }
  escapeEnd(j: number): number {
    const s = this.s;
    const n = s[j + 1];
    if ((n === "u" || n === "p" || n === "P" || n === "k") && s[j + 2] === "{") return s.indexOf("}", j) + 1;
    if (n === "u" && /^[0-9a-fA-F]{4}/.test(s.slice(j + 2))) return j + 6;
    if (n === "x") return j + 4;
    if (n === "c") return j + 3;
    // A surrogate pair escaped as one character.
    const cp = s.codePointAt(j + 1) ?? 0;
    return j + (cp > 0xffff ? 3 : 2);
  }
  term(): Term | null {
    const s = this.s, start = this.i, c = s[this.i];
    if (c === "^" || c === "$") {
      this.i++;
      return null;
    }
    let group: Alt[] | null = null, look = false;
    if (c === "\\") {
      this.i = this.escapeEnd(this.i);
      // Assertions match no character.
      if (/^\\[bB]$/.test(s.slice(start, this.i))) return null;
    } else if (c === "[") {
      let j = this.i + 1;
      if (s[j] === "^") j++;
      if (s[j] === "]") j++;
      while (j < s.length && s[j] !== "]") j = s[j] === "\\" ? this.escapeEnd(j) : j + 1;
      this.i = j + 1;
    } else if (c === "(") {
      this.i++;
      if (s[this.i] === "?") {
        if (s[this.i + 1] === ":") this.i += 2;
        else if (s[this.i + 1] === "=" || s[this.i + 1] === "!") this.i += 2, look = true;
        else if (s[this.i + 1] === "<" && (s[this.i + 2] === "=" || s[this.i + 2] === "!")) this.i += 3, look = true;
        else if (s[this.i + 1] === "<") this.i = s.indexOf(">", this.i) + 1;
      }
      group = this.alternation();
      this.i++; // ")"
    } else this.i += (s.codePointAt(this.i) ?? 0) > 0xffff ? 2 : 1;
    const src = s.slice(start, this.i);
    const q = this.quant();
    if (look) return null; // a lookaround consumes nothing (and ours hold no quantifier)
    const set = group ? group.flat().reduce((m, t) => m | t.set, 0n) : this.setOf(src);
    return { ...q, set, group, literal: !group && LITERAL_ATOM.test(src) };
  }
  sequence(): Alt {
    const out: Alt = [];
    while (this.i < this.s.length && this.s[this.i] !== "|" && this.s[this.i] !== ")") {
      const t = this.term();
      if (t) out.push(t);
    }
    return out;
  }
  alternation(): Alt[] {
    const alts = [this.sequence()];
    while (this.s[this.i] === "|") {
      this.i++;
      alts.push(this.sequence());
    }
    return alts;
  }
}

// ---- exponential: repeated groups whose iterations can split a text in several ways

const terms = (alts: Alt[]): Term[] => alts.flat().flatMap((t) => [t, ...(t.group ? terms(t.group) : [])]);

/** Alternatives that are distinct single literal characters (`(■|⬝)`) cannot overlap. */
function disjointLiterals(alts: Alt[]): boolean {
  if (!alts.every((a) => a.length === 1 && a[0].literal && a[0].min === 1 && a[0].max === 1)) return false;
  const sets = alts.map((a) => a[0].set);
  return sets.every((s, k) => sets.every((o, j) => j === k || (s & o) === 0n));
}

/** Every iteration starts with one literal character nothing else in the group can take. */
function anchoredIterations(alts: Alt[]): boolean {
  if (alts.length !== 1 || alts[0].length === 0) return false;
  const [head, ...rest] = alts[0];
  if (!head.literal || head.min !== 1 || head.max !== 1) return false;
  const others = terms([rest]).reduce((m, t) => m | t.set, 0n);
  return (head.set & others) === 0n;
}

function nested(alts: Alt[], p: Parser): string | null {
  for (const t of alts.flat()) {
    if (!t.group) continue;
    const inner = nested(t.group, p);
    if (inner) return inner;
    if (t.max !== Infinity || anchoredIterations(t.group)) continue;
    if (terms(t.group).some((x) => x.max === Infinity)) return "a repeated group contains a repeated element";
    if (t.group.length > 1 && !disjointLiterals(t.group)) return "a repeated group contains alternatives";
  }
  return null;
}

// ---- polynomial backtracking: a static degree, no clock

/** Degree of a sequence: the longest run of repeated elements that can share characters. */
function seqDegree(seq: Alt): number {
  let best = 0, chain = 0, last = 0n;
  for (const t of seq) {
    const inner = t.group ? Math.max(0, ...t.group.map(seqDegree)) : 0;
    const repeated = t.max === Infinity;
    if (t.group) {
      let d = inner;
      if (t.max > 1 && inner > 0) {
        // Iterations chain unless each must start with a character none of the group's
        // repeated elements can take.
        const head = t.group.length === 1 ? t.group[0].find((x) => x.min > 0) : undefined;
        const tails = t.group.flat().filter((x) => x.max === Infinity || x.group).reduce((m, x) => m | x.set, 0n);
        const anchored = head !== undefined && t.group[0][0] === head && (head.set & tails) === 0n;
        d = anchored ? inner : t.max === Infinity ? Infinity : inner * t.max;
      } else if (repeated) d = Infinity; // (x)+ with nothing repeated inside is fine; inner>0 handled above
      if (repeated && inner === 0) d = 1;
      // The group is entered through each alternative's first element when that is required
      // and not repeated (`(?:still\s+|currently\s+)?` is entered by s or c, never by a space).
      const entry = t.group.reduce((m, alt) => {
        const head = alt[0];
        return m | (head && head.min > 0 && head.max !== Infinity && !head.group ? head.set : t.set);
      }, 0n);
      if (d > 0) {
        chain = (entry & last) !== 0n ? chain + d : d;
        last = t.set;
      } else if (t.min > 0 && (entry & last) === 0n) {
        chain = 0;
        last = 0n;
      }
    } else if (repeated) {
      chain = (t.set & last) !== 0n ? chain + 1 : 1;
      last = t.set;
    } else if (t.min > 0 && (t.set & last) === 0n) {
      // A required character the last repeated element cannot take ends the ambiguity.
      chain = 0;
      last = 0n;
    }
    best = Math.max(best, chain);
  }
  return best;
}

/** The analysis of a translated (JavaScript) source. */
export function analyse(source: string, flags = "u"): Analysis {
  const p = new Parser(source, flags);
  const alts = p.alternation();
  const why = nested(alts, p);
  const nl = p.bit("\n");
  const lineBounded = (terms(alts).reduce((m, t) => m | t.set, 0n) & nl) === 0n;
  if (why) return { degree: Infinity, nested: why, lineBounded };
  return { degree: Math.max(0, ...alts.map(seqDegree)), nested: null, lineBounded };
}

export const backtrackDegree = (source: string, flags = "u"): number => analyse(source, flags).degree;

/**
 * The quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy): its bounds
 * and where it ends; `{ min: 1, max: 1, next: i }` when there is none, null for a `{` that
 * is not a quantifier. Shared by the guard and the literal finder (literals.ts).
 */
export function readQuantifier(s: string, i: number): { min: number; max: number; next: number } | null {
  let min: number, max: number;
  const c = s[i];
  if (c === "*") min = 0, max = Infinity, i++;
  else if (c === "+") min = 1, max = Infinity, i++;
  else if (c === "?") min = 0, max = 1, i++;
  else if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(i));
    if (!m) return null;
    min = +m[1];
    max = m[2] === undefined ? +m[1] : m[3] === "" ? Infinity : +m[3];
    i += m[0].length;
  } else return { min: 1, max: 1, next: i };
  if (s[i] === "?") i++;
  return { min, max, next: i };
}
