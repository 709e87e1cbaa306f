// The process table on real ptys: the recorder records each change of the terminal's
// foreground group (a job taking the terminal and giving it back, an exec changing the
// program in front), the events come back through asciicast v3 and v2 unchanged, and the
// `process` detector reads them as the shell idle / a program working — and says "no
// process data" on a capture that has none.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { headerFor, runSession, type SessionOptions } from "./recorder.ts";
import type { Event, Header } from "../recording/model.ts";
import { collect, fromArray, hasProc, memoryWriter, tmpDir, writeTmp } from "../testkit.ts";
import { AsciicastWriter } from "../recording/asciicast.ts";
import { openRecording } from "../recording/open.ts";
import { declaredSources, parseForeground, PROCESS_CODE } from "../recording/sources.ts";
import { createDetector } from "../detect/kinds.ts";
import { runDetectors } from "../../replay/clock.ts";
import { readForeground } from "./foreground.ts";

function options(argv: string[], more: Partial<SessionOptions> = {}): SessionOptions {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return {
    argv,
    cols: 80,
    rows: 24,
    headless: true,
    captureInput: false,
    answer: true,
    env: { ...env, TERM: "xterm-256color" },
    drainGraceMs: 1000,
    ...more,
  };
}

const foregrounds = (events: Event[]) =>
  events.flatMap((e) => e.kind === "other" && e.code === PROCESS_CODE ? [parseForeground(e.data)!] : []);

async function record(argv: string[], more: Partial<SessionOptions> = {}) {
  const o = options(argv, more);
  const header = headerFor(o, {
    envCapture: {},
    provenance: { tool: "pstlab", version: "test", osc7501_revision: "0", fixture_schema: 1 },
  });
  const writer = memoryWriter();
  const r = await runSession(o, writer);
  return { r, header, events: writer.events };
}

function cast(header: Header, events: Event[], version: 2 | 3): string {
  const parts: string[] = [];
  const w = new AsciicastWriter({ write: (s) => parts.push(s) }, version);
  w.header(header);
  for (const e of events) w.event(e);
  w.end(events.at(-1)?.t ?? 0);
  return parts.join("");
}

async function processVerdicts(header: Header, events: Event[]) {
  const { timelines } = await runDetectors(header, fromArray(events), [createDetector("process")]);
  return timelines[0].points.map((p) => [p.verdict.state, p.verdict.rule, p.verdict.evidence]);
}

describe("the process table", { skip: !hasProc && "no /proc here" }, () => {
  test("readForeground: this test's own terminal group, or null without one", () => {
    const f = readForeground(process.pid);
    if (f) assert.ok(f.pgid > 0 && f.name.length > 0);
    assert.equal(readForeground(2 ** 30), null, "a pid that does not exist");
  });

  test("a job takes the terminal and gives it back: recorded, read back, judged", async () => {
    // `set -m` gives each job its own group and the terminal, as an interactive shell does;
    // `read -t` keeps the shell itself in front for a while (a builtin: no job).
    const { r, header, events } = await record([
      "bash",
      "-c",
      "set -m; sleep 0.5; echo between; read -t 0.4 x; sleep 0.5; echo end",
    ]);
    assert.equal(r.status, 0);
    assert.deepEqual(header.provenance?.sources, ["process"]);
    const fg = foregrounds(events);
    // The shell's group is the session's (bash leads it); it may have started its first job before the first sample.
    const shell = fg[0].sid;
    assert.ok(fg.every((f) => f.sid === shell), JSON.stringify(fg));
    const sleeps = fg.filter((f) => f.name === "sleep");
    assert.ok(sleeps.length >= 2 && sleeps.every((f) => f.pgid !== shell), JSON.stringify(fg));
    assert.ok(fg.some((f) => f.pgid === shell), `the shell never came back: ${JSON.stringify(fg)}`);
    // Each change comes before the output that followed it.
    const between = events.findIndex((e) => e.kind === "output" && /between/.test(new TextDecoder().decode(e.bytes)));
    const firstSleep = events.findIndex((e) => e.kind === "other" && parseForeground(e.data)?.name === "sleep");
    assert.ok(firstSleep >= 0 && firstSleep < between);

    for (const version of [3, 2] as const) {
      const text = cast(header, events, version);
      const rec = await openRecording(writeTmp(tmpDir(), `fg.v${version}.cast`, text));
      const back = await collect(rec.events);
      assert.deepEqual(foregrounds(back), fg, `v${version} round trip`);
      assert.deepEqual([...declaredSources(rec.header)], ["process"]);
      const states = (await processVerdicts(rec.header, back)).map(([s, rule]) => `${s}:${rule}`);
      // idle with the shell in front, working while sleep holds the terminal, idle again, then the exit.
      const collapsed = states.filter((s, i) => s !== states[i - 1]);
      assert.ok(collapsed.includes("working:process:foreground"), states.join(" "));
      assert.ok(
        collapsed.lastIndexOf("idle:process:shell") > collapsed.indexOf("working:process:foreground"),
        states.join(" "),
      );
      if (version === 3) assert.equal(collapsed.at(-1), "idle:process-exited"); // v2 has no exit event
      assert.ok(!states.some((s) => s.startsWith("blocked")), "the process table never says blocked");
    }
  });

  test("a shell that execs a program: the same group, a new name, working", async () => {
    const { events, header } = await record(["bash", "-c", "sleep 0.3; exec sleep 0.4"]);
    const fg = foregrounds(events);
    assert.deepEqual(fg.map((f) => f.name), ["bash", "sleep"], JSON.stringify(fg));
    assert.equal(fg[0].pgid, fg[1].pgid);
    const states = await processVerdicts(header, events);
    assert.deepEqual(states.map(([s]) => s), ["idle", "working", "idle"]);
    assert.equal(states[1][2], "sleep");
  });

  test("processTable: false records none, and the detector says so instead of guessing", async () => {
    const { events, header } = await record(["sh", "-c", "sleep 0.2"], { processTable: false });
    assert.equal(foregrounds(events).length, 0);
    assert.equal(header.provenance?.sources, undefined);
    const states = await processVerdicts(header, events);
    assert.deepEqual(states, [["unknown", "no-process-data", "no process data in this capture"]]);
  });
});
