// Issue 21's failure classes on hand-made screens with the structure real programs
// showed (no third-party screen copied): each class is one structural rule, tested on
// several shapes. "▮" marks the cursor (removed from the text); without it the screen
// has no cursor (the raw tail's view), and the cursor regions read the last row.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evaluate, loadManifest } from "./manifest.ts";
import { resolveManifest } from "./bundled.ts";
import { isInputBoxRow, parseRegion, type RegionSource, RegionView } from "./regions.ts";

function source(screen: string, title = ""): RegionSource {
  const rows = screen.split("\n");
  const y = rows.findIndex((r) => r.includes("▮"));
  const clean = rows.map((r) => r.replace("▮", "").trimEnd());
  const src: RegionSource = { rows: () => clean, title, osc9: null };
  if (y >= 0) src.cursor = () => ({ x: rows[y].indexOf("▮"), y });
  return src;
}
const judge = (manifest: string, screen: string, title = "") => {
  const e = evaluate(resolveManifest(manifest), source(screen, title));
  return [e.state, e.rule?.id ?? null];
};
const region = (name: string, screen: string) => new RegionView(source(screen)).text(parseRegion(name)!);

const RULE = "─".repeat(60);
const BOX = `${RULE}\n❯ ▮\n${RULE}\n  ? for shortcuts`;
const DIALOG =
  ` Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again\n   3. No\n\n Esc to cancel · Tab to amend`;

describe("regions for the live part of the screen", () => {
  test("an idle input box: framed by a rule or box borders, or a glyph alone; not a menu option nor an echo", () => {
    const rows = [RULE, "❯ Try something", "│ > │", "❯ 1. Yes", "❯ run the tests", "›"];
    assert.deepEqual(rows.map((_, i) => isInputBoxRow(rows, i)), [false, true, true, false, false, true]);
  });
  test("after_last_input_box: below the last box at or above the cursor; everything without a box", () => {
    assert.equal(region("after_last_input_box", `${DIALOG}\n${BOX}`), "─".repeat(60) + "\n  ? for shortcuts");
    assert.equal(region("after_last_input_box", "a\nb"), "a\nb");
    // A box below the cursor was drawn before the dialog the cursor ended after: not a cut.
    const over = `${RULE}\n❯\n${RULE}\n${DIALOG.replace("amend", "amend▮")}`;
    assert.equal(region("after_last_input_box", over), `${RULE}\n${DIALOG}`);
  });
  test("bottom_after_input_box(N): the bottom N non-empty rows of that", () => {
    assert.equal(region("bottom_after_input_box(2)", "a\nb\n\nc\n"), "b\n\nc");
    assert.equal(region("bottom_after_input_box(5)", `x\n${BOX}`), `${RULE}\n  ? for shortcuts`);
  });
  test("cursor_line and to_cursor_non_empty_lines(N) end at the cursor's row", () => {
    const tmux = "building\nOverwrite dist/? [y/N] ▮\n\n\n[0] 0:sh*   host 12:00";
    assert.equal(region("cursor_line", tmux), "Overwrite dist/? [y/N]");
    assert.equal(region("to_cursor_non_empty_lines(2)", tmux), "building\nOverwrite dist/? [y/N]");
    // A blank cursor row reads as the bottom (a program between lines, a parked cursor).
    assert.equal(region("to_cursor_non_empty_lines(1)", "a\n▮\nb"), "b");
    assert.equal(region("cursor_line", "Summary:\n▮"), "");
    // No cursor: the last row.
    assert.equal(region("cursor_line", "a\nb"), "b");
  });
});

