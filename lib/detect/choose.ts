// `--manifest auto`: which bundled rules fit a recording, and why. The recorded command
// (and the emitter named in pstlab's provenance) is the strongest hint, then the title,
// then an agent's own markers on its screen (an agent started by a wrapper script, a raw
// stream or a snapshot). When nothing identifies the program the rules are `generic`
// (issue 21, class 3: the old default, claude, read `Overwrite dist/? [y/N]` in every
// asciinema/ttyrec/`script` import of a non-agent as idle, and `check` then raised
// blocked-unseen).

import type { Header } from "../recording/model.ts";
import type { OpenOptions } from "../recording/open.ts";
import { sniffScreen } from "./sniff.ts";

export const AUTO = "auto";

export interface ManifestChoice {
  name: string;
  why: string;
}

const PROGRAMS: [RegExp, string][] = [
  [/\bcodex\b/i, "codex"],
  [/\bclaude\b/i, "claude"],
  [/\bgemini\b/i, "gemini"],
  [/\bopencode\b/i, "opencode"],
  [/\b(?:gh copilot|copilot)\b/i, "copilot"],
  [/\bcursor-agent\b|\bcursor\b/i, "cursor"],
  [/(?:^|[\s/])amp(?:\s|$)/i, "amp"],
  [/\baider\b/i, "aider"],
  [/(?:^|[\s/])q chat\b|\bamazon q\b|\bqchat\b/i, "amazonq"],
  [/\bauggie\b|\baugment\b/i, "auggie"],
  // Issue 21's agents. Kiro CLI is the renamed Amazon Q CLI: `kiro-cli` gets kiro,
  // `q chat` keeps amazonq.
  [/\bkiro(?:-cli)?\b/i, "kiro"],
  [/(?:^|[\s/])pi(?:\s|$)|pi-coding-agent/i, "pi"],
  [/\bqwen(?:-code)?\b/i, "qwen"],
  [/(?:^|[\s/])agy(?:\s|$)|\bantigravity\b/i, "agy"],
  [/\bgrok\b/i, "grok"],
  [/\bgoose\b/i, "goose"],
  [/\bdroid\b|@factory\/cli/i, "droid"],
  [/\bkimi\b/i, "kimi"],
  [/\bcline\b/i, "cline"],
  [/\bcrush\b/i, "crush"],
  // pstlab's simulated agent draws Claude Code's screens on purpose.
  [/\b(?:pstlab|main\.ts)[ -]sim\b/i, "claude"],
];

function match(text: string): string | null {
  for (const [re, name] of PROGRAMS) if (re.test(text)) return name;
  return null;
}

/** The rules for a recording: its command, its emitter, its title, then (when given) its screen's markers. */
export function chooseManifest(header: Header, screen?: string[] | null): ManifestChoice {
  const hints: [string | null | undefined, string][] = [
    [header.command, "the recorded command"],
    [header.provenance?.emitter, "the emitter named in the provenance"],
    [header.title, "the recording's title"],
  ];
  for (const [text, what] of hints) {
    const name = text ? match(text) : null;
    if (name) return { name, why: `${what} "${text}"` };
  }
  const byScreen = screen ? SCREEN_MARKERS.find(([re]) => re.test(screen.join("\n"))) : undefined;
  const command = header.command ? ` (no bundled rules for the recorded command "${header.command}")` : "";
  if (byScreen) return { name: byScreen[1], why: `the screen shows ${byScreen[2]}${command}` };
  if (header.command) {
    return {
      name: "generic",
      why: `no bundled rules for the recorded command "${header.command}"${
        screen ? " and no agent's marker on its screen" : ""
      }`,
    };
  }
  return { name: "generic", why: "no command, title or agent's marker on screen: the generic rules" };
}

/** What each program writes on its own screen (banners, footers), for recordings that name no command. */
const SCREEN_MARKERS: [RegExp, string, string][] = [
  [/OpenAI Codex|>_ Codex|codex-cli|^[•◦] Working \(|^› /im, "codex", "Codex's banner, status line or composer"],
  [/Claude Code|\? for shortcuts|⏵⏵ accept edits/, "claude", "Claude Code's banner or footer"],
  [/Gemini CLI|Type your message or @path/i, "gemini", "Gemini CLI's input box"],
  [/opencode/i, "opencode", "OpenCode's name"],
  [/GitHub Copilot/i, "copilot", "GitHub Copilot's banner"],
  [/Cursor Agent/i, "cursor", "Cursor Agent's banner"],
  [/^aider v\d/m, "aider", "aider's version line"],
  [/Amazon Q/i, "amazonq", "Amazon Q's banner"],
  [/Augment Code|\bauggie\b/i, "auggie", "Augment's banner"],
  [/\bAmp\b.*(?:thinking|streaming)|ampcode/i, "amp", "Amp's footer"],
  [/kiro is working|ask a question or describe a task/i, "kiro", "Kiro CLI's footer or input"],
  [/^\s*pi v\d+\.\d+/m, "pi", "pi's banner"],
  [/Qwen Code/, "qwen", "Qwen Code's name"],
  [/requesting permission for:|Antigravity CLI/, "agy", "Antigravity's name or permission dialog"],
  [/ctrl\+\.:shortcuts/, "grok", "Grok CLI's key hints"],
  [/goose is ready|would like (?:to )?call (?:the )?above tool/i, "goose", "Goose's banner or approval"],
  [/Factory Droid|\(Press ESC to stop\)/, "droid", "Droid's name or stop hint"],
  [/Kimi (?:CLI|Code)|\bkimi-[\w.]+\s+thinking/i, "kimi", "Kimi's name"],
  [/Welcome to Cline|\[(?:Act|Plan) Mode\]/, "cline", "Cline's welcome or mode tag"],
  [/Charm™? CRUSH|\bCRUSH\b/, "crush", "Crush's logo"],
];

/**
 * Which rules a capture is read with, for every command (report, check, play, detect,
 * explain, snapshot scoring): the --manifest the user named, or for `auto` (and no
 * flag) the recording's own hints — its header first, then its screen, which costs a
 * second short read of the file and so is asked only when the header names no agent.
 */
export async function manifestFor(
  path: string,
  header: Header,
  flag: string | undefined,
  open: OpenOptions,
): Promise<ManifestChoice> {
  if (flag !== undefined && flag !== AUTO) return { name: flag, why: "--manifest" };
  // A header that names an agent decides; one that names nothing pstlab knows (or is
  // absent) lets the screen's markers speak before falling back to generic.
  const byHeader = chooseManifest(header);
  if (byHeader.name !== "generic") return byHeader;
  return chooseManifest(header, await sniffScreen(path, open));
}
