// Rust `regex` syntax → JavaScript (u flag). Herdr's manifests (and osFoundry's, whose
// engine is Rust too) are written for the Rust crate, whose classes are Unicode-aware
// (\w, \d, \s, \b) and whose escapes differ (\x{HHHH}, \A, \z, (?P<n>…), [[:alpha:]]).
// Anything we cannot translate faithfully is refused with a reason, never guessed.

export class RegexTranslationError extends Error {}

// Rust's Unicode classes (regex-syntax: perl classes are Unicode by default).
const W = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";
const D = "\\p{Nd}";
const S = "\\p{White_Space}";
const CLASS_BODY: Record<string, string> = { w: W, d: D, s: S };
const WORD = `[${W}]`;

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", ascii: "\\x00-\\x7F", blank: "\\t ", cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9", graph: "!-~", lower: "a-z", print: " -~", punct: "!-\\/:-@\\[-`{-~", space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z", word: "0-9A-Za-z_", xdigit: "0-9A-Fa-f",
};

// General categories and scripts need different spellings in JS: \p{Greek} → \p{Script=Greek}.
const GENERAL = new Set(["L", "Lu", "Ll", "Lt", "Lm", "Lo", "LC", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co", "Cn",
  "Letter", "Uppercase_Letter", "Lowercase_Letter", "Mark", "Number", "Decimal_Number", "Punctuation", "Symbol", "Separator", "Other", "Control", "Format"]);

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

function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

// Characters JS's u mode lets us escape with a backslash outside a class.
const JS_SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);

export interface Translated {
  source: string;
  flags: string;
}

