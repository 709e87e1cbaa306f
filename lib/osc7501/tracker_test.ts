// The tracker: lifetime events and the OSC 9;4 mapping (decisions D12 and D19 of docs/osc7501.md).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isNewPrompt, type ProtocolEvent, Tracker } from "./tracker.ts";
import { mapOsc94, osc94Mirror } from "./osc94.ts";

const te = new TextEncoder();
function run(chunks: [number, string][], exitAt?: number): { events: ProtocolEvent[]; tracker: Tracker } {
  const events: ProtocolEvent[] = [];
  const tracker = new Tracker((e) => events.push(e));
  for (const [t, s] of chunks) tracker.feed(te.encode(s), t);
  if (exitAt !== undefined) tracker.exit(exitAt);
  tracker.end(exitAt ?? chunks.at(-1)?.[0] ?? 0);
  return { events, tracker };
}

describe("OSC 133 new prompt (D12)", () => {
  test("A with or without parameters, except k=r/c/s", () => {
    for (const p of ["A", "A;aid=1", "A;k=i", "A;cl=m"]) assert.equal(isNewPrompt(p), true, p);
    for (const p of ["A;k=r", "A;k=c", "A;k=s", "N", "P", "P;k=i", "B", "C", "D", "D;0", "AB", ""]) {
      assert.equal(isNewPrompt(p), false, p);
    }
  });
  test("a prompt removes working, blocked and idle records", () => {
    const { events, tracker } = run([[0, "\x1b]7501;state=working\x07\x1b]7501;state=done:id=d\x07"], [
      1,
      "\x1b]133;A\x07",
    ]]);
    assert.deepEqual(events.at(-1), { t: 1, type: "lifecycle", event: "prompt", removed: [null] });
    assert.deepEqual(tracker.store.list().map((r) => r.id), ["d"]);
  });
  test("B, C, D marks and continuation prompts do not touch records", () => {
    const { tracker } = run([[
      0,
      "\x1b]7501;state=working\x07\x1b]133;B\x07\x1b]133;C\x07\x1b]133;D;0\x07\x1b]133;A;k=c\x07",
    ]]);
    assert.equal(tracker.store.size, 1);
  });
});

describe("lifetime through the stream", () => {
  test("process exit", () => {
    const { events, tracker } = run(
      [[0, "\x1b]7501;state=blocked:kind=question\x07\x1b]7501;state=error:id=e\x07"]],
      2.5,
    );
    assert.deepEqual(events.find((e) => e.type === "lifecycle"), {
      t: 2.5,
      type: "lifecycle",
      event: "exit",
      removed: [null],
    });
    assert.equal(tracker.store.size, 1);
  });
  test("RIS removes all; DECSTR and the alternate screen touch nothing", () => {
    const soft = run([[0, "\x1b]7501;state=working\x07\x1b[!p\x1b[?1049h\x1b[?1049l\x1b[?47h"]]);
    assert.equal(soft.tracker.store.size, 1);
    const hard = run([[0, "\x1b]7501;state=done\x07\x1bc"]]);
    assert.equal(hard.tracker.store.size, 0);
  });
});

describe("OSC 9;4 mapping (D19)", () => {
  test("table", () => {
    const cases: [string, unknown][] = [
      ["4;0", "clear-root"],
      ["4;0;0", "clear-root"],
      ["4;1;50", ["working", 50]],
      ["4;1;150", ["working", 100]],
      ["4;1", ["working", null]],
      ["4;1;-1", ["working", null]],
      ["4;2", ["error", null]],
      ["4;2;30", ["error", null]],
      ["4;3", ["working", null]],
      ["4;4", ["blocked", null]],
      ["4;4;70", ["blocked", 70]],
      ["4;5", null],
      ["4", null],
      ["Hello", null],
      ["4;1;2;3", null],
    ];
    for (const [p, want] of cases) {
      const m = mapOsc94(p);
      const got = m === null || m === "clear-root" ? m : [m.state, m.progress];
      assert.deepEqual(got, want, p);
    }
  });
  test("mapped onto the root with source osc9;4 until the first 7501 report; RIS re-enables", () => {
    const { events } = run([
      [0, "\x1b]9;4;1;20\x07"],
      [1, "\x1b]7501;state=working:progress=30\x07"],
      [2, "\x1b]9;4;1;90\x07"], // suppressed
      [3, "\x1bc"],
      [4, "\x1b]9;4;4;10\x1b\\"],
    ]);
    const reports = events.filter((e) => e.type === "report").map((e) =>
      e.type === "report" && [e.t, e.state, e.progress, e.source]
    );
    assert.deepEqual(reports, [[0, "working", 20, "osc9;4"], [1, "working", 30, "osc7501"], [
      4,
      "blocked",
      10,
      "osc9;4",
    ]]);
  });
  test("9;4;0 clears only the root", () => {
    const { tracker } = run([[0, "\x1b]9;4;1\x07"], [1, "\x1b]9;4;0\x07"]]);
    assert.equal(tracker.store.size, 0);
  });
  test("mirror for legacy terminals", () => {
    assert.equal(osc94Mirror("working", 40), "4;1;40");
    assert.equal(osc94Mirror("working", null), "4;3");
    assert.equal(osc94Mirror("blocked", null), "4;4;0");
    assert.equal(osc94Mirror("error", null), "4;2");
    assert.equal(osc94Mirror("done", null), "4;0");
  });
});

describe("events", () => {
  test("query, report, discarded and ignored carry their fields", () => {
    const { events } = run([[
      0.5,
      "\x1b]7501;?\x07\x1b]7501;state=done:msg=SGk=\x1b\\\x1b]7501;state=idle:msg=a\x07\x1b]7501;state=nope\x07",
    ]]);
    assert.deepEqual(events.map((e) => e.type), ["query", "report", "discarded", "ignored"]);
    assert.deepEqual(events[0], { t: 0.5, type: "query", reply: "\x1b]7501;?\x07", terminator: "bel", depth: 0 });
    const d = events[2];
    assert.equal(d.type === "discarded" && d.reason, "bad-base64");
    assert.equal(d.type === "discarded" && d.raw, "\x1b]7501;state=idle:msg=a\x07");
    assert.equal(events[3].type === "ignored" && events[3].reason, "unknown-state");
  });
  test("a split report gets the time of the read that completed it", () => {
    const { events } = run([[1, "\x1b]7501;sta"], [2, "te=working"], [3, "\x1b"], [4, "\\"]]);
    assert.equal(events[0].t, 4);
  });
  test("reports inside tmux passthrough are applied", () => {
    const { tracker } = run([[0, "\x1bPtmux;\x1b\x1b]7501;state=blocked\x1b\x1b\\\x1b\\"]]);
    assert.equal(tracker.store.get(null)?.state, "blocked");
  });
});
