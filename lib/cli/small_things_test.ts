// The small things users noticed (issue 22): each one line of behaviour, each a test.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { castText, cli, MAIN, ROOT, runtimeArgv, tmpDir, writeTmp } from "../testkit.ts";
import { sweepStale } from "../session/labels.ts";
import { plural } from "../text.ts";
import { COMMANDS } from "./commands.ts";

const dir = tmpDir("pstlab-small-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const SIM = path.join(ROOT, "fixtures/captures/sim-correct.cast");
const clean = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };

describe("small things", () => {
  test("redact --env-values with no secret-looking variable says so; --allow-empty writes OUT unchanged", () => {
    const out = path.join(dir, "r.cast");
    const r = cli(["redact", SIM, out, "--env-values"], { env: clean });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--env-values found no secret-looking variable .* nothing to scrub/);
    assert.doesNotMatch(r.stderr, /give --pattern and\/or --env-values/);
    const ok = cli(["redact", SIM, out, "--env-values", "--allow-empty"], { env: clean });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /found no secret-looking variable: nothing to scrub/);
    assert.ok(fs.statSync(out).size > 0);
  });
  test("screen --at past the end warns", () => {
    const r = cli(["screen", SIM, "--at", "99999"]);
    assert.equal(r.code, 0);
    assert.match(
      r.stderr,
      /warning: --at 99999 s is past the end of .*sim-correct\.cast \(19\.0\d\d s\): the screen at the end/,
    );
    assert.equal(cli(["screen", SIM, "--at", "1"]).stderr, "");
  });
  test("plurals: 1 event, 1 report, 1 query", () => {
    assert.equal(plural(1, "event"), "1 event");
    assert.equal(plural(2, "query", "queries"), "2 queries");
    const c = writeTmp(dir, "one.cast", castText([[0, "o", "x"]]));
    const r = cli(["convert", c, path.join(dir, "o.cast")]);
    assert.match(r.stderr, /\(v3, 1 event\)/);
    const info = cli(["info", c]);
    assert.match(info.stdout, /0 reports, .* 0 queries/);
  });
  test("check's record cap follows the spec (a terminal must support at least 64)", () => {
    const r = cli(["check", "--help"]);
    assert.doesNotMatch(r.stdout + fs.readFileSync(path.join(ROOT, "lib/check/findings.ts"), "utf8"), /must keep only/);
  });
  test("no --help example uses ../shared files a user does not have", () => {
    for (const c of COMMANDS) {
      const h = cli([c.name, "--help"]).stdout;
      assert.doesNotMatch(h.split("Examples:")[1] ?? "", /\.\.\/shared/, c.name);
    }
  });
  test("info's byte-exact line says what is true of a capture with a b event", () => {
    const raw = writeTmp(dir, "inv.raw", new Uint8Array([0x61, 0xff, 0x62]));
    const cast = path.join(dir, "inv.cast");
    assert.equal(cli(["convert", raw, cast]).code, 0);
    assert.match(
      cli(["info", cast]).stdout,
      /byte-exact {2}yes \(every output event is valid UTF-8 or carries its raw bytes/,
    );
    const lossy = writeTmp(dir, "lossy.cast", '{"version":2,"width":80,"height":24}\n[0.1,"o","a\\ufffdb"]\n');
    assert.match(cli(["info", lossy]).stdout, /byte-exact {2}no \(1 output event holds U\+FFFD without raw bytes/);
  });
  test("a killed recorder's label folder is swept by the next; a running one's is kept", () => {
    const tmp = tmpDir("pstlab-sweep-");
    try {
      fs.mkdirSync(path.join(tmp, "pstlab-labels-999999999-abc"));
      fs.mkdirSync(path.join(tmp, `pstlab-labels-${process.pid}-abc`));
      sweepStale(tmp);
      assert.deepEqual(fs.readdirSync(tmp), [`pstlab-labels-${process.pid}-abc`]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("a full standard output", { skip: !fs.existsSync("/dev/full") }, () => {
  test("is one line and exit 2 for every command that prints, never an internal error", () => {
    const cast = path.join(ROOT, "fixtures/captures/deploy.cast");
    const [cmd, ...pre] = runtimeArgv();
    for (
      const args of [
        ["--version"],
        ["help"],
        ["emit", "working"],
        ["info", cast],
        ["status", cast],
        ["screen", cast],
        ["scan", cast],
        ["detect", cast],
        ["hooks", "claude"],
        ["report", cast],
      ]
    ) {
      const full = fs.openSync("/dev/full", "w");
      try {
        const r = spawnSync(cmd, [...pre, MAIN, ...args], { stdio: ["ignore", full, "pipe"], encoding: "utf8" });
        assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
        assert.match(r.stderr, /standard output: cannot write: no space left on device/, args.join(" "));
      } finally {
        fs.closeSync(full);
      }
    }
  });
});

describe("info on a header that names its tool and nothing else", () => {
  test("says what it has, never 'undefined'", () => {
    const c = writeTmp(
      dir,
      "pv.cast",
      '{"version":3,"term":{"cols":80,"rows":24},"pstlab":{"tool":"pstlab"}}\n[0.1,"o","x"]\n',
    );
    const r = cli(["info", c]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^provenance {2}pstlab$/m);
    assert.doesNotMatch(r.stdout, /undefined/);
  });
});

describe("IN OUT commands: OUT or -o, `-` is stdout, nothing is a silent default", () => {
  const F = path.join(ROOT, "fixtures/captures/deploy.cast");
  for (
    const [name, extra] of [["trim", ["--to", "1"]], ["convert", []], ["redact", ["--pattern", "eu-west"]]] as const
  ) {
    test(name, () => {
      const none = cli([name, F, ...extra]);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /missing the output \(give OUT, or -o OUT; `-` is stdout\)/);
      for (const out of [["-"], ["-o", "-"]]) {
        const r = cli([name, F, ...out, ...extra]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^\{"version":3/);
      }
    });
  }
});

// An endless input of zero bytes sniffs as ttyrec (every header reads as an empty frame at
// time 0): each reader of captures must give up on it with one line, not read for ever.
describe("an endless input (/dev/zero) is refused, not read for ever", { skip: !fs.existsSync("/dev/zero") }, () => {
  const out = tmpDir("pstlab-zero-");
  after(() => fs.rmSync(out, { recursive: true, force: true }));
  const RUNS: Record<string, string[]> = {
    info: ["info", "/dev/zero"],
    scan: ["scan", "/dev/zero"],
    report: ["report", "/dev/zero", "--truth", "protocol"],
    check: ["check", "/dev/zero"],
    convert: ["convert", "/dev/zero", path.join(out, "c.cast")],
    redact: ["redact", "/dev/zero", "--pattern", "x", "-o", path.join(out, "r.cast")],
    detect: ["detect", "/dev/zero"],
  };
  for (const [name, args] of Object.entries(RUNS)) {
    test(name, () => {
      const r = cli(args, { timeout: 60000 });
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /^pstlab: \/dev\/zero: frame 1024 \(byte 12276\): 1024 empty frames in a row: not a ttyrec/,
      );
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.deepEqual(fs.readdirSync(out), []);
    });
  }
});

// The simulated agent reads its terminal; at the end of its input (a closed terminal,
// `</dev/null`) it exits instead of waiting (and spinning) for keys that never come.
describe("sim exits at the end of its input", () => {
  for (const args of [["--tasks", "0"], ["--tasks", "1", "--scale", "0.1"], ["--tasks", "2"]]) {
    test(`sim ${args.join(" ")} </dev/null`, () => {
      const r = cli(["sim", ...args], { input: "", timeout: 30000 });
      assert.equal(r.code, 0, `exit ${r.code} (null: still running after 30 s): ${r.stderr}`);
    });
  }
});

// The markdown "reproduce:" line is a command to paste: a file name with a backtick or a
// quote must come back as itself from a shell, not as `?`.
describe("markdown reproduce: lines paste back into a shell", () => {
  const d = tmpDir("pstlab-repro-");
  after(() => fs.rmSync(d, { recursive: true, force: true }));
  const name = "b`<img src=x>`it's ``two``.cast";
  fs.copyFileSync(path.join(ROOT, "fixtures/captures/sim-correct.cast"), path.join(d, name));
  for (const args of [["report", name, "--format", "markdown"], ["check", name, "--format", "markdown"]]) {
    test(args[0], () => {
      const r = cli(args, { cwd: d });
      assert.ok(r.code === 0 || r.code === 1, r.stderr);
      const m = /reproduce: (`+) ?(.*?) ?\1<\/sub>/.exec(r.stdout);
      assert.ok(m, r.stdout.slice(-400));
      const sh = spawnSync("sh", ["-c", `for a in ${m[2].replace(/^pstlab /, "")}; do printf '%s\\n' "$a"; done`], {
        encoding: "utf8",
      });
      assert.deepEqual(sh.stdout.split("\n").slice(0, -1), args);
    });
  }
});
