// The assertions file of `check --rules FILE` (TOML):
//   [[expect]] when = "screen:blocked"  then = "protocol:blocked"  within = "500ms"
//   [[expect]] final = "done"
//   [[expect]] reports_min = 1          (and reports_max)
//   [[forbid]] state = "error"
// Unknown keys, bad values and bad durations are FixtureErrors with file:line.

import { parse as parseToml } from "smol-toml";
import { FixtureError } from "../errors.ts";
import { parseDuration } from "../units.ts";
import type { Verdict } from "../detect/timeline.ts";
import type { ProtocolLog } from "./spec_lint.ts";
import { type Finding, finding } from "./findings.ts";
import { fmtT } from "./intervals.ts";
import { intervalsOf, type Timeline } from "../detect/timeline.ts";

type Side = "screen" | "protocol";
const STATES = ["blocked", "working", "idle", "done", "error"] as const;
const CONDITION = /^(screen|protocol):(blocked|working|idle)$/;

export type Rule =
  | {
    kind: "when";
    line: number;
    when: { side: Side; state: string };
    then: { side: Side; state: string };
    within: number;
  }
  | { kind: "final"; line: number; state: string }
  | { kind: "reports"; line: number; min?: number; max?: number }
  | { kind: "forbid"; line: number; state: string };

const KEYS = {
  expect: new Set(["when", "then", "within", "final", "reports_min", "reports_max"]),
  forbid: new Set(["state"]),
};

/** Line numbers of each [[expect]] / [[forbid]] table and of the keys inside it. */
function locate(text: string): { table: "expect" | "forbid"; line: number; keys: Map<string, number> }[] {
  const out: { table: "expect" | "forbid"; line: number; keys: Map<string, number> }[] = [];
  text.split("\n").forEach((l, i) => {
    const h = /^\s*\[\[\s*(expect|forbid)\s*\]\]/.exec(l);
    if (h) out.push({ table: h[1] as "expect" | "forbid", line: i + 1, keys: new Map() });
    else {
      const k = /^\s*([A-Za-z0-9_-]+)\s*=/.exec(l);
      if (k && out.length) out[out.length - 1].keys.set(k[1], i + 1);
    }
  });
  return out;
}

export function parseRules(text: string, file: string): Rule[] {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    const err = e as { line?: number; message: string };
    throw new FixtureError(file, err.line ?? null, `not valid TOML: ${err.message.split("\n")[0]}`);
  }
  for (const k of Object.keys(doc)) {
    if (k !== "expect" && k !== "forbid") {
      throw new FixtureError(file, null, `unknown table "${k}" (use [[expect]] and [[forbid]])`);
    }
    // [expect] (one table, not an array of them) parsed fine and was never read: the
    // rules it meant passed without being checked.
    if (!Array.isArray(doc[k])) {
      const line = text.split("\n").findIndex((l) => new RegExp(`^\\s*\\[\\s*${k}\\s*\\]`).test(l));
      throw new FixtureError(
        file,
        line < 0 ? null : line + 1,
        `[${k}] is one table: write [[${k}]] (each rule its own)`,
      );
    }
  }
  if (Object.keys(doc).length === 0) {
    throw new FixtureError(
      file,
      null,
      "no rules (an [[expect]] or a [[forbid]]): a rules file that checks nothing passes everything",
    );
  }
  const places = locate(text);
  const seen = { expect: 0, forbid: 0 };
  const rules: Rule[] = [];
  for (const place of places) {
    const list = doc[place.table] as Record<string, unknown>[];
    const t = list[seen[place.table]++];
    const at = (key?: string) => (key && place.keys.get(key)) || place.line;
    const fail = (msg: string, key?: string): never => {
      throw new FixtureError(file, at(key), `[[${place.table}]]: ${msg}`);
    };
    for (const k of Object.keys(t)) if (!KEYS[place.table].has(k)) fail(`unknown key "${k}"`, k);
    rules.push(place.table === "forbid" ? forbidRule(t, place.line, fail) : expectRule(t, place.line, fail));
  }
  return rules;
}

function forbidRule(t: Record<string, unknown>, line: number, fail: (m: string, k?: string) => never): Rule {
  if (typeof t.state !== "string" || !(STATES as readonly string[]).includes(t.state)) {
    fail(`state must be one of ${STATES.join(", ")}`, "state");
  }
  return { kind: "forbid", line, state: t.state as string };
}

