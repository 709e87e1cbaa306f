// `pstlab play`: replay a capture to the terminal, optionally side by side with live verdicts.

import { colorEnabled, defineCommand, err } from "./common.ts";
import {
  DETECTOR_NOTES,
  DETECTORS,
  duration,
  flag,
  INPUT_OPTIONS,
  MANIFEST,
  number,
  ONE_FILE,
  text,
  type Values,
} from "./options.ts";
import { LabelFile } from "../../replay/label_file.ts";
import { openInput, openOptions } from "./input.ts";
import { pickManifest } from "./detect_common.ts";
import { keyFor, Player } from "../../replay/player.ts";
import { limitIdleTime, slice } from "../recording/transforms.ts";
import { raw } from "../stdio.ts";
import { SideBySide } from "../../replay/side_by_side.ts";
import { createDetector, withManifest } from "../detect/kinds.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { AUTO } from "../detect/choose.ts";
import type { Event, Recording } from "../recording/model.ts";
import { UsageError } from "../errors.ts";

/** The side-by-side panel's detectors when --detectors is not given. */
const PANEL = [
  "protocol",
  `screen:${AUTO}@50ms`,
  `screen:${AUTO}@700ms`,
  `tail8k:${AUTO}`,
  "question",
  "quiet>=2s",
  "hash@500ms",
  `herdr:${AUTO}`,
];
export const spec = {
  name: "play",
  summary: "replay a capture in the terminal (optionally side by side with live detector verdicts)",
  synopsis: "FILE",
  options: {
    speed: number("N", "playback speed (default 1)", { min: 1 / 64, max: 1024 }),
    "idle-time-limit": duration("S", "shorten pauses longer than S (default: the header's, else none)"),
    from: duration("S", "play from here (earlier output is applied at once)"),
    to: duration("S", "stop here"),
    "pause-on-markers": flag("pause at every marker (truth labels included)"),
    loop: flag("start again at the end"),
    "side-by-side": flag("the emulated screen next to a live panel: truth, OSC 7501 records, verdicts"),
    detectors: {
      ...DETECTORS,
      help: `detectors for the panel (default:\n${PANEL.join(", ")})`,
      requires: ["side-by-side"],
    },
    manifest: { ...MANIFEST, requires: ["side-by-side"] },
    label: {
      ...text(
        "OUT.tsv",
        "label the truth while watching: w p q a b i d e (as while recording),\nu undoes the last; Esc or Ctrl-C quits and writes OUT.tsv (continued if it exists)",
      ),
      conflicts: ["idle-time-limit"],
      reason: "--label takes capture times",
      file: "out" as const,
    },
    ...INPUT_OPTIONS,
  },
  positionals: ONE_FILE,
  notes: [
    "Keys: space pause/resume, . step one event, ] next marker, + / - speed, q quit.",
    "With --label: w working, p blocked:permission, q blocked:question, a blocked:auth,",
    "b blocked, i idle, d done, e error at the capture time shown (any speed, after pauses,",
    "steps and seeks); u undoes the last; quit with Esc or Ctrl-C. report --labels OUT.tsv",
    "then scores the capture with them.",
    "",
    ...DETECTOR_NOTES,
  ],
  examples: [
    "pstlab play fixtures/captures/fake-claude.cast --speed 4",
    "pstlab play fixtures/captures/fake-claude.cast --side-by-side --speed 2",
    "pstlab play session.cast --from 60 --to 90 --pause-on-markers",
    "pstlab play session.cast --label truth.tsv --speed 2 --side-by-side",
  ],
};

type V = Values<typeof spec.options>;
type Stamped = Event & { orig?: number };

/** Events carrying their capture time (before --from rebasing and idle limits) as `orig`. */
async function* withCaptureTime(events: AsyncIterable<Event>, from: number): AsyncIterable<Event> {
  for await (const e of events) yield { ...e, orig: e.t + from } as Stamped;
}

async function* tracked(events: AsyncIterable<Event>, seen: (e: Event) => void): AsyncIterable<Event> {
  for await (const e of events) {
    yield e;
    seen(e);
  }
}
type Stdin = NodeJS.ReadStream & { setRawMode?: (b: boolean) => void; isTTY?: boolean };

const show = (s: string | Uint8Array) => raw("play", s);
const termSize = () => {
  const o = process.stdout as { columns?: number; rows?: number };
  return { cols: o.columns || 160, rows: o.rows || 48 };
};

