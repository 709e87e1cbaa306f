// Rust `regex` syntax → two targets: JavaScript (u flag), the fast backtracking path, and
// RE2 (re2js), the linear-time path for patterns the guard cannot prove safe. Herdr's
// manifests (and osFoundry's, whose engine is Rust too) are written for the Rust crate,
// whose classes are Unicode-aware (\w, \d, \s, \b) and whose escapes differ
// (\x{HHHH}, \A, \z, (?P<n>…), [[:alpha:]]). RE2 reads most of Rust's syntax as is, but
// its \d \w \s \b are ASCII: they are spelled out as Unicode classes here, and a Unicode
// word boundary, which RE2 cannot express, is refused for that target only.
// Anything we cannot translate faithfully is refused with a reason, never guessed.

export class RegexTranslationError extends Error {}

/** The RE2 target cannot express a Unicode word boundary (\b \B \< \> \b{start} \b{end}). */
export class UnicodeBoundaryError extends RegexTranslationError {}

export type Target = "js" | "re2";

// Rust's Unicode classes (regex-syntax: perl classes are Unicode by default).
const W = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";
const D = "\\p{Nd}";
const S = "\\p{White_Space}";
const CLASS_BODY: Record<string, string> = { w: W, d: D, s: S };
const WORD = `[${W}]`;
// The same classes for RE2, which has no Join_Control property.
const RE2_CLASS_BODY: Record<string, string> = {
  w: "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}",
  d: D,
  s: S,
};

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

// General categories and scripts need different spellings in JS: \p{Greek} → \p{Script=Greek}.
const GENERAL = new Set([
  "L",
  "Lu",
  "Ll",
  "Lt",
  "Lm",
  "Lo",
  "LC",
  "M",
  "Mn",
  "Mc",
  "Me",
  "N",
  "Nd",
  "Nl",
  "No",
  "P",
  "Pc",
  "Pd",
  "Ps",
  "Pe",
  "Pi",
  "Pf",
  "Po",
  "S",
  "Sm",
  "Sc",
  "Sk",
  "So",
  "Z",
  "Zs",
  "Zl",
  "Zp",
  "C",
  "Cc",
  "Cf",
  "Cs",
  "Co",
  "Cn",
  "Letter",
  "Uppercase_Letter",
  "Lowercase_Letter",
  "Mark",
  "Number",
  "Decimal_Number",
  "Punctuation",
  "Symbol",
  "Separator",
  "Other",
  "Control",
  "Format",
]);

function propertyName(name: string): string {
  if (GENERAL.has(name)) return name;
  for (const candidate of [name, `Script=${name}`]) {
    try {
      new RegExp(`\\p{${candidate}}`, "u");
      return candidate;
    } catch { /* try the next spelling */ }
  }
  throw new RegexTranslationError(`unknown Unicode property \\p{${name}}`);
}

function hex(cp: number, target: Target = "js"): string {
  return target === "js" ? `\\u{${cp.toString(16)}}` : `\\x{${cp.toString(16)}}`;
}

// Characters JS's u mode lets us escape with a backslash outside a class.
const JS_SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);

export interface Translated {
  source: string;
  flags: string;
}

/** Leading inline flags, possibly several groups: (?i)(?m) or (?is). Returns the flags and the rest. */
function leadingFlags(pattern: string, target: Target): { flags: Set<string>; rest: string } {
  let p = pattern;
  const flags = new Set<string>();
  for (let m; (m = /^\(\?([imsUx]+)\)/.exec(p));) {
    for (const f of m[1]) {
      if (f === "U" && target === "js") throw new RegexTranslationError("swap-greed flag (?U) is not supported");
      if (f === "x") throw new RegexTranslationError("verbose flag (?x) is not supported");
      flags.add(f);
    }
    p = p.slice(m[0].length);
  }
  return { flags, rest: p };
}

const WORD_START = `(?<!${WORD})(?=${WORD})`;
const WORD_END = `(?<=${WORD})(?!${WORD})`;

/** One pass over a pattern (without its leading flags), emitting JS or RE2 source. */
class Translator {
  private i = 0;
  private inClass = 0; // nesting depth of [...]
  private out = "";

  constructor(
    private readonly p: string,
    private readonly flags: Set<string>,
    private readonly target: Target,
    private readonly asciiBoundary = false,
  ) {}

  private hex(cp: number): string {
    return hex(cp, this.target);
  }

  /** RE2 cannot say "word boundary" in Unicode terms: the linear path refuses it. */
  private boundary(js: string, ascii?: string): string {
    if (this.target === "re2" && this.asciiBoundary && ascii) return ascii;
    if (this.target === "re2") {
      throw new UnicodeBoundaryError("a Unicode word boundary (\\b, \\B, \\<, \\>) has no linear-time form");
    }
    return js;
  }

