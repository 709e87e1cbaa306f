// `pstlab check`: every simulated regression caught on its recorded capture, the
// correct emitter passing; each finding pinned on a tiny hand-made capture; the
// outputs (JUnit parsed as XML, JSON, markdown); the rules file and its errors.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { castText, cli, ROOT, tmpDir, which, writeTmp } from "../testkit.ts";
import { encodeBase64 } from "../osc7501/base64.ts";
import { wrapTmux } from "../osc7501/encode.ts";

const dir = tmpDir("pstlab-check-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const sim = (mode: string) => path.join(ROOT, "fixtures/captures", `sim-${mode}.cast`);
const b64 = (s: string) => encodeBase64(new TextEncoder().encode(s));
let n = 0;

function check(args: string[]) {
  const r = cli(["check", ...args, "--format", "json"]);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const j = JSON.parse(r.stdout);
  const found = (c: string) =>
    j.files.flatMap((f: { findings: { check: string }[] }) => f.findings).filter((f: { check: string }) =>
      f.check === c
    );
  return { code: r.code, j, found };
}

// Screens the bundled claude rules read.
const PROMPT = "\x1b[2J\x1b[H Bash command\r\n\r\n Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n";
const WORK = "\x1b[2J\x1b[H✻ Pondering… (3s · esc to interrupt)\r\n";
const IDLE = "\x1b[2J\x1b[H──────\r\n❯ \r\n──────\r\n  ? for shortcuts\r\n";
const R = (body: string) => `\x1b]7501;${body}\x1b\\`;
const claude = {
  command: "claude",
  pstlab: { tool: "pstlab", version: "0", osc7501_revision: "0.4", fixture_schema: 1, query_answered: true },
};
const capture = (events: unknown[][], header: Record<string, unknown> = claude) =>
  writeTmp(dir, `h${n++}.cast`, castText(events, header));

describe("every simulated regression is caught; the correct emitter passes", () => {
  const cases: [string, string[], number][] = [
    ["correct", [], 0],
    ["none", ["prompt-unreported"], 1],
    ["late", ["prompt-late", "blocked-linger"], 1],
    ["no-blocked", ["prompt-unreported"], 1],
    ["stale", ["left-at-exit"], 1],
    ["malformed", ["discarded-report"], 1],
    ["children", [], 0],
  ];
  for (const [mode, checks, code] of cases) {
    test(`${mode}: exit ${code}${checks.length ? `, ${checks.join(" and ")}` : ""}`, () => {
      const r = check([sim(mode)]);
      assert.equal(r.code, code, JSON.stringify(r.j.files[0].findings, null, 1));
      for (const c of checks) assert.ok(r.found(c).length > 0, c);
      if (code === 0) assert.equal(r.j.counts.violation, 0);
    });
  }
  test("flap: a warning, which fails under --strict", () => {
    const r = check([sim("flap")]);
    assert.equal(r.code, 0);
    assert.equal(r.found("flap").length, 2);
    assert.equal(check([sim("flap"), "--strict"]).code, 1);
  });
  test("children: a root plus task/N records, each done at its end, is a correct emitter", () => {
    assert.match(fs.readFileSync(sim("children"), "utf8"), /state=working:id=task\/1/);
  });
});

describe("each finding on a tiny capture", () => {
  test("discarded-report, blocked-without-kind, invisible-text, tmux-passthrough", () => {
    const p = capture([
      [0.1, "o", R("state=working:msg=A")],
      [0.1, "o", R("state=blocked")],
      [0.1, "o", R(`state=working:msg=${b64("a\u202eb")}`)],
      [0.1, "o", R("state=idle")],
      [0.1, "x", "0"],
    ]);
    const r = check([p]);
    assert.equal(r.found("discarded-report").length, 1);
    assert.match(r.found("discarded-report")[0].message, /bad-base64/);
    assert.equal(r.found("blocked-without-kind").length, 1);
    assert.equal(r.found("invisible-text").length, 1);
    // Plain reports are right outside tmux, and right when pstlab itself ran in a tmux pane (the
    // program wrote to pstlab's pty, not to tmux): no line either way.
    assert.equal(r.found("tmux-passthrough").length, 0);
    const plain = [[0.1, "o", R("state=idle")], [0.1, "x", "0"]];
    for (
      const env of [{ TERM: "tmux-256color" }, { TERM: "screen" }, { TERM: "xterm", TMUX: "/tmp/tmux-0/default,1,0" }]
    ) {
      const inPane = check([capture(plain, { ...claude, env })]);
      assert.equal(inPane.found("tmux-passthrough").length, 0, JSON.stringify(env));
      assert.equal(inPane.found("multiplexer").length, 0, JSON.stringify(env));
    }
    // Recorded *through* tmux: the command is the multiplexer, and check says what it drops.
    for (const command of ["tmux new-session ./emitter", "env A=1 /usr/bin/tmux -L x new -A", "'tmux' new"]) {
      const through = check([capture(plain, { ...claude, command })]);
      assert.match(
        through.found("multiplexer")[0]?.message ?? "",
        /recorded command is tmux, a multiplexer.*1 report, 0 queries.*not wrapped for passthrough/,
        command,
      );
      const silent = check([capture([[0.5, "o", "hello\r\n"], [0.1, "x", "0"]], { ...claude, command })]);
      assert.match(
        silent.found("no-reports")[0].message,
        /the recorded command is tmux, which drops them unless the program wraps them/,
      );
    }
    for (const command of ["./tmuxify", "claude --tmux", "screenshot"]) {
      assert.equal(check([capture(plain, { ...claude, command })]).found("multiplexer").length, 0, command);
    }
    // …or the program wraps some reports and not others.
    const wrap = (body: string) => new TextDecoder().decode(wrapTmux(new TextEncoder().encode(R(body))));
    assert.equal(
      check([capture([[0.1, "o", wrap("state=idle")], [0.1, "x", "0"]])]).found("tmux-passthrough").length,
      0,
    );
    assert.match(
      check([capture([[0.1, "o", wrap("state=working")], [0.2, "o", R("state=idle")], [0.3, "x", "0"]])]).found(
        "tmux-passthrough",
      )[0].message,
      /1 report not wrapped .*1 other is/,
    );
  });
  test("dropped-field: each pair a strict terminal drops, named with its reason; grouped; fails under --strict", () => {
    const bad = "state=blocked:msg=!!notbase64:App=x:progress=150:kind=perm";
    const c = capture([
      [0.1, "o", PROMPT + R(bad)],
      [0.5, "o", R(bad)],
      [0.5, "o", IDLE + R("state=idle:kind=question:bad=\x01[31m")],
      [0.1, "o", R(`state=working:progress=50:newkey=1:title=${"A".repeat(100)}!`)],
      [0.1, "o", R("state=idle")],
      [0.5, "x", "0"],
    ]);
    const r = check([c]);
    const msgs = r.found("dropped-field").map((f: { message: string }) => f.message);
    const one = (re: RegExp) =>
      assert.equal(msgs.filter((m: string) => re.test(m)).length, 1, `${re}\n${msgs.join("\n")}`);
    one(/^msg=!!notbase64 dropped \[malformed-pair: value has bytes outside .*\] \(2 reports, 0\.10 s–0\.60 s\)$/);
    one(/^App=x dropped \[malformed-pair: key must be \[a-z\]\+\] \(2 reports/);
    one(/^progress=150 dropped \[progress-dropped: not an integer 0–100\] \(2 reports/);
    one(/^blocked with an invalid kind: kind=perm dropped \[kind-dropped: not permission, question or auth\]/);
    one(/^kind=question dropped \[kind-dropped: kind applies only to blocked\]$/);
    one(/^newkey=1 dropped \[unknown-key: unknown key\]$/);
    one(/^title=A{40}… dropped \[malformed-pair/);
    one(/^bad=\\x01\[31m dropped \[raw-control: value has bytes outside/);
    // An invalid kind is not a missing one.
    assert.deepEqual(r.found("blocked-without-kind"), []);
    // Warnings only: exit 0, and 1 under --strict.
    assert.equal(r.code, 0, msgs.join("\n"));
    assert.equal(cli(["check", c, "--strict"]).code, 1);
    // No raw control byte reaches the terminal from a dropped pair.
    for (const m of msgs) assert.doesNotMatch(m, /[\x00-\x1f\x7f]/);
    // A missing kind is still blocked-without-kind.
    const missing = capture([[0.1, "o", PROMPT + R("state=blocked")], [0.5, "o", IDLE + R("state=idle")], [
      0.5,
      "x",
      "0",
    ]]);
    assert.equal(check([missing]).found("blocked-without-kind").length, 1);
    // scan's table names the dropped key.
    const scan = cli(["scan", c]);
    assert.match(
      scan.stdout,
      /notes: malformed-pair\(msg\),malformed-pair\(App\),kind-dropped\(kind\),progress-dropped\(progress\)/,
    );
  });
  test("no-reports: a capture without any query or report is a warning (fails under --strict)", () => {
    const none = capture([[0.1, "o", "just output\r\n"], [0.2, "x", "0"]]);
    const r = check([none]);
    assert.equal(r.code, 0);
    assert.equal(r.found("no-reports").length, 1);
    assert.equal(check([none, "--strict"]).code, 1);
    assert.equal(check([capture([[0.1, "o", R("state=idle")], [0.2, "x", "0"]])]).found("no-reports").length, 0);
  });
  test("left-at-exit, and no-exit when there is no exit event", () => {
    const r = check([
      capture([[0.1, "o", R("state=working:id=job")], [0.1, "o", R("state=blocked:kind=question")], [0.2, "x", "0"]]),
    ]);
    assert.match(r.found("left-at-exit")[0].message, /\(root\) blocked, job working/);
    assert.equal(check([capture([[0.1, "o", R("state=done")]])]).found("no-exit").length, 1);
  });
  test("too-many-records: 64 live records are fine, 65 are not", () => {
    const many = (k: number) =>
      capture([
        ...Array.from({ length: k }, (_, i) => [0.01, "o", R(`state=working:id=t${i}`)]),
        ...Array.from({ length: k }, (_, i) => [0.01, "o", R(`state=done:id=t${i}`)]),
        [0.1, "x", "0"],
      ]);
    assert.equal(check([many(64)]).found("too-many-records").length, 0);
    assert.match(check([many(65)]).found("too-many-records")[0].message, /^65 live records/);
  });
  test("query: reports without an answered query; an answered query and no report", () => {
    const noAnswer = capture([[0.1, "o", R("state=idle")], [0.1, "x", "0"]], {
      ...claude,
      pstlab: { ...claude.pstlab, query_answered: false },
    });
    assert.match(check([noAnswer]).found("query")[0].message, /did not answer the query/);
    const silent = capture([[0.1, "o", "\x1b]7501;?\x1b\\"], [0.1, "x", "0"]]);
    assert.match(check([silent]).found("query")[0].message, /no report was ever sent/);
  });
  test("prompt-unreported, prompt-late, blocked-linger, blocked-unseen", () => {
    const unreported = capture([[0.1, "o", WORK + R("state=working")], [1, "o", PROMPT], [
      2,
      "o",
      IDLE + R("state=idle"),
    ], [0.5, "x", "0"]]);
    assert.equal(check([unreported]).found("prompt-unreported").length, 1);
    const late = capture([
      [0.1, "o", WORK + R("state=working")],
      [1, "o", PROMPT],
      [1, "o", R("state=blocked:kind=permission")],
      [1, "o", WORK + R("state=working")],
      [0.5, "o", IDLE + R("state=idle")],
      [0.5, "x", "0"],
    ]);
    assert.match(check([late]).found("prompt-late")[0].message, /blocked reported 1\.0\d s after it appeared/);
    // Reported only after the prompt was answered (the simulated agent's late=2s): late, not never,
    // and that blocked interval is not also "blocked while no prompt".
    const afterAnswer = capture([
      [0.1, "o", WORK + R("state=working")],
      [1, "o", PROMPT],
      [1, "o", WORK],
      [1, "o", R("state=blocked:kind=permission")],
      [1, "o", R("state=working")],
      [0.5, "o", IDLE + R("state=idle")],
      [0.5, "x", "0"],
    ]);
    const a = check([afterAnswer]);
    assert.deepEqual(a.found("prompt-unreported"), []);
    assert.deepEqual(a.found("blocked-unseen"), []);
    assert.match(
      a.found("prompt-late")[0].message,
      /blocked reported 2\.0\d s after the prompt appeared and 1\.0\d s after it was answered/,
    );
    // A blocked report after the next prompt appeared belongs to that one, not to this.
    const twoPrompts = capture([
      [0.1, "o", WORK + R("state=working")],
      [1, "o", PROMPT],
      [1, "o", WORK],
      [1, "o", PROMPT + R("state=blocked:kind=permission")],
      [1, "o", IDLE + R("state=idle")],
      [0.5, "x", "0"],
    ]);
    const t = check([twoPrompts]);
    assert.equal(t.found("prompt-unreported").length, 1);
    assert.equal(t.found("prompt-late").length, 0);
    const linger = capture([
      [0.1, "o", WORK + R("state=working")],
      [1, "o", PROMPT + R("state=blocked:kind=permission")],
      [1, "o", WORK],
      [1, "o", R("state=working")],
      [0.5, "o", IDLE + R("state=idle")],
      [0.5, "x", "0"],
    ]);
    assert.match(check([linger]).found("blocked-linger")[0].message, /still blocked 1\.0\d s after it went/);
    const unseen = capture([[0.1, "o", WORK + R("state=blocked:kind=question")], [2, "o", R("state=working")], [
      0.5,
      "x",
      "0",
    ]]);
    assert.equal(check([unseen]).found("blocked-unseen").length, 1);
    // Within the tolerance both ways: nothing.
    const ok = capture([
      [0.1, "o", WORK + R("state=working")],
      [1, "o", R("state=blocked:kind=permission")],
      [0.2, "o", PROMPT],
      [1, "o", WORK],
      [0.2, "o", R("state=working")],
      [0.5, "o", IDLE + R("state=idle")],
      [0.5, "x", "0"],
    ]);
    const r = check([ok]);
    assert.equal(r.j.counts.violation, 0, JSON.stringify(r.j.files[0].findings));
    assert.equal(r.found("blocked-unseen").length, 0);
  });
  test("flap and disagreement", () => {
    const flap = capture([
      [0.1, "o", PROMPT + R("state=blocked:kind=permission")],
      [0.05, "o", R("state=working")],
      [0.05, "o", R("state=blocked:kind=permission")],
      [1, "o", IDLE + R("state=idle")],
      [0.5, "x", "0"],
    ]);
    assert.match(check([flap]).found("flap")[0].message, /re-entered within 50 ms/);
    const dis = capture([[0.1, "o", IDLE + R("state=working")], [6, "o", WORK], [1, "o", R("state=idle")], [
      0.5,
      "x",
      "0",
    ]]);
    assert.match(check([dis]).found("disagreement")[0].message, /working while the screen shows idle for 6\.0 s/);
  });
});

describe("golden comparison", () => {
  test("the same capture against itself: nothing", () => {
    const r = check([sim("correct"), "--against", sim("correct")]);
    assert.equal(r.code, 0);
    assert.equal(r.j.files[0].findings.filter((f: { check: string }) => f.check.startsWith("golden")).length, 0);
  });
  test("a regressed build against the correct one: missing transitions are violations", () => {
    const r = check([sim("no-blocked"), "--against", sim("correct")]);
    assert.equal(r.code, 1);
    assert.equal(r.found("golden-missing").length, 4); // blocked and the working after it, per prompt
    assert.ok(r.found("golden-missing").every((f: { message: string }) => /never happens here/.test(f.message)));
  });
  test("late transitions are timing warnings; a msg difference is info", () => {
    const r = check([sim("late"), "--against", sim("correct")]);
    assert.ok(r.found("golden-timing").length > 0);
    const a = capture([[0.1, "o", R(`state=working:msg=${b64("one")}`)], [0.1, "x", "0"]]);
    const b = capture([[0.1, "o", R(`state=working:msg=${b64("two")}`)], [0.1, "x", "0"]]);
    const m = check([a, "--against", b]);
    assert.equal(m.found("golden-msg").length, 1);
    assert.equal(m.found("golden-msg")[0].severity, "info");
  });
  test("a run that only starts later (start-up) is one info line; a change after the start still warns", () => {
    const run = (start: number, extra = 0) =>
      capture([
        [start, "o", R("state=working")],
        [1, "o", R("state=blocked:kind=permission")],
        [1 + extra, "o", R("state=working")],
        [1, "o", R("state=idle")],
        [0.1, "x", "0"],
      ]);
    const golden = run(0.3);
    const shifted = check([run(2.4), "--against", golden]);
    assert.deepEqual(shifted.found("golden-timing").map((f: { severity: string }) => f.severity), ["info"]);
    assert.match(shifted.found("golden-timing")[0].message, /the run starts 2\.10 s later than/);
    const slower = check([run(2.4, 1.5), "--against", golden]);
    const sev = slower.found("golden-timing").map((f: { severity: string }) => f.severity);
    assert.deepEqual(sev.filter((x: string) => x === "warning").length, 2, String(sev)); // working and idle after it
  });
});

describe("a blocked report sent after the answer", () => {
  test("is late even within the tolerance, when the capture holds the answer (input)", () => {
    const events = (withInput: boolean) => [
      [0.1, "o", R("state=working") + WORK],
      [1, "o", PROMPT],
      ...(withInput ? [[0.3, "i", "1"]] : [[0.3, "o", ""]]),
      [0.05, "o", R("state=blocked:kind=permission")],
      [0.05, "o", WORK],
      [1, "o", R("state=working")],
      [1, "o", R("state=idle") + IDLE],
      [0.5, "x", "0"],
    ];
    const late = check([capture(events(true))]);
    assert.equal(late.found("prompt-late").length, 1);
    assert.match(late.found("prompt-late")[0].message, /after it was answered \(input at/);
    // Without the answer in the capture, the screen alone says it came in time.
    assert.equal(check([capture(events(false))]).found("prompt-late").length, 0);
  });
});

describe("a session pstlab stopped", () => {
  test("is a session violation, and the state the program was left in is not held against it", () => {
    for (
      const why of ["script failed: s.txt:1: timed out after 1 s waiting for /Nope/", "stopped by --timeout after 2 s"]
    ) {
      const c = capture([
        [0.1, "o", R("state=working") + WORK],
        [1, "m", `pstlab: ${why}`],
        [0.05, "x", "143"],
      ]);
      const r = check([c]);
      assert.equal(r.found("session").length, 1, why);
      assert.equal(r.found("left-at-exit").length, 0, why);
    }
    // A program that exits on its own still answers for what it left.
    const own = check([capture([[0.1, "o", R("state=working") + WORK], [1, "x", "0"]])]);
    assert.equal(own.found("left-at-exit").length, 1);
    assert.equal(own.found("session").length, 0);
  });
});

describe("rules file", () => {
  test("expect/forbid assertions", () => {
    const rules = writeTmp(
      dir,
      "r.toml",
      '[[expect]]\nwhen = "screen:blocked"\nthen = "protocol:blocked"\nwithin = "500ms"\n\n[[expect]]\nfinal = "done"\n\n[[forbid]]\nstate = "error"\n\n[[expect]]\nreports_min = 100\n',
    );
    const r = check([sim("no-blocked"), "--rules", rules]);
    const msgs = r.found("rule").map((f: { message: string }) => f.message).join("\n");
    assert.match(msgs, /r\.toml:1: screen:blocked at .* without protocol:blocked within 0\.5 s/);
    assert.match(msgs, /r\.toml:6: the last root report is idle, expected done/);
    assert.match(msgs, /r\.toml:12: \d+ reports, expected at least 100/);
    assert.ok(!/r\.toml:9/.test(msgs));
  });
  test("unknown keys and bad durations are errors with file:line", () => {
    const bad = writeTmp(
      dir,
      "bad.toml",
      '[[expect]]\nwhen = "screen:blocked"\nthen = "protocol:blocked"\nwithin = "soon"\n',
    );
    const r = cli(["check", sim("correct"), "--rules", bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.toml:4: \[\[expect\]\]: bad within "soon"/);
    const unknown = writeTmp(dir, "unk.toml", '[[forbid]]\nstate = "error"\n\n[[expect]]\nwen = "x"\n');
    assert.match(
      cli(["check", sim("correct"), "--rules", unknown]).stderr,
      /unk\.toml:5: \[\[expect\]\]: unknown key "wen"/,
    );
    // A rule that would never be read is refused, not passed: one table for an array of
    // them, and a file with no rule at all.
    for (
      const [name, text, re] of [
        [
          "one.toml",
          '# the rule\n[expect]\nfinal = "done"\n',
          /one\.toml:2: \[expect\] is one table: write \[\[expect\]\]/,
        ],
        ["oneforbid.toml", '[forbid]\nstate = "idle"\n', /oneforbid\.toml:1: \[forbid\] is one table/],
        ["empty.toml", "# nothing yet\n", /empty\.toml: no rules/],
        [
          "range.toml",
          "[[expect]]\nreports_min = 5\nreports_max = 2\n",
          /range\.toml:3: \[\[expect\]\]: reports_min \(5\) is more than reports_max \(2\)/,
        ],
      ] as const
    ) {
      const r = cli(["check", sim("correct"), "--rules", writeTmp(dir, name, text)]);
      assert.equal(r.code, 2, name);
      assert.match(r.stderr, re);
    }
  });
});

describe("outputs", () => {
  test("text: grouped by severity, a one-line summary last", () => {
    const r = cli(["check", sim("malformed")]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /\n {2}violations \(\d+\):\n/);
    assert.match(r.stdout.trim().split("\n").at(-1)!, /^check FAILED: \d+ violations, 0 warnings, 0 info \(1 file\)$/);
  });
  test("JUnit parses as XML with one <failure> per violation", {
    skip: !which("python3") && "python3 is not installed",
  }, () => {
    const r = cli(["check", sim("malformed"), sim("correct"), "--format", "junit"]);
    const violations = check([sim("malformed"), sim("correct")]).j.counts.violation;
    const py = spawnSync("python3", [
      "-c",
      "import sys,xml.etree.ElementTree as E; r=E.fromstring(sys.stdin.read()); print(len(r.findall('.//testcase/failure')), len(r.findall('.//testcase')), r.get('failures'))",
    ], { input: r.stdout, encoding: "utf8" });
    assert.equal(py.status, 0, py.stderr);
    const [failures, cases, attr] = py.stdout.trim().split(" ").map(Number);
    assert.equal(failures, violations);
    assert.equal(attr, violations);
    assert.ok(cases > failures);
  });
  test("markdown carries the capture's hash and the exact command", () => {
    const r = cli(["check", sim("stale"), "--format", "markdown"]);
    assert.match(r.stdout, /sha256 `[0-9a-f]{16}…`/);
    assert.match(r.stdout, /reproduce: `pstlab check .*sim-stale\.cast --format markdown`/);
    assert.match(r.stdout, /\| violation \| [0-9.]+ s \| `left-at-exit` \|/);
  });
  test("-o picks the format from the extension and writes nothing else to stdout", () => {
    const out = path.join(dir, "c.xml");
    const r = cli(["check", sim("correct"), "-o", out]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "");
    assert.match(fs.readFileSync(out, "utf8"), /^<\?xml/);
  });
});

describe("the simulated agent as a scripted CI session", () => {
  test("text and Enter in one read are submitted, as a real line editor does", () => {
    const script = writeTmp(
      dir,
      "s.txt",
      [
        "wait /for shortcuts/ 20s",
        'send "fix the bug\\r"',
        "wait /Worked for/ 30s",
        'send "/exit\\r"',
        "wait-exit 10s",
      ].join("\n") + "\n",
    );
    const out = path.join(dir, "scripted.cast");
    const r = cli([
      "record",
      "-q",
      "--script",
      script,
      "-o",
      out,
      "--",
      process.execPath,
      ...((globalThis as { Deno?: unknown }).Deno ? ["run", "-A", "--no-check"] : []),
      path.join(ROOT, "main.ts"),
      "sim",
      "--tasks",
      "1",
      "--scale",
      "0.05",
      "--prompt-rate",
      "0",
    ], { timeout: 90000 });
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(out, "utf8");
    assert.match(text, /fix the bug/);
    assert.match(text, /Bye!/);
    assert.equal(check([out]).code, 0);
  });
});
