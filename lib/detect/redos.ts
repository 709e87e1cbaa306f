// Refuse patterns that can backtrack catastrophically. Herdr's engine (Rust `regex`)
// runs in linear time whatever the pattern; ours (the JS engine) backtracks, so an
// untrusted manifest could freeze detection. Two checks, both at load time:
//  1. static: an unbounded quantifier over a group that itself contains an unbounded
//     quantifier or an alternation (the star-height-2 shapes behind `(a+)+`, `(a|a)*`);
//  2. polynomial: the backtracking degree — the longest chain of repeated elements that
//     can take the same characters one after another (`\s*\s*`, `.*a.*`, `(.*a){12}`),
//     a bounded repetition multiplying its body's chain unless each iteration must start
//     with a character the body's repeated elements cannot take. On a text of n
//     characters such a pattern can take ~n^degree steps; at MAX_DEGREE it is refused.
// Both are static and deterministic: the same manifest gets the same answer on an idle
// machine and under load (a wall-clock budget did not). Character sets are compared
// on a fixed set of probe characters, an approximation that errs towards "overlapping".

/** Degree at which a pattern is refused. Herdr's own manifests reach 5 (linear in Rust,
 * polynomial here, on one terminal line); 6 and more is refused. */
export const MAX_DEGREE = 6;

export interface RedosFinding {
  kind: "nested-quantifier" | "polynomial";
  detail: string;
}

/** Star-height analysis on the translated (JS) source. */
export function nestedQuantifier(source: string): string | null {
  interface Frame {
    unbounded: boolean;
    alternation: boolean;
    start: number;
  }
  const stack: Frame[] = [{ unbounded: false, alternation: false, start: 0 }];
  let i = 0;
  const unboundedAt = (j: number): number => {
    // Returns the length of an unbounded quantifier at j (0 if none).
    const c = source[j];
    if (c === "*" || c === "+") return source[j + 1] === "?" ? 2 : 1;
    if (c === "{") {
      const m = /^\{([0-9]+),\}\??/.exec(source.slice(j));
      if (m) return m[0].length;
    }
    return 0;
  };
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") {
      i += source[i + 1] === "u" && source[i + 2] === "{"
        ? source.indexOf("}", i) - i + 1
        : source[i + 1] === "p" || source[i + 1] === "P"
        ? source.indexOf("}", i) - i + 1
        : 2;
      if (unboundedAt(i)) stack.at(-1)!.unbounded = true;
      continue;
    }
    if (c === "[") {
      // skip the class
      let j = i + 1;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      i = j + 1;
      if (unboundedAt(i)) stack.at(-1)!.unbounded = true;
      continue;
    }
    if (c === "(") {
      stack.push({ unbounded: false, alternation: false, start: i });
      i++;
      continue;
    }
    if (c === "|") {
      stack.at(-1)!.alternation = true;
      i++;
      continue;
    }
    if (c === ")") {
      const f = stack.pop()!;
      i++;
      const q = unboundedAt(i);
      const isLookaround = /^\(\?<?[=!]/.test(source.slice(f.start));
      if (q && !isLookaround && (f.unbounded || (f.alternation && !disjointLiterals(source.slice(f.start, i))))) {
        return `${
          f.unbounded ? "a repeated group contains a repeated element" : "a repeated group contains alternatives"
        } at "${source.slice(f.start, i + q).slice(0, 60)}"`;
      }
      if (q || f.unbounded) stack.at(-1)!.unbounded = true;
      continue;
    }
    i++;
    if (unboundedAt(i)) stack.at(-1)!.unbounded = true;
  }
  return null;
}

/** `(■|⬝)`: alternatives that are distinct single characters cannot overlap. */
function disjointLiterals(group: string): boolean {
  const body = group.replace(/^\((\?:)?/, "").replace(/\)$/, "");
  if (/[()[\]]/.test(body)) return false;
  const alts = body.split("|");
  const chars = alts.map((a) => {
    const m = /^\\u\{([0-9a-f]+)\}$/.exec(a);
    if (m) return String.fromCodePoint(parseInt(m[1], 16));
    return [...a].length === 1 && !"\\.^$*+?{}".includes(a) ? a : null;
  });
  return chars.every((c) => c !== null) && new Set(chars).size === chars.length;
}

