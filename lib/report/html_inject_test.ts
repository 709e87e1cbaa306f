// No field of a shard (or of a capture, manifest or file name) becomes markup in the
// HTML report: every string the shard schema lets through is replaced by markup that
// would end a script, refresh the page, break out of an attribute or carry C1/bidi
// controls, the shards are merged and rendered, and the page must hold none of it.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import playerBundle from "asciinema-player/dist/bundle/asciinema-player.min.js" with { type: "text" };
import { inertScript } from "./markup.ts";
const playerJs = inertScript(playerBundle);
import playerCss from "asciinema-player/dist/bundle/asciinema-player.css" with { type: "text" };
import { analyzeFile } from "../../replay/analyze.ts";
import { makeShard, mergeShards, parseShard } from "../score/shard.ts";
import { buildReport } from "./model.ts";
import { renderHtml } from "./html.ts";
import { castText, cli, ROOT, tmpDir, writeTmp } from "../testkit.ts";
import { UserError } from "../errors.ts";

const HOSTILE =
  `</script><meta http-equiv="refresh" content="0;url=https://evil.invalid/">"'><img src=x onerror=alert(1)>` +
  "\u009b31m\u009d0;t\u0007\u202e\u2066&amp;";
/** Controls and invisible formatting no page of ours contains outside the player's own bundle. */
const CONTROLS =
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

function assertInert(page: string, files: number): void {
  const ours = page.replace(playerJs, "").replace(playerCss, "");
  assert.ok(!/<meta http-equiv="refresh"/i.test(ours), "a meta refresh got into the page");
  assert.ok(!/<img/i.test(ours), "an <img> got into the page");
  assert.equal((ours.match(/<script/g) ?? []).length, files + 2, "one data block per file and our two scripts");
  assert.equal((ours.match(/<\/script>/g) ?? []).length, files + 2, "no script ended early");
  assert.equal((ours.match(/<meta /g) ?? []).length, 2, "only our charset and CSP metas");
  const c = CONTROLS.exec(ours);
  assert.equal(c, null, `a control or bidi character got into the page: U+${c?.[0].charCodeAt(0).toString(16)}`);
}

describe("a merged shard with markup in every field", () => {
  test("renders as text, never as markup", async () => {
    const result = await analyzeFile(path.join(ROOT, "fixtures/captures/sim-stale.cast"), {
      detectors: ["protocol", "question", "screen:auto@700ms"],
      truth: "auto",
      open: {},
    });
    const shard = makeShard("1/1", 1, ["protocol", "question", "screen:auto@700ms"], "auto", 0, [{ index: 0, result }]);
    // Every string leaf, one at a time: kept hostile when the schema accepts it there.
    const doc = JSON.parse(JSON.stringify(shard));
    let hostile = 0, refused = 0;
    const walk = (o: Record<string, unknown>) => {
      for (const k of Object.keys(o)) {
        const v = o[k];
        if (typeof v === "string") {
          o[k] = HOSTILE;
          try {
            parseShard(JSON.stringify(doc), "s.json");
            hostile++;
          } catch (e) {
            assert.ok(e instanceof UserError);
            o[k] = v;
            refused++;
          }
        } else if (v && typeof v === "object") walk(v as Record<string, unknown>);
      }
    };
    walk(doc);
    assert.ok(hostile > 20, `${hostile} fields made hostile`);
    assert.ok(refused > 0, "the schema pins some fields (hashes, states, K/N)");
    const merged = mergeShards([{ file: "s.json", shard: parseShard(JSON.stringify(doc), "s.json") }]);
    const report = buildReport(merged.files, null, ["report", "--merge", HOSTILE]);
    assertInert(renderHtml(report, [null]), 1);
  });
});

describe("a capture, manifest and file name with markup", () => {
  const dir = tmpDir("pstlab-html-inject-");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  test("report --format html", () => {
    // A file name cannot hold "/": the rest of the markup can.
    const name = HOSTILE.replace(/\//g, "_").replace(/\x00/g, "") + ".cast";
    const cast = writeTmp(
      dir,
      name,
      castText([
        [0.1, "m", `truth:working`],
        [0.1, "o", `${HOSTILE}\r\n`],
        [0.2, "m", `truth:blocked:${HOSTILE}`],
        [0.1, "o", `\x1b]0;${HOSTILE}\x07Do you want to proceed? ${HOSTILE}\r\n`],
        [0.5, "m", "truth:idle"],
      ], { command: HOSTILE, title: HOSTILE }),
    );
    const manifest = writeTmp(
      dir,
      HOSTILE.replace(/\//g, "_") + ".toml",
      fs.readFileSync(path.join(ROOT, "fixtures/manifests/generic.toml"), "utf8").replace(
        /^name = .*$/m,
        `name = ${JSON.stringify(HOSTILE)}`,
      ),
    );
    const out = path.join(dir, "r.html");
    const r = cli([
      "report",
      cast,
      "--manifest",
      manifest,
      "--detectors",
      "protocol,question,screen:auto@50ms",
      "-o",
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assertInert(fs.readFileSync(out, "utf8"), 1);
  });
});
