// The one regex runner: every pattern pstlab takes from outside — manifest rules, a
// recorder script's `wait /…/`, `redact --pattern` — is compiled here and run here, so
// none of them can hang on a hostile text. Patterns are Rust `regex` syntax (Herdr's
// engine, and the syntax pstlab documents everywhere).
//
// Two engines give the same matches (leftmost-first, as Rust, RE2 and JavaScript all
// define it; property-tested in pattern_test.ts):
//  - JavaScript's RegExp, fast but backtracking: used for a text only when the pattern's
//    static worst case on that text (guard.ts: about n^(degree+1) steps, n·L^degree when
//    no part can take a line break, L the longest line) is within FAST_PATH_STEPS;
//  - re2js, a port of RE2: linear time whatever the pattern and the text, used for every
//    other call, and always for patterns JavaScript cannot host (flags part-way through).
// Rust's \b is Unicode-aware; RE2's is ASCII. A pattern with a word boundary runs on RE2
// only when the text has no word character outside ASCII (the two then agree); else on
// JavaScript, which is why such a pattern must be at most MAX_BOUNDARY_DEGREE.

import { RE2JS } from "re2js";
import { analyse, type Analysis } from "./guard.ts";
import { type Literals, literalTest, structure } from "./literals.ts";
import { RegexTranslationError, translateRe2, translateRust, UnicodeBoundaryError } from "./rust.ts";

export { RegexTranslationError as RegexError };

/** The most backtracking steps a JavaScript evaluation may be worth (about 0.1 s at worst). */
export const FAST_PATH_STEPS = 10_000_000;
/**
 * The highest degree a pattern with a Unicode word boundary may have: it can fall back
 * to JavaScript on any text, so its worst case must stay polynomial and low.
 */
export const MAX_BOUNDARY_DEGREE = 2;

export interface Match {
  index: number;
  end: number;
  text: string;
}

export type Engine = "js" | "linear";

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_WORD = /(?=[^\x00-\x7f])[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]/u;

/** Longest line of a text (the last text asked about is kept: rules share region texts). */
let lastText = "", lastLongest = 0;
function longestLine(text: string): number {
  if (text === lastText) return lastLongest;
  let best = 0, from = 0;
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
    best = Math.max(best, nl - from);
    from = nl + 1;
  }
  lastText = text;
  lastLongest = Math.max(best, text.length - from);
  return lastLongest;
}

function compileLinear(source: string): RE2JS {
  try {
    return RE2JS.compile(source);
  } catch (e) {
    throw new RegexTranslationError(`the linear-time engine cannot run it: ${(e as Error).message.split("\n")[0]}`);
  }
}

export class Pattern {
  private globalJs: RegExp | null = null;

  /** Set by forEngine: every call runs on this engine (tests compare the two). */
  private forced: Engine | null = null;

  /**
   * The prefilter: false when the text lacks every literal a match must contain, and the
   * regex cannot match. Decided once, here (literals.ts); null when no literal is known.
   */
  private prefilter: ((text: string) => boolean) | null = null;

  /** Every match contains one of these (literals.ts); null: none known, no prefilter. */
  literals: Literals | null = null;

  /**
   * No match can cross a line and nothing in the pattern reads across one: it matches a
   * text iff it matches one of the text's lines, at the same place (literals.ts).
   */
  withinLine = false;

  private constructor(
    /** The pattern as written. */
    readonly source: string,
    private readonly js: RegExp | null,
    /** The JavaScript form's worst case; null when only the linear engine can run it. */
    readonly analysis: Analysis | null,
    /** The linear engines, or undefined until first needed (compiled in linearEngines). */
    private linear: Linear | undefined,
    /** The source the linear engines are compiled from (with the flags). */
    private readonly src: string,
  ) {}

  /** Compiles a Rust-syntax pattern; `flags` (i, m, s) apply to the whole of it. */
  static compile(pattern: string, flags = ""): Pattern {
    const src = flags ? `(?${flags})${pattern}` : pattern;
    let js: RegExp | null = null, jsError: Error | null = null;
    try {
      const t = translateRust(src);
      js = new RegExp(t.source, t.flags);
    } catch (e) {
      if (!(e instanceof RegexTranslationError)) throw e;
      jsError = e;
    }
    const analysis = js ? analyse(js.source, js.flags) : null;
    // RE2's compiler is most of a manifest's compile time (re2js: ~0.4 ms a pattern), and
    // a pattern the fast path always runs never needs it: it is compiled here only when
    // its outcome decides whether the pattern is accepted, else at first use (issue 25).
    const decides = !js || analysis!.degree > MAX_BOUNDARY_DEGREE;
    const linear = decides ? linearEngines(src) : undefined;
    // Neither engine takes it: JavaScript's reason is the one a Rust user recognises.
    if (!js && !linear!.linear) throw jsError ?? linear!.error!;
    if (js && linear && !linear.linear && analysis!.degree > MAX_BOUNDARY_DEGREE) {
      throw new RegexTranslationError(
        `can backtrack catastrophically (${analysis!.nested ?? `degree ${analysis!.degree}`}) and ` +
          `the linear-time engine cannot run it${
            linear.ascii ? " on every text (a Unicode word boundary; write [^\\w] or \\s around the word instead)" : ""
          }`,
      );
    }
    const p = new Pattern(pattern, js, analysis, linear, src);
    // Only the JavaScript form is read: a pattern only RE2 can host keeps the plain path.
    if (js) {
      const st = structure(js.source, analysis!.lineBounded);
      p.withinLine = st.withinLine;
      p.setLiterals(st.literals, js.flags);
    }
    return p;
  }

