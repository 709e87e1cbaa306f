// `pstlab lint`: what a manifest author should know before shipping rules (issue 21).
// Errors: a rule that can never win (by construction, or on every screen of a labelled
// corpus where it matches), a title/OSC rule that outranks every blocked rule reading the
// screen (a stale busy title then hides a modal dialog for as long as it stays — a known
// Herdr failure), a pattern no engine can run. Warnings: scan windows shorter than the
// menus the corpus shows, patterns case-sensitive where the corpus shows the program's
// wording in another case, and what the regex runner will do with each pattern.

import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { evaluate, type Gate, type Manifest, type Matcher, type Rule } from "./manifest.ts";
import { parseRegion, type Region, type RegionName, type RegionSource } from "./regions.ts";
import { compilePattern, FAST_PATH_STEPS, type Pattern, RegexError } from "../regex/pattern.ts";

export interface Finding {
  level: "error" | "warning";
  /** The rule the finding is about (null: the manifest as a whole). */
  rule: string | null;
  message: string;
}

/** One labelled screen of a corpus, as the manifest's rules see it. */
export interface LintScreen {
  /** As the labels file gives it. */
  name: string;
  source: RegionSource;
  truth: "idle" | "working" | "blocked" | "unknown";
}

/** A full screen at the default size: patterns that leave JavaScript's fast path on one are named. */
export const TYPICAL_SCREEN = { cols: 120, rows: 32 };

const TITLE_REGIONS = new Set<RegionName>(["osc_title", "osc_progress"]);
const readsScreen = (r: Rule) => !TITLE_REGIONS.has(r.region.name);

/** Texts tried on a rule to see whether it matches anything at all (a catch-all). */
const PROBES = ["x", "Hello, world", "─────", "42", "❯ 1. Yes", "? for shortcuts", "$ ", "日本語", " \n \n"];

function only(m: Manifest, rule: Rule, region: Region = rule.region): Manifest {
  const r = { ...rule, region };
  return { ...m, rules: [r], order: [r] };
}

function probe(text: string): RegionSource {
  return { rows: () => text.split("\n"), title: text, osc9: text, cursor: () => ({ x: 0, y: 0 }) };
}

const gateKey = (g: Gate): string =>
  JSON.stringify([
    g.contains,
    g.regex.map((x) => x.source),
    g.lineRegex.map((x) => x.source),
    g.all.map(gateKey),
    g.any.map(gateKey),
    g.not.map(gateKey),
  ]);

/** Rules no screen can make win: a copy of an earlier rule, or anything after a catch-all. */
function byConstruction(m: Manifest): Finding[] {
  const out: Finding[] = [];
  const seen = new Map<string, Rule>();
  let catchAll: Rule | null = null;
  for (const rule of m.order) {
    const key = rule.region.key + gateKey(rule.gate);
    const twin = seen.get(key);
    if (twin) {
      out.push({
        level: "error",
        rule: rule.id,
        message: `can never win: the same region and matchers as "${twin.id}", which is evaluated first`,
      });
    } else if (
      catchAll && (catchAll.region.key === rule.region.key ||
        (catchAll.region.name === "whole_recent" && readsScreen(rule)))
    ) {
      out.push({
        level: "error",
        rule: rule.id,
        message: `can never win: "${catchAll.id}" is evaluated first and matches any text of ${catchAll.region.key}`,
      });
    }
    seen.set(key, seen.get(key) ?? rule);
    if (!catchAll && PROBES.every((t) => evaluate(only(m, rule), probe(t)).rule !== null)) catchAll = rule;
  }
  return out;
}

/** A title/OSC rule evaluated before every blocked rule that reads the screen. */
function titleOutranksBlocked(m: Manifest): Finding[] {
  const blocked = m.order.filter((r) => r.state === "blocked" && readsScreen(r));
  if (blocked.length === 0) return [];
  const firstBlocked = m.order.indexOf(blocked[0]);
  return m.order.slice(0, firstBlocked).filter((r) => !readsScreen(r) && r.state !== "blocked").map((r) => ({
    level: "error" as const,
    rule: r.id,
    message: `an ${r.region.key} rule (${r.state}${
      m.style === "herdr" ? `, priority ${r.priority}` : ""
    }) outranks every blocked rule that reads the screen (first: "${blocked[0].id}"${
      m.style === "herdr" ? `, priority ${blocked[0].priority}` : ""
    }): while the title is stale, a dialog on screen is never seen`,
  }));
}

