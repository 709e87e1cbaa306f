// The bundled rules for the agents people run, each rule exercised on a hand-made
// screen built from the facts in the manifest's comments (real screens of most of
// these programs are not public), plus the screens each must not misread.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evaluate } from "./manifest.ts";
import { BUNDLED, resolveManifest } from "./bundled.ts";

const judge = (name: string, screen: string, title = "") => {
  const e = evaluate(resolveManifest(name), { rows: () => screen.split("\n"), title, osc9: null });
  return [e.state, e.rule?.id ?? null];
};

const CASES: Record<string, [string, string, string | null, string?][]> = {
  codex: [
    [
      "> You are in /work/app\n\nDo you trust the contents of this directory?\n› 1. Yes, continue\n  2. No, quit",
      "blocked",
      "approval_overlay",
    ],
    [
      "> You are in /work/app\n\nAllow Codex to work in this folder without asking for approval?\n› 1. Yes, allow\n  2. No",
      "blocked",
      "approval_overlay",
    ],
    [
      "> You are in /srv\n\n  Some newer wording of the question\n› 1. Yes, I trust it\n  2. No",
      "blocked",
      "trust_dialog",
    ],
    ["• Working (3s • Ctrl C to interrupt)\n\n› ", "working", "working_status"],
    ["• Working (12s • esc to interrupt)", "working", "working_status"],
    ["Would you like to run the following command?\n  $ npm test\n› 1. Yes", "blocked", "approval_overlay"],
    ["enter to submit answer", "blocked", "question"],
    ["› ", "idle", "composer_idle"],
    ["", "blocked", "title_blocked", "Action Required"],
    ["", "working", "title_working", "⠙ codex"],
  ],
  gemini: [
    ["╭──────╮\n│ Apply this change?\n│ ● 1. Yes, allow once\n╰──────╯", "blocked", "tool_confirmation"],
    ["│ Allow execution of: 'rm'?", "blocked", "tool_confirmation"],
    ["⠋ Thinking… (esc to cancel, 3s)", "working", "turn_working"],
    ["> Type your message or @path/to/file", "idle", "input_idle"],
  ],
  opencode: [
    ["△ Permission required\n  bash: rm -rf dist\n  enter confirm   esc dismiss", "blocked", "permission_required"],
    ["Writing tests…  esc to interrupt", "working", "interrupt_hint"],
    ["■■■■⬝⬝⬝⬝", "working", "interrupt_hint"],
    ["> ", "idle", null],
  ],
  copilot: [
    ["Run npm install?\n ❯ Yes\n   No\n ↑↓ to navigate · enter to select · esc to cancel", "blocked", "choice_dialog"],
    ["Do you want to run this command?\n ❯ 1. Yes", "blocked", "question"],
    ["∙ Thinking (esc to cancel)", "working", "cancel_hint"],
    ["> ", "idle", null],
  ],
  cursor: [
    ["Run this command?\n  $ rm -rf build\n  Run (once) (y) (enter)   Skip (esc or n)", "blocked", "approval"],
    ["Write to this file?\n  src/a.ts\n  Proceed (y)   Reject & propose changes", "blocked", "approval"],
    ["⬢ Generating…  ctrl+c to stop", "working", "working"],
    ["2 background tasks", "working", "working"],
    ["→ ", "idle", null],
  ],
  amp: [
    ["Run this command?\n  git push\n  Approve  Allow all for this session  Deny", "blocked", "approval"],
    ["╰ amp thinking ─────", "working", "status_footer"],
    ["", "blocked", "title_blocked", "Plugin confirmation needed"],
    ["", "working", "title_working", "⠙ amp"],
  ],
  aider: [
    ["src/a.py\nAdd file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:", "blocked", "choice"],
    ["Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ", "blocked", "choice"],
    ["Waiting for claude-3-5-sonnet", "working", "waiting"],
    ["Tokens: 2.1k sent, 300 received.\narchitect> ", "idle", "input_prompt"],
  ],
  amazonq: [
    [
      "Allow this action? Use 't' to trust (always allow) this tool for the session. [y/n/t]:",
      "blocked",
      "tool_approval",
    ],
    ["⠼ Thinking...", "working", "thinking"],
    ["> ", "idle", "input_prompt"],
  ],
  auggie: [
    ["Allow this tool call?\n❯ Allow\n  Allow for session\n  Deny", "blocked", "tool_approval"],
    ["⠋ Working (esc to interrupt)", "working", "working"],
    ["› ", "idle", null],
  ],
};

describe("bundled agent manifests", () => {
  test("every one loads, and every one has cases", () => {
    for (const name of Object.keys(BUNDLED)) {
      resolveManifest(name);
      if (name !== "claude" && name !== "generic") assert.ok(CASES[name], name);
    }
  });
  for (const [name, cases] of Object.entries(CASES)) {
    test(name, () => {
      for (const [screen, state, rule, title] of cases) {
        assert.deepEqual(judge(name, screen, title ?? ""), [state, rule], `${name}: ${JSON.stringify(screen)}`);
      }
      // Every rule of the manifest is exercised by a case.
      const rules = resolveManifest(name).rules.map((r) => r.id);
      for (const id of rules) assert.ok(cases.some((c) => c[2] === id), `${name}: rule ${id} has no case`);
    });
  }
});
