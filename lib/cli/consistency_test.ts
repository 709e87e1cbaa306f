// What the option table and the error model promise on the command line: one-line
// exit-2 errors for bad numbers and files, manifest errors that name the file wherever
// they come from, `--manifest auto`, the HTML embedding what the analysis read, and
// several exports from one analysis equal to separate runs.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { castText, cli, ROOT, tmpDir, writeTmp } from "../testkit.ts";
import { loadCommands } from "./commands.ts";
import { type Opt, parseCommand } from "./options.ts";
import { MAX_SECONDS } from "../units.ts";
import { UsageError } from "../errors.ts";

const dir = tmpDir("pstlab-consistency-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const BUNDLED = path.join(ROOT, "fixtures/captures/fake-claude.cast");
const DEPLOY = path.join(ROOT, "fixtures/captures/deploy.cast");

function oneLineError(args: string[], re: RegExp) {
  const r = cli(args);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assert.match(r.stderr, re);
  return r;
}

describe("one line and exit 2 for bad input", () => {
  test("cat --gap abc writes nothing", () => {
    const out = path.join(dir, "gap.cast");
    oneLineError(["cat", DEPLOY, "--gap", "abc", "-o", out], /^pstlab: cat: bad --gap "abc"/);
    assert.ok(!fs.existsSync(out));
  });
  test("--at -5, --speed -1, --jobs 0, --size 0x0", () => {
    oneLineError(["status", DEPLOY, "--at", "-5"], /^pstlab: status: bad --at "-5"/);
    oneLineError(["screen", DEPLOY, "--at=-5"], /bad --at "-5"/);
    oneLineError(["play", DEPLOY, "--speed", "-1"], /^pstlab: play: bad --speed "-1"/);
    oneLineError(["report", DEPLOY, "--jobs", "0"], /bad --jobs "0"/);
    oneLineError(["screen", DEPLOY, "--size", "0x0"], /bad --size "0x0" \(use COLSxROWS, each 2–2000/);
    oneLineError(["record", "--size", "5000x10", "--", "true"], /bad --size "5000x10" \(use COLSxROWS, each 2–2000/);
  });
  test("every duration option of every command refuses what no timer or capture could hold", async () => {
    // A duration past MAX_SECONDS only failed later: `record --timeout 700h` overflowed its
    // timer and killed the program at once, `cat --gap 99999999` died writing the time.
    let durations = 0;
    for (const c of await loadCommands()) {
      for (const [name, opt] of Object.entries(c.spec.options as Record<string, Opt<unknown>>)) {
        if (!opt.parse) continue;
        let isDuration = true;
        try {
          isDuration = opt.parse("1m30s", `--${name}`) === 90;
        } catch {
          isDuration = false;
        }
        if (!isDuration) continue;
        durations++;
        for (const big of [String(MAX_SECONDS + 1), "99999999999", "700000000h", "1s1s", "30s1m", "1h2h"]) {
          assert.throws(() => opt.parse!(big, `--${name}`), UsageError, `${c.spec.name} --${name} ${big}`);
        }
      }
    }
    assert.ok(durations >= 5, `only ${durations} duration options found`);
  });
  test("an empty input is refused by every command that reads one, and leaves the output alone", () => {
    const out = writeTmp(dir, "keep.cast", fs.readFileSync(DEPLOY, "utf8"));
    const before = fs.readFileSync(out, "utf8");
    const commands = [
      ["redact", "-", out, "--pattern", "x", "--overwrite"],
      ["convert", "-", out, "--overwrite"],
      ["trim", "-", out, "--overwrite", "--to", "1"],
      ["cat", "-", "-o", out, "--overwrite"],
      ["info", "-"],
      ["scan", "-"],
      ["report", "-"],
      ["check", "-"],
    ];
    for (const args of commands) {
      const r = cli(args, { input: "" });
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^pstlab: (.*: )?-: empty input/, args.join(" "));
      assert.equal(fs.readFileSync(out, "utf8"), before, args.join(" "));
    }
    // Said to be raw, an empty input is an empty raw capture.
    assert.equal(cli(["info", "-", "--raw"], { input: "" }).code, 0);
  });
  test("report and check judge captures: a file they could only guess is raw bytes is refused", () => {
    const script = writeTmp(dir, "mycli.sh", "#!/bin/sh\nprintf 'Deploy? \x1b]7501;state=working\x1b\\'\nread a\n");
    for (const cmd of ["report", "check"]) {
      oneLineError([cmd, script], /mycli\.sh: not a capture pstlab recognises .* give --raw/);
      assert.notEqual(cli([cmd, script, "--raw"]).code, 2, `${cmd} --raw`);
      const raw = writeTmp(dir, "out.recording", "\x1b]7501;state=working\x1b\\hello\r\n");
      assert.notEqual(cli([cmd, raw]).code, 2, `${cmd} on a .recording`);
    }
    // A pane capture is one instant: check refuses it, as the capture and as the golden.
    const pane = writeTmp(dir, "build.txt", "hello\nworld\n");
    oneLineError(["check", pane], /build\.txt: a screen snapshot \(one instant, no time\)/);
    oneLineError(["check", DEPLOY, "--against", pane], /build\.txt: a screen snapshot/);
    // Commands that only read bytes still take any file as raw output.
    assert.equal(cli(["scan", script]).code, 0);
  });
  test("every option that names a file, of every command, is refused when given twice", async () => {
    const tries = ["1", "1s", "x.cast", "120x32", "json", "v3", "claude", "protocol", "1/2", "a", "ms", "all"];
    let checked = 0;
    for (const c of await loadCommands()) {
      for (const [name, opt] of Object.entries(c.spec.options as Record<string, Opt<unknown>>)) {
        if (opt.arg === undefined || opt.multiple || !opt.file) continue;
        const value = tries.find((v) => {
          try {
            opt.parse(v, `--${name}`);
            return true;
          } catch {
            return false;
          }
        });
        if (value === undefined) continue;
        checked++;
        assert.throws(
          () => parseCommand(c.spec, [`--${name}`, value, `--${name}`, value]),
          (e: unknown) => e instanceof UsageError && /is given twice/.test(e.message),
          `${c.spec.name} --${name}`,
        );
        // Nor is `--` or another option taken for its value (`-o -- true` wrote a file named `--`).
        for (const next of ["--", "--help"]) {
          assert.throws(
            () => parseCommand(c.spec, [`--${name}`, next, "x"]),
            (e: unknown) => e instanceof UsageError && /needs a value/.test(e.message),
            `${c.spec.name} --${name} ${next}`,
          );
        }
      }
    }
    assert.ok(checked >= 15, `only ${checked} options checked`);
    // Any other option: the last one wins, as usual (an alias's default overridden).
    const report = (await loadCommands()).find((c) => c.spec.name === "report")!;
    assert.equal(parseCommand(report.spec, ["--format", "json", "--format", "csv"])?.values.format, "csv");
  });
  test("--input-format that the header contradicts, and a script log from stdin, are one line", () => {
    oneLineError(["info", DEPLOY, "--input-format", "v2"], /deploy\.cast:1: the header is asciicast v3, not v2/);
    const timing = writeTmp(dir, "t.log", "0.1 1\n");
    const r = cli(["convert", "-", "-", "--timing", timing], { input: "x" });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /t\.log: a script output log is read by its path, not from stdin/);
  });
  test("report scores each capture once: the same file twice, by any name, is refused", () => {
    oneLineError(["report", DEPLOY, DEPLOY], /deploy\.cast: is given twice; give each capture once/);
    const link = path.join(dir, "deploy-link.cast");
    fs.rmSync(link, { force: true });
    fs.symlinkSync(DEPLOY, link);
    oneLineError(["report", DEPLOY, link], /deploy-link\.cast: is the same file as .*deploy\.cast/);
  });
  test("a manifest error names the file from --manifest and from --detectors alike", () => {
    const bad = writeTmp(dir, "bad.toml", "[[rules]\nid = 1\n");
    const a = oneLineError(["detect", BUNDLED, "--manifest", bad], /bad\.toml/);
    const b = oneLineError(["report", BUNDLED, "--detectors", `screen:${bad}`], /bad\.toml/);
    const twin = writeTmp(dir, "twin.cast", fs.readFileSync(BUNDLED, "utf8"));
    const c = oneLineError(["report", BUNDLED, "--detectors", `screen:${bad}`, "--jobs", "2", twin], /bad\.toml/);
    assert.equal(b.stderr, a.stderr);
    assert.equal(c.stderr, a.stderr);
  });
  test("a bad detector name, through a worker too", () => {
    oneLineError(["report", BUNDLED, "--detectors", "nope"], /unknown detector "nope"/);
    oneLineError(["report", BUNDLED, DEPLOY, "--jobs", "2", "--detectors", "nope"], /unknown detector "nope"/);
  });
  test("a gate naming a detector that is not in the run", () => {
    oneLineError(
      ["report", BUNDLED, "--gate", "protcol", "--max-missed", "0"],
      /--gate protcol is not a detector of this run/,
    );
  });
  test("writing into a folder that does not exist; a .ttyrec output", () => {
    oneLineError(["convert", DEPLOY, path.join(dir, "no/such/x.cast")], /folder .*no\/such does not exist/);
    assert.ok(!fs.existsSync(path.join(dir, "no")));
    oneLineError(["convert", DEPLOY, path.join(dir, "x.ttyrec")], /cannot write \.ttyrec/);
  });
  test("help CMD and help --help", () => {
    const a = cli(["help", "report"]), b = cli(["report", "--help"]);
    assert.equal(a.code, 0);
    assert.equal(a.stdout, b.stdout);
    const h = cli(["help", "--help"]);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /Commands:/);
  });
});

