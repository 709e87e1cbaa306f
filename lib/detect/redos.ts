// Refuse patterns that can backtrack catastrophically. Herdr's engine (Rust `regex`)
// runs in linear time whatever the pattern; ours (the JS engine) backtracks, so an
// untrusted manifest could freeze detection. Two checks, both at load time:
//  1. static: an unbounded quantifier over a group that itself contains an unbounded
//     quantifier or an alternation (the star-height-2 shapes behind `(a+)+`, `(a|a)*`);
//  2. dynamic: run the compiled pattern on adversarial strings (runs of characters the
//     pattern mentions, then a character that makes it fail) of growing length, up to a
//     whole 120×32 screen, and refuse it if any run exceeds the budget. Lengths grow
//     slowly at first, so an exponential pattern is caught after a few milliseconds
//     instead of hanging the process.

export const REDOS_BUDGET_MS = 10;
/** A whole 120x32 screen with newlines. */
export const SCREEN_CHARS = 4096;
const SIZES = [8, 12, 16, 20, 24, 28, 32, 48, 64, 128, 256, 512, 1024, 2048, SCREEN_CHARS];

export interface RedosFinding {
  kind: "nested-quantifier" | "slow";
  detail: string;
}

/** Star-height analysis on the translated (JS) source. */
export function nestedQuantifier(source: string): string | null {
  interface Frame { unbounded: boolean; alternation: boolean; start: number }
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
      i += source[i + 1] === "u" && source[i + 2] === "{" ? source.indexOf("}", i) - i + 1 : source[i + 1] === "p" || source[i + 1] === "P" ? source.indexOf("}", i) - i + 1 : 2;
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
        return `${f.unbounded ? "a repeated group contains a repeated element" : "a repeated group contains alternatives"} at "${source.slice(f.start, i + q).slice(0, 60)}"`;
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

const DEFAULT_UNITS = [" ", "a", "\t", "0", "\n", "─", "é", "·"];

function unitsFor(pattern: string, thorough: boolean): string[] {
  const seen = new Set<string>();
  for (const ch of pattern.replace(/\\[xupP]\{[^}]*\}|\\./g, "")) if (!"^$\\.*+?()[]{}|".includes(ch)) seen.add(ch);
  const literal = [...seen].slice(0, thorough ? 12 : 4);
  const singles = [...new Set([...literal, ...DEFAULT_UNITS.slice(0, thorough ? 8 : 3)])];
  if (!thorough) return singles;
  const pairs: string[] = [];
  for (let a = 0; a < Math.min(4, singles.length); a++) for (let b = 0; b < Math.min(4, singles.length); b++) if (a !== b) pairs.push(singles[a] + singles[b]);
  return [...singles, ...pairs];
}

/** Times `re` on adversarial inputs; returns the slowest case over budget, or null. */
export function slowInput(re: RegExp, pattern: string, thorough: boolean, budgetMs = REDOS_BUDGET_MS, maxLen = SCREEN_CHARS): string | null {
  const units = unitsFor(pattern, thorough);
  const suffixes = thorough ? ["\u0000", "!"] : ["\u0000"];
  const probe = new RegExp(re.source, re.flags.replace("g", "").replace("y", ""));
  for (const unit of units) {
    for (const suffix of suffixes) {
      for (const size of (thorough ? SIZES : SIZES.filter((s) => s >= 64)).filter((s) => s <= maxLen)) {
        const input = unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + suffix;
        // Best of two: the first run also pays for compiling the pattern, and a GC
        // pause must not make a linear pattern look slow.
        let ms = Infinity;
        for (let k = 0; k < 2 && ms > budgetMs; k++) {
          const t0 = performance.now();
          probe.test(input);
          ms = Math.min(ms, performance.now() - t0);
        }
        if (ms > budgetMs) return `${ms.toFixed(0)} ms on ${size} × ${JSON.stringify(unit)}`;
      }
    }
  }
  return null;
}

/** Longest line the per-line matchers (line_regex) ever see: a 1000-column terminal. */
export const LINE_CHARS = 1024;

/**
 * Both checks; null when the pattern is safe to evaluate on untrusted screens.
 * `maxLen` is the longest text the pattern will ever be run on.
 */
export function checkRegex(re: RegExp, pattern: string, budgetMs = REDOS_BUDGET_MS, maxLen = SCREEN_CHARS): RedosFinding | null {
  const nested = nestedQuantifier(re.source);
  if (nested) return { kind: "nested-quantifier", detail: `catastrophic backtracking risk: ${nested}` };
  const slow = slowInput(re, pattern, false, budgetMs, maxLen);
  if (slow) return { kind: "slow", detail: `too slow on adversarial input (${slow}; budget ${budgetMs} ms)` };
  return null;
}
