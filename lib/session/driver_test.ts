// `wait` in a recorder script: text that appeared since the previous step, trailing
// spaces kept, alternatives, `wait screen`, `as STATE[:KIND]`, and the screen shown when
// a wait fails. Driven by a real emulated screen, in-process.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Screen } from "../screen/screen.ts";
import { lastRows, parseScript, runScript, ScriptFailed, type ScriptHost, type Step, waitMatches } from "./driver.ts";
import { FixtureError } from "../errors.ts";

type Wait = Extract<Step, { op: "wait" }>;
const wait = (line: string) => parseScript(line, "s.txt")[0] as Wait;
const te = new TextEncoder();

function screen(cols = 30, rows = 6) {
  const s = new Screen(cols, rows);
  const write = (text: string) => s.write(te.encode(text), 0);
  return { s, write };
}

describe("wait matches text that appeared since the previous step", () => {
  test("a second menu prompt: the old one does not count, even with the answer echoed on its row", () => {
    const { s, write } = screen();
    write("*** Commands ***\r\n  1: status\r\nWhat now> ");
    s.mark();
    const w = wait("wait /What now>/");
    assert.equal(waitMatches(w, s.changes()), false, "nothing new yet");
    write("s\r\n"); // the echo lands on the old prompt's row
    assert.equal(waitMatches(w, s.changes()), false, "only the echo is new on that row");
    write("  staged     unstaged path\r\n*** Commands ***\r\n  1: status\r\nWhat now> ");
    assert.equal(waitMatches(w, s.changes()), true, "the new prompt, scrolled in");
    assert.equal(waitMatches(wait("wait screen /What now>/"), s.changes()), true);
  });
  test("lines that only scrolled up are not new; a full-screen repaint in place with new text is", () => {
    const { s, write } = screen(20, 3);
    write("a\r\nready\r\nb");
    s.mark();
    write("\r\nc\r\nd"); // "ready" scrolls off the top: nothing new matches it
    assert.equal(waitMatches(wait("wait /ready/"), s.changes()), false);
    write("\x1b[H\x1b[2Jready now");
    assert.equal(waitMatches(wait("wait /ready/"), s.changes()), true);
  });
  test("the same text redrawn in place did not appear (wait screen still sees it)", () => {
    const { s, write } = screen();
    write("Allow? [y/n]");
    s.mark();
    write("\x1b[H\x1b[2JAllow? [y/n]");
    assert.equal(waitMatches(wait("wait /Allow/"), s.changes()), false);
    assert.equal(waitMatches(wait("wait screen /Allow/"), s.changes()), true);
  });
  test("trailing spaces the program wrote are kept: />>> $/ finds Python's prompt", () => {
    const { s, write } = screen();
    s.mark();
    write("Python 3\r\n>>> ");
    assert.equal(waitMatches(wait("wait />>> $/"), s.changes()), true);
    const { s: s2, write: w2 } = screen();
    s2.mark();
    w2("Python 3\r\n>>>");
    assert.equal(waitMatches(wait("wait />>> $/"), s2.changes()), false, "no space written, none matched");
  });
  test("alternatives: wait /a/ or /b/", () => {
    const { s, write } = screen();
    s.mark();
    write("Password: ");
    const w = wait("wait /\\$ $/ or /Password:/ 2s");
    assert.equal(w.patterns.length, 2);
    assert.equal(w.timeout, 2);
    assert.equal(w.src, "/\\$ $/ or /Password:/");
    assert.equal(waitMatches(w, s.changes()), true);
  });
  test("a resize makes every row new", () => {
    const { s, write } = screen();
    write("ready");
    s.mark();
    s.resize(40, 6);
    assert.equal(waitMatches(wait("wait /ready/"), s.changes()), true);
  });
});

