// Counts leaf test cases in JUnit XML reports (bun test, deno test) and prints
// "passed failed skipped". Deno reports a describe() block as a test case with its
// tests as steps named "block > test"; only leaves are counted, so both runners count
// the same tests the same way.
import { existsSync, readFileSync } from "node:fs";

let passed = 0, failed = 0, skipped = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    failed++;
    continue;
  }
  const xml = readFileSync(file, "utf8");
  const cases = [];
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (let m; (m = re.exec(xml));) {
    const name = (/\bname="([^"]*)"/.exec(m[1]) ?? [, ""])[1];
    const body = m[3] ?? "";
    cases.push({ name, failed: /<(failure|error)\b/.test(body), skipped: /<skipped\b/.test(body) });
  }
  const names = cases.map((c) => c.name);
  for (const c of cases) {
    const isGroup = names.some((n) => n.startsWith(c.name + " &gt; "));
    if (isGroup && !c.failed) continue;
    if (isGroup && c.failed && cases.some((d) => d.name.startsWith(c.name + " &gt; ") && d.failed)) continue;
    if (c.failed) failed++;
    else if (c.skipped) skipped++;
    else passed++;
  }
  const suites = /<testsuites\b[^>]*\bfailures="([0-9]+)"/.exec(xml);
  if (suites && Number(suites[1]) > 0 && failed === 0) failed += Number(suites[1]);
}
console.log(`${passed} ${failed} ${skipped}`);
