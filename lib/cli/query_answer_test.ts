// What the recorder did with the program's OSC 7501 query, as every reader tells it: a late
// answer (record --answer-delay) is "answered" only where the recorder's marker says it was
// sent, at that time; a query never answered is never shown with a reply sent or "answered".
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { castText, cli, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-answer-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const PV = { tool: "pstlab", version: "0.1.0", osc7501_revision: "0.4", fixture_schema: 1 };
const QUERY = "\x1b]7501;?\x1b\\";
const cap = (name: string, pv: Record<string, unknown>, sent: boolean) =>
  writeTmp(
    dir,
    `${name}.cast`,
    castText(
      [[0.2, "o", QUERY], [0.3, "o", "hello\r\n"], ...(sent ? [[1.5, "m", "pstlab:query-answered"]] : []), [
        0.5,
        "x",
        "0",
      ]],
      { pstlab: { ...PV, ...pv } },
    ),
  );

const CASES: { name: string; pv: Record<string, unknown>; sent: boolean; text: RegExp; answer: boolean }[] = [
  {
    name: "at-once",
    pv: { query_answered: true },
    sent: false,
    text: /^0\.200 +query +reply \\e\]7501;\?\\e\\$/m,
    answer: false,
  },
  {
    name: "never",
    pv: { query_answered: false },
    sent: false,
    text: /query +not answered \(recorded with --no-answer\)/,
    answer: false,
  },
  {
    name: "late, sent",
    pv: { query_answered: null, query_answer_delay_s: 1.5 },
    sent: true,
    text: /query +answer .* due late/,
    answer: true,
  },
  {
    name: "late, never sent",
    pv: { query_answered: null, query_answer_delay_s: 2 },
    sent: false,
    text: /query +answer .* due late/,
    answer: false,
  },
];

describe("the query's answer, as scan and check tell it", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const f = cap(c.name.replace(/\W+/g, "-"), c.pv, c.sent);
      const s = cli(["scan", f]);
      assert.equal(s.code, 0, s.stderr);
      assert.match(s.stdout, c.text);
      // The answer row is at the time the recorder sent it (0.2 + 0.3 + 1.5 s), and only then.
      assert.equal(/^2\.000 +answer /m.test(s.stdout), c.answer, s.stdout);
      const j = cli(["scan", "--json", f]).stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(j.some((e) => e.type === "answer" && e.t === 2), c.answer);
      // check: a query never answered is not "answered but no report was ever sent".
      const k = JSON.parse(cli(["check", f, "--format", "json"]).stdout);
      const q = k.files[0].findings.filter((x: { check: string }) => x.check === "query");
      const claimsAnswer = q.some((x: { message: string }) => /was answered/.test(x.message));
      assert.equal(claimsAnswer, c.name === "at-once" || c.answer, JSON.stringify(q));
    });
  }
});
