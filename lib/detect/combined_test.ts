// combined:<m> follows the write-up's order (docs/detection.md §6.2), one row per case:
// a blocked screen first; else the newest agent report, OSC 7501 or hook, whichever came
// last; else "the program exited"; else the shell back in front; else the other screen
// rules — each source only when the capture has it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createDetector } from "./kinds.ts";
import { runDetectors } from "../../replay/clock.ts";
import type { Event, Header } from "../recording/model.ts";
import { fromArray } from "../testkit.ts";
import { HOOK_CODE, PROCESS_CODE } from "../recording/sources.ts";

const te = new TextEncoder();
// Screens the bundled claude rules read.
const PROMPT = "\x1b[2J\x1b[H Bash command\r\n\r\n Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n";
const WORK = "\x1b[2J\x1b[H✻ Pondering… (3s · esc to interrupt)\r\n";
const IDLE = "\x1b[2J\x1b[H──────\r\n❯ \r\n──────\r\n  ? for shortcuts\r\n";
const R = (body: string) => `\x1b]7501;${body}\x1b\\`;

type Step = ["screen", string] | ["osc", string] | ["hook", string] | ["fg", string] | ["exit"];

function eventsOf(steps: Step[]): Event[] {
  return steps.map((s, i): Event => {
    const t = (i + 1) * 0.1;
    switch (s[0]) {
      case "screen":
      case "osc":
        return { t, kind: "output", bytes: te.encode(s[0] === "osc" ? R(s[1]) : s[1]) };
      case "hook":
        return { t, kind: "other", code: HOOK_CODE, data: s[1] };
      case "fg":
        return { t, kind: "other", code: PROCESS_CODE, data: s[1] };
      case "exit":
        return { t, kind: "exit", status: 0 };
    }
  });
}

async function combinedAtEnd(steps: Step[], command = "claude"): Promise<[string, string | null]> {
  const header: Header = { cols: 80, rows: 24, command };
  const { timelines } = await runDetectors(header, fromArray(eventsOf(steps)), [createDetector("combined:claude")]);
  const v = timelines[0].points.at(-1)!.verdict;
  return [v.state, v.rule];
}

const SHELL = "100 100 bash", VIM = "200 100 vim", EXECED = "100 100 vim";

describe("combined:<m>, in the write-up's order", () => {
  const rows: [string, Step[], string, [string, RegExp | null]][] = [
    [
      "1. a blocked screen beats a newer report of either kind",
      [["osc", "state=working"], ["hook", "working"], ["screen", PROMPT]],
      "claude",
      ["blocked", /^screen:/],
    ],
    [
      "2. a hook newer than the OSC 7501 record replaces it",
      [["screen", WORK], ["osc", "state=working"], ["hook", "idle"]],
      "claude",
      ["idle", /^hook:idle$/],
    ],
    [
      "2. an OSC 7501 record newer than the hook replaces it",
      [["screen", IDLE], ["hook", "working"], ["osc", "state=blocked:kind=permission"]],
      "claude",
      ["blocked", /^record:root:blocked$/],
    ],
    [
      "2. a hook alone is the agent's word, and holds until replaced",
      [["hook", "blocked:permission"], ["screen", WORK], ["screen", WORK]],
      "claude",
      ["blocked", /^hook:blocked$/],
    ],
    [
      "2. an agent report beats the shell in front",
      [["fg", SHELL], ["hook", "working"], ["screen", IDLE]],
      "bash",
      ["working", /^hook:working$/],
    ],
    [
      "2. an OSC 7501 record beats the shell in front",
      [["fg", SHELL], ["osc", "state=working"], ["screen", IDLE]],
      "bash",
      ["working", /^record:root:working$/],
    ],
    [
      "3. the shell back in front (no report): idle, whatever the other screen rules say",
      [["fg", VIM], ["screen", WORK], ["fg", SHELL]],
      "bash",
      ["idle", /^process:shell$/],
    ],
    [
      "3. a program the shell exec'd is not the shell",
      [["fg", SHELL], ["screen", WORK], ["fg", EXECED]],
      "bash",
      ["working", /^screen:/],
    ],
    [
      "4. another program in front: the other screen rules",
      [["fg", SHELL], ["fg", VIM], ["screen", WORK]],
      "bash",
      ["working", /^screen:/],
    ],
    [
      "4. no hooks, no process data, no report: the screen, as before",
      [["screen", IDLE]],
      "claude",
      ["idle", /^screen:/],
    ],
    [
      "the exit ends everything but a report",
      [["fg", SHELL], ["screen", WORK], ["exit"]],
      "bash",
      ["idle", /^process-exited$/],
    ],
  ];
  for (const [name, steps, command, [state, rule]] of rows) {
    test(name, async () => {
      const [s, r] = await combinedAtEnd(steps, command);
      assert.equal(s, state, `rule ${r}`);
      if (rule === null) assert.equal(r, null);
      else assert.match(r ?? "", rule);
    });
  }

  test("process and hooks detectors: no data said, not guessed; never blocked from the process table", async () => {
    const header: Header = { cols: 80, rows: 24, command: "bash" };
    const run = async (name: string, steps: Step[]) =>
      (await runDetectors(header, fromArray(eventsOf(steps)), [createDetector(name)])).timelines[0].points.map((p) =>
        p.verdict.rule
      );
    assert.deepEqual(await run("process", [["screen", PROMPT]]), ["no-process-data"]);
    assert.deepEqual(await run("hooks", [["screen", PROMPT]]), ["no-hook-data"]);
    assert.deepEqual(await run("process", [["fg", SHELL], ["fg", VIM], ["screen", PROMPT], ["fg", SHELL]]), [
      "process:shell",
      "process:foreground",
      "process:shell",
    ]);
    // A hook line that does not parse is data (the hooks were on) but no verdict.
    assert.deepEqual(await run("hooks", [["hook", "sleeping"], ["hook", "blocked:auth"]]), [null, "hook:blocked"]);
  });
});
