// `pstlab play`: replay a capture to the terminal, optionally side by side with live verdicts.

import { colorEnabled, err, defineCommand } from "./common.ts";
import { DETECTORS, duration, flag, INPUT_OPTIONS, MANIFEST, number, ONE_FILE, type Values } from "./options.ts";
import { openInput } from "./input.ts";
import { pickManifest } from "./detect_common.ts";
import { keyFor, Player } from "../../replay/player.ts";
import { limitIdleTime, slice } from "../recording/transforms.ts";
import { writeAllSync } from "../recording/sink.ts";
import { SideBySide } from "../../replay/side_by_side.ts";
import { createDetector } from "../detect/detectors.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { AUTO, withManifest } from "../detect/choose.ts";
import type { Event, Recording } from "../recording/model.ts";
import { UsageError } from "../errors.ts";

export const spec = {
  name: "play",
  summary: "replay a capture in the terminal (optionally side by side with live detector verdicts)",
  usage: "pstlab play FILE [--speed N] [--idle-time-limit S] [--from S] [--to S] [--pause-on-markers] [--loop] [--side-by-side]",
  options: {
    speed: number("N", "playback speed (default 1)", { min: 1 / 64, max: 1024 }),
    "idle-time-limit": duration("S", "shorten pauses longer than S (default: the header's, else none)"),
    from: duration("S", "play from here (earlier output is applied at once)"),
    to: duration("S", "stop here"),
    "pause-on-markers": flag("pause at every marker (truth labels included)"),
    loop: flag("start again at the end"),
    "side-by-side": flag("the emulated screen next to a live panel: truth, OSC 7501 records, verdicts"),
    detectors: { ...DETECTORS, help: "detectors for the panel (default: protocol, screen @50ms/@700ms, tail8k,\nquestion, quiet>=2s, hash@500ms, herdr)" },
    manifest: MANIFEST,
    ...INPUT_OPTIONS,
  },
  positionals: ONE_FILE,
  notes: ["Keys: space pause/resume, . step one event, ] next marker, + / - speed, q quit."],
  examples: [
    "pstlab play fixtures/captures/fake-claude.cast --speed 4",
    "pstlab play fixtures/captures/fake-claude.cast --side-by-side --speed 2",
    "pstlab play session.cast --from 60 --to 90 --pause-on-markers",
  ],
};

type V = Values<typeof spec.options>;
type Stdin = NodeJS.ReadStream & { setRawMode?: (b: boolean) => void; isTTY?: boolean };

const PANEL = ["protocol", `screen:${AUTO}@50ms`, `screen:${AUTO}@700ms`, `tail8k:${AUTO}`, "question", "quiet>=2s", "hash@500ms", `herdr:${AUTO}`];
const te = new TextEncoder();
const show = (s: string | Uint8Array) => writeAllSync(1, typeof s === "string" ? te.encode(s) : s);
const termSize = () => {
  const o = process.stdout as { columns?: number; rows?: number };
  return { cols: o.columns || 160, rows: o.rows || 48 };
};

/** Raw keys from a terminal to the player; returns the function that undoes it. */
function listenForKeys(stdin: Stdin, player: () => Player | null): () => void {
  if (!stdin.isTTY) return () => {};
  const onKey = (d: Uint8Array | string) => {
    for (const ch of typeof d === "string" ? d : new TextDecoder().decode(d)) {
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

async function sideBySide(path: string, rec: Recording, v: V, window: { from: number; to: number }): Promise<{ panel: SideBySide; player: Player }> {
  const chosen = pickManifest(rec.header, v.manifest);
  const detectors = (v.detectors ?? PANEL).map((n) => createDetector(withManifest(n, chosen.name), resolveManifest));
  // The panel shows the duration: a first pass over the file finds it.
  const total = Math.max(0, Math.min(await durationOf(path, v), window.to) - window.from);
  const panel = new SideBySide(rec.header, detectors, show, termSize, colorEnabled(1), total);
  panel.start();
  const player = new Player({
    speed: v.speed ?? 1, pauseOnMarkers: !!v["pause-on-markers"], tickMs: 40,
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
  const unlisten = listenForKeys(stdin, () => player);
  const restore = () => {
    panel?.stop();
    unlisten();
  };
  process.on("exit", restore);
  try {
    do {
      const rec = await openInput(path, v);
      const limit = v["idle-time-limit"] ?? rec.header.idleTimeLimit;
      let events: AsyncIterable<Event> = slice(rec.events, { from: window.from, to: window.to, keepPrelude: true });
      if (limit) events = limitIdleTime(events, limit);
      if (v["side-by-side"]) ({ panel, player } = await sideBySide(path, rec, v, window));
      else player = new Player({ speed: v.speed ?? 1, pauseOnMarkers: !!v["pause-on-markers"], onEvent: (e) => e.kind === "output" && show(e.bytes) });
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
  if (player?.state.quit) err("pstlab: playback interrupted\n");
  return 0;
});
