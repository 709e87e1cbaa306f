// A corpus split across machines: `report --shard K/N` on each, `report --merge` of the
// parts prints what one run over all the files prints (identical tables and inputs).
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, ROOT, tmpDir } from "../testkit.ts";

const dir = tmpDir("pstlab-shard-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const F = (n: string) => path.join(ROOT, "fixtures/captures", n);
const FILES = [F("sim-correct.cast"), F("deploy.cast"), F("sim-late.cast"), F("sim-none.cast"), F("sim-stale.cast")];
const DET = ["--detectors", "protocol,screen:auto@50ms,quiet>=2s,herdr:auto"];

describe("report --shard / --merge", () => {
  for (const n of [1, 2, 3, 7]) {
    test(`${n} shard${n === 1 ? "" : "s"} merged equal one run (JSON detectors and inputs, table)`, () => {
      const parts = Array.from({ length: n }, (_, k) => {
        const out = path.join(dir, `n${n}-part${k + 1}.json`);
        const r = cli(["report", ...FILES, ...DET, "--shard", `${k + 1}/${n}`, "-o", out]);
        assert.equal(r.code, 0, r.stderr);
        return out;
      });
      const merged = JSON.parse(cli(["report", "--merge", ...parts.reverse(), "--format", "json"]).stdout);
      const single = JSON.parse(cli(["report", ...FILES, ...DET, "--format", "json"]).stdout);
      assert.deepEqual(merged.detectors, single.detectors);
      assert.deepEqual(merged.inputs, single.inputs);
      const table = (out: string) =>
        out.split("\n").filter((l) => /^(Detector|protocol|screen|quiet|herdr)/.test(l)).join("\n");
      assert.equal(table(cli(["report", "--merge", ...parts]).stdout), table(cli(["report", ...FILES, ...DET]).stdout));
    });
  }
  test("a missing or repeated shard, a file that is not a shard, a bad K/N: one line, exit 2", () => {
    const p1 = path.join(dir, "x1.json"), p2 = path.join(dir, "x2.json");
    assert.equal(cli(["report", ...FILES, ...DET, "--shard", "1/2", "-o", p1]).code, 0);
    assert.equal(cli(["report", ...FILES, ...DET, "--shard", "2/2", "-o", p2]).code, 0);
    const miss = cli(["report", "--merge", p1]);
    assert.equal(miss.code, 2);
    assert.match(miss.stderr, /2 of 5 files missing \(file 2, 4\): a shard is missing/);
    assert.match(cli(["report", "--merge", p1, p1, p2]).stderr, /is in two shards/);
    assert.match(cli(["report", "--merge", F("deploy.cast")]).stderr, /deploy\.cast: not a shard file/);
    for (const bad of ["0/2", "3/2", "x", "1/0"]) {
      assert.match(cli(["report", ...FILES, "--shard", bad]).stderr, /bad --shard/);
    }
  });
  test("--merge with --detectors reports only those rows; a name no shard has is refused in one line", () => {
    const p1 = path.join(dir, "d1.json"), p2 = path.join(dir, "d2.json");
    assert.equal(cli(["report", ...FILES, ...DET, "--shard", "1/2", "-o", p1]).code, 0);
    assert.equal(cli(["report", ...FILES, ...DET, "--shard", "2/2", "-o", p2]).code, 0);
    const only = ["protocol,quiet>=2s", "screen:auto@50ms", "herdr:auto,protocol"];
    for (const list of only) {
      const merged = JSON.parse(cli(["report", "--merge", p1, p2, "--detectors", list, "--format", "json"]).stdout);
      const single = JSON.parse(cli(["report", ...FILES, "--detectors", list, "--format", "json"]).stdout);
      assert.deepEqual(merged.detectors, single.detectors, list);
    }
    const bad = cli(["report", "--merge", p1, p2, "--detectors", "title:claude"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--detectors title:claude is not a detector of the shards/);
    assert.equal(bad.stderr.trim().split("\n").length, 1);
  });
  test("a merged HTML report embeds a recording only beside its shard, and only when its sha256 is the shard's", () => {
    // The CI layout: captures in caps/, the shard written beside them, merged elsewhere.
    const ci = path.join(dir, "ci"), caps = path.join(ci, "caps");
    fs.mkdirSync(caps, { recursive: true });
    fs.copyFileSync(F("sim-late.cast"), path.join(caps, "late.cast"));
    fs.copyFileSync(F("sim-stale.cast"), path.join(caps, "stale.cast"));
    const secret = path.join(dir, "secret.cast");
    fs.copyFileSync(F("sim-correct.cast"), secret);
    const shard = path.join(ci, "part.json");
    const r = cli([
      "report",
      "caps/late.cast",
      "caps/stale.cast",
      secret,
      "--detectors",
      "protocol",
      "--shard",
      "1/1",
      "-o",
      shard,
    ], { cwd: ci });
    assert.equal(r.code, 0, r.stderr);
    fs.appendFileSync(path.join(caps, "stale.cast"), "\n"); // changed since the shard was made
    const html = path.join(dir, "merged.html");
    assert.equal(cli(["report", "--merge", shard, "-o", html]).code, 0);
    const casts = [
      ...fs.readFileSync(html, "utf8").matchAll(/<script type="application\/json" id="capture-\d">(.*?)<\/script>/g),
    ]
      .map((m) => JSON.parse(m[1]).cast);
    assert.equal(casts.length, 3);
    assert.ok(typeof casts[0] === "string" && casts[0].length > 100, "beside the shard, same sha256: embedded");
    assert.equal(casts[1], null, "changed since: not embedded");
    assert.equal(casts[2], null, "an absolute path in a shard is never read");
    const text = fs.readFileSync(html, "utf8");
    assert.match(
      text,
      /not embedded: no copy of the capture with the shard&#39;s sha256 beside it \([^)]*stale\.cast\)/,
    );
    // A shard of a capture read from stdin: nothing to look for beside it, and the page says so.
    const piped = path.join(dir, "piped.json");
    const p = cli(["report", "-", "--detectors", "protocol", "--shard", "1/1", "-o", piped], {
      input: fs.readFileSync(path.join(caps, "late.cast")),
    });
    assert.equal(p.code, 0, p.stderr);
    const pipedHtml = path.join(dir, "piped.html");
    assert.equal(cli(["report", "--merge", piped, "-o", pipedHtml]).code, 0);
    assert.match(fs.readFileSync(pipedHtml, "utf8"), /not embedded: the shard&#39;s capture was read from a pipe/);
  });
});