/** Translates one Rust pattern. Leading inline flags become JS flags. */
export function translateRust(pattern: string): Translated {
  let p = pattern;
  const flags = new Set<string>();
  // Leading inline flags, possibly several groups: (?i)(?m) or (?is).
  for (let m; (m = /^\(\?([imsUx]+)\)/.exec(p));) {
    for (const f of m[1]) {
      if (f === "U") throw new RegexTranslationError("swap-greed flag (?U) is not supported");
      if (f === "x") throw new RegexTranslationError("verbose flag (?x) is not supported");
      flags.add(f);
    }
    p = p.slice(m[0].length);
  }
  const dotAll = flags.has("s");
  let out = "";
  let inClass = 0; // nesting depth of [...]
  let i = 0;
  const n = p.length;
  const next = () => p[i++];
  while (i < n) {
    const c = next();
    if (c === "\\") {
      if (i >= n) throw new RegexTranslationError("pattern ends with a backslash");
      const e = next();
      switch (e) {
        case "x": {
          if (p[i] === "{") {
            const close = p.indexOf("}", i);
            if (close < 0) throw new RegexTranslationError("unterminated \\x{…}");
            const cp = parseInt(p.slice(i + 1, close), 16);
            if (!Number.isFinite(cp) || cp > 0x10ffff) throw new RegexTranslationError(`bad code point \\x{${p.slice(i + 1, close)}}`);
            out += hex(cp);
            i = close + 1;
          } else {
            const h = p.slice(i, i + 2);
            if (!/^[0-9A-Fa-f]{2}$/.test(h)) throw new RegexTranslationError(`bad escape \\x${h}`);
            out += `\\x${h}`;
            i += 2;
          }
          break;
        }
        case "u":
        case "U": {
          if (p[i] === "{") {
            const close = p.indexOf("}", i);
            if (close < 0) throw new RegexTranslationError(`unterminated \\${e}{…}`);
            out += hex(parseInt(p.slice(i + 1, close), 16));
            i = close + 1;
          } else {
            const len = e === "u" ? 4 : 8;
            const h = p.slice(i, i + len);
            if (!new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(h)) throw new RegexTranslationError(`bad escape \\${e}${h}`);
            out += hex(parseInt(h, 16));
            i += len;
          }
          break;
        }
        case "w":
        case "d":
        case "s":
          out += inClass ? CLASS_BODY[e] : `[${CLASS_BODY[e]}]`;
          break;
        case "W":
        case "D":
        case "S":
          if (inClass) throw new RegexTranslationError(`negated class \\${e} inside [...] is not supported`);
          out += `[^${CLASS_BODY[e.toLowerCase()]}]`;
          break;
        case "b":
          if (inClass) out += "\\x08";
          else out += `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`;
          break;
        case "B":
          if (inClass) throw new RegexTranslationError("\\B inside [...]");
          out += `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`;
          break;
        case "A":
          out += "(?<![\\s\\S])";
          break;
        case "z":
          out += "(?![\\s\\S])";
          break;
        case "p":
        case "P": {
          let name: string;
          if (p[i] === "{") {
            const close = p.indexOf("}", i);
            if (close < 0) throw new RegexTranslationError(`unterminated \\${e}{…}`);
            name = p.slice(i + 1, close);
            i = close + 1;
          } else name = next();
          const neg = name.startsWith("^");
          const prop = propertyName(neg ? name.slice(1) : name);
          out += `\\${(e === "P") !== neg ? "P" : "p"}{${prop}}`;
          break;
        }
        case "n":
        case "t":
        case "r":
        case "f":
        case "v":
          out += `\\${e}`;
          break;
        case "a":
          out += "\\x07";
          break;
        case "e":
          out += "\\x1b";
          break;
        default:
          if (/[0-9]/.test(e)) throw new RegexTranslationError("backreferences and octal escapes are not supported (Rust has none)");
          if (/[A-Za-z]/.test(e)) throw new RegexTranslationError(`unknown escape \\${e}`);
          // Rust lets any punctuation be escaped; JS u mode only the syntax characters.
          out += JS_SYNTAX.has(e) || (inClass && e === "-") ? `\\${e}` : hex(e.codePointAt(0)!);
      }
      continue;
    }
    if (inClass) {
      if (c === "[") {
        if (p[i] === ":") {
          const close = p.indexOf(":]", i);
          if (close < 0) throw new RegexTranslationError("unterminated POSIX class");
          let name = p.slice(i + 1, close);
          const neg = name.startsWith("^");
          if (neg) name = name.slice(1);
          const body = POSIX[name];
          if (!body) throw new RegexTranslationError(`unknown POSIX class [:${name}:]`);
          if (neg) throw new RegexTranslationError(`negated POSIX class [:^${name}:] is not supported`);
          out += body;
          i = close + 2;
          continue;
        }
        throw new RegexTranslationError("nested character classes and set operations are not supported");
      }
      if ((c === "&" && p[i] === "&") || (c === "~" && p[i] === "~") || (c === "-" && p[i] === "-")) {
        throw new RegexTranslationError("character class set operations (&&, --, ~~) are not supported");
      }
      if (c === "]") {
        inClass--;
        out += c;
        continue;
      }
      out += c === "/" ? "\\/" : c;
      continue;
    }
    switch (c) {
      case "[": {
        inClass++;
        out += "[";
        if (p[i] === "^") out += next();
        if (p[i] === "]") { // a leading ] is a literal in Rust
          out += "\\]";
          i++;
        }
        break;
      }
      case "(":
        if (p[i] === "?") {
          if (p.startsWith("?P<", i)) {
            out += "(?<";
            i += 3;
          } else if (p.startsWith("?:", i) || p.startsWith("?<", i) && /^\?<[A-Za-z_]/.test(p.slice(i))) {
            out += "(";
          } else if (p.startsWith("?=", i) || p.startsWith("?!", i) || p.startsWith("?<=", i) || p.startsWith("?<!", i)) {
            throw new RegexTranslationError("look-around is not Rust regex syntax");
          } else throw new RegexTranslationError(`inline flags are only supported at the start of a pattern (at "(${p.slice(i, i + 6)}")`);
        } else out += "(";
        break;
      case ".":
        out += dotAll ? "[\\s\\S]" : "[^\\n]"; // Rust's . excludes only \n; JS's also \r, U+2028/9
        break;
      default:
        out += c;
    }
  }
  if (inClass) throw new RegexTranslationError("unterminated character class");
  const jsFlags = [...flags].filter((f) => f === "i" || f === "m").join("") + "u";
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
