// One engine for both manifest styles (docs/detection.md §3):
//  - "herdr": Herdr's format as-is — every rule evaluated, the highest priority wins,
//    the earlier rule wins ties, no match → idle (`default_known_agent_idle_fallback`);
//    unknown fields rejected, as Herdr does.
//  - "first-match": ordered rules, the first that matches wins, no match → idle
//    (osFoundry's claude.toml: `[[rules]] state = "blocked" any = ['regex', …]`).
// Both use Rust regex syntax (Herdr's engine and osFoundry's are Rust), and both are
// untrusted input: Herdr's limits are enforced, and every pattern runs through the one
// regex runner (lib/regex/pattern.ts), which never lets a pattern backtrack without bound.

import { parse as parseToml } from "smol-toml";
import { ManifestError } from "../errors.ts";
import { compilePattern, type Match, type Pattern, RegexError } from "../regex/pattern.ts";
import { parseRegion, type Region, type RegionSource, RegionView } from "./regions.ts";
import type { Kind } from "../osc7501/parse.ts";

export const ENGINE_VERSION = 4;
export const LIMITS = {
  rules: 128,
  gates: 512,
  matchersPerGate: 32,
  matchers: 1024,
  matcherChars: 512,
  depth: 8,
} as const;

export type DetState = "idle" | "working" | "blocked" | "unknown";
const DET_STATES = new Set(["idle", "working", "blocked", "unknown"]);
const KINDS = new Set(["permission", "question", "auth"]);

export interface Matcher {
  source: string;
  re: Pattern;
  /**
   * How the matcher reads a region, decided when the manifest is compiled (issue 25):
   * "row" — the pattern cannot match across a line (Pattern.withinLine), so it is run on
   * each row and each row's answer is kept by the row's text; "joined" — on the region's
   * text, after a per-row check that some row holds a required literal (one without a
   * line break lies within a row of the joined text iff it lies within the text).
   */
  path: "row" | "joined";
  /** Per row text: the row's leftmost match (row path), or whether it holds a literal (joined path). */
  rows: RowMemo<Match | null | boolean>;
  /** Joined path: the literal check can run per row. */
  rowLiterals: boolean;
}

/**
 * A matcher's answers per row, kept by the row's text at its place: per stream of
 * screens (an observer's screen, a detector's tail), the rows last read at each place
 * and their answers. A row unchanged since then is the same string at the same place,
 * or one place lower after the screen scrolled by a line, found with one comparison;
 * only a redrawn or new row is read again. Bounded by the screen's height. (A map by
 * row text was tried: hashing every redrawn row for every matcher cost more than the
 * regex runs it saved on the dense bench capture.)
 */
export class RowMemo<T> {
  private places = new WeakMap<object, { rows: string[]; values: T[] }>();
  /** The value of the row find() stopped at. */
  found: T | undefined = undefined;

  /** The index of the first row whose value is truthy (kept in `found`), or -1. */
  find(stream: object | null, rows: readonly string[], fn: (row: string) => T): number {
    let p = stream ? this.places.get(stream) : undefined;
    if (stream && !p) this.places.set(stream, p = { rows: [], values: [] });
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      let v: T;
      if (p === undefined) v = fn(row);
      else if (p.rows[i] === row) v = p.values[i];
      else {
        // Scrolled by a line: this row was one place lower last time.
        v = p.rows[i + 1] === row ? p.values[i + 1] : fn(row);
        p.rows[i] = row;
        p.values[i] = v;
      }
      if (v) {
        this.found = v;
        return i;
      }
    }
    return -1;
  }
}

export interface Gate {
  contains: string[]; // lower-cased
  /** Per needle (without a line break), whether a row's lower-cased text holds it; null: the needle spans rows. */
  containsRows: (RowMemo<boolean> | null)[];
  regex: Matcher[];
  lineRegex: Matcher[];
  all: Gate[];
  any: Gate[];
  not: Gate[];
}

export interface Rule {
  id: string;
  index: number;
  state: DetState;
  priority: number;
  region: Region;
  visible: boolean; // visible_<state> for the rule's own state
  skip: boolean;
  kind: Kind | null;
  gate: Gate;
}

