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
    ["ssh key passphrase", "Enter passphrase for key '/home/a/.ssh/id_ed25519': ", ["blocked", "auth", "credential_prompt"]],
    ["gpg pinentry", "┌──────────────────────────────┐\n│ Please enter the passphrase to unlock the OpenPGP secret key: │\n│ Passphrase: ________________ │\n│     <OK>          <Cancel>   │\n└──────────────────────────────┘", ["blocked", "auth", "pinentry"]],
    ["PIN", "Please enter PIN for token: ", ["blocked", "auth", "credential_prompt"]],
    ["git credentials", "Username for 'https://github.com': ", ["blocked", "auth", "credential_prompt"]],
    ["host key", "The authenticity of host 'ci (10.0.0.2)' can't be established.\nAre you sure you want to continue connecting (yes/no/[fingerprint])? ", ["blocked", "permission", "host_key"]],
    ["apt", "After this operation, 12.3 MB of additional disk space will be used.\nDo you want to continue? [Y/n] ", ["blocked", "permission", "confirmation"]],
    ["y/N", "Delete 3 files? [y/N] ", ["blocked", "permission", "confirmation"]],
    ["terraform", "  Terraform will perform the actions described above.\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ", ["blocked", "permission", "confirmation"]],
    ["npx", "Need to install the following packages:\n  create-vite@5.2.0\nOk to proceed? (y) ", ["blocked", "permission", "confirmation"]],
    ["press any key", "Installation complete.\nPress any key to continue...", ["blocked", "question", "key_press"]],
    ["inquirer", "? Which package manager? › - Use arrow-keys. Return to submit.\n❯   npm\n    yarn", ["blocked", "question", "interactive_question"]],
    ["pager END", "commit 1a2b3c\n    Password: rotate the key\n(END)", ["idle", null, "pager"]],
    ["more", "line 1\nline 2\n--More--(42%)", ["idle", null, "pager"]],
    ["progress bar", "Downloading packages\n[████████████░░░░░░░░]  60% 12.1 MB/s eta 0:00:04", ["working", null, "progress"]],
    ["spinner", "⠙ Resolving dependencies", ["working", null, "progress"]],
    ["cargo", "   Compiling serde v1.0.200\n    Building [=======>     ] 120/310: serde", ["working", null, "progress"]],
    ["answered prompt above later output", "[sudo] password for alice: \nReading package lists... Done\n$ ", ["idle", null, null]],
    ["plain shell", "$ ls\nREADME.md  lib  main.ts\n$ ", ["idle", null, null]],
  ];
  for (const [name, screen, want] of cases) test(name, () => assert.deepEqual(judge(screen), want));
});