describe("wait's syntax", () => {
  test("as STATE[:KIND], flags, slashes inside classes and escapes", () => {
    assert.equal(wait("wait /Allow\\?/ as blocked:permission").label, "truth:blocked:permission");
    assert.equal(wait("wait /x/ 3s as working").label, "truth:working");
    assert.equal(wait("wait /x/ as truth:blocked:deploy").label, "truth:blocked:deploy");
    assert.equal(wait("wait /[/]x\\/y/i").src, "/[/]x\\/y/i");
  });
  for (
    const [line, msg] of [
      ["wait /x/ as sleeping", /as needs a truth state/],
      ["wait /x/ 3s banana", /after the regex/],
      ["wait /x", /no closing \//],
      ["wait /x/g", /unknown regex flag/],
      ["wait x", /wait needs \/regex\//],
      ["wait /(/", /bad regex/],
      ["wait /x/ or", /wait needs \/regex\//],
      // A wait for what only matches the empty string could only time out.
      ["wait /^/", /matches only the empty string/],
      ["wait //", /matches only the empty string/],
      ["wait /x/ or /(?:)/", /matches only the empty string/],
    ] as const
  ) {
    test(`${line}: file:line and why`, () => {
      assert.throws(() => parseScript(`sleep 1s\n${line}\n`, "s.txt"), (e: unknown) => {
        assert.ok(e instanceof FixtureError);
        assert.equal(e.line, 2);
        assert.match(e.message, msg);
        return true;
      });
    });
  }
  test("a catastrophic pattern runs on the linear-time engine: the wait answers at once", () => {
    const w = wait("wait /(a+)+$/");
    const { s, write } = screen(200, 3);
    s.mark();
    write("a".repeat(150) + "!");
    const t0 = performance.now();
    assert.equal(waitMatches(w, s.changes()), false);
    assert.ok(performance.now() - t0 < 5000, "the event loop was blocked");
  });
});

describe("runScript", () => {
  function host(s: Screen, clock: { t: number }, labels: [string, number | undefined][]): ScriptHost {
    return {
      now: () => clock.t,
      screen: () => Promise.resolve(s.changes()),
      markScreen: () => s.mark(),
      lastOutputAt: () => 1.5,
      exited: () => false,
      send: () => {},
      label: (l, at) => labels.push([l, at]),
      resize: () => {},
    };
  }
  test("as STATE labels at the time of the output that showed the match", async () => {
    const { s, write } = screen();
    const labels: [string, number | undefined][] = [];
    const steps = parseScript("wait /Allow/ 5s as blocked:permission\n", "s.txt");
    const done = runScript(steps, host(s, { t: 2 }, labels), "s.txt", () => false);
    write("Allow? "); // after the script's start: text that appeared
    await done;
    assert.deepEqual(labels, [["truth:blocked:permission", 1.5]]);
  });
  test("output the program wrote before the script got going is new to the first wait", async () => {
    // The recorder starts the script after the child: a fast program's prompt may reach
    // the screen first (it raced a mark taken at the script's start).
    const { s, write } = screen();
    write("Proceed? [y/N] ");
    const labels: [string, number | undefined][] = [];
    const steps = parseScript("wait /Proceed\\? \\[y\\/N\\]/ 1s as blocked:permission\n", "s.txt");
    await runScript(steps, host(s, { t: 2 }, labels), "s.txt", () => false);
    assert.deepEqual(labels, [["truth:blocked:permission", 1.5]]);
  });
  test("a wait that times out carries the screen's last rows", async () => {
    const { s, write } = screen(30, 8);
    write("one\r\ntwo\r\nthree> ");
    const clock = { t: 0 };
    const h = host(s, clock, []);
    const nowReal = h.now;
    h.now = () => (clock.t += 0.2, nowReal());
    await assert.rejects(
      runScript(parseScript("wait /never/ 1s\n", "s.txt"), h, "s.txt", () => false),
      (e: unknown) => {
        assert.ok(e instanceof ScriptFailed);
        assert.match(
          e.message,
          /^s\.txt:1: timed out after 1 s waiting for \/never\/ in text that appeared since the previous step$/,
        );
        assert.deepEqual(e.screen, ["one", "two", "three>"]);
        return true;
      },
    );
  });
  test("wait-quiet right after a send waits the full quiet time though the program was quiet before", async () => {
    // The program last wrote at t=5; the script sends "a" at t=10 and waits 0.3 s of quiet:
    // "b" must not go out before t=10.3 (it went out at once, 0 ms after "a").
    const { s } = screen();
    const clock = { t: 10 };
    const sent: [string, number][] = [];
    const h: ScriptHost = {
      ...host(s, clock, []),
      now: () => (clock.t += 0.01),
      lastOutputAt: () => 5,
      send: (d) => sent.push([d, clock.t]),
    };
    await runScript(parseScript('send "a"\nwait-quiet 300ms\nsend "b"\n', "s.txt"), h, "s.txt", () => false);
    assert.equal(sent.length, 2);
    assert.ok(sent[1][1] - sent[0][1] >= 0.3, `b went out ${(sent[1][1] - sent[0][1]).toFixed(2)} s after a`);
  });
  test("wait-quiet waits longer while output continues", async () => {
    const { s } = screen();
    const clock = { t: 10 };
    const sent: [string, number][] = [];
    const h: ScriptHost = {
      ...host(s, clock, []),
      now: () => (clock.t += 0.01),
      // Output keeps coming until t=11, then stops.
      lastOutputAt: () => Math.min(clock.t, 11),
      send: (d) => sent.push([d, clock.t]),
    };
    await runScript(parseScript('wait-quiet 300ms\nsend "b"\n', "s.txt"), h, "s.txt", () => false);
    assert.ok(sent[0][1] >= 11.3, `sent at ${sent[0][1]}`);
  });
  test("wait-quiet fails when output never stops", async () => {
    const { s } = screen();
    const clock = { t: 10 };
    const h: ScriptHost = { ...host(s, clock, []), now: () => (clock.t += 0.05), lastOutputAt: () => clock.t };
    await assert.rejects(
      runScript(parseScript("wait-quiet 300ms 1s\n", "s.txt"), h, "s.txt", () => false),
      /s\.txt:1: output never went quiet for 0\.3 s within 1 s/,
    );
  });
  /** Runs a script on a real screen, the clock moving 0.05 s per look (a timeout ends it). */
  const run = (s: Screen, script: string) => {
    const clock = { t: 0 };
    const h: ScriptHost = { ...host(s, clock, []), now: () => (clock.t += 0.05) };
    return runScript(parseScript(script, "s.txt"), h, "s.txt", () => false);
  };
  test("two waited-for texts in one write: each wait uses up the text only up to the end of its match", async () => {
    const { s, write } = screen();
    write("A\r\nB\r\n");
    await run(s, "wait /A/ 1s\nwait /B/ 1s\n");
    const { s: s2, write: w2 } = screen();
    w2("What now> \r\nWhat now> ");
    await run(s2, "wait /What now>/ 1s\nwait /What now>/ 1s\n");
    await assert.rejects(run(s2, "wait /What now>/ 1s\n"), /timed out/, "both prompts are used up");
  });
  test("on one row: new text after the match stays new; text before it and old text are used up", async () => {
    const { s, write } = screen(40, 4);
    write("B old x");
    s.mark();
    write(" A then B"); // one row: "B old x A then B"
    await run(s, "wait /A/ 1s\nwait /B/ 1s\n");
    const { s: s2, write: w2 } = screen(40, 4);
    w2("B old x");
    s2.mark();
    w2(" A");
    await assert.rejects(run(s2, "wait /A/ 1s\nwait /B/ 500ms\n"), /s\.txt:2: timed out .* \/B\//, "the old B");
    const { s: s3, write: w3 } = screen(40, 4);
    w3("B new then A");
    await assert.rejects(run(s3, "wait /A/ 1s\nwait /B/ 500ms\n"), /s\.txt:2: timed out/, "new, but before the match");
  });
  test("after a wait, text that scrolls in and text rewritten over the used-up part are new", async () => {
    const { s, write } = screen(20, 3);
    write("A\r\nx");
    const clock = { t: 0 };
    const h: ScriptHost = { ...host(s, clock, []), now: () => (clock.t += 0.05) };
    let wrote = false;
    const look = h.screen;
    h.screen = () => {
      // The second wait's first look: more output has come since the first wait.
      if (clock.t > 0.1 && !wrote) wrote = true, write("\r\nB\r\nC\x1b[1;1HA2");
      return look();
    };
    await runScript(parseScript("wait /A/ 1s\nwait /B/ 1s\nwait /C/ 1s\n", "s.txt"), h, "s.txt", () => false);
    assert.ok(wrote);
  });
  test("any other step between waits marks the whole screen, as before", async () => {
    const { s, write } = screen();
    write("A\r\nB\r\n");
    await assert.rejects(run(s, "wait /A/ 1s\nsleep 0s\nwait /B/ 500ms\n"), /s\.txt:3: timed out/);
  });
  test("lastRows keeps the rows around the cursor and the last written one", () => {
    const rows = Array.from({ length: 20 }, (_, i) => `row ${i}`);
    assert.deepEqual(
      lastRows({ rows, changedFrom: rows.map(() => -1), cursor: { x: 0, y: 10 } }),
      ["row 13", "row 14", "row 15", "row 16", "row 17", "row 18", "row 19"],
    );
  });
});

describe("the bundled scripts", () => {
  test("every script in fixtures parses with the regex runner's syntax", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const { ROOT } = await import("../testkit.ts");
    const dir = path.join(ROOT, "fixtures/corpus/scripts");
    const files = [...fs.readdirSync(dir).map((n) => path.join(dir, n)), path.join(ROOT, "fixtures/ci/session.script")];
    assert.ok(files.length > 5);
    for (const f of files) assert.ok(parseScript(fs.readFileSync(f, "utf8"), f).length > 0, f);
  });
});
