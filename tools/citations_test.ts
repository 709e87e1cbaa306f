// Comments say why by citing a document: every document they cite ships in docs/, every
// section (§) and decision (D1–D21) they cite is in it, and no comment points at the
// research notes the repository does not ship.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.resolve(import.meta.dirname ?? ".", "..");

/** The project's own files: code, scripts, manifests and prose outside docs/. */
function sources(): string[] {
  const out = ["main.ts", "README.md", "ARCHITECTURE.md"];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/\.(ts|sh|toml|md)$/.test(e.name)) out.push(rel);
    }
  };
  for (const dir of ["lib", "replay", "tools", "bench", "fixtures"]) walk(dir);
  return out.filter((f) => f !== "bench/RESULTS.md" && f !== "tools/citations_test.ts");
}

/** `§1.2` → headings "## §1 …"/"### §1.2 …" present in the document. */
function sections(doc: string): Set<string> {
  return new Set([...doc.matchAll(/^#{2,3} §([0-9]+(?:\.[0-9]+)?)\b/gm)].map((m) => m[1]));
}

test("every document a comment cites exists, with the sections and decisions cited", () => {
  const problems: string[] = [];
  const docs = new Map<string, string>();
  const read = (d: string) => {
    if (!docs.has(d)) docs.set(d, fs.existsSync(path.join(root, d)) ? fs.readFileSync(path.join(root, d), "utf8") : "");
    return docs.get(d)!;
  };
  const decisions = new Set([...read("docs/osc7501.md").matchAll(/^\| (D[0-9]+) /gm)].map((m) => m[1]));
  let cited = 0;
  const CITE = /docs\/([a-z0-9-]+\.md)((?: §[0-9]+(?:\.[0-9]+)?(?:[–,] ?§?[0-9.]+)*)?)/g;
  for (const f of sources()) {
    const text = fs.readFileSync(path.join(root, f), "utf8");
    for (const m of text.matchAll(CITE)) {
      const doc = `docs/${m[1]}`;
      cited++;
      if (!fs.existsSync(path.join(root, doc))) {
        problems.push(`${f}: cites ${doc}, which does not exist`);
        continue;
      }
      const have = sections(read(doc));
      for (const s of m[2].matchAll(/§([0-9]+(?:\.[0-9]+)?)/g)) {
        if (!have.has(s[1])) problems.push(`${f}: cites ${doc} §${s[1]}, which it does not have`);
      }
    }
    // Bare § and D-numbers are read against docs/osc7501.md, which the file must name.
    const bare = [...text.replace(CITE, "").matchAll(/(?<![\w/.])(?:§([0-9]+(?:\.[0-9]+)?)|\b(D[0-9]{1,2})\b)/g)];
    if (bare.length && !/docs\/(osc7501|detection)\.md/.test(text) && !f.endsWith(".md")) {
      problems.push(`${f}: cites ${bare[0][0]} without naming the document`);
    }
    const named = /docs\/osc7501\.md/.test(text) ? "docs/osc7501.md" : "docs/detection.md";
    for (const b of bare) {
      if (b[2] && !decisions.has(b[2])) problems.push(`${f}: cites ${b[2]}, not a decision of docs/osc7501.md`);
      if (b[1] && !sections(read(named)).has(b[1])) problems.push(`${f}: cites §${b[1]}, not a section of ${named}`);
    }
    for (
      const m of text.matchAll(
        /(?<!docs\/)\b(detection|fixture-format|runtime|ecosystem|osc7501)\.md\b|notes\/|spec §/g,
      )
    ) {
      problems.push(`${f}: cites "${m[0]}" (not shipped; cite docs/)`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(cited > 20, `only ${cited} citations found: the scan is broken`);
});