/** Raw keys from a terminal to the player (and to the labels, with --label); returns the function that undoes it. */
function listenForKeys(
  stdin: Stdin,
  player: () => Player | null,
  labels: ((ch: string) => boolean) | null,
): () => void {
  if (!stdin.isTTY) return () => {};
  const onKey = (d: Uint8Array | string) => {
    const text = typeof d === "string" ? d : new TextDecoder().decode(d);
    // With --label, q is a label: Esc alone (not an arrow key's ESC [ …), Ctrl-C or Q quit.
    if (labels && (text === "\x1b" || text === "\x03" || text === "Q")) return player()?.key("quit");
    if (labels && text.startsWith("\x1b")) return;
    for (const ch of text) {
      if (labels?.(ch)) continue;
      const k = keyFor(ch);
      if (k) player()?.key(k);
    }
  };
  stdin.setRawMode?.(true);
  stdin.on("data", onKey);
  stdin.resume();
  return () => {
    stdin.setRawMode?.(false);
    stdin.off("data", onKey);
    stdin.pause();
  };
}

async function durationOf(path: string, v: V): Promise<number> {
  let d = 0;
  for await (const e of (await openInput(path, v)).events) d = e.t;
  return d;
}

async function sideBySide(
  path: string,
  rec: Recording,
  v: V,
  window: { from: number; to: number },
): Promise<{ panel: SideBySide; player: Player }> {
  const chosen = await pickManifest(rec, v.manifest, openOptions(v));
  const detectors = (v.detectors ?? PANEL).map((n) => createDetector(withManifest(n, chosen.name), resolveManifest));
  // The panel shows the duration: a first pass over the file finds it.
  const total = Math.max(0, Math.min(await durationOf(path, v), window.to) - window.from);
  const panel = new SideBySide(rec.header, detectors, show, termSize, colorEnabled(1), total);
  panel.start();
  const player = new Player({
    speed: v.speed ?? 1,
    pauseOnMarkers: !!v["pause-on-markers"],
    tickMs: 40,
    onEvent: (e) => panel.event(e),
    onTick: (vt, st) => panel.draw(vt, st),
  });
  return { panel, player };
}

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const path = p.positionals[0];
  if (path === "-" && v.loop) throw new UsageError("play: --loop needs a file, not stdin");
  const window = { from: v.from ?? 0, to: v.to ?? Infinity };
  if (v.manifest && v.manifest !== AUTO) resolveManifest(v.manifest);
  const stdin = process.stdin as unknown as Stdin;
  let player: Player | null = null;
  let panel: SideBySide | null = null;
  const labelFile = v.label ? new LabelFile(v.label) : null;
  // The capture time shown: the last event's own time plus what has played since (idle limits compress only the wait).
  let shown = { orig: 0, at: 0 };
  const captureTime = () => shown.orig + Math.max(0, (player?.vt() ?? 0) - shown.at);
  const onLabelKey = labelFile
    ? (ch: string) => {
      const said = labelFile.key(ch, captureTime());
      if (said === null) return false;
      panel?.setLabel(labelFile.at(captureTime()));
      if (!panel) err(`\r\npstlab: label ${said}\r\n`);
      return true;
    }
    : null;
  const unlisten = listenForKeys(stdin, () => player, onLabelKey);
  const restore = () => {
    panel?.stop();
    unlisten();
  };
  process.on("exit", restore);
  try {
    do {
      const rec = await openInput(path, v);
      const limit = labelFile ? undefined : v["idle-time-limit"] ?? rec.header.idleTimeLimit;
      let events: AsyncIterable<Event> = withCaptureTime(
        slice(rec.events, { from: window.from, to: window.to, keepPrelude: true }),
        window.from,
      );
      if (limit) events = limitIdleTime(events, limit);
      events = tracked(events, (e) => (shown = { orig: (e as Stamped).orig ?? e.t, at: e.t }));
      if (v["side-by-side"]) {
        ({ panel, player } = await sideBySide(path, rec, v, window));
        if (labelFile) panel.setLabel(labelFile.at(0));
      } else {player = new Player({
          speed: v.speed ?? 1,
          pauseOnMarkers: !!v["pause-on-markers"],
          onEvent: (e) => e.kind === "output" && show(e.bytes),
        });}
      await player.play(events);
      if (panel) {
        panel.draw(player.vt(), player.state, true);
        // Keep the last frame up until a key.
        if (!player.state.quit && stdin.isTTY && !v.loop) await new Promise<void>((r) => stdin.once("data", () => r()));
        panel.stop();
        panel = null;
      }
    } while (v.loop && !player!.state.quit);
  } finally {
    restore();
    process.off("exit", restore);
  }
  if (labelFile) {
    labelFile.write();
    err(`pstlab: wrote ${v.label}: ${labelFile.summary()}; score with: pstlab report ${path} --labels ${v.label}\n`);
  } else if (player?.state.quit) err("pstlab: playback interrupted\n");
  return 0;
});
