// check's outputs: text grouped by severity with times and a one-line summary; JSON
// (versioned); JUnit (one testcase per check and file, one <failure> per violation);
// markdown for an issue, with the capture's hash and the exact command.

import { type CheckName, type CheckRun, CHECKS, counts, exitCodeOf, type Finding, type Severity } from "./findings.ts";
import { disarm, mdCode, mdCommand, paint, plural, round6, xmlText } from "../text.ts";
import { TOOL, VERSION } from "../version.ts";

export const CHECK_SCHEMA = 1;
const ORDER: Severity[] = ["violation", "warning", "info"];
const COLOR: Record<Severity, string> = { violation: "1;31", warning: "33", info: "2" };
const range = (
  f: Finding,
) => (f.end > f.start + 1e-6 ? `${f.start.toFixed(2)}–${f.end.toFixed(2)} s` : `${f.start.toFixed(2)} s`);

function summary(run: CheckRun): string {
  const c = counts(run.files.flatMap((f) => f.findings));
  const verdict = exitCodeOf(run) === 0 ? "passed" : "FAILED";
  return `check ${verdict}: ${c.violation} violation${c.violation === 1 ? "" : "s"}, ${c.warning} warning${
    c.warning === 1 ? "" : "s"
  }, ${c.info} info (${run.files.length} file${run.files.length === 1 ? "" : "s"})${run.strict ? ", --strict" : ""}`;
}

export function renderCheckText(run: CheckRun, color = false): string {
  const out: string[] = [];
  for (const f of run.files) {
    out.push(
      `${disarm(f.path)}: ${f.duration.toFixed(1)} s, ${
        plural(f.reports, "report")
      }, screen rules ${f.manifest.name} (${disarm(f.manifest.why)})`,
    );
    for (const sev of ORDER) {
      const fs = f.findings.filter((x) => x.severity === sev);
      if (!fs.length) continue;
      out.push(`  ${paint(color, COLOR[sev], `${sev}s`)} (${fs.length}):`);
      for (const x of fs) out.push(`    ${range(x).padEnd(18)} ${x.check}: ${disarm(x.message)}`);
    }
    if (!f.findings.length) out.push("  no findings");
  }
  out.push("", paint(color, exitCodeOf(run) ? "1;31" : "32", summary(run)));
  return out.join("\n") + "\n";
}

/** A finding as the check and matrix JSON carry it. */
export const jsonFinding = (f: Finding) => ({
  check: f.check,
  severity: f.severity,
  start_s: round6(f.start),
  end_s: round6(f.end),
  message: f.message,
});

export function renderCheckJson(run: CheckRun): string {
  const all = run.files.flatMap((f) => f.findings);
  return JSON.stringify(
    {
      schema: CHECK_SCHEMA,
      tool: { name: TOOL, version: VERSION },
      passed: exitCodeOf(run) === 0,
      strict: run.strict,
      tolerance_s: run.tolerance,
      against: run.against,
      rules: run.rules,
      counts: counts(all),
      files: run.files.map((f) => ({
        path: f.path,
        sha256: f.sha256,
        duration_s: round6(f.duration),
        reports: f.reports,
        manifest: f.manifest,
        counts: counts(f.findings),
        findings: f.findings.map(jsonFinding),
      })),
    },
    null,
    2,
  ) + "\n";
}

/** The checks that apply to a run (golden and rules only when asked for). */
function checksOf(run: CheckRun): CheckName[] {
  return (Object.keys(CHECKS) as CheckName[]).filter((c) =>
    (!c.startsWith("golden-") || run.against) && (c !== "rule" || run.rules)
  );
}

export function renderCheckJunit(run: CheckRun): string {
  const suites: string[] = [];
  let tests = 0, failures = 0;
  for (const f of run.files) {
    const cases: string[] = [];
    for (const c of checksOf(run)) {
      const fs = f.findings.filter((x) => x.check === c);
      const failing = fs.filter((x) => x.severity === "violation" || (run.strict && x.severity === "warning"));
      const name = `${c}: ${CHECKS[c].about}`;
      if (failing.length === 0) {
        const notes = fs.map((x) => `${range(x)} ${x.message}`).join("\n");
        cases.push(
          `    <testcase classname="pstlab.check.${xmlText(c)}" name="${xmlText(name)}">${
            notes ? `<system-out>${xmlText(notes)}</system-out>` : ""
          }</testcase>`,
        );
        tests++;
      }
      // One testcase per violation, so each failure stands on its own in CI.
      for (const x of failing) {
        cases.push(
          `    <testcase classname="pstlab.check.${xmlText(c)}" name="${
            xmlText(`${c} at ${range(x)}`)
          }">\n      <failure message="${xmlText(x.message)}" type="${x.severity}"/>\n    </testcase>`,
        );
        tests++;
        failures++;
      }
    }
    suites.push(
      `  <testsuite name="${xmlText(f.path)}" tests="${cases.length}" failures="${
        cases.filter((c) => c.includes("<failure")).length
      }">\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="pstlab check" tests="${tests}" failures="${failures}">\n${
    suites.join("\n")
  }\n</testsuites>\n`;
}

const md = (s: string) => disarm(s).replace(/[\\`*_{}[\]<>|#!]/g, (c) => `\\${c}`);

export function renderCheckMarkdown(run: CheckRun): string {
  const out: string[] = [`**${md(summary(run))}**`, ""];
  for (const f of run.files) {
    out.push(
      `${mdCode(f.path)} — ${f.duration.toFixed(1)} s, ${plural(f.reports, "report")}, sha256 \`${
        f.sha256.slice(0, 16)
      }…\``,
      "",
    );
    if (!f.findings.length) out.push("No findings.", "");
    else {
      out.push("| Severity | Time | Check | Finding |", "|:---|---:|:---|:---|");
      for (const sev of ORDER) {
        for (const x of f.findings.filter((y) => y.severity === sev)) {
          out.push(`| ${sev} | ${range(x)} | ${mdCode(x.check)} | ${md(x.message)} |`);
        }
      }
      out.push("");
    }
  }
  out.push(
    `<sub>pstlab ${VERSION} · reproduce: ${mdCommand(["pstlab", ...run.argv])}</sub>`,
  );
  return out.join("\n") + "\n";
}
