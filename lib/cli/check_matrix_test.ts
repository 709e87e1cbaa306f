// `check --matrix` / `--repeat`: each dimension on an emitter written for it (short shell
// scripts with the status() idea of the seeds), the outputs, and the usage errors.
//
// One runtime only: every cell is a `pstlab record` child and a real session of a second or
// more; the recorder itself is tested on Bun and on Deno by record_test.ts, so running these
// cells twice would double their wall time on shared cores without covering more code.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, MAIN, ROOT, runtimeArgv, tmpDir, which, writeTmp } from "../testkit.ts";
import { validator } from "../foreign_json.ts";
import { MATRIX_JSON_SCHEMA } from "../check/schema.ts";

const onDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;
const dir = tmpDir("pstlab-matrix-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

// status(): the seeds' one-function emitter, plain (never wrapped for tmux).
const STATUS = `status() { printf '\\033]7501;%s\\033\\\\' "$1"; }\n`;
const emitter = (body: string) => {
  const f = writeTmp(dir, `e${n++}.sh`, `#!/bin/bash\n${body}`);
  fs.chmodSync(f, 0o755);
  return f;
};
const script = (text: string) => writeTmp(dir, `s${n++}.txt`, text);
const EXAMPLE = path.join(ROOT, "fixtures/emitters/example.sh");
const EXAMPLE_SCRIPT = path.join(ROOT, "fixtures/emitters/example.script");
const EXIT_ONLY = script("wait-exit 15s\n");

interface Cell {
  cell: Record<string, string>;
  exit: number;
  query: string;
  capture: string;
  findings: { check: string; severity: string; message: string }[];
  latency: { samples: number; median_s: number | null; spread_s: number | null };
  finding_runs: Record<string, number>;
  runs: { reports: number; capture: string }[];
}

function matrix(args: string[], command: string[]) {
  const out = path.join(dir, `m${n++}`);
  const r = cli(["check", ...args, "-o", out, "--format", "json", "--", ...command], { timeout: 300000 });
  assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr}`);
  const j = JSON.parse(r.stdout);
  validator(MATRIX_JSON_SCHEMA, "check --matrix JSON")(j, args.join(" "));
  const cell = (k: string, v: string): Cell => j.cells.find((c: Cell) => c.cell[k] === v);
  const has = (c: Cell, check: string) => c.findings.some((f) => f.check === check);
  return { code: r.code, j, cell, has, out, stderr: r.stderr };
}

const tmux = !!which("tmux");
describe("check --matrix", { skip: onDeno && "one runtime only (see the top of this file)" }, () => {
  test("tmux: an emitter that wraps survives passthrough; one that does not is silent in both", {
    skip: !tmux && "tmux is not installed (.ci/run installs it)",
  }, () => {
    const wraps = matrix(["--matrix", "tmux=off,passthrough,plain", "--script", EXAMPLE_SCRIPT], ["bash", EXAMPLE]);
    const off = wraps.cell("tmux", "off"),
      pass = wraps.cell("tmux", "passthrough"),
      plain = wraps.cell("tmux", "plain");
    assert.equal(off.exit, 0, JSON.stringify(off.findings));
    assert.equal(pass.exit, 0, JSON.stringify(pass.findings));
    // Four reports are sent. Under load the full suite once saw three arrive (blocked and done
    // among them, so a working one was lost; passthrough goes only to an attached client, and the
    // first is written as the session starts): the cell must pass with blocked and done through.
    assert.ok(pass.runs[0].reports >= 3, JSON.stringify(pass));
    // Through tmux the check says the recorded command is a multiplexer; plain: nothing arrives.
    assert.ok(wraps.has(pass, "multiplexer") && !wraps.has(off, "multiplexer"));
    assert.equal(plain.exit, 1);
    assert.equal(plain.runs[0].reports, 0);
    // The prompt is still seen under tmux's status line: unreported, not unseen.
    assert.ok(wraps.has(plain, "prompt-unreported"), JSON.stringify(plain.findings));
    assert.match(plain.findings.find((f) => f.check === "no-reports")!.message, /recorded command is tmux/);
    assert.equal(wraps.code, 1);
    for (const c of [off, pass, plain]) assert.ok(fs.existsSync(c.capture), c.capture);
    assert.ok(fs.existsSync(path.join(wraps.out, "report.json")));

    const plainEmitter = emitter(
      `${STATUS}status state=working; echo working; sleep 0.3; status state=done; echo done; sleep 0.2\n`,
    );
    const bare = matrix(["--matrix", "tmux=passthrough,plain", "--script", EXIT_ONLY], [plainEmitter]);
    for (const v of ["passthrough", "plain"]) {
      const c = bare.cell("tmux", v);
      assert.equal(c.runs[0].reports, 0, v);
      assert.ok(bare.has(c, "no-reports"), v);
    }
  });

  test("query: quiet when never answered (a documented choice), correct when answered; a hang fails", () => {
    // Reports only after the answer, as Claude Code does (query + DA1).
    const gated = path.join(ROOT, "fixtures/emitters/gated.sh");
    const q = matrix(["--matrix", "query=answered,late:1s,none", "--script", EXIT_ONLY], ["bash", gated]);
    const answered = q.cell("query", "answered"), none = q.cell("query", "none"), late = q.cell("query", "late:1s");
    assert.ok(answered.runs[0].reports > 0);
    assert.equal(answered.exit, 0, JSON.stringify(answered.findings));
    assert.match(answered.query, /^1 query answered$/);
    assert.equal(none.runs[0].reports, 0);
    assert.equal(none.exit, 0, JSON.stringify(none.findings));
    assert.match(none.query, /not answered/);
    // DA1 is answered first, so a late 7501 answer means "unsupported" to it: quiet, not garbage.
    assert.equal(late.runs[0].reports, 0);
    assert.equal(late.exit, 0, JSON.stringify(late.findings));
    // gated.sh ends ~0.3 s after asking: the answer due 1 s later was never sent, and says so.
    assert.match(late.query, /^1 query not answered before the program ended \(answer due 1 s late\)$/);

    // Waits for the answer forever: a hang when nobody answers, stopped at the cell timeout.
    const waits = emitter(
      `${STATUS}stty raw -echo; printf '\\033]7501;?\\033\\\\'; IFS= read -r -s -d '\\' r; stty sane\nstatus state=working; sleep 0.2; status state=done\n`,
    );
    const h = matrix(["--matrix", "query=answered,none", "--script", EXIT_ONLY, "--cell-timeout", "3s"], [waits]);
    assert.equal(h.cell("query", "answered").exit, 0, JSON.stringify(h.cell("query", "answered").findings));
    const stuck = matrix(["--script", script("wait /never shown/ 1s\n")], [waits]);
    assert.match(
      stuck.j.cells[0].findings.find((f: { check: string }) => f.check === "session")?.message ?? "",
      /^the script stopped: .*:1: the program exited before \/never shown\//,
    );
    const hung = h.cell("query", "none");
    assert.equal(hung.exit, 1);
    assert.match(
      hung.findings.find((f) => f.check === "session")?.message ?? "",
      /still running after the cell timeout \(3 s\)/,
    );
  });

  test("query=late: only answers actually sent are recorded, when sent; the header does not claim one", () => {
    // One program ends before the answer is due, one lives past it (a table: both sides of the delay).
    const ask = (sleep: number) => emitter(`printf '\\033]7501;?\\033\\\\'; sleep ${sleep}\n`);
    for (
      const [sleep, query, markers] of [[0.2, /^1 query not answered before the program ended/, 0], [
        2.5,
        /^1 query answered at (\d+\.\d\d) s \(1 s late\)$/,
        1,
      ]] as const
    ) {
      const m = matrix(["--matrix", "query=late:1s", "--script", EXIT_ONLY], [ask(sleep)]);
      const c: Cell = m.j.cells[0];
      assert.match(c.query, query, `sleep ${sleep}: ${c.query}`);
      const lines = fs.readFileSync(c.capture, "utf8").trim().split("\n");
      const header = JSON.parse(lines[0]);
      assert.equal(header.pstlab.query_answered, null, "the header is written before any answer");
      assert.equal(header.pstlab.query_answer_delay_s, 1);
      let t = 0, asked = -1;
      const sent: number[] = [];
      for (const l of lines.slice(1)) {
        const [dt, code, data] = JSON.parse(l);
        t += dt;
        if (code === "o" && data.includes("\x1b]7501;?") && asked < 0) asked = t;
        if (code === "m" && data === "pstlab:query-answered") sent.push(t);
      }
      assert.equal(sent.length, markers, `sleep ${sleep}: ${lines.join("\n")}`);
      if (markers) {
        assert.ok(sent[0] - asked >= 0.95 && sent[0] - asked < 2, `asked ${asked}, sent ${sent[0]}`);
        assert.ok(Math.abs(Number(query.exec(c.query)![1]) - sent[0]) < 0.01, c.query);
      }
    }
  });

  test("term: an emitter that trusts terminfo's Pst reports under term=pst only", {
    skip: !which("tic") && "tic is not installed (ncurses-bin; .ci/run installs it)",
  }, () => {
    const reads = emitter(
      `${STATUS}if tput Pst x >/dev/null 2>&1; then status state=working; sleep 0.2; status state=done; else sleep 0.2; fi\necho "TERM=$TERM"\n`,
    );
    const t = matrix(["--matrix", "term=xterm-256color,pst", "--script", EXIT_ONLY], [reads]);
    assert.ok(t.cell("term", "pst").runs[0].reports >= 2, JSON.stringify(t.cell("term", "pst")));
    assert.equal(t.cell("term", "xterm-256color").runs[0].reports, 0);
  });

  test("size, two dimensions at once: the cells are the product, named after their values", () => {
    const e = emitter(
      `${STATUS}status state=working; echo "$(tput cols)x$(tput lines)"; sleep 0.2; status state=done\n`,
    );
    const m = matrix(["--matrix", "size=80x24,100x30", "--matrix", "query=answered,none", "--script", EXIT_ONLY], [e]);
    assert.deepEqual(
      m.j.cells.map((c: Cell) => path.basename(c.capture)),
      [
        "query-answered_size-80x24.cast",
        "query-answered_size-100x30.cast",
        "query-none_size-80x24.cast",
        "query-none_size-100x30.cast",
      ],
    );
    const shown = (c: Cell) => fs.readFileSync(c.capture, "utf8");
    assert.match(shown(m.j.cells[1]), /100x30/);
  });

  test("--repeat 5 on the simulated agent's late mode: the delay, with a small spread", () => {
    const s = script(
      'wait /for shortcuts/ 30s\nsend "fix the bug\\r"\nwait /Do you want to proceed/ 30s\nsleep 600ms\nsend "1"\nwait /Worked for/ 30s\nsend "/exit\\r"\nwait-exit 10s\n',
    );
    const [cmd, ...pre] = runtimeArgv();
    const sim = [cmd, ...pre, MAIN, "sim", "--tasks", "1", "--scale", "0.1", "--seed", "3", "--protocol", "late=1s"];
    const m = matrix(["--repeat", "5", "--script", s], sim);
    const c: Cell = m.j.cells[0];
    assert.equal(c.runs.length, 5);
    assert.equal(c.latency.samples, 5, JSON.stringify(c));
    assert.ok(Math.abs(c.latency.median_s! - 1) < 0.15, `median ${c.latency.median_s}`);
    assert.ok(c.latency.spread_s! < 0.3, `spread ${c.latency.spread_s}`);
    assert.equal(c.finding_runs["prompt-late"], 5, JSON.stringify(c.finding_runs));
    assert.ok(!("prompt-unreported" in c.finding_runs));
    for (let i = 1; i <= 5; i++) assert.ok(fs.existsSync(path.join(m.out, `default.r${i}.cast`)));

    // Against that folder as the golden runs: the correct emitter's blocked median is about 1 s
    // earlier (a timing finding on the medians), its own runs against themselves are quiet.
    const correct = sim.slice(0, -1).concat("correct");
    const now = matrix(["--repeat", "2", "--script", s, "--against", m.out], correct);
    const own = now.j.cells[0].cell_findings as { check: string; message: string }[];
    const timing = own.filter((f) => f.check === "golden-timing" && /blocked:permission/.test(f.message));
    assert.ok(timing.length >= 1, JSON.stringify(own));
    const m2 = / (\d+\.\d\d) s earlier than the golden median .* \(5 of 5 runs of 5 golden runs/.exec(
      timing[0].message,
    );
    assert.ok(m2 && Math.abs(Number(m2[1]) - 1) < 0.3, timing[0].message);
    const self = matrix(["--repeat", "2", "--script", s, "--against", now.out], correct);
    assert.deepEqual(self.j.cells[0].cell_findings.filter((f: { check: string }) => f.check !== "golden-msg"), []);
  });

  test("text, JUnit and markdown", () => {
    const e = emitter(`${STATUS}status state=working; sleep 0.2; status state=done\n`);
    const out = path.join(dir, "fmt");
    // Run again and again into one folder: --overwrite (an earlier run's captures are refused without it).
    const args = ["check", "--matrix", "query=answered,none", "--script", EXIT_ONLY, "-o", out, "--overwrite"];
    const text = cli([...args, "--", e]);
    assert.equal(text.code, 0, text.stderr);
    // CHECK is check's verdict, not the program's exit code (issue: "EXIT" read as the latter).
    assert.match(text.stdout, /^CELL +CHECK +V\/W\/I/);
    assert.match(text.stdout, /query=none +pass +0\/0\/1 +not asked/);
    assert.match(text.stdout, /check --matrix passed: 0 of 2 cells failed/);
    const junit = cli([...args, "--format", "junit", "--", e]);
    const py = spawnSync("python3", [
      "-c",
      "import sys,xml.etree.ElementTree as E; r=E.fromstring(sys.stdin.read()); print(len(r.findall('.//testcase')), r.get('failures'))",
    ], { input: junit.stdout, encoding: "utf8" });
    if (py.status === 0) assert.equal(py.stdout.trim(), "2 0");
    assert.ok(fs.existsSync(path.join(out, "report.xml")));
    const detail = cli([...args, "--detail", "--", e]);
    assert.match(
      detail.stdout,
      /\nquery=none: .*query-none\.cast\n {2}info +0\.00 s +query: 2 reports although the terminal did not answer/,
    );
    const md = cli([...args, "--format", "markdown", "--", e]);
    assert.match(md.stdout, /\| Cell \| Check \|/);
    assert.match(md.stdout, /\| `query=none` \| pass \|/);
    // A golden folder with no run for these cells: its own words, not "golden-missing (medians)".
    const gold = fs.mkdtempSync(path.join(dir, "gold-"));
    fs.writeFileSync(path.join(gold, "query-other.cast"), "");
    const none = cli([...args, "--detail", "--against", gold, "--", e]);
    assert.equal(none.code, 1, none.stderr);
    assert.match(none.stdout, /query=none +FAIL .*golden-none \(no golden run for this cell\)/);
    assert.doesNotMatch(none.stdout, /golden-missing|\(medians\)/);
    assert.match(
      none.stdout,
      /query=none: the golden folder\n +violation golden-none: no golden run for this cell in /,
    );
  });
});

describe("check --matrix: an earlier run's captures and the golden folder are never written over", {
  skip: onDeno && "one runtime only (see the top of this file)",
}, () => {
  test("a second run into one folder is refused without --overwrite; -o in or at --against always", () => {
    const e = emitter(`${STATUS}status state=working; sleep 0.2; status state=done\n`);
    const cells = path.join(dir, "cells");
    const args = ["check", "--matrix", "query=answered,none", "--script", EXIT_ONLY];
    const first = cli([...args, "-o", cells, "--", e]);
    assert.equal(first.code, 0, first.stderr);
    const golden = path.join(cells, "query-none.cast");
    const before = fs.readFileSync(golden);
    const again = cli([...args, "-o", cells, "--", e]);
    assert.equal(again.code, 2, again.stderr);
    assert.match(again.stderr, /^pstlab: check --matrix: .*query-answered\.cast exists .*use --overwrite/);
    assert.equal(again.stderr.trim().split("\n").length, 1, again.stderr);
    for (const o of [cells, path.join(cells, "new"), path.join(cells, ".", "..", "cells")]) {
      const self = cli([...args, "--against", cells, "--overwrite", "-o", o, "--", e]);
      assert.equal(self.code, 2, self.stderr);
      assert.match(self.stderr, /^pstlab: check: -o .* is (inside )?the --against folder /);
    }
    fs.symlinkSync(cells, path.join(dir, "cells-alias"));
    const alias = cli([...args, "--against", path.join(dir, "cells-alias"), "-o", cells, "--", e]);
    assert.equal(alias.code, 2, alias.stderr);
    const file = cli([...args, "--against", golden, "--overwrite", "-o", cells, "--", e]);
    assert.equal(file.code, 2, file.stderr);
    assert.match(file.stderr, /query-none\.cast is the --against capture/);
    assert.deepEqual(fs.readFileSync(golden), before);
    assert.ok(!fs.existsSync(path.join(cells, "new")));
    const replaced = cli([...args, "--overwrite", "-o", cells, "--", e]);
    assert.equal(replaced.code, 0, replaced.stderr);
  });
});

describe("check --matrix: usage errors are one line, exit 2, before anything is recorded", () => {
  const s = script("wait-exit 5s\n");
  const bad = (args: string[], re: RegExp, env?: Record<string, string>) => {
    const out = path.join(dir, `u${n++}`);
    const r = cli(["check", ...args, "-o", out, "--", "true"], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.ok(!fs.existsSync(out) || fs.readdirSync(out).length === 0, "nothing recorded");
  };
  test("bad dimensions and values", () => {
    bad(["--matrix", "colour=red", "--script", s], /DIM one of query, tmux, term, size/);
    bad(["--matrix", "query=sometimes", "--script", s], /"sometimes" is not answered, late:DURATION or none/);
    bad(["--matrix", "query=late:0s", "--script", s], /a delay above 0/);
    bad(["--matrix", "size=80x24,9999x1", "--script", s], /COLSxROWS/);
    bad(["--matrix", "tmux=off", "--matrix", "tmux=plain", "--script", s], /tmux is given twice/);
    bad(["--matrix", "tmux=off,off", "--script", s], /given twice/);
    bad(["--matrix", "tmux=off"], /--matrix needs --script/);
    bad(["--repeat", "0", "--script", s], /repeat/);
    bad(["--matrix", "query=none", "--script", path.join(dir, "absent.txt")], /absent\.txt/);
  });
  test("a missing tmux or tic names the Debian package", () => {
    const empty = fs.mkdtempSync(path.join(dir, "path-"));
    bad(["--matrix", "tmux=off,plain", "--script", s], /tmux=plain needs tmux.*apt-get install tmux/, { PATH: empty });
    bad(["--matrix", "term=pst", "--script", s], /term=pst needs tic.*apt-get install ncurses-bin/, { PATH: empty });
  });
});