  private engines(): Linear {
    return (this.linear ??= linearEngines(this.src));
  }

  private setLiterals(literals: Literals | null, flags: string): void {
    this.literals = literals;
    this.prefilter = literals ? literalTest(literals, flags) : null;
  }

  /**
   * The same pattern with another prefilter: none (null), or other literals — what the
   * equivalence tests compare against, and how they show a wrong prefilter is caught.
   */
  withLiterals(literals: Literals | null): Pattern {
    const p = new Pattern(this.source, this.js, this.analysis, this.linear, this.src);
    p.forced = this.forced;
    p.withinLine = this.withinLine;
    p.setLiterals(literals, this.js?.flags ?? "u");
    return p;
  }

  /** The same pattern, always run on one engine (null when that engine cannot run it). */
  forEngine(engine: Engine): Pattern | null {
    if (engine === "js" ? !this.js : !this.engines().linear) return null;
    const p = this.withLiterals(this.literals);
    p.forced = engine;
    return p;
  }

  /** Which engine runs on this text. */
  engineFor(text: string): Engine {
    if (this.forced) return this.forced;
    if (!this.js) return "linear";
    const a = this.analysis!;
    if (a.degree !== Infinity && withinBudget(a, text)) return "js";
    const l = this.engines();
    if (l.linear) return "linear";
    if (l.ascii && !(NON_ASCII.test(text) && NON_ASCII_WORD.test(text))) return "linear";
    return "js";
  }

  private linearFor(): RE2JS {
    const l = this.engines();
    return l.linear ?? l.ascii!;
  }

  /** False when the text lacks every required literal (no match is possible); true otherwise. */
  mayMatch(text: string): boolean {
    return this.prefilter === null || this.prefilter(text);
  }

  test(text: string): boolean {
    if (this.prefilter && !this.prefilter(text)) return false;
    return this.engineFor(text) === "js" ? this.js!.test(text) : this.linearFor().test(text);
  }

  /** The leftmost match, or null. */
  first(text: string): Match | null {
    if (this.prefilter && !this.prefilter(text)) return null;
    if (this.engineFor(text) === "js") {
      const m = this.js!.exec(text);
      return m ? { index: m.index, end: m.index + m[0].length, text: m[0] } : null;
    }
    const m = this.linearFor().matcher(text);
    return m.find() ? { index: m.start(), end: m.end(), text: m.group() ?? "" } : null;
  }

  /** Every non-empty match, left to right, none overlapping (as a global replace takes them). */
  *all(text: string): Generator<Match> {
    if (this.prefilter && !this.prefilter(text)) return;
    if (this.engineFor(text) === "js") {
      this.globalJs ??= new RegExp(this.js!.source, this.js!.flags + "g");
      for (const m of text.matchAll(this.globalJs)) {
        if (m[0].length) yield { index: m.index!, end: m.index! + m[0].length, text: m[0] };
      }
      return;
    }
    const m = this.linearFor().matcher(text);
    while (m.find()) if (m.end() > m.start()) yield { index: m.start(), end: m.end(), text: m.group() ?? "" };
  }
}

/** RE2 for a pattern: its own form, or (a Unicode word boundary) the ASCII one, and why not. */
interface Linear {
  linear: RE2JS | null;
  /** RE2 with ASCII word boundaries, for texts whose word characters are all ASCII. */
  ascii: RE2JS | null;
  error: Error | null;
}

function linearEngines(src: string): Linear {
  try {
    return { linear: compileLinear(translateRe2(src)), ascii: null, error: null };
  } catch (e) {
    if (!(e instanceof RegexTranslationError)) throw e;
    const ascii = e instanceof UnicodeBoundaryError ? tryLinear(translateRe2(src, { asciiBoundary: true })) : null;
    return { linear: null, ascii, error: e };
  }
}

function tryLinear(source: string): RE2JS | null {
  try {
    return compileLinear(source);
  } catch {
    return null;
  }
}

function withinBudget(a: Analysis, text: string): boolean {
  const n = text.length + 1;
  if (n ** (a.degree + 1) <= FAST_PATH_STEPS) return true;
  return a.lineBounded && n * (longestLine(text) + 1) ** a.degree <= FAST_PATH_STEPS;
}

/** Compiles a Rust-syntax pattern (throws RegexError with the reason). */
export const compilePattern = (pattern: string, flags = ""): Pattern => Pattern.compile(pattern, flags);

/**
 * Whether a pattern can only match the empty string, decided on a probe: every ASCII
 * character (in order, so short ranges like "AB" occur), some non-ASCII, and the
 * pattern's own text with and without its escapes (where its literals are: `x?` finds
 * "x" there). It matches there (`test` counts an empty match) but never a non-empty
 * string (`all` yields only those). A pattern that needs text the probe lacks is let
 * through: its empty matches scrub nothing (the regex runner never yields them).
 * Shared by redact (a pattern that scrubs nothing) and record --script (a wait that can
 * never see its text appear).
 */
export function matchesOnlyEmpty(p: Pattern, src: string): boolean {
  let ascii = "";
  for (let c = 0; c < 0x80; c++) ascii += String.fromCharCode(c);
  const probe = `${ascii} é日ж\u00a0\u009d ${src} ${src.replace(/\\./g, "")} `;
  if (!p.test("") && !p.test(probe)) return false;
  for (const _ of p.all(probe)) return false;
  return true;
}