describe("--manifest auto", () => {
  const py = writeTmp(
    dir,
    "py.cast",
    castText([[0.1, "o", "Continue? [y/N] "], [1, "m", "end"]], {
      command: "python3 -c 'input(\"Continue? [y/N] \")'",
    }),
  );
  test("generic for a python input() prompt, claude for the bundled capture", () => {
    const a = JSON.parse(cli(["detect", py, "--json"]).stdout);
    assert.equal(a.manifest.name, "generic");
    assert.equal(a.state, "blocked");
    const b = JSON.parse(cli(["detect", BUNDLED, "--json"]).stdout);
    assert.equal(b.manifest.name, "claude");
  });
  test("with no command or title, the screen's markers decide", () => {
    const raw = writeTmp(
      dir,
      "agent.raw",
      "\x1b[2J\x1b[H Gemini CLI v0.9\r\n\r\n│ Apply this change?\r\n│ ● 1. Yes, allow once\r\n",
    );
    const j = JSON.parse(cli(["detect", raw, "--json"]).stdout);
    assert.deepEqual([j.manifest.name, j.manifest.why, j.state], [
      "gemini",
      "the screen shows Gemini CLI's input box",
      "blocked",
    ]);
    // Nothing identifies the program: the generic rules (issue 21; it was claude).
    const plain = writeTmp(dir, "plain.raw", "hello\r\n");
    assert.equal(JSON.parse(cli(["detect", plain, "--json"]).stdout).manifest.name, "generic");
  });
  test("report says which manifest it chose and why", () => {
    const labels = writeTmp(dir, "py.tsv", "0\tworking\n0.1\tblocked\n");
    const r = cli(["report", py, "--labels", labels, "--detectors", "screen:auto@50ms"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /manifest: generic \(auto: no bundled rules for the recorded command/);
    assert.match(r.stdout, /screen:generic@50ms +0\.00 s/);
    const j = JSON.parse(cli(["report", BUNDLED, "--format", "json", "--detectors", "screen:auto@50ms"]).stdout);
    assert.equal(j.inputs[0].manifest.name, "claude");
    assert.equal(j.detectors[0].name, "screen:claude@50ms");
  });
});

describe("report outputs", () => {
  test("--size on a raw stream: the HTML page embeds the size the analysis used", () => {
    const raw = writeTmp(
      dir,
      "s.raw",
      "\x1b]7501;state=working\x1b\\hi\r\n\x1b]7501;state=blocked:kind=question\x1b\\ok? \x1b]7501;state=idle\x1b\\",
    );
    const html = path.join(dir, "s.html");
    const r = cli(["report", raw, "--size", "80x24", "--format", "html", "-o", html]);
    assert.equal(r.code, 0, r.stderr);
    const page = fs.readFileSync(html, "utf8");
    assert.match(page, /80x24/);
    const block = /<script type="application\/json" id="capture-0">(.*?)<\/script>/s.exec(page)!;
    const cast = JSON.parse(block[1]).cast as string;
    assert.deepEqual(JSON.parse(cast.split("\n")[0]).term, { cols: 80, rows: 24 });
  });
  test("--export-* from one analysis equal separate runs", () => {
    const base = ["report", BUNDLED, "--detectors", "protocol,screen:claude@50ms,quiet>=2s", "--max-missed", "5"];
    const ex = {
      json: path.join(dir, "e.json"),
      markdown: path.join(dir, "e.md"),
      junit: path.join(dir, "e.xml"),
      csv: path.join(dir, "e.csv"),
      html: path.join(dir, "e.html"),
    };
    const all = cli([
      ...base,
      "--export-json",
      ex.json,
      "--export-markdown",
      ex.markdown,
      "--export-junit",
      ex.junit,
      "--export-csv",
      ex.csv,
      "--export-html",
      ex.html,
    ]);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^Detector +Median latency/m);
    for (const [fmt, file] of Object.entries(ex)) {
      const alone = cli([...base, "--format", fmt]);
      assert.equal(alone.code, 0, alone.stderr);
      assert.equal(fs.readFileSync(file, "utf8"), alone.stdout, fmt);
    }
  });
});

describe("-o everywhere a file is written", () => {
  test("convert, trim and redact take OUT or -o OUT, not both, not neither", () => {
    const a = path.join(dir, "o1.cast"), b = path.join(dir, "o2.cast");
    assert.equal(cli(["convert", DEPLOY, a]).code, 0);
    assert.equal(cli(["convert", DEPLOY, "-o", b]).code, 0);
    assert.equal(fs.readFileSync(a, "utf8"), fs.readFileSync(b, "utf8"));
    const t = path.join(dir, "o3.cast");
    assert.equal(cli(["trim", DEPLOY, "--to", "1", "-o", t]).code, 0);
    assert.ok(fs.existsSync(t));
    oneLineError(
      ["redact", DEPLOY, "-o", path.join(dir, "o4.cast"), path.join(dir, "o5.cast"), "--pattern", "x"],
      /give the output once/,
    );
    oneLineError(["convert", DEPLOY], /missing the output/);
  });
});
