// `--manifest auto`: which bundled rules fit a recording, and why. The recorded command
// (and the emitter named in pstlab's provenance) is the strongest hint, then the title.
// A command that matches no bundled agent gets `generic` (a python `input()` prompt is
// not a Claude screen); with neither command nor title (raw streams, snapshots) the
// default stays claude, the program the reference table is about.

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
  if (header.command) return { name: "generic", why: `no bundled rules for the recorded command "${header.command}"` };
  const byScreen = screen ? SCREEN_MARKERS.find(([re]) => re.test(screen.join("\n"))) : undefined;
  if (byScreen) return { name: byScreen[1], why: `the screen shows ${byScreen[2]}` };
  return { name: "claude", why: "no command, title or program marker on screen (the default)" };
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
  [/Augment|auggie/i, "auggie", "Augment's banner"],
  [/\bAmp\b.*(?:thinking|streaming)|ampcode/i, "amp", "Amp's footer"],
];

/**
 * Which rules a capture is read with, for every command (report, check, play, detect,
 * explain, snapshot scoring): the --manifest the user named, or for `auto` (and no
 * flag) the recording's own hints — its header first, then its screen, which costs a
 * second short read of the file and so is asked only when the header names nothing.
 */
export async function manifestFor(
  path: string,
  header: Header,
  flag: string | undefined,
  open: OpenOptions,
): Promise<ManifestChoice> {
  if (flag !== undefined && flag !== AUTO) return { name: flag, why: "--manifest" };
  if (header.command || header.title || header.provenance?.emitter) return chooseManifest(header);
  return chooseManifest(header, await sniffScreen(path, open));
}