describe("class 1: an answered prompt still on screen", () => {
  test("the new regions load in Herdr's format too", () => {
    const m = loadManifest(
      `id = "t"\n[[rules]]\nid = "dialog"\nstate = "blocked"\npriority = 10\nregion = "after_last_input_box"\ncontains = ["do you want to proceed?"]\n[[rules]]\nid = "q"\nstate = "blocked"\npriority = 5\nregion = "cursor_line"\nregex = ['\\?\\s*$']\n`,
      "t",
      "t.toml",
    );
    assert.equal(m.style, "herdr");
    assert.equal(evaluate(m, source(`${DIALOG}\n${BOX}`)).rule?.id ?? null, null);
    assert.equal(evaluate(m, source(DIALOG)).rule?.id, "dialog");
    assert.equal(evaluate(m, source("Continue? ▮\n\nstatus bar")).rule?.id, "q");
  });
  test("claude: the dialog answered above a fresh input box is idle; the live dialog is blocked", () => {
    assert.deepEqual(judge("claude", `${DIALOG}\n\n${BOX}`), ["idle", "prompt_idle"]);
    assert.deepEqual(judge("claude", `⏺ Bash(rm -rf build)\n\n${RULE}\n${DIALOG}▮`), [
      "blocked",
      "permission_prompt",
    ]);
    const trust =
      ` Do you trust the files in this folder?\n ❯ 1. Yes, proceed\n   2. No, exit\n\n Enter to select · ↑/↓ to navigate · Esc to cancel`;
    assert.deepEqual(judge("claude", `${trust}\n\n${BOX}`), ["idle", "prompt_idle"]);
    assert.deepEqual(judge("claude", trust), ["blocked", "permission_prompt"]);
  });
  test("generic: a decision menu answered above an input box is history", () => {
    const menu = "Run `npm test`?\n❯ Allow once\n  Allow always\n  Deny";
    assert.deepEqual(judge("generic", menu), ["blocked", "decision_menu"]);
    assert.deepEqual(judge("generic", `${menu}\n\nran the tests\n${BOX}`), ["idle", "shell_prompt"]);
  });
});

describe("class 2: wording drift inside one agent", () => {
  const cases: [string, string, string][] = [
    ["interrupt hint capitalised", "✻ Thinking… (Esc to interrupt)", "turn_working"],
    ["hint before the timer", "✢ Pondering… (esc to interrupt · 12s)", "turn_working"],
    [
      "status phrase after the ellipsis, counter after it",
      "✶ Baking… Running the tests (3m 2s · ↓ 1.2k tokens)",
      "turn_working",
    ],
    ["spinner alone", "· Considering…", "turn_working"],
  ];
  for (const [name, line, rule] of cases) {
    test(`claude: ${name}`, () => assert.deepEqual(judge("claude", `${line}\n\n${BOX}`), ["working", rule]));
  }
  test("claude: a markdown bullet ending in an ellipsis is not a spinner; the finished line is not either", () => {
    assert.deepEqual(judge("claude", `* read the docs… then (see below)\n✻ Worked for 1m 52s\n${BOX}`), [
      "idle",
      "prompt_idle",
    ]);
  });
  test("claude: a capture that starts mid-turn (no title yet) reads working from the screen alone", () => {
    // The title is set only at the next turn; the custom status line hides the footer.
    const screen = `✳ Musing… (41s · ↑ 2.1k tokens)\n\n${RULE}\n❯ ▮\n${RULE}\n  my-statusline | main`;
    assert.deepEqual(judge("claude", screen, ""), ["working", "turn_working"]);
  });
});