function matchers(g: Gate, out: Matcher[] = []): Matcher[] {
  out.push(...g.regex, ...g.lineRegex);
  for (const s of [...g.all, ...g.any]) matchers(s, out);
  return out;
}

/**
 * The regex runner's verdict on each pattern worth knowing about: one JavaScript cannot
 * run in bounded time (the linear-time engine runs it), one only the linear-time engine
 * can express, and one that must run in JavaScript on screens with non-ASCII words (a
 * Unicode \\b the linear-time engine lacks) with a polynomial worst case.
 */
function runnerVerdicts(m: Manifest): Finding[] {
  const out: Finding[] = [];
  const wide = Array.from({ length: TYPICAL_SCREEN.rows }, () => "é ".repeat(TYPICAL_SCREEN.cols / 2)).join("\n");
  for (const rule of m.rules) {
    for (const { source, re } of matchers(rule.gate)) {
      const a = re.analysis;
      const q = JSON.stringify(source);
      let message: string | null = null;
      if (a === null) message = `${q} runs on the linear-time engine only (JavaScript cannot express it)`;
      else if (a.degree === Infinity) {
        message = `${q} would backtrack exponentially in JavaScript (${a.nested}): the linear-time engine runs it`;
      } else if (
        a.degree >= 2 && re.engineFor(wide) === "js" && (wide.length + 1) ** (a.degree + 1) > FAST_PATH_STEPS
      ) {
        message = `${q} has a Unicode word boundary the linear-time engine lacks: on screens with non-ASCII words ` +
          `it runs in JavaScript, whose worst case grows with the ${
            a.degree + 1
          }th power of the text (write [^\\w] or \\s around the word)`;
      }
      if (message) out.push({ level: "warning", rule: rule.id, message });
    }
  }
  return out;
}

/** Every rule's wins and matches on the corpus; rules that match and never win are errors. */
function shadowedOnCorpus(m: Manifest, screens: LintScreen[]): Finding[] {
  const matched = new Map<Rule, number>(), won = new Map<Rule, number>();
  const by = new Map<Rule, Map<string, number>>();
  for (const s of screens) {
    const e = evaluate(m, s.source, { explain: true });
    for (const r of e.results!) {
      if (!r.matched) continue;
      matched.set(r.rule, (matched.get(r.rule) ?? 0) + 1);
      if (r.rule === e.rule) won.set(r.rule, (won.get(r.rule) ?? 0) + 1);
      else if (e.rule) {
        const w = by.get(r.rule) ?? new Map<string, number>();
        w.set(e.rule.id, (w.get(e.rule.id) ?? 0) + 1);
        by.set(r.rule, w);
      }
    }
  }
  const out: Finding[] = [];
  for (const rule of m.rules) {
    const n = matched.get(rule) ?? 0;
    if (n === 0 || won.has(rule)) continue;
    const winners = [...(by.get(rule) ?? new Map()).entries()].map(([id, k]) => `"${id}" on ${k}`).join(", ");
    out.push({
      level: "error",
      rule: rule.id,
      message: `never wins on the corpus: it matches ${n} screen${n === 1 ? "" : "s"}, and ${winners} won first`,
    });
  }
  return out;
}

/** The same region without its scan window, for the bottom-N regions. */
function widened(r: Region): Region | null {
  switch (r.name) {
    case "bottom_lines":
    case "bottom_non_empty_lines":
    case "to_cursor_non_empty_lines":
      return parseRegion("whole_recent");
    case "bottom_after_input_box":
      return parseRegion("after_last_input_box");
    default:
      return null;
  }
}

