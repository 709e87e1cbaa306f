// Runs every benchmark in its own process, prints their tables and writes them to
// bench/RESULTS.md with the machine, the versions and the date (every figure there is
// measured next to its baseline in the same run: these machines are noisy).
// Usage: npm run bench   or   bun bench/run.ts [name …]   (names: scan, fixture_io, …)
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import * as fs from "node:fs";
import * as os from "node:os";
import { VERSION } from "../lib/version.ts";

const here = import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname);
const all = fs.readdirSync(here).filter((f) =>
  f.endsWith(".ts") && !["run.ts", "synth.ts"].includes(f) && !f.endsWith(".py") && !f.endsWith("_test.ts")
).map((f) => f.slice(0, -3)).sort();
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : all;
const cpu = (() => {
  try {
    return /model name\s*:\s*(.+)/.exec(fs.readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model ??
      "unknown";
  } catch {
    return os.cpus()[0]?.model ?? "unknown";
  }
})();
const head = [
  `# pstlab benchmarks`,
  "",
  `${new Date().toISOString()} · pstlab ${VERSION} · ${
    process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.version}`
  } · ${process.platform}/${process.arch}`,
  `${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
  "",
  "Every ratio is against a baseline measured in the same run (see each script in bench/).",
  "",
];
console.log(head.join("\n"));
interface Goal {
  measurement: string;
  result: string;
  target: string;
  met: boolean | null;
  note: string;
}
const goals: Goal[] = [];
const sections: string[] = [];
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark ${name} (have: ${all.join(", ")})`);
    process.exit(2);
  }
  const r = spawnSync(process.execPath, [path.join(here, `${name}.ts`)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 24,
  });
  // Goal lines (synth.ts goal()) go to the summary; the rest is the section.
  const lines = (r.stdout ?? "").trim().split("\n");
  for (const l of lines.filter((l) => l.startsWith("@goal "))) goals.push(JSON.parse(l.slice(6)));
  const section = `## ${name}\n\n${lines.filter((l) => !l.startsWith("@goal ")).join("\n")}\n`;
  console.error(`bench: ${name} done`);
  sections.push(section);
  if (r.status !== 0) process.exitCode = 1;
}
const summary = [
  "## Goals",
  "",
  "| measurement | result | goal | |",
  "| --- | --- | --- | --- |",
  ...goals.map((g) =>
    `| ${g.measurement} | ${g.result} | ${g.target} | ${g.met === null ? "–" : g.met ? "met" : "**not met**"}${
      g.note ? ` (${g.note})` : ""
    } |`
  ),
  "",
];
// Hand-written notes (per-issue before/after, measured by hand): kept across runs.
const notesFile = path.join(here, "NOTES.md");
const notes = fs.existsSync(notesFile) ? [fs.readFileSync(notesFile, "utf8")] : [];
console.log([...summary, ...sections].join("\n"));
if (chosen.length === all.length) {
  fs.writeFileSync(path.join(here, "RESULTS.md"), [...head, ...summary, ...notes, ...sections].join("\n"));
  console.log("wrote bench/RESULTS.md");
}
