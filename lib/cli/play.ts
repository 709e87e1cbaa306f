// `pstlab play`: replay a capture to the terminal, optionally side by side with live verdicts.

import { colorEnabled, type CommandSpec, err, parseDuration, parseFlags, parseNumber, UsageError } from "./common.ts";
import { INPUT_HELP, INPUT_OPTIONS, openInput } from "./input.ts";
import { keyFor, Player } from "../../replay/player.ts";
import { limitIdleTime, slice } from "../recording/transforms.ts";
import { writeAllSync } from "../recording/sink.ts";
import { SideBySide } from "../../replay/side_by_side.ts";
import { createDetector, DetectorError } from "../detect/detectors.ts";
import { loadManifestFlag } from "./detect_common.ts";
import type { Event } from "../recording/model.ts";

export const spec: CommandSpec = {
  name: "play",
  summary: "replay a capture in the terminal (optionally side by side with live detector verdicts)",
  usage: "pstlab play FILE [--speed N] [--idle-time-limit S] [--from S] [--to S] [--pause-on-markers] [--loop] [--side-by-side]",
  options: [
    "  --speed N           playback speed (default 1)",
    "  --idle-time-limit S shorten pauses longer than S (default: the header's, else none)",
    "  --from S / --to S   play only this window (earlier output is applied at once)",
    "  --pause-on-markers  pause at every marker (truth labels included)",
    "  --loop              start again at the end",
    "  --side-by-side      the emulated screen next to a live panel: truth, OSC 7501 records, verdicts",
    "  --detectors LIST    detectors for the panel (default: protocol, screen @50ms/@700ms, tail8k,",
    "                      question, quiet>=2s, hash@500ms, herdr)",
    "  --manifest NAME     manifest for the default panel detectors (default claude)",
    ...INPUT_HELP,
  ],
  notes: ["Keys: space pause/resume, . step one event, ] next marker, + / - speed, q quit."],
  examples: [
    "pstlab play fixtures/captures/fake-claude.cast --speed 4",
    "pstlab play fixtures/captures/fake-claude.cast --side-by-side --speed 2",
    "pstlab play session.cast --from 60 --to 90 --pause-on-markers",
  ],
};

export async function run(argv: string[]): Promise<number> {
  const p = parseFlags(argv, spec, {
    ...INPUT_OPTIONS, speed: { type: "string" }, "idle-time-limit": { type: "string" }, from: { type: "string" }, to: { type: "string" },
    "pause-on-markers": { type: "boolean" }, loop: { type: "boolean" }, "side-by-side": { type: "boolean" }, detectors: { type: "string" }, manifest: { type: "string" },
  }, { minPositionals: 1, maxPositionals: 1 });
  if (!p) return 0;
  const v = p.values;
  const path = p.positionals[0];
  if (path === "-" && v.loop) throw new UsageError("play: --loop needs a file, not stdin");
  const speed = v.speed ? parseNumber(v.speed, "--speed", 1 / 64, 1024) : 1;
  const from = v.from ? parseDuration(v.from, "--from") : 0;
  const to = v.to ? parseDuration(v.to, "--to") : Infinity;
  const manifest = v.manifest ?? "claude";
  const names = v.detectors ? v.detectors.split(",").map((s) => s.trim()) : ["protocol", `screen:${manifest}@50ms`, `screen:${manifest}@700ms`, `tail8k:${manifest}`, "question", "quiet>=2s", "hash@500ms", `herdr:${manifest}`];
  if (v["side-by-side"]) loadManifestFlag(manifest);
  const stdin = process.stdin as unknown as NodeJS.ReadStream & { setRawMode?: (b: boolean) => void; isTTY?: boolean };
  const out = (s: string | Uint8Array) => writeAllSync(1, typeof s === "string" ? new TextEncoder().encode(s) : s);
  const term = () => {
    const o = process.stdout as { columns?: number; rows?: number };
    return { cols: o.columns || 160, rows: o.rows || 48 };
  };
  let player: Player | null = null;
  let raw = false;
  const onKey = (d: Uint8Array | string) => {
    for (const ch of typeof d === "string" ? d : new TextDecoder().decode(d)) {
      const k = keyFor(ch);
      if (k) player?.key(k);
    }
  };
  if (stdin.isTTY) {
    stdin.setRawMode?.(true);
    raw = true;
    stdin.on("data", onKey);
    stdin.resume();
  }
  let sbs: SideBySide | null = null;
  const restore = () => {
    sbs?.stop();
    if (raw) {
      stdin.setRawMode?.(false);
      raw = false;
    }
    stdin.off("data", onKey);
    stdin.pause();
  };
  process.on("exit", restore);
  try {
    do {
      const rec = await openInput(path, v);
      const limit = v["idle-time-limit"] ? parseDuration(v["idle-time-limit"], "--idle-time-limit") : rec.header.idleTimeLimit;
      let events: AsyncIterable<Event> = slice(rec.events, { from, to, keepPrelude: true });
      if (limit) events = limitIdleTime(events, limit);
      if (v["side-by-side"]) {
        let detectors;
        try {
          detectors = names.map((n) => createDetector(n, loadManifestFlag));
        } catch (e) {
          if (e instanceof DetectorError) throw new UsageError(`play: ${e.message}`);
          throw e;
        }
        // The panel shows the duration: a first pass over the file finds it.
        let duration = 0;
        for await (const e of (await openInput(path, v)).events) duration = e.t;
        sbs = new SideBySide(rec.header, detectors, (s) => out(s), term, colorEnabled(1), Math.max(0, Math.min(duration, to) - from));
        sbs.start();
        const s = sbs;
        player = new Player({
          speed, pauseOnMarkers: !!v["pause-on-markers"], tickMs: 40,
          onEvent: (e) => s.event(e),
          onTick: (vt, st) => s.draw(vt, st),
        });
      } else {
        player = new Player({
          speed, pauseOnMarkers: !!v["pause-on-markers"],
          onEvent: (e) => {
            if (e.kind === "output") out(e.bytes);
          },
        });
      }
      await player.play(events);
      if (sbs) {
        sbs.draw(player.vt(), player.state, true);
        if (!player.state.quit && stdin.isTTY && !v.loop) {
          // Keep the last frame up until a key.
          await new Promise<void>((r) => stdin.once("data", () => r()));
        }
        sbs.stop();
        sbs = null;
      }
    } while (v.loop && !player!.state.quit);
  } finally {
    restore();
    process.off("exit", restore);
  }
  if (player?.state.quit) err("pstlab: playback interrupted\n");
  return 0;
}