describe("class 4: the question is not on the last line", () => {
  const cases: [string, string, string][] = [
    ["a question inside tmux", "building\nOverwrite dist/? [y/N] ▮\n\n[0] 0:sh*  host 12:00", "confirmation"],
    ["a line question over a footer", "Your name? ▮\n\n-- press ctrl-d to quit --", "line_question"],
    ["a label-style question", "GnuPG needs a user ID.\n\nReal name: ▮", "label_question"],
    ["a label-style question being typed into", "GnuPG needs a user ID.\n\nReal name: Ada Lo▮", "label_question"],
    ["a question being answered", "   (1) RSA and RSA\n   (2) DSA\nYour selection? 1▮", "label_question"],
    ["git add -i's menu prompt", "  1: status     2: update\n  5: patch      7: quit\nWhat now> ▮", "menu_prompt"],
    [
      "git add -i's file list",
      "  1:    unchanged   +1/-0 f\n* 2:    unchanged   +1/-0 g\nPatch update>> ▮",
      "menu_prompt",
    ],
    ["a menu prompt being typed into", "  1: status     2: update\nWhat now> 5▮", "menu_prompt"],
    ["the selection mark after the number", "Apply the plan?\n  1. ❯ Yes\n  2.   No", "decision_menu"],
    ["an approval menu of yes variants only", "Edit file?\n❯ 1. Yes\n  2. Yes, for this session", "decision_menu"],
    [
      "a numbered menu without a mark",
      "Do you want to proceed?\n  1. Yes\n  2. No\n\n(type a number)",
      "numbered_decision",
    ],
    [
      "buttons on one row inside a border",
      "│ Overwrite the database? │\n│                        │\n│   <Yes>        <No>    │\n└────────────────────────┘",
      "button_row",
    ],
    ["radio buttons on one row", "Share usage data?\n  ● Yes   ○ No", "button_row"],
  ];
  for (const [name, screen, rule] of cases) {
    test(name, () => assert.deepEqual(judge("generic", screen), ["blocked", rule]));
  }
  test("not questions: a log line ending in a colon, a REPL, a shell, a counter being printed", () => {
    assert.deepEqual(judge("generic", "Summary:\n▮"), ["idle", null]);
    assert.deepEqual(judge("generic", "Python 3.12\n>>> ▮"), ["idle", "shell_prompt"]);
    assert.deepEqual(judge("generic", "  1: a\n  2: b\n$ ▮"), ["idle", "shell_prompt"]);
    assert.deepEqual(judge("generic", "Downloading: 45%▮"), ["working", "counter"]);
    assert.deepEqual(judge("generic", "Done:\n1. Yes, the parser is fixed\n2. Tests pass\n$ "), [
      "idle",
      "shell_prompt",
    ]);
  });
});

describe("class 5: generic false alarms and false work", () => {
  test("a dialog's key hints are not progress", () => {
    assert.deepEqual(judge("generic", "Pick a model\n  sonnet\n  opus\n\nEnter to select · Esc to cancel"), [
      "idle",
      null,
    ]);
    assert.deepEqual(judge("generic", "Downloading (press ctrl+c to cancel) 40 MB"), ["working", "progress"]);
  });
  test("an agent's footer hint is not a prompt-library question", () => {
    assert.deepEqual(judge("generic", "Refactored it.\n\n  ? for shortcuts            (ctrl+t to hide todos)"), [
      "idle",
      null,
    ]);
    assert.deepEqual(judge("generic", "Done.\n  ? for help                     [sonnet]"), ["idle", null]);
    assert.deepEqual(judge("generic", "? Which package manager? › npm"), ["blocked", "interactive_question"]);
  });
  test("a counter left above a live prompt is not progress while the prompt is up", () => {
    assert.deepEqual(judge("generic", "(1/1) Stage this hunk [y,n,q,a,d,e,?]? y\n\n  1: status\nWhat now> ▮"), [
      "blocked",
      "menu_prompt",
    ]);
    assert.deepEqual(judge("generic", "(1/1) Stage this hunk [y,n,q,a,d,e,?]? y\n$ ▮"), ["idle", "shell_prompt"]);
    assert.deepEqual(judge("generic", "Building\n(3/10) linking▮"), ["working", "counter"]);
  });
  test("top's PID to signal/kill is a question; top at rest is not", () => {
    const top = (msg: string) =>
      `top - 10:22:01 up 3 days,  1 user,  load average: 0.10, 0.20, 0.30\nTasks: 75 total\n${msg}\n  PID USER  %CPU COMMAND\n    1 root   0.0 init`;
    assert.deepEqual(judge("generic", top("PID to signal/kill [default pid = 3479] ▮")), ["blocked", "monitor_prompt"]);
    assert.deepEqual(judge("generic", top("") + "▮"), ["idle", "monitor_or_editor"]);
  });
});