export interface Manifest {
  name: string;
  style: "herdr" | "first-match";
  id: string | null;
  version: string | null;
  aliases: string[];
  rules: Rule[];
  /** Evaluation order: Herdr's by priority (ties: file order), first-match's file order. */
  order: Rule[];
  path: string;
}

const HERDR_TOP = new Set(["id", "version", "min_engine_version", "updated_at", "aliases", "resume_options", "rules"]);
const HERDR_RULE = new Set([
  "id",
  "state",
  "priority",
  "region",
  "visible_idle",
  "visible_working",
  "visible_blocker",
  "skip_state_update",
  "contains",
  "regex",
  "line_regex",
  "all",
  "any",
  "not",
]);
const GATE_KEYS = new Set(["contains", "regex", "line_regex", "all", "any", "not"]);
const FM_TOP = new Set(["style", "name", "description", "version", "rules"]);
const FM_RULE = new Set(["id", "state", "kind", "region", "any", "all", "not", "contains", "comment"]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

interface Counter {
  gates: number;
  matchers: number;
}

class Builder {
  constructor(readonly file: string, readonly counter: Counter) {}

  fail(where: string, msg: string): never {
    throw new ManifestError(this.file, `${where}: ${msg}`);
  }

  strings(where: string, v: unknown, field: string): string[] {
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
      this.fail(where, `${field} must be an array of strings`);
    }
    return v as string[];
  }

  /** `line`: a line_regex, run on each line by definition (the row path). */
  compile(where: string, src: string, line = false): Matcher {
    if (src.length > LIMITS.matcherChars) {
      this.fail(where, `a matcher is ${src.length} characters (limit ${LIMITS.matcherChars})`);
    }
    let re: Pattern;
    try {
      re = compilePattern(src);
    } catch (e) {
      if (e instanceof RegexError) this.fail(where, `regex ${JSON.stringify(src)}: ${e.message}`);
      throw e;
    }
    const lits = re.literals;
    // A joined-path pattern gets the per-row literal check only when no literal holds a line break.
    const row = line || re.withinLine;
    const rowLiterals = !row && lits !== null && lits.every((l) => !l.includes("\n"));
    return { source: src, re, path: row ? "row" : "joined", rows: new RowMemo(), rowLiterals };
  }

  matchers(where: string, n: number): void {
    if (n > LIMITS.matchersPerGate) this.fail(where, `${n} matchers in one gate (limit ${LIMITS.matchersPerGate})`);
    this.counter.matchers += n;
    if (this.counter.matchers > LIMITS.matchers) {
      throw new ManifestError(this.file, `more than ${LIMITS.matchers} matchers in the manifest`);
    }
  }

  gate(where: string, o: Obj, depth: number, allowed: Set<string>): Gate {
    if (depth > LIMITS.depth) this.fail(where, `gates nested deeper than ${LIMITS.depth}`);
    for (const k of Object.keys(o)) if (!allowed.has(k)) this.fail(where, `unknown field "${k}"`);
    if (++this.counter.gates > LIMITS.gates) {
      throw new ManifestError(this.file, `more than ${LIMITS.gates} gates in the manifest`);
    }
    const contains = this.strings(where, o.contains, "contains");
    const regex = this.strings(where, o.regex, "regex");
    const lineRegex = this.strings(where, o.line_regex, "line_regex");
    this.matchers(where, contains.length + regex.length + lineRegex.length);
    for (const c of contains) {
      if (c.length > LIMITS.matcherChars) {
        this.fail(where, `a matcher is ${c.length} characters (limit ${LIMITS.matcherChars})`);
      }
    }
    const sub = (field: string): Gate[] => {
      const v = o[field];
      if (v === undefined) return [];
      if (!Array.isArray(v) || !v.every(isObj)) this.fail(where, `${field} must be an array of tables`);
      return (v as Obj[]).map((g) => this.gate(where, g, depth + 1, GATE_KEYS));
    };
    const lowered = contains.map((c) => c.toLowerCase());
    return {
      contains: lowered,
      containsRows: rowMemos(lowered),
      regex: regex.map((r) => this.compile(where, r)),
      lineRegex: lineRegex.map((r) => this.compile(where, r, true)),
      all: sub("all"),
      any: sub("any"),
      not: sub("not"),
    };
  }
}