  private next(): string {
    return this.p[this.i++];
  }

  /** The text of `{…}` at the cursor (the cursor moves past it). */
  private braced(what: string): string {
    const close = this.p.indexOf("}", this.i);
    if (close < 0) throw new RegexTranslationError(`unterminated ${what}{…}`);
    const body = this.p.slice(this.i + 1, close);
    this.i = close + 1;
    return body;
  }

  /** `count` hex digits at the cursor. */
  private hexDigits(count: number, escape: string): string {
    const h = this.p.slice(this.i, this.i + count);
    if (!new RegExp(`^[0-9A-Fa-f]{${count}}$`).test(h)) throw new RegexTranslationError(`bad escape \\${escape}${h}`);
    this.i += count;
    return h;
  }

  run(): string {
    while (this.i < this.p.length) {
      const c = this.next();
      if (c === "\\") this.escape();
      else if (this.inClass) this.classChar(c);
      else this.plainChar(c);
    }
    if (this.inClass) throw new RegexTranslationError("unterminated character class");
    return this.out;
  }

  private escape(): void {
    if (this.i >= this.p.length) throw new RegexTranslationError("pattern ends with a backslash");
    const e = this.next();
    const inClass = this.inClass > 0;
    switch (e) {
      case "x":
        if (this.p[this.i] === "{") {
          const digits = this.braced("\\x");
          const cp = parseInt(digits, 16);
          if (!Number.isFinite(cp) || cp > 0x10ffff) throw new RegexTranslationError(`bad code point \\x{${digits}}`);
          this.out += this.hex(cp);
        } else this.out += this.hex(parseInt(this.hexDigits(2, "x"), 16));
        return;
      case "u":
      case "U":
        this.out += this.hex(
          parseInt(this.p[this.i] === "{" ? this.braced(`\\${e}`) : this.hexDigits(e === "u" ? 4 : 8, e), 16),
        );
        return;
      case "w":
      case "d":
      case "s":
        this.out += inClass ? this.classBody(e) : `[${this.classBody(e)}]`;
        return;
      case "W":
      case "D":
      case "S":
        if (inClass) throw new RegexTranslationError(`negated class \\${e} inside [...] is not supported`);
        this.out += `[^${this.classBody(e.toLowerCase())}]`;
        return;
      case "b":
        this.out += inClass ? this.hex(8) : this.wordBoundary();
        return;
      case "B":
        if (inClass) throw new RegexTranslationError("\\B inside [...]");
        this.out += this.boundary(`(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`, "\\B");
        return;
      case "<": // regex 1.10: start and end of a word (outside a class; inside, a literal)
      case ">":
        this.out += inClass ? this.hex(e.codePointAt(0)!) : this.boundary(e === "<" ? WORD_START : WORD_END);
        return;
      case "A":
        this.out += this.target === "js" ? "(?<![\\s\\S])" : "\\A";
        return;
      case "z":
        this.out += this.target === "js" ? "(?![\\s\\S])" : "\\z";
        return;
      case "p":
      case "P":
        this.out += this.property(e);
        return;
      case "n":
      case "t":
      case "r":
      case "f":
      case "v":
        this.out += `\\${e}`;
        return;
      case "a":
        this.out += this.hex(7);
        return;
      case "e":
        this.out += this.hex(0x1b);
        return;
    }
    if (/[0-9]/.test(e)) {
      throw new RegexTranslationError("backreferences and octal escapes are not supported (Rust has none)");
    }
    if (/[A-Za-z]/.test(e)) throw new RegexTranslationError(`unknown escape \\${e}`);
    // Rust lets any punctuation be escaped; JS u mode only the syntax characters, RE2 any
    // ASCII punctuation.
    const escapable = this.target === "js" ? JS_SYNTAX.has(e) || (inClass && e === "-") : e.charCodeAt(0) < 0x80;
    this.out += escapable ? `\\${e}` : this.hex(e.codePointAt(0)!);
  }

  private classBody(e: string): string {
    return (this.target === "js" ? CLASS_BODY : RE2_CLASS_BODY)[e];
  }

  /** \b, and regex 1.10's \b{start}, \b{end} (half boundaries are refused). */
  private wordBoundary(): string {
    if (this.p[this.i] !== "{") return this.boundary(`(?:${WORD_END}|${WORD_START})`, "\\b");
    const which = this.braced("\\b");
    if (which === "start") return this.boundary(WORD_START);
    if (which === "end") return this.boundary(WORD_END);
    throw new RegexTranslationError(`word boundary \\b{${which}} is not supported`);
  }

  private property(e: string): string {
    const name = this.p[this.i] === "{" ? this.braced(`\\${e}`) : this.next();
    const neg = name.startsWith("^");
    // RE2 spells scripts without "Script=" and checks the name when it compiles.
    const prop = this.target === "js" ? propertyName(neg ? name.slice(1) : name) : neg ? name.slice(1) : name;
    return `\\${(e === "P") !== neg ? "P" : "p"}{${prop}}`;
  }

