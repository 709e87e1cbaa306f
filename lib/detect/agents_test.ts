// The bundled rules for the agents people run, each rule exercised on a hand-made
// screen built from the facts in the manifest's comments (real screens of most of
// these programs are not public), plus the screens each must not misread.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evaluate } from "./manifest.ts";
import { BUNDLED, resolveManifest } from "./bundled.ts";
import { chooseManifest } from "./choose.ts";

const judge = (name: string, screen: string, title = "") => {
  const e = evaluate(resolveManifest(name), { rows: () => screen.split("\n"), title, osc9: null });
  return [e.state, e.rule?.id ?? null];
};

const CASES: Record<string, [string, string, string | null, string?][]> = {
  // The write-up's rules as published: no region, so an answered dialog still on screen
  // above a fresh input box reads blocked (what pstlab's own `claude` rules fix).
  osfoundry: [
    [" Do you want to proceed?\n ❯ 1. Yes\n   2. No\n Esc to cancel · Tab to amend", "blocked", "blocked"],
    [" Do you want to proceed?\n ❯ 1. Yes\n\n╭───╮\n│ > │\n╰───╯\n ? for shortcuts", "blocked", "blocked"],
    ["✻ Thinking… (3s · esc to interrupt)", "working", "working"],
    ["│ >  │\n  ? for shortcuts", "idle", "idle"],
    ["  ⏵⏵ accept edits mode on", "idle", "idle"],
    ["plain text", "idle", null],
  ],
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
  // Issue 21's agents: screens built from the wording each manifest's comments cite.
  pi: [
    [
      "  Allow `rm -rf dist`?\n  → Allow\n    Deny\n\n  ↑↓ navigate  enter select  escape cancel",
      "blocked",
      "extension_dialog",
    ],
    ["  Commit message:\n  > \n  enter submit  escape cancel", "blocked", "extension_dialog"],
    ["⠙ Working... (escape to interrupt)", "working", "loader_working"],
    ["⠹ Retrying (1/3) in 4s... (escape to cancel)", "working", "loader_working"],
    // The startup help lists the hint with no loader frame: not work.
    ["pi v0.73.1\nescape to interrupt\nctrl+c to clear", "idle", null],
  ],
  qwen: [
    ["╭──────╮\n│ Apply this change?\n│ ● 1. Yes, allow once\n╰──────╯", "blocked", "tool_confirmation"],
    ["│ Allow execution of: 'npm test'?", "blocked", "tool_confirmation"],
    ["Do you trust this folder?\n ● 1. Trust folder (work)\n   2. Don't trust (esc)", "blocked", "folder_trust"],
    ["⠋ Thinking… (esc to cancel, 12s)", "working", "spinner_working"],
    ["> Type your message or @path/to/file", "idle", "input_idle"],
    ["", "blocked", "title_blocked", "✳ Qwen Code"],
    ["", "working", "title_working", "◐ Qwen Code"],
  ],
  cline: [
    ["Approve tool call?\nexecute_command\n  npm test\n[y] Approve  [n] Deny", "blocked", "tool_approval"],
    ["[Act Mode] Cline wants to run\nExecute command?\n  Yes  No", "blocked", "tool_approval"],
    ["Thinking... (esc to cancel)", "working", "thinking_working"],
    ["> ", "idle", null],
  ],
  droid: [
    [
      "Execute: rm -rf build\n> Yes, allow\n  Yes, and always allow low risk\n  No, cancel",
      "blocked",
      "execute_approval",
    ],
    [
      "Select Model\n> sonnet\n  opus\nPress ↑↓ to navigate · Enter to select · Esc to cancel",
      "blocked",
      "selection_menu",
    ],
    ["⠙ Thinking...  (Press ESC to stop)", "working", "stop_hint_working"],
    ["> ", "idle", null],
  ],
  goose: [
    ["Goose would like call above tool, do you allow?\n● Allow  ○ Deny", "blocked", "tool_approval"],
    ["Error: Insufficient credits", "blocked", "account_error"],
    ["◇ Thinking… Ctrl+C to interrupt", "working", "interrupt_working"],
    ["goose is ready\n( O)> ", "idle", "ready_idle"],
  ],
  kimi: [
    ["Run this command?\n  npm test\n▶ Approve\n  Reject\n↵ confirm  esc reject", "blocked", "approval_panel"],
    [
      "Kimi is requesting approval\n  1. Approve once\n  2. Approve for this session\n  3. Reject",
      "blocked",
      "legacy_approval",
    ],
    ["question\n? Which branch\n↑↓ select  ↵ choose  esc cancel", "blocked", "question_panel"],
    ["🌔", "working", "spinner_working"],
    ["⠋ Thinking...", "working", "spinner_working"],
    ["> ", "idle", null],
  ],
  kiro: [
    ["Tool: shell requires approval\n  Yes  Always allow  Deny\nesc to close", "blocked", "tool_approval"],
    ["Which file?\n↑↓ to navigate · enter to submit · esc to cancel", "blocked", "question_panel"],
    ["Kiro is working · type to steer · ctrl+s to queue", "working", "working_footer"],
    ["> Ask a question or describe a task ↵", "idle", "input_idle"],
    ["", "working", "title_working", "◐ kiro: refactor"],
  ],
  agy: [
    [
      "Agent is requesting permission for: run_command\n  npm test\nDo you want to proceed?",
      "blocked",
      "permission_prompt",
    ],
    ["⠙ Reading files", "working", "turn_working"],
    ["Planning the change\n\nesc to cancel", "working", "turn_working"],
    ["> ", "idle", null],
  ],
  grok: [
    ["┃ 1 (●) Yes, run it\n┃ 2 (○) No", "blocked", "option_dialog"],
    ["Bash: npm test\nyes, proceed   no, reject\n←/→:scope", "blocked", "option_dialog"],
    ["Which one?\ntab:scrollback  shift+x:dismiss", "blocked", "question_dialog"],
    ["⠙ Planning the refactor [stop]", "working", "spinner_working"],
    ["> \nenter:send  ctrl+.:shortcuts", "idle", "prompt_idle"],
    ["", "blocked", "title_blocked", "Action Required - grok"],
  ],
  crush: [
    [
      "Permission Required\nTool: bash\nCommand: rm -rf dist\n Allow   Allow for Session   Deny",
      "blocked",
      "permission_dialog",
    ],
    ["⠙ Thinking (esc to cancel)", "working", "spinner_working"],
    ["> ", "idle", null],
  ],
};

describe("bundled agent manifests", () => {
  test("auto knows each agent by its command and by its screen", () => {
    const byCommand: [string, string][] = [
      ["pi", "pi"],
      ["npx @qwen-code/qwen-code", "qwen"],
      ["cline", "cline"],
      ["droid exec", "droid"],
      ["goose session", "goose"],
      ["kimi", "kimi"],
      ["kiro-cli chat", "kiro"],
      ["q chat", "amazonq"],
      ["agy", "agy"],
      ["grok", "grok"],
      ["crush", "crush"],
    ];
    for (const [command, name] of byCommand) {
      assert.equal(chooseManifest({ cols: 80, rows: 24, command }).name, name, command);
    }
    const byScreen: [string, string][] = [
      ["pi v0.73.1\nescape to interrupt", "pi"],
      ["> Ask a question or describe a task", "kiro"],
      ["goose is ready", "goose"],
      ["Agent is requesting permission for: x", "agy"],
      ["> \nctrl+.:shortcuts", "grok"],
    ];
    for (const [screen, name] of byScreen) {
      assert.equal(chooseManifest({ cols: 80, rows: 24 }, screen.split("\n")).name, name, screen);
    }
  });
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