/** Per-row memos for lower-cased needles; a needle with a line break reads the joined text. */
const rowMemos = (needles: string[]) => needles.map((c) => (c.includes("\n") ? null : new RowMemo<boolean>()));

const regexGate = (m: Matcher): Gate => ({
  contains: [],
  containsRows: [],
  regex: [m],
  lineRegex: [],
  all: [],
  any: [],
  not: [],
});

function detectStyle(doc: Obj): "herdr" | "first-match" {
  if (doc.style === "herdr" || doc.style === "first-match") return doc.style;
  if (doc.style !== undefined) throw new Error(`style must be "herdr" or "first-match"`);
  const rules = Array.isArray(doc.rules) ? doc.rules.filter(isObj) : [];
  const stringGates = rules.some((r) =>
    ["any", "all", "not"].some((k) => Array.isArray(r[k]) && (r[k] as unknown[]).some((x) => typeof x === "string"))
  );
  if (stringGates) return "first-match";
  if (typeof doc.id === "string" || rules.some((r) => "priority" in r)) return "herdr";
  return "first-match";
}

/** The TOML document, its style, and the checks on its top level. */
function parseDoc(text: string, file: string): { doc: Obj; style: "herdr" | "first-match" } {
  let doc: Obj;
  try {
    doc = parseToml(text) as Obj;
  } catch (e) {
    const err = e as { line?: number; message: string };
    throw new ManifestError(
      file,
      `not valid TOML${err.line ? ` (line ${err.line})` : ""}: ${err.message.split("\n")[0]}`,
    );
  }
  let style: "herdr" | "first-match";
  try {
    style = detectStyle(doc);
  } catch (e) {
    throw new ManifestError(file, (e as Error).message);
  }
  const top = style === "herdr" ? HERDR_TOP : FM_TOP;
  for (const k of Object.keys(doc)) if (!top.has(k)) throw new ManifestError(file, `unknown top-level field "${k}"`);
  if (style === "herdr") {
    const mev = doc.min_engine_version;
    if (mev !== undefined && (typeof mev !== "number" || mev > ENGINE_VERSION)) {
      throw new ManifestError(file, `min_engine_version ${mev} needs a newer engine (this one is ${ENGINE_VERSION})`);
    }
  }
  if (!Array.isArray(doc.rules) || doc.rules.length === 0) throw new ManifestError(file, "no [[rules]]");
  if (doc.rules.length > LIMITS.rules) {
    throw new ManifestError(file, `${doc.rules.length} rules (limit ${LIMITS.rules})`);
  }
  return { doc, style };
}

interface RuleBase {
  id: string;
  index: number;
  state: DetState;
  region: Region;
  where: string;
}

/** A rule in Herdr's format: priority, visibility flags (honoured only when they match the state), nested gates. */
function herdrRule(b: Builder, raw: Obj, base: RuleBase): Rule {
  const { id, index, state, region, where } = base;
  for (const k of Object.keys(raw)) if (!HERDR_RULE.has(k)) b.fail(where, `unknown field "${k}"`);
  const prio = raw.priority ?? 0;
  if (typeof prio !== "number" || !Number.isInteger(prio)) b.fail(where, "priority must be an integer");
  for (const k of ["visible_idle", "visible_working", "visible_blocker", "skip_state_update"]) {
    if (raw[k] !== undefined && typeof raw[k] !== "boolean") b.fail(where, `${k} must be true or false`);
  }
  const gateFields: Obj = {};
  for (const k of GATE_KEYS) if (raw[k] !== undefined) gateFields[k] = raw[k];
  // Flags are honoured only when the rule's state equals the flag's state.
  const visible = (state === "idle" && raw.visible_idle === true) ||
    (state === "working" && raw.visible_working === true) || (state === "blocked" && raw.visible_blocker === true);
  return {
    id,
    index,
    state,
    priority: prio as number,
    region,
    visible,
    skip: raw.skip_state_update === true,
    kind: null,
    gate: b.gate(where, gateFields, 1, GATE_KEYS),
  };
}