function expectRule(t: Record<string, unknown>, line: number, fail: (m: string, k?: string) => never): Rule {
  if (t.final !== undefined) {
    if (typeof t.final !== "string" || !(STATES as readonly string[]).includes(t.final)) {
      fail(`final must be one of ${STATES.join(", ")}`, "final");
    }
    return { kind: "final", line, state: t.final as string };
  }
  if (t.reports_min !== undefined || t.reports_max !== undefined) {
    for (const k of ["reports_min", "reports_max"]) {
      if (t[k] !== undefined && (typeof t[k] !== "number" || !Number.isInteger(t[k]) || (t[k] as number) < 0)) {
        fail(`${k} must be a whole number`, k);
      }
    }
    // A range no count can be in: the rule would fail every capture, whatever it holds.
    if (typeof t.reports_min === "number" && typeof t.reports_max === "number" && t.reports_min > t.reports_max) {
      fail(`reports_min (${t.reports_min}) is more than reports_max (${t.reports_max})`, "reports_max");
    }
    return {
      kind: "reports",
      line,
      min: t.reports_min as number | undefined,
      max: t.reports_max as number | undefined,
    };
  }
  const cond = (k: "when" | "then") => {
    const m = typeof t[k] === "string" ? CONDITION.exec(t[k] as string) : null;
    if (!m) fail(`${k} must be "screen:STATE" or "protocol:STATE" (blocked, working, idle)`, k);
    return { side: m![1] as Side, state: m![2] };
  };
  if (t.when === undefined) fail("needs when/then, final, or reports_min/reports_max");
  let within = 0.5;
  if (t.within !== undefined) {
    try {
      within = parseDuration(String(t.within), "within");
    } catch (e) {
      fail((e as Error).message, "within");
    }
  }
  return { kind: "when", line, when: cond("when"), then: cond("then"), within };
}

const holds = (state: string) => (v: Verdict) => state === "blocked" ? v.needsYou : v.state === state && !v.needsYou;

export function evaluateRules(
  rules: Rule[],
  file: string,
  log: ProtocolLog,
  timelines: { screen: Timeline; protocol: Timeline },
  end: number,
): Finding[] {
  const out: Finding[] = [];
  const reports = log.events.filter((e) => e.type === "report" && e.source === "osc7501");
  for (const r of rules) {
    const where = `${file}:${r.line}`;
    if (r.kind === "when") {
      const starts = intervalsOf(timelines[r.when.side], end, holds(r.when.state));
      const then = intervalsOf(timelines[r.then.side], end, holds(r.then.state));
      for (const s of starts) {
        const ok = then.some((x) => x.end > s.start - 1e-9 && x.start <= s.start + r.within + 1e-9);
        if (!ok) {
          out.push(
            finding(
              "rule",
              s.start,
              s.start + r.within,
              `${where}: ${r.when.side}:${r.when.state} at ${
                fmtT(s.start)
              } without ${r.then.side}:${r.then.state} within ${r.within} s`,
            ),
          );
        }
      }
    } else if (r.kind === "final") {
      const last = [...reports].reverse().find((e) => e.type === "report" && e.id === null);
      const final = last && last.type === "report" ? last.state : "none";
      if (final !== r.state) {
        out.push(
          finding("rule", last?.t ?? end, end, `${where}: the last root report is ${final}, expected ${r.state}`),
        );
      }
    } else if (r.kind === "reports") {
      if (r.min !== undefined && reports.length < r.min) {
        out.push(finding("rule", 0, end, `${where}: ${reports.length} reports, expected at least ${r.min}`));
      }
      if (r.max !== undefined && reports.length > r.max) {
        out.push(finding("rule", 0, end, `${where}: ${reports.length} reports, expected at most ${r.max}`));
      }
    } else {
      for (const e of reports) {
        if (e.type === "report" && e.state === r.state) {
          out.push(
            finding(
              "rule",
              e.t,
              e.t,
              `${where}: a ${r.state} report (${e.id ?? "(root)"}) at ${fmtT(e.t)}, which the rules forbid`,
            ),
          );
        }
      }
    }
  }
  return out;
}
