// Text from a capture never reaches the user's terminal raw, and never becomes markup
// or a formula in a document: a hostile capture (escapes, C1 controls, bidi overrides
// in every text field) and hostile file names, through every human-readable output.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as fs from "node:fs";
import * as path from "node:path";
import { castText, cli, tmpDir, writeTmp } from "../testkit.ts";
import { encodeBase64 } from "../osc7501/base64.ts";
import { disarm } from "../text.ts";

const dir = tmpDir("pstlab-inject-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const EVIL = "\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil\u2066<img src=x onerror=alert(1)>";
const b64 = (s: string) => encodeBase64(new TextEncoder().encode(s));
// Raw terminal controls and invisible formatting that must never reach a terminal.
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

const cast = writeTmp(
  dir,
  "=HYPERLINK(x)<img onerror=y>.cast",
  castText([
    [0.1, "o", `\x1b]7501;state=working:title=${b64(EVIL)}:msg=${b64(EVIL)}\x1b\\\x1b]0;${EVIL}\x07`],
    [0.1, "m", `truth:blocked:${EVIL}`],
    [0.5, "o", `\x1b]7501;state=blocked:kind=question:msg=${b64(EVIL)}\x1b\\${EVIL}?`],
    [0.5, "m", "truth:idle"],
    [0.5, "x", "0"],
  ], { command: EVIL, title: EVIL, term: { cols: 80, rows: 24, type: EVIL } }),
);

function clean(args: string[]) {
  const r = cli(args);
  assert.ok(r.code === 0 || r.code === 1, `${args.join(" ")}: ${r.stderr}`);
  for (const [name, text] of [["stdout", r.stdout], ["stderr", r.stderr]]) {
    const strip = text.replace(/\n/g, "");
    assert.ok(!RAW.test(strip), `${args[0]} ${name} has a raw control: ${JSON.stringify(strip.match(RAW))}`);
  }
  return r;
}

describe("no capture text reaches the terminal raw", () => {
  for (
    const args of [["info"], ["scan"], ["status"], ["detect"], ["explain"], ["screen"], ["report", "--episodes"], [
      "report",
      "--format",
      "markdown",
      "--episodes",
    ], ["report", "--per-file", "--episodes"]]
  ) {
    test(args.join(" "), () => void clean([args[0], cast, ...args.slice(1)]));
  }
});

describe("documents: no markup, no formula", () => {
  test("markdown escapes the file name in prose and keeps it in code spans elsewhere", () => {
    const md = clean(["report", cast, "--format", "markdown"]).stdout;
    assert.ok(!/(^|[^\\])<img/.test(md.replace(/`[^`]*`/g, "")), md);
  });
  test("CSV cells cannot start a formula", () => {
    const twin = path.join(path.dirname(cast), "twin-" + path.basename(cast));
    fs.copyFileSync(cast, twin);
    const csv = clean(["report", cast, twin, "--format", "csv"]).stdout;
    for (const line of csv.trim().split("\n")) {
      for (const cell of line.split(",")) assert.ok(!/^"?[=+\-@]/.test(cell), cell);
    }
  });
  test("HTML and JUnit carry no bidi overrides", () => {
    const html = path.join(dir, "r.html");
    clean(["report", cast, "--export-html", html]);
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(fs.readFileSync(html, "utf8")));
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(clean(["report", cast, "--format", "junit"]).stdout));
  });
});

test("disarm leaves no raw control or invisible formatting, whatever the input (property)", () => {
  fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => !RAW.test(disarm(s))), { numRuns: 500 });
});