/** A first-match rule: regex lists any / all / not, plain contains, an optional kind. */
function firstMatchRule(b: Builder, raw: Obj, base: RuleBase): Rule {
  const { id, index, state, region, where } = base;
  for (const k of Object.keys(raw)) if (!FM_RULE.has(k)) b.fail(where, `unknown field "${k}"`);
  const kind = raw.kind;
  if (kind !== undefined && (typeof kind !== "string" || !KINDS.has(kind) || state !== "blocked")) {
    b.fail(where, "kind must be permission, question or auth, on a blocked rule");
  }
  // First-match gates hold regex lists: any (one must match), all (every one), not (none).
  const rx = (field: string) => b.strings(where, raw[field], field);
  const any = rx("any"), all = rx("all"), not = rx("not");
  const contains = b.strings(where, raw.contains, "contains");
  if (any.length + all.length + contains.length === 0) b.fail(where, "needs at least one of any, all, contains");
  const lowered = contains.map((c) => c.toLowerCase());
  const gate: Gate = {
    contains: lowered,
    containsRows: rowMemos(lowered),
    regex: all.map((r) => b.compile(where, r)),
    lineRegex: [],
    all: [],
    any: any.map((r) => regexGate(b.compile(where, r))),
    not: not.map((r) => regexGate(b.compile(where, r))),
  };
  b.matchers(where, any.length + all.length + not.length + contains.length);
  return {
    id,
    index,
    state,
    priority: 0,
    region,
    visible: state === "blocked",
    skip: false,
    kind: (kind as Kind) ?? null,
    gate,
  };
}

export function loadManifest(text: string, name: string, file: string): Manifest {
  const { doc, style } = parseDoc(text, file);
  const b = new Builder(file, { gates: 0, matchers: 0 });
  const seen = new Set<string>();
  const rules = (doc.rules as unknown[]).map((raw, index): Rule => {
    if (!isObj(raw)) throw new ManifestError(file, `rule ${index + 1} is not a table`);
    const id = typeof raw.id === "string" ? raw.id : `rule${index + 1}`;
    const where = `rule "${id}"`;
    if (style === "herdr" && typeof raw.id !== "string") b.fail(`rule ${index + 1}`, "missing id");
    if (seen.has(id)) b.fail(where, "duplicate rule id");
    seen.add(id);
    const state = raw.state;
    if (typeof state !== "string" || !DET_STATES.has(state)) {
      b.fail(where, `state must be idle, working, blocked or unknown (got ${JSON.stringify(state)})`);
    }
    const regionText = raw.region === undefined ? "whole_recent" : raw.region;
    const region = typeof regionText === "string" ? parseRegion(regionText) : null;
    if (!region) return b.fail(where, `unknown region ${JSON.stringify(regionText)}`);
    const base: RuleBase = { id, index, state: state as DetState, region, where };
    return style === "herdr" ? herdrRule(b, raw, base) : firstMatchRule(b, raw, base);
  });
  return {
    name,
    style,
    id: typeof doc.id === "string" ? doc.id : null,
    version: typeof doc.version === "string" ? doc.version : null,
    aliases: Array.isArray(doc.aliases) ? doc.aliases.filter((a): a is string => typeof a === "string") : [],
    rules,
    order: style === "herdr" ? [...rules].sort((a, b) => b.priority - a.priority || a.index - b.index) : rules,
    path: file,
  };
}

// ---------------------------------------------------------------- evaluation

export interface MatcherResult {
  kind: "contains" | "regex" | "line_regex";
  pattern: string;
  matched: boolean;
  /** What matched: the needle, the matched text, or the matching line. */
  evidence: string | null;
}

export interface RuleResult {
  rule: Rule;
  matched: boolean;
  regionText: string;
  matchers: MatcherResult[];
}

export interface Evaluation {
  state: DetState;
  rule: Rule | null;
  /** The rule carried on-screen evidence (Herdr's visible_* flag for its state). */
  visible: boolean;
  skip: boolean;
  kind: Kind | null;
  evidence: string | null;
  /** Every rule, when asked for (explain). */
  results?: RuleResult[];
}

export const FALLBACK_RULE = "default_known_agent_idle_fallback";

function clip(s: string, n = 120): string {
  return s.length > n ? s.slice(0, n) + "…" : s;
}