/** Blocked screens the manifest misses that a blocked rule would catch with a longer window. */
function shortWindows(m: Manifest, screens: LintScreen[]): Finding[] {
  const out: Finding[] = [];
  const hits = new Map<Rule, string[]>();
  for (const s of screens) {
    if (s.truth !== "blocked" || evaluate(m, s.source).state === "blocked") continue;
    for (const rule of m.rules) {
      const wide = rule.state === "blocked" ? widened(rule.region) : null;
      if (wide && evaluate(only(m, rule, wide), s.source).rule) hits.set(rule, [...(hits.get(rule) ?? []), s.name]);
    }
  }
  for (const [rule, files] of hits) {
    out.push({
      level: "warning",
      rule: rule.id,
      message: `its scan window ${rule.region.key} is shorter than the menu on ${files.slice(0, 3).join(", ")}${
        files.length > 3 ? ` and ${files.length - 3} more` : ""
      } (the rule matches the whole screen there, and the screen is labelled blocked)`,
    });
  }
  return out;
}

const CASELESS = /^\(\?[a-z]*i/;

/** Case-sensitive patterns whose wording the corpus shows in another case. */
function caseDrift(m: Manifest, screens: LintScreen[]): Finding[] {
  const out: Finding[] = [];
  for (const rule of m.rules) {
    for (const { source, re } of matchers(rule.gate)) {
      if (CASELESS.test(source)) continue;
      let ci: Pattern;
      try {
        ci = compilePattern(source, "i");
      } catch {
        continue;
      }
      const view = (s: LintScreen) => evaluate(only(m, rule), s.source, { explain: true }).results![0].regionText;
      const hit = screens.find((s) => {
        const text = view(s);
        return !re.test(text) && ci.test(text);
      });
      if (!hit) continue;
      const shown = ci.first(view(hit))?.text.trim().slice(0, 60) ?? "";
      out.push({
        level: "warning",
        rule: rule.id,
        message: `${JSON.stringify(source)} is case-sensitive, and ${hit.name} shows it as ${
          JSON.stringify(shown)
        } (add (?i) where the program's wording varies in case)`,
      });
    }
  }
  return out;
}

/** Every finding on a loaded manifest; the corpus adds the checks that need screens. */
export function lintManifest(m: Manifest, screens: LintScreen[] | null = null): Finding[] {
  const out = [...byConstruction(m), ...titleOutranksBlocked(m), ...runnerVerdicts(m)];
  if (screens && screens.length) {
    out.push(...shadowedOnCorpus(m, screens), ...shortWindows(m, screens), ...caseDrift(m, screens));
  }
  return out;
}

/**
 * Every pattern of a manifest's text that no engine can run, each with its rule (the
 * loader stops at the first). Empty when the text is not TOML or has no such pattern.
 */
export function unrunnablePatterns(text: string): Finding[] {
  return unrunnableRules(text).findings;
}

/**
 * The unrunnable patterns, and the manifest's text without the rules that have them (null when
 * there are none, or the text is not TOML): the loader stops at the first pattern it cannot
 * run, so the rest of the manifest is linted from this text and every problem is reported.
 */
export function unrunnableRules(text: string): { findings: Finding[]; rest: string | null } {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch {
    return { findings: [], rest: null };
  }
  const out: Finding[] = [];
  const bad = new Set<number>();
  const rules = Array.isArray(doc.rules) ? doc.rules : [];
  rules.forEach((raw, i) => {
    if (typeof raw !== "object" || raw === null) return;
    const id = typeof (raw as { id?: unknown }).id === "string" ? (raw as { id: string }).id : `rule${i + 1}`;
    const walk = (v: unknown, field: string): void => {
      if (typeof v === "string") {
        if (field === "contains") return;
        try {
          compilePattern(v);
        } catch (e) {
          if (!(e instanceof RegexError)) throw e;
          out.push({ level: "error", rule: id, message: `${JSON.stringify(v)}: ${e.message}` });
          bad.add(i);
        }
      } else if (Array.isArray(v)) v.forEach((x) => walk(x, field));
      else if (typeof v === "object" && v !== null) {
        for (const [k, x] of Object.entries(v)) {
          if (["regex", "line_regex", "any", "all", "not"].includes(k)) walk(x, k);
        }
      }
    };
    walk(raw, "");
  });
  const kept = rules.filter((_, i) => !bad.has(i));
  if (!bad.size || !kept.length) return { findings: out, rest: null };
  try {
    return { findings: out, rest: stringifyToml({ ...doc, rules: kept }) };
  } catch {
    return { findings: out, rest: null }; // what TOML can read it can write; if not, the patterns alone
  }
}