  private classChar(c: string): void {
    const p = this.p;
    if (c === "[") {
      if (p[this.i] !== ":") {
        throw new RegexTranslationError("nested character classes and set operations are not supported");
      }
      const close = p.indexOf(":]", this.i);
      if (close < 0) throw new RegexTranslationError("unterminated POSIX class");
      let name = p.slice(this.i + 1, close);
      const neg = name.startsWith("^");
      if (neg) name = name.slice(1);
      const body = POSIX[name];
      if (!body) throw new RegexTranslationError(`unknown POSIX class [:${name}:]`);
      if (neg) throw new RegexTranslationError(`negated POSIX class [:^${name}:] is not supported`);
      this.out += body;
      this.i = close + 2;
      return;
    }
    if ((c === "&" && p[this.i] === "&") || (c === "~" && p[this.i] === "~") || (c === "-" && p[this.i] === "-")) {
      throw new RegexTranslationError("character class set operations (&&, --, ~~) are not supported");
    }
    if (c === "]") this.inClass--;
    this.out += c === "/" && this.target === "js" ? "\\/" : c;
  }

  private plainChar(c: string): void {
    const p = this.p;
    switch (c) {
      case "[":
        this.inClass++;
        this.out += "[";
        if (p[this.i] === "^") this.out += this.next();
        if (p[this.i] === "]") { // a leading ] is a literal in Rust
          this.out += "\\]";
          this.i++;
        }
        return;
      case "(":
        this.out += this.groupOpen();
        return;
      // RE2 reads . ^ $ as Rust does (the leading flags stay inline in its source).
      case ".":
        // Rust's . excludes only \n; JS's also \r, U+2028/9
        this.out += this.target === "re2" ? "." : this.flags.has("s") ? "[\\s\\S]" : "[^\\n]";
        return;
      case "^":
        // Rust's (?m)^ matches after \n only; JS's m flag also after \r, U+2028 and U+2029.
        this.out += this.flags.has("m") && this.target === "js" ? "(?<![^\\n])" : "^";
        return;
      case "$":
        this.out += this.flags.has("m") && this.target === "js" ? "(?![^\\n])" : "$";
        return;
      default:
        this.out += c;
    }
  }

  private groupOpen(): string {
    const p = this.p, i = this.i;
    if (p[i] !== "?") return "(";
    if (p.startsWith("?P<", i)) {
      this.i += 3;
      return "(?<";
    }
    if (p.startsWith("?:", i) || p.startsWith("?<", i) && /^\?<[A-Za-z_]/.test(p.slice(i))) return "(";
    if (p.startsWith("?=", i) || p.startsWith("?!", i) || p.startsWith("?<=", i) || p.startsWith("?<!", i)) {
      throw new RegexTranslationError("look-around is not Rust regex syntax");
    }
    // Flags part-way through, (?i) or (?i:…): RE2 reads them as Rust does.
    const flagGroup = /^\?[imsU-]+[:)]/.exec(p.slice(i));
    if (this.target === "re2" && flagGroup) {
      this.i += flagGroup[0].length;
      return `(${flagGroup[0]}`;
    }
    throw new RegexTranslationError(
      `inline flags are only supported at the start of a pattern (at "(${p.slice(i, i + 6)}")`,
    );
  }
}

/** Translates one Rust pattern. Leading inline flags become JS flags (m is translated into the pattern instead). */
export function translateRust(pattern: string): Translated {
  const { flags, rest } = leadingFlags(pattern, "js");
  const out = new Translator(rest, flags, "js").run();
  const jsFlags = flags.has("i") ? "iu" : "u";
  try {
    new RegExp(out, jsFlags);
  } catch (e) {
    throw new RegexTranslationError(`not a valid pattern: ${(e as Error).message}`);
  }
  return { source: out, flags: jsFlags };
}

export function compileRust(pattern: string, extraFlags = ""): RegExp {
  const t = translateRust(pattern);
  return new RegExp(t.source, [...new Set(t.flags + extraFlags)].join(""));
}

/**
 * The same pattern for RE2 (re2js): leading flags stay inline, the Unicode classes are
 * spelled out. The caller compiles it (re2js checks property names and repeat counts).
 * `asciiBoundary`: \b and \B become RE2's ASCII ones — the same as Rust's on a text with
 * no word character outside ASCII, which the caller checks before using it.
 */
export function translateRe2(pattern: string, opts: { asciiBoundary?: boolean } = {}): string {
  const { flags, rest } = leadingFlags(pattern, "re2");
  const body = new Translator(rest, flags, "re2", opts.asciiBoundary).run();
  return flags.size ? `(?${[...flags].join("")})${body}` : body;
}