/** A region's lines for per-row reading: an empty region is one empty row (its text is ""). */
const EMPTY_ROW: readonly string[] = [""];
function rowsOf(view: RegionView, region: Region): readonly string[] {
  const l = view.regionLines(region);
  return l.length ? l : EMPTY_ROW;
}

/**
 * A regex matcher's leftmost match in a region's text (only its text is read by callers).
 * Row path: the first row with a match, from each row's kept answer — an unchanged row
 * costs a lookup, a changed one a regex run on that row alone. Joined path: skipped when
 * no row holds a required literal, else run on the joined text.
 */
function firstMatch(m: Matcher, view: RegionView, region: Region): Match | null {
  if (m.path === "row") {
    return m.rows.find(view.stream, rowsOf(view, region), (r) => m.re.first(r)) < 0 ? null : m.rows.found as Match;
  }
  if (m.rowLiterals && m.rows.find(view.stream, rowsOf(view, region), (r) => m.re.mayMatch(r)) < 0) return null;
  return m.re.first(view.text(region));
}

/** A line_regex's first matching line, or null (each line's answer kept by its text). */
function firstLine(m: Matcher, view: RegionView, region: Region): string | null {
  const lines = view.regionLines(region);
  const i = m.rows.find(view.stream, lines, (r) => m.re.first(r));
  return i < 0 ? null : lines[i];
}

/** Whether the region's lower-cased text holds needle k of the gate (per row when the needle has no line break). */
function holds(g: Gate, k: number, view: RegionView, region: Region): boolean {
  const needle = g.contains[k], memo = g.containsRows[k];
  if (!memo) return view.lowerText(region).includes(needle);
  // Lower-casing is per character but for a final sigma, whose context a line break ends
  // as the text's end does: the joined text lower-cased is the rows lower-cased, joined.
  return memo.find(view.stream, rowsOf(view, region), (r) => r.toLowerCase().includes(needle)) >= 0;
}

function evalGate(g: Gate, view: RegionView, region: Region, trace: MatcherResult[] | null): boolean {
  let ok = true;
  if (g.contains.length) {
    for (let k = 0; k < g.contains.length; k++) {
      const c = g.contains[k];
      const hit = holds(g, k, view, region);
      trace?.push({ kind: "contains", pattern: c, matched: hit, evidence: hit ? c : null });
      if (!hit) {
        ok = false;
        if (!trace) return false;
      }
    }
  }
  for (const m of g.regex) {
    const r = firstMatch(m, view, region);
    trace?.push({ kind: "regex", pattern: m.source, matched: !!r, evidence: r ? clip(r.text.trim()) : null });
    if (!r) {
      ok = false;
      if (!trace) return false;
    }
  }
  for (const m of g.lineRegex) {
    const line = firstLine(m, view, region);
    trace?.push({
      kind: "line_regex",
      pattern: m.source,
      matched: line !== null,
      evidence: line === null ? null : clip(line.trim()),
    });
    if (line === null) {
      ok = false;
      if (!trace) return false;
    }
  }
  for (const sub of g.all) {
    if (!evalGate(sub, view, region, trace)) {
      ok = false;
      if (!trace) return false;
    }
  }
  if (g.any.length) {
    let anyOk = false;
    for (const sub of g.any) {
      if (evalGate(sub, view, region, trace)) {
        anyOk = true;
        if (!trace) break;
      }
    }
    if (!anyOk) {
      ok = false;
      if (!trace) return false;
    }
  }
  for (const sub of g.not) {
    const inner: MatcherResult[] | null = trace ? [] : null;
    if (evalGate(sub, view, region, inner)) {
      ok = false;
      if (trace) trace.push(...inner!.map((x) => ({ ...x, pattern: `not ${x.pattern}` })));
      else return false;
    }
  }
  return ok;
}

/**
 * The evidence explain's trace would give for a gate that matched: its first matched
 * matcher in trace order (contains, regex, line_regex, then all, then any; never one
 * under `not`, nor one whose pattern starts with "not ", as the trace filter reads
 * them). Stops there: tracing the whole winning rule ran every alternative of its `any`
 * (a third of a working screen's evaluation was the spinner regex after "esc to
 * interrupt" had matched). undefined: none matched.
 */
