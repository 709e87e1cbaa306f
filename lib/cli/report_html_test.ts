// The HTML report people open: --player none|first|all within a total embed budget (the
// page says what it left out), a poster at the first episode, the manifest line, the
// text report's notes, per-file tables and plurals.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { castsFor } from "./report.ts";
import type { FileResult } from "../score/result.ts";
import { castText, cli, ROOT, tmpDir, writeTmp } from "../testkit.ts";

const dir = tmpDir("pstlab-html-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const FAKE = path.join(ROOT, "fixtures/captures/fake-claude.cast");
const one = writeTmp(
  dir,
  "one.cast",
  castText([[0, "m", "truth:working"], [1, "o", "Allow? "], [0, "m", "truth:blocked:permission"], [
    2,
    "m",
    "truth:idle",
  ]]),
);
const two = writeTmp(dir, "two.cast", castText([[0, "m", "truth:working"], [1, "o", "fine"], [1, "m", "truth:idle"]]));
const data = (html: string) =>
  [...html.matchAll(/<script type="application\/json" id="capture-\d+">(.*?)<\/script>/g)].map((m) => JSON.parse(m[1]));

describe("report --format html", () => {
  test("poster at the first episode, manifest line, notes, per-file tables, plurals", () => {
    const out = path.join(dir, "r.html");
    const r = cli(["report", one, two, FAKE, "--detectors", "protocol,herdr:auto", "-o", out]);
    assert.equal(r.code, 0, r.stderr);
    const html = fs.readFileSync(out, "utf8");
    const d = data(html);
    assert.equal(d[0].poster, 2, "a moment into the first episode (1–3 s)");
    assert.equal(d[1].poster, 2, "no episode: the end");
    assert.match(html, /3 captures, [0-9.]+ s, \d+ blocked episodes/);
    assert.match(html, /· 1 blocked episode ·/);
    assert.match(html, /· 0 blocked episodes ·/);
    assert.match(html, /<p>manifests \(auto\): /);
    assert.match(html, /Herdr&#39;s startup grace|Herdr's startup grace/);
    assert.match(html, /definitions: README/);
    assert.equal((html.match(/<th>Detector<\/th>/g) ?? []).length, 4, "the summary and one table per file");
    assert.match(html, /poster: "npt:" \+ data\.poster/);
  });
  test("--player first and none: the page says why a capture has no player", () => {
    for (
      const [which, embedded] of [["first", [true, false]], ["none", [false, false]], ["all", [true, true]]] as const
    ) {
      const out = path.join(dir, `${which}.html`);
      assert.equal(cli(["report", one, two, "--detectors", "protocol", "--player", which, "-o", out]).code, 0);
      const html = fs.readFileSync(out, "utf8");
      assert.deepEqual(data(html).map((x) => typeof x.cast === "string"), embedded, which);
      if (which !== "all") assert.match(html, new RegExp(`no player \\(--player ${which}\\)`));
    }
    const bad = cli(["report", one, "--player", "some", "--format", "html"]);
    assert.equal(bad.code, 2);
  });
  test("past the total budget the rest get no player, and the page says so", async () => {
    const file = (p: string) => ({ path: p, sha256: "" }) as unknown as FileResult;
    // The budget counts what the page holds: the recording as an embedded JSON string, in bytes.
    const size =
      new TextEncoder().encode(JSON.stringify((await castsFor([file(one)], null, {}, "all")).casts[0]!)).length;
    const r = await castsFor([file(one), file(two), file(one)], null, {}, "all", Math.ceil(size * 1.5));
    assert.deepEqual(r.casts.map((c) => c !== null), [true, false, false]);
    assert.match(r.why[1]!, /the page's player budget .* was spent/);
    assert.equal(r.why[0], null);
  });
  test("a capture bigger than the whole budget is said to be, and the ones after it keep their players", async () => {
    const file = (p: string) => ({ path: p, sha256: "" }) as unknown as FileResult;
    const size = (p: string) =>
      castsFor([file(p)], null, {}, "all").then((c) => new TextEncoder().encode(JSON.stringify(c.casts[0]!)).length);
    const [a, b] = [await size(one), await size(two)];
    const [big, small] = a > b ? [one, two] : [two, one];
    const r = await castsFor([file(big), file(small)], null, {}, "all", Math.max(a, b) - 1);
    assert.deepEqual(r.casts.map((c) => c !== null), [false, true]);
    assert.match(r.why[0]!, /bigger than the page's player budget/);
    assert.doesNotMatch(r.why[0]!, /captures above|--player first/);
  });
});