// ---- polynomial backtracking: a static degree, no clock

/** Representative characters: an atom's "set" is which of these it matches. */
const PROBES = [
  " ",
  "\t",
  "\n",
  "\r",
  "a",
  "x",
  "Y",
  "é",
  "0",
  "5",
  ".",
  "-",
  "_",
  "/",
  ":",
  "(",
  ")",
  "[",
  "]",
  "?",
  "·",
  "…",
  "─",
  "│",
  "╰",
  "❯",
  "•",
  "⠋",
  "✳",
  "█",
  "\u0000",
  "!",
  "#",
  "*",
  ">",
];

interface Term {
  min: number;
  max: number;
  set: bigint;
  deg: number;
  group: Alt[] | null;
  look: boolean;
}
type Alt = Term[];

function setOf(src: string, flags: string): bigint {
  let m = 0n;
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${src})$`, flags.replace(/[gmy]/g, ""));
  } catch {
    return (1n << BigInt(PROBES.length)) - 1n;
  }
  PROBES.forEach((p, k) => {
    if (re.test(p)) m |= 1n << BigInt(k);
  });
  return m;
}

class Parser {
  i = 0;
  constructor(readonly s: string, readonly flags: string) {}
  quant(): { min: number; max: number } {
    const s = this.s;
    let q = { min: 1, max: 1 };
    const c = s[this.i];
    if (c === "*") q = { min: 0, max: Infinity }, this.i++;
    else if (c === "+") q = { min: 1, max: Infinity }, this.i++;
    else if (c === "?") q = { min: 0, max: 1 }, this.i++;
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (m) {
        q = { min: +m[1], max: m[2] === undefined ? +m[1] : m[3] === "" ? Infinity : +m[3] };
        this.i += m[0].length;
      }
    } else return q;
    if (s[this.i] === "?") this.i++;
    return q;
  }
  escapeEnd(j: number): number {
    const s = this.s;
    const n = s[j + 1];
    if ((n === "u" || n === "p" || n === "P" || n === "k") && s[j + 2] === "{") return s.indexOf("}", j) + 1;
    if (n === "u" && /^[0-9a-fA-F]{4}/.test(s.slice(j + 2))) return j + 6;
    if (n === "x") return j + 4;
    if (n === "c") return j + 3;
    return j + 2;
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
    } else this.i++;
    const src = s.slice(start, this.i);
    const q = this.quant();
    if (look) return null; // a lookaround consumes nothing (and ours hold no quantifier)
    const set = group ? group.flat().reduce((m, t) => m | t.set, 0n) : setOf(src, this.flags);
    return { ...q, set, deg: 0, group, look };
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
      // The group is entered through its first required element when it has one.
      const head = t.group.length === 1 && t.group[0][0]?.min > 0 ? t.group[0][0] : null;
      const entry = head && head.max !== Infinity && !head.group ? head.set : t.set;
      if (d > 0) {
        chain = (entry & last) !== 0n && t.min === 0 ? chain + d : (entry & last) !== 0n ? chain + d : d;
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

export function backtrackDegree(source: string, flags = "u"): number {
  const p = new Parser(source, flags);
  return Math.max(0, ...p.alternation().map(seqDegree));
}

/**
 * Both checks; null when the pattern is safe to evaluate on untrusted screens.
 */
export function checkRegex(re: RegExp): RedosFinding | null {
  const nested = nestedQuantifier(re.source);
  if (nested) return { kind: "nested-quantifier", detail: `catastrophic backtracking risk: ${nested}` };
  const degree = backtrackDegree(re.source, re.flags);
  if (degree >= MAX_DEGREE) {
    return {
      kind: "polynomial",
      detail: `catastrophic backtracking risk: ${
        degree === Infinity ? "unbounded" : degree
      } repeated elements can share the same characters in a row (limit ${MAX_DEGREE - 1})`,
    };
  }
  return null;
}