function firstEvidence(g: Gate, view: RegionView, region: Region): string | undefined {
  for (let k = 0; k < g.contains.length; k++) {
    const c = g.contains[k];
    if (!c.startsWith("not ") && holds(g, k, view, region)) return c;
  }
  for (const m of g.regex) {
    if (m.source.startsWith("not ")) continue;
    const r = firstMatch(m, view, region);
    if (r) return clip(r.text.trim());
  }
  for (const m of g.lineRegex) {
    if (m.source.startsWith("not ")) continue;
    const l = firstLine(m, view, region);
    if (l !== null) return clip(l.trim());
  }
  for (const sub of [...g.all, ...g.any]) {
    const e = firstEvidence(sub, view, region);
    if (e !== undefined) return e;
  }
  return undefined;
}

/**
 * A rule's result is a function of its region's text alone: kept per rule with the rows
 * it was computed on, and reused while they come back unchanged (the prompt box while
 * only the transcript above it moves, a title between redraws). The issue-12 memo "by
 * region text, not by screen version"; compared row by row (issue 25) so that the
 * region is never joined just to find it unchanged — an unchanged screen row is the
 * same string, found equal at once.
 */
export type RuleMemo = WeakMap<Rule, { rows: readonly string[]; ok: boolean; evidence?: string | null }>;

function sameRows(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A fresh memo for one stream of inputs (one observer's screen, one detector's tail). */
export const ruleMemo = (): RuleMemo => new WeakMap();

function ruleResult(
  rule: Rule,
  view: RegionView,
  memo: RuleMemo | undefined,
): { ok: boolean; evidence?: string | null } {
  if (!memo) return { ok: evalGate(rule.gate, view, rule.region, null) };
  const rows = view.rows(rule.region);
  let c = memo.get(rule);
  if (c === undefined || !sameRows(c.rows, rows)) {
    c = { rows, ok: evalGate(rule.gate, view, rule.region, null) };
    memo.set(rule, c);
  }
  return c;
}

/** Evaluates a manifest on one input (a screen view and the terminal's OSC state). */
export function evaluate(
  m: Manifest,
  src: RegionSource | RegionView,
  opts: { explain?: boolean; only?: (r: Rule) => boolean; memo?: RuleMemo } = {},
): Evaluation {
  const view = src instanceof RegionView ? src : new RegionView(src, opts.memo);
  if (opts.explain) return explainAll(m, view, opts.only);
  // The first match in evaluation order wins: nothing after it can outrank it.
  for (const rule of m.order) {
    if (opts.only && !opts.only(rule)) continue;
    const r = ruleResult(rule, view, opts.memo);
    if (!r.ok) continue;
    if (r.evidence === undefined) r.evidence = firstEvidence(rule.gate, view, rule.region) ?? null;
    return verdictOf(rule, r.evidence);
  }
  return idle();
}

/** No rule matched: idle. */
const idle = (results?: RuleResult[]): Evaluation => ({
  state: "idle",
  rule: null,
  visible: false,
  skip: false,
  kind: null,
  evidence: null,
  results,
});

const verdictOf = (rule: Rule, evidence: string | null, results?: RuleResult[]): Evaluation => ({
  state: rule.state,
  rule,
  visible: rule.visible,
  skip: rule.skip,
  kind: rule.kind,
  evidence,
  results,
});

/** Explain: every rule, in file order, with its trace; the winner's evidence read off its trace. */
function explainAll(m: Manifest, view: RegionView, only?: (r: Rule) => boolean): Evaluation {
  const results: RuleResult[] = [];
  const matched = new Set<Rule>();
  for (const rule of m.rules) {
    if (only && !only(rule)) continue;
    const trace: MatcherResult[] = [];
    const ok = evalGate(rule.gate, view, rule.region, trace);
    results.push({ rule, matched: ok, regionText: view.text(rule.region), matchers: trace });
    if (ok) matched.add(rule);
  }
  const best = m.order.find((r) => matched.has(r));
  if (!best) return idle(results);
  const trace = results.find((r) => r.rule === best)!.matchers;
  return verdictOf(best, trace.find((t) => t.matched && !t.pattern.startsWith("not "))?.evidence ?? null, results);
}
