// The bundled generic.toml on the prompts long-running non-agent programs show.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evaluate } from "./manifest.ts";
import { resolveManifest } from "./bundled.ts";

const m = resolveManifest("generic");
const judge = (screen: string) => {
  const e = evaluate(m, { rows: () => screen.split("\n"), title: "", osc9: null });
  return [e.state, e.kind, e.rule?.id ?? null];
};

describe("generic.toml", () => {
  const cases: [string, string, (string | null)[]][] = [
    ["sudo", "$ sudo apt upgrade\n[sudo] password for alice: ", ["blocked", "auth", "credential_prompt"]],
    ["ssh password", "$ ssh build@ci\nbuild@ci's password: ", ["blocked", "auth", "credential_prompt"]],
    ["ssh key passphrase", "Enter passphrase for key '/home/a/.ssh/id_ed25519': ", [
      "blocked",
      "auth",
      "credential_prompt",
    ]],
    [
      "gpg pinentry",
      "┌──────────────────────────────┐\n│ Please enter the passphrase to unlock the OpenPGP secret key: │\n│ Passphrase: ________________ │\n│     <OK>          <Cancel>   │\n└──────────────────────────────┘",
      ["blocked", "auth", "pinentry"],
    ],
    ["PIN", "Please enter PIN for token: ", ["blocked", "auth", "credential_prompt"]],
    ["git credentials", "Username for 'https://github.com': ", ["blocked", "auth", "credential_prompt"]],
    [
      "host key",
      "The authenticity of host 'ci (10.0.0.2)' can't be established.\nAre you sure you want to continue connecting (yes/no/[fingerprint])? ",
      ["blocked", "permission", "host_key"],
    ],
    ["apt", "After this operation, 12.3 MB of additional disk space will be used.\nDo you want to continue? [Y/n] ", [
      "blocked",
      "permission",
      "confirmation",
    ]],
    ["y/N", "Delete 3 files? [y/N] ", ["blocked", "permission", "confirmation"]],
    [
      "terraform",
      "  Terraform will perform the actions described above.\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ",
      ["blocked", "permission", "confirmation"],
    ],
    ["npx", "Need to install the following packages:\n  create-vite@5.2.0\nOk to proceed? (y) ", [
      "blocked",
      "permission",
      "confirmation",
    ]],
    ["press any key", "Installation complete.\nPress any key to continue...", ["blocked", "question", "key_press"]],
    ["inquirer", "? Which package manager? › - Use arrow-keys. Return to submit.\n❯   npm\n    yarn", [
      "blocked",
      "question",
      "interactive_question",
    ]],
    ["pager END", "commit 1a2b3c\n    Password: rotate the key\n(END)", ["idle", null, "pager"]],
    ["more", "line 1\nline 2\n--More--(42%)", ["idle", null, "pager"]],
    ["progress bar", "Downloading packages\n[████████████░░░░░░░░]  60% 12.1 MB/s eta 0:00:04", [
      "working",
      null,
      "progress",
    ]],
    ["spinner", "⠙ Resolving dependencies", ["working", null, "progress"]],
    ["cargo", "   Compiling serde v1.0.200\n    Building [=======>     ] 120/310: serde", [
      "working",
      null,
      "progress",
    ]],
    ["answered prompt above later output", "[sudo] password for alice: \nReading package lists... Done\n$ ", [
      "idle",
      null,
      "shell_prompt",
    ]],
    ["plain shell", "$ ls\nREADME.md  lib  main.ts\n$ ", ["idle", null, "shell_prompt"]],
    // What real programs showed the first version of these rules (issue: detection on real programs).
    [
      "Amazon Q-style [y/n/t]",
      "I will run: rm -rf build\nAllow this action? Use 't' to trust (always allow) this tool for the session. [y/n/t]:",
      ["blocked", "permission", "confirmation"],
    ],
    ["git add -p", "@@ -1,3 +1,4 @@\n+new line\n(1/1) Stage this hunk [y,n,q,a,d,e,?]? ", [
      "blocked",
      "permission",
      "confirmation",
    ]],
    ["arrow-key menu, question above its options", "? Select a template (Use arrow keys)\n❯ react\n  vue\n  svelte", [
      "blocked",
      "question",
      "interactive_question",
    ]],
    ["free-text question with a default", "? Project name: (my-app)", ["blocked", "question", "interactive_question"]],
    ["decision menu, cursor on an option", "Run `npm test` in /work?\n❯ Allow once\n  Allow always\n  Deny", [
      "blocked",
      "permission",
      "decision_menu",
    ]],
    ["a numbered list is not a menu", "Done:\n1. Yes, the parser is fixed\n2. Tests pass\n$ ", [
      "idle",
      null,
      "shell_prompt",
    ]],
    ["agent footer: context left", "Refactored the store.\n\n› \n  (100% context left) · ? for shortcuts", [
      "idle",
      null,
      null,
    ]],
    ["agent footer: remaining requests", "> \nRemaining requests: 0%", ["idle", null, "shell_prompt"]],
    ["spinner not at the start of the line", "[wait] ⣾ building the image", ["working", null, "progress"]],
    ["interrupt hint", "Thinking about it (esc to interrupt)", ["working", null, "progress"]],
    ["pip progress", "Downloading numpy-2.1.0.whl (16.0 MB)\n   45%|████▌     | 7.2/16.0 MB", [
      "working",
      null,
      "progress",
    ]],
    ["less at its prompt", "line one\nline two\n:", ["idle", null, "pager"]],
    ["vim with a prompt-like line", "Continue? [y/N]\n~\n~\n~\n-- INSERT --", ["idle", null, "monitor_or_editor"]],
    [
      "top",
      "top - 10:22:01 up 3 days,  2:11,  1 user,  load average: 0.10, 0.20, 0.30\nTasks: 212 total,   1 running\n  PID USER  %CPU COMMAND\n    1 root   0.0 init",
      ["idle", null, "monitor_or_editor"],
    ],
  ];
  for (const [name, screen, want] of cases) test(name, () => assert.deepEqual(judge(screen), want));
});
