// A capture made of segments (`cat`, `record --append`, or by hand): an `x` event ends
// one program's run and output after it starts the next (docs/fixture-format.md
// convention 5). No detector may keep reading "idle, process-exited" into the next
// segment, and every way of making such a capture is covered.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, fromArray, tmpDir } from "../testkit.ts";
import { runDetectors } from "../../replay/clock.ts";
import { createDetector } from "./kinds.ts";
import { verdictAt } from "./timeline.ts";
import type { Event } from "../recording/model.ts";
import { HOOK_CODE } from "../recording/sources.ts";

const dir = tmpDir("pstlab-segments-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const te = new TextEncoder();
const o = (t: number, s: string): Event => ({ t, kind: "output", bytes: te.encode(s) });
const PROMPT = "Stage this hunk [y,n,q,a,d,e,?]? ";
/** Every detector kind that reads the exit (the screen ones, the protocol, hooks, process). */
const DETECTORS = [
  "question",
  "screen:generic@50ms",
  "screen:generic@write",
  "tail8k:generic",
  "combined:generic",
  "herdr:generic",
  "hash@500ms",
  "title:generic",
  "protocol",
  "hooks",
];

describe("an exit ends a segment; output after it is the program running again", () => {
  test("a hand-made capture: no detector says process-exited in the second segment", async () => {
    const events: Event[] = [
      o(0.1, "$ python3 -c 1\r\n"),
      { t: 0.2, kind: "other", code: HOOK_CODE, data: "done" },
      { t: 0.3, kind: "exit", status: 0 },
      o(0.4, "\x1b]7501;state=blocked:kind=question:id=g\x1b\\" + PROMPT),
    ];
    const { timelines } = await runDetectors(
      { cols: 80, rows: 24 },
      fromArray(events),
      DETECTORS.map((d) => createDetector(d)),
      { until: 5 },
    );
    for (const tl of timelines) {
      const v = verdictAt(tl, 4.9);
      assert.notEqual(v?.rule, "process-exited", `${tl.detector} after output resumed`);
    }
    const blocked = (name: string) => verdictAt(timelines[DETECTORS.indexOf(name)], 4.9)?.state;
    for (const d of ["question", "screen:generic@50ms", "protocol"]) assert.equal(blocked(d), "blocked", d);
    // The finished program's last hook does not speak for the new one.
    assert.notEqual(verdictAt(timelines[DETECTORS.indexOf("hooks")], 4.9)?.rule, "hook:done");
  });

  const first = path.join(dir, "first.cast"), second = path.join(dir, "second.cast");
  fs.writeFileSync(
    first,
    '{"version":2,"width":80,"height":24}\n[0.1,"o","$ python3 -c 1\\r\\n"]\n[0.2,"x","0"]\n',
  );
  fs.writeFileSync(second, `{"version":2,"width":80,"height":24}\n[0.1,"o",${JSON.stringify(PROMPT)}]\n[2,"o",""]\n`);

  /** What `detect FILE --at T --detector D` says, as JSON. */
  const detect = (file: string, at: string, d: string) => {
    const r = cli(["detect", file, "--at", at, "--detector", d, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  test("cat: the second file's prompt is found by the screen and question detectors", () => {
    const both = path.join(dir, "both.cast");
    assert.equal(cli(["cat", first, second, "-o", both]).code, 0);
    for (const d of ["question", "screen:generic@50ms"]) {
      const v = detect(both, "2", d);
      assert.equal(v.state, "blocked", `${d}: ${JSON.stringify(v)}`);
    }
  });

  test("record --append: the appended run's prompt is detected", () => {
    const file = path.join(dir, "app.cast");
    const rec = (args: string[], script: string) =>
      cli(["record", ...args, "--headless", "-q", "-o", file, "--", "sh", "-c", script], { timeout: 60000 });
    assert.equal(rec([], "echo one").code, 0);
    const r = rec(["--append"], `printf '${PROMPT}'; sleep 0.3`);
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(file, "utf8");
    assert.equal(text.match(/"x"/g)?.length, 2, text);
    // Inside the second run: just before its own exit (v3 intervals add up to times).
    const times = text.trim().split("\n").slice(1).map((l) => JSON.parse(l) as [number, string, string]);
    let t = 0;
    const exits: number[] = [];
    for (const [dt, code] of times) if ((t += dt) && code === "x") exits.push(t);
    const v = detect(file, String(Math.round((exits[1] - 0.05) * 1000) / 1000), "question");
    assert.equal(v.state, "blocked", JSON.stringify(v));
  });
  test("check on a cat of two runs: each run's exit is checked, the second run's unreported prompt is flagged", () => {
    const a = path.join(dir, "run-a.cast"), b = path.join(dir, "run-b.cast"), ab = path.join(dir, "runs.cast");
    const h = '{"version":2,"width":80,"height":24}\n';
    fs.writeFileSync(a, h + '[0.1,"o","\\u001b]7501;state=working:id=a\\u001b\\\\busy\\r\\n"]\n[0.2,"x","0"]\n');
    fs.writeFileSync(
      b,
      h + `[0.1,"o",${JSON.stringify("\x1b]7501;state=idle:id=b\x1b\\" + PROMPT)}]\n[2,"o",""]\n[2.1,"x","0"]\n`,
    );
    assert.equal(cli(["cat", a, b, "-o", ab]).code, 0);
    const r = cli(["check", ab]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /0\.20 s +left-at-exit: the program exited with a working/);
    assert.match(r.stdout, /prompt-unreported: the prompt shown 0\.30 s/);
  });
});
