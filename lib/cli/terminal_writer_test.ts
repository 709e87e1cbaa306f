// The terminal writer (lib/stdio.ts) over every command that prints: a capture with escape
// sequences in every field, and a manifest (rule ids, name), labels, rules and a file name
// carrying them too. Nothing the command prints holds an ESC, a C1 control or a bidi
// override pstlab did not emit itself — with NO_COLOR, none at all. The commands come from
// the command table; those whose job is to write bytes as they are (RAW_CHANNELS) are
// listed with their channel, so a new command cannot escape both lists.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { castText, cli, tmpDir, writeTmp } from "../testkit.ts";
import { encodeBase64 } from "../osc7501/base64.ts";
import { loadCommands } from "./commands.ts";
import { forTerminal, RAW_CHANNELS } from "../stdio.ts";
import { paint } from "../text.ts";

const COMMANDS = await loadCommands();
const dir = tmpDir("pstlab-writer-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const EVIL = "\x1b]0;pwned\x07\x1b[2J\u009b31m\u009d0;t\x07\u202eevil\u2066\x1bP1$q\x1b\\";
const b64 = (s: string) => encodeBase64(new TextEncoder().encode(s));
/** What must never reach a terminal (ESC included): controls but newline and tab, C1, bidi, invisible formatting. */
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

const cast = writeTmp(
  dir,
  "\x1b]0;title\x07\u202eevil.cast",
  castText([
    [0.1, "o", `\x1b]7501;state=working:title=${b64(EVIL)}:msg=${b64(EVIL)}\x1b\\\x1b]0;${EVIL}\x07`],
    [0.1, "m", `truth:blocked:${EVIL}`],
    [0.5, "o", `\x1b]7501;state=blocked:kind=question:msg=${b64(EVIL)}\x1b\\${EVIL}?`],
    [0.5, "m", "truth:idle"],
    [0.7, "o", `${EVIL} Do you want to proceed? ❯ 1. Yes`],
    [0.9, "x", "0"],
  ], { command: EVIL, title: EVIL, term: { cols: 80, rows: 24, type: EVIL } }),
);
const tomlString = (s: string) => JSON.stringify(s).replace(/\\u001b/g, "\\u001B");
const manifest = writeTmp(
  dir,
  "evil\x1b[31m.toml",
  `name = ${tomlString(EVIL)}\n\n[[rules]]\nid = ${tomlString(`blocked-${EVIL}`)}\nstate = "blocked"\n` +
    `kind = "question"\nregion = "screen"\nregex = "proceed"\n`,
);
const labels = writeTmp(dir, "labels\u202e.tsv", `0\tworking\n0.5\tblocked\tquestion ${EVIL}\n`);
const rules = writeTmp(dir, "rules\x1b[5m.toml", `[[expect]]\nfinal = ${tomlString(EVIL)}\n`);

/** A command line per printing command; each is also run with input that makes it fail (its error quotes input). */
const PRINTERS: Record<string, string[][]> = {
  report: [["report", cast, "--episodes", "--per-file"], ["report", cast, "--labels", labels, "--manifest", manifest], [
    "report",
    cast,
    "--format",
    "markdown",
  ], ["report", cast, "--labels", rules]],
  check: [["check", cast, "--rules", rules], ["check", cast, "--manifest", manifest], ["check", cast, "--rules", cast]],
  scan: [["scan", cast], ["scan", cast, "--json"]],
  status: [["status", cast]],
  info: [["info", cast], ["info", manifest]],
  convert: [["convert", cast, path.join(dir, `out${EVIL}.cast`)], ["convert", manifest, "-"]],
  cat: [["cat", cast, cast, "-o", path.join(dir, `cat${EVIL}.cast`)], ["cat", cast, labels, "-o", "-"]],
  trim: [["trim", cast, "--to", "0.5", path.join(dir, `trim${EVIL}.cast`)]],
  redact: [["redact", cast, "--pattern", "pwned", "--check"], ["redact", cast, "--pattern", `(${EVIL}`]],
  detect: [["detect", cast, "--manifest", manifest], ["detect", cast, "--detectors", `screen:${EVIL}`]],
  explain: [["explain", cast, "--manifest", manifest], ["explain", cast, "--manifest", labels]],
  screen: [["screen", cast]],
  lint: [["lint", manifest], ["lint", manifest, "--labels", labels], ["lint", cast]],
  hooks: [["hooks", "claude"], ["hooks", EVIL]],
  hook: [["hook", EVIL], ["hook", "Notification", "--msg", EVIL]],
};
/** Commands whose output is the bytes of a raw channel (their stderr is still checked where they are run above). */
const RAW_COMMANDS: Record<string, keyof typeof RAW_CHANNELS> = {
  play: "play",
  emit: "emit",
  record: "recorder passthrough",
  sim: "sim agent",
};
/** Runs minutes (a recorded simulation); what it prints is report's and check's, run above. */
const SLOW = new Set(["demo"]);

describe("every command that prints goes through the terminal writer", () => {
  test("every command is a printer here, a raw channel, or slow (and the lists name real commands)", () => {
    const names = COMMANDS.map((c) => c.spec.name).sort();
    assert.deepEqual([...Object.keys(PRINTERS), ...Object.keys(RAW_COMMANDS), ...SLOW].sort(), names);
  });
  for (const [name, runs] of Object.entries(PRINTERS)) {
    test(name, () => {
      for (const args of runs) {
        const r = cli(args, { cwd: dir });
        assert.ok(r.code >= 0 && r.code <= 3, `${args.join(" ")}: exit ${r.code}: ${r.stderr}`);
        assert.ok(!/internal error/.test(r.stderr), r.stderr);
        const streams: [string, string][] = [["stderr", r.stderr]];
        // A recording written to stdout is the raw channel "recording to stdout": its bytes are the capture's.
        if (!args.includes("-")) streams.push(["stdout", r.stdout]);
        for (const [which, text] of streams) {
          const m = text.match(RAW);
          assert.ok(!m, `${args.join(" ")}: ${which} has a raw ${JSON.stringify(m?.[0])}: ${JSON.stringify(text)}`);
        }
      }
    });
  }
});

describe("the writer's filter", () => {
  test("pstlab's own styling passes, the same bytes from a capture do not", () => {
    const shown = forTerminal(`${paint(true, "1;31", "blocked")} ${EVIL} \x1b[1;31mfake\x1b[0m\r\n`);
    assert.ok(shown.startsWith("\x1b[1;31mblocked\x1b[0m "), JSON.stringify(shown));
    assert.equal(shown.match(/\x1b/g)?.length, 2, JSON.stringify(shown));
    assert.ok(shown.endsWith("\\e[1;31mfake\\e[0m\r\n"), JSON.stringify(shown));
    assert.ok(!/[\x80-\x9f\u202a-\u202e\u2066-\u2069]/.test(shown));
  });
  test("a guessed token does not pass", () => {
    const shown = forTerminal("\ue000abcdefgh1;31mx");
    assert.ok(!/\x1b/.test(shown) && !/\ue000/.test(shown), JSON.stringify(shown));
  });
  test("JSON stays valid JSON with the same value", () => {
    const doc = { s: `a\u009bb\u202ec` };
    assert.deepEqual(JSON.parse(forTerminal(JSON.stringify(doc))), doc);
  });
});
