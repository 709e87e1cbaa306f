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
import { openInput, openOptions, printWarnings } from "./input.ts";
import { pickManifest } from "./detect_common.ts";
import { keyFor, Player } from "../../replay/player.ts";
import { TermInput } from "../../replay/term_input.ts";
import { limitIdleTime, slice } from "../recording/transforms.ts";
import { raw } from "../stdio.ts";
import { type PanelClock, SideBySide } from "../../replay/side_by_side.ts";
import { createDetector, withManifest } from "../detect/kinds.ts";
import { resolveManifest } from "../detect/bundled.ts";
import { AUTO } from "../detect/choose.ts";
import type { Event, Recording } from "../recording/model.ts";
import { UsageError } from "../errors.ts";
import { summaryOf } from "./commands.ts";
import { checkWindow, warnWindowPastEnd, watchEnd } from "./times.ts";
import { parseDuration } from "../units.ts";
import { disarm } from "../text.ts";
import { ModeTracker } from "./term_modes.ts";
import { later, type Timer } from "../timers.ts";

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
  summary: summaryOf("play"),
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
        "label the truth while watching: w p q a b i d e (as while recording),\nu undoes the last, x deletes the nearest; written to OUT.tsv as taken\n(continued if it exists); Esc or Ctrl-C quits",
      ),
      conflicts: ["idle-time-limit"],
      reason: "--label takes capture times",
      file: "out" as const,
    },
    ...INPUT_OPTIONS,
  },
  positionals: ONE_FILE,
  notes: [
    "Keys: space pause/resume, ←/→ back/forward 5 s (shift: 30 s), g then a capture time",
    "(90, 1m30s, 1:30) and Enter to jump there, . step one event, , step back one,",
    "] next marker, + / - speed, q or Esc quit. Going back rebuilds the screen from the start.",
    "The clock stops at the capture's end; with --side-by-side or --label the player stays",
    "there (to seek back or label the last moment) until Esc or q.",
    "With --label: w working, p blocked:permission, q blocked:question, a blocked:auth,",
    "b blocked, i idle, d done, e error at the capture time shown (any speed, after pauses,",
    "steps and seeks); u undoes the last, x deletes the label nearest the time shown; quit",
    "with Esc or Ctrl-C. Each label is in OUT.tsv as soon as it is taken (a closed terminal",
    "loses none). report --labels OUT.tsv then scores the capture with them.",
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
type Stdin = NodeJS.ReadStream & { setRawMode?: (b: boolean) => void; isTTY?: boolean };

const show = (s: string | Uint8Array) => raw("play", s);

/**
 * The status line of a pause on a marker (--pause-on-markers), for the terminal's bottom
 * row, or the bytes that clear it (label null). The label is capture text: sanitised,
 * one line, cut to the width. The cursor is saved and restored around it, so the
 * capture's own output goes on where it was.
 */
export function markerStatus(label: string | null, at: number, cols: number, rows: number): string {
  const go = `\x1b7\x1b[${rows};1H\x1b[2K`;
  if (label === null) return `${go}\x1b8`;
  const text = [...`pstlab: paused at marker ${JSON.stringify(disarm(label))} (${at.toFixed(1)} s); space resumes`];
  const fit = text.length > cols - 1 ? text.slice(0, Math.max(0, cols - 2)).join("") + "…" : text.join("");
  return `${go}\x1b[7m${fit}\x1b[m\x1b8`;
}
const termSize = () => {
  const o = process.stdout as { columns?: number; rows?: number };
  return { cols: o.columns || 160, rows: o.rows || 48 };
};

/**
 * The events to play, in memory (seeking goes back), with each one's capture time:
 * `t` is the playback time (rebased to --from, idle pauses shortened), `orig[i]` the
 * time in the capture, which the panel shows and labels are written in.
 */
interface Loaded {
  events: Event[];
  orig: number[];
}

async function load(rec: Recording, window: { from: number; to: number }, limit: number | undefined): Promise<Loaded> {
  const events: Event[] = [], orig: number[] = [];
  let src: AsyncIterable<Event> = slice(rec.events, { from: window.from, to: window.to, keepPrelude: true });
  const origs: number[] = [];
  if (limit) {
    src = limitIdleTime(
      (async function* (inner: AsyncIterable<Event>) {
        for await (const e of inner) {
          origs.push(e.t + window.from);
          yield e;
        }
      })(src),
      limit,
    );
  }
  for await (const e of src) {
    orig.push(limit ? origs[events.length] : e.t + window.from);
    events.push(e);
  }
  return { events, orig };
}

/** Capture time ↔ playback time, through the events (idle limits compress only the waits). */
export class PlayClock {
  constructor(private readonly l: Loaded, private readonly from: number) {}

  private lastAtOrBefore(xs: (i: number) => number, x: number): number {
    let lo = 0, hi = this.l.events.length - 1, best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (xs(mid) <= x) (best = mid), (lo = mid + 1);
      else hi = mid - 1;
    }
    return best;
  }

  captureTime(vt: number): number {
    const i = this.lastAtOrBefore((k) => this.l.events[k].t, vt);
    if (i < 0) return this.from + Math.max(0, vt);
    return this.l.orig[i] + (vt - this.l.events[i].t);
  }

  playTime(capture: number): number {
    const i = this.lastAtOrBefore((k) => this.l.orig[k], capture);
    if (i < 0) return 0;
    const e = this.l.events, next = e[i + 1];
    const d = capture - this.l.orig[i];
    return e[i].t + (next ? Math.min(d, next.t - e[i].t) : 0);
  }

  get end(): number {
    return this.l.orig.at(-1) ?? this.from;
  }
}

/** `g` then a capture time (90, 1m30s, 1:30) and Enter: where to jump; Esc cancels. */
class GotoPrompt {
  text: string | null = null;

  /** Consumes a key while the prompt is open; returns the time entered, "cancel", or null (still typing). */
  key(k: string): number | "cancel" | "bad" | null {
    if (k === "\r" || k === "\n") {
      const typed = this.text ?? "";
      this.text = null;
      const colon = /^([0-9]+):([0-9]{1,2}(?:\.[0-9]+)?)$/.exec(typed);
      if (colon) return Number(colon[1]) * 60 + Number(colon[2]);
      try {
        return parseDuration(typed, "time");
      } catch {
        return "bad";
      }
    }
    if (k === "\x1b" || k === "\x03") {
      this.text = null;
      return "cancel";
    }
    if (k === "\x7f" || k === "\b") this.text = (this.text ?? "").slice(0, -1);
    else if (/^[0-9.:msh]$/.test(k) && (this.text ?? "").length < 16) this.text = (this.text ?? "") + k;
    return null;
  }
}

async function sideBySide(
  rec: Recording,
  v: V,
  clock: PanelClock,
): Promise<SideBySide> {
  const chosen = await pickManifest(rec, v.manifest, openOptions(v));
  const names = (v.detectors ?? PANEL).map((n) => withManifest(n, chosen.name));
  const panel = new SideBySide(
    rec.header,
    () => names.map((n) => createDetector(n, resolveManifest)),
    show,
    termSize,
    colorEnabled(1),
    clock,
  );
  panel.start();
  return panel;
}

export const command = defineCommand(spec, async (p) => {
  const v = p.values;
  const path = p.positionals[0];
  if (path === "-" && v.loop) throw new UsageError("play: --loop needs a file, not stdin");
  checkWindow("play", v.from, v.to);
  const window = { from: v.from ?? 0, to: v.to ?? Infinity };
  if (v.manifest && v.manifest !== AUTO) resolveManifest(v.manifest);
  const stdin = process.stdin as unknown as Stdin;
  const labelFile = v.label ? new LabelFile(v.label) : null;
  const rec = await openInput(path, v);
  // A header's limit is taken only when it is one (a positive number): -5 played time backwards.
  const fromHeader = rec.header.idleTimeLimit !== undefined && rec.header.idleTimeLimit > 0
    ? rec.header.idleTimeLimit
    : undefined;
  const limit = labelFile ? undefined : v["idle-time-limit"] ?? fromHeader;
  const read = watchEnd(rec.events);
  const loaded = await load({ ...rec, events: read.events }, window, limit);
  printWarnings(rec);
  warnWindowPastEnd(rec.path, read.end(), v.from, v.to, {
    from: "nothing to play but the screen at the end",
    to: "playing to the end",
  });
  const clock = new PlayClock(loaded, window.from);
  const tty = !!stdin.isTTY;
  // Played raw, a capture wider or taller than this terminal wraps and scrolls into a
  // different picture: said once, before it starts (the side-by-side panel crops instead).
  const out = process.stdout as { isTTY?: boolean; columns?: number; rows?: number };
  if (!v["side-by-side"] && out.isTTY && out.columns && out.rows) {
    const { cols, rows } = rec.header;
    if (cols > out.columns || rows > out.rows) {
      err(
        `pstlab: warning: the capture is ${cols}x${rows} and this terminal ${out.columns}x${out.rows}: ` +
          `lines will wrap and scroll (resize the terminal, or play --side-by-side)\n`,
      );
    }
  }
  let panel: SideBySide | null = v["side-by-side"] ? await sideBySide(rec, v, clock) : null;
  let player: Player | null = null;
  const goto = new GotoPrompt();
  const captureTime = () => clock.captureTime(player?.vt() ?? 0);
  /** A line for the person: in the panel, or on stderr under plain playback. */
  const say = (text: string) => {
    if (panel) panel.setNote(text);
    else err(`\r\npstlab: ${disarm(text)}\r\n`);
  };
  if (panel && labelFile) {
    panel.setLabel(labelFile.at(window.from));
    panel.setLabels((t) => labelFile.around(t));
  }
  // The terminal's input parsed as terminal input: the capture's queries (ESC [ c …)
  // make the terminal answer on stdin, and those replies must never read as keys (their
  // ESC quit playback). A lone ESC is Esc once ESC_WAIT_MS pass with nothing after it.
  const input = new TermInput();
  const decoder = new TextDecoder();
  let inputTimer: Timer | null = null;
  const onKey = (d: Uint8Array | string) => {
    inputTimer?.clear();
    inputTimer = null;
    onKeys(input.feed(typeof d === "string" ? d : decoder.decode(d, { stream: true })));
    const wait = input.wait();
    if (wait !== null) {
      inputTimer = later(() => {
        inputTimer = null;
        onKeys(input.timeout());
      }, wait);
    }
  };
  const onKeys = (keys: string[]) => {
    if (keys.length === 0) return;
    for (const k of keys) {
      if (goto.text !== null) {
        const r = goto.key(k);
        if (r === null) say(`go to: ${goto.text}`);
        else if (r === "cancel") say("");
        else if (r === "bad") say("go to: use seconds, 1m30s or 1:30");
        else {
          say(`went to ${r.toFixed(1)} s`);
          player?.seek(clock.playTime(r));
        }
        continue;
      }
      // With --label, q is a label: Esc alone, Ctrl-C or Q quit. Without, q and Esc too.
      if (k === "\x1b" || k === "\x03" || k === "Q" || (!labelFile && k === "q")) {
        player?.key("quit");
        continue;
      }
      if (k === "g") {
        goto.text = "";
        say("go to: (a capture time, Enter)");
        continue;
      }
      if (labelFile) {
        const said = labelFile.key(k, captureTime());
        if (said !== null) {
          panel?.setLabel(labelFile.at(captureTime()));
          say(`label ${said}`);
          continue;
        }
      }
      const key = keyFor(k);
      if (key) player?.key(key);
    }
    if (panel && player) panel.draw(player.vt(), player.state, true);
  };
  if (tty) {
    stdin.setRawMode?.(true);
    stdin.on("data", onKey);
    stdin.resume();
  }
  // Plain playback writes the capture's bytes to the terminal: the modes they set (the
  // alternate screen, application keypad, a hidden cursor …) are undone on the way out,
  // however playback ends, so the shell's prompt does not land on the recorded vim.
  const modes = new ModeTracker();
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    if (!panel) {
      const undo = modes.restore();
      try {
        if (undo) show(undo);
      } catch { /* the terminal is gone (SIGHUP) */ }
    }
    panel?.stop();
    inputTimer?.clear();
    if (tty) {
      stdin.setRawMode?.(false);
      stdin.off("data", onKey);
      stdin.pause();
    }
  };
  // A closed terminal (SIGHUP) or a kill (SIGTERM): the labels are already in the file
  // (written as they are taken); the terminal is given back, and the exit says why.
  // SIGINT too: with stdin not a terminal (no raw mode), Ctrl-C is a signal, not a key,
  // and its default action left the terminal in the capture's modes.
  const onSignal = (sig: "SIGHUP" | "SIGTERM" | "SIGINT") => {
    restore();
    process.exit(128 + (sig === "SIGHUP" ? 1 : sig === "SIGINT" ? 2 : 15));
  };
  const onHup = () => onSignal("SIGHUP"), onTerm = () => onSignal("SIGTERM"), onInt = () => onSignal("SIGINT");
  process.on("SIGHUP", onHup);
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  process.on("exit", restore);
  let markerShown = false;
  try {
    do {
      panel?.reset();
      player = new Player({
        speed: v.speed ?? 1,
        pauseOnMarkers: !!v["pause-on-markers"],
        tickMs: panel ? 40 : undefined,
        // At the end a person labelling or watching the panel stays to look, seek back
        // or label the last moment; Esc or q leaves (a key never falls through to the shell).
        holdAtEnd: tty && !v.loop && (!!panel || !!labelFile),
        onEvent: panel ? (e) => panel!.event(e) : (e) => {
          if (e.kind !== "output") return;
          modes.feed(e.bytes);
          show(e.bytes);
        },
        // Going back replays from the start: the terminal is first put back as it was
        // (out of the alternate screen too, which a soft reset leaves as it is).
        onReset: panel ? () => panel!.reset() : () => show(modes.restore() + "\x1b[!p\x1b[H\x1b[2J"),
        onTick: panel ? (vt, st) => panel!.draw(vt, st) : undefined,
        onMarkerPause: (m) => {
          markerShown = !!m;
          const at = m ? clock.captureTime(m.t) : 0;
          if (panel) panel.setNote(m ? `paused at marker ${JSON.stringify(disarm(m.label))} (${at.toFixed(1)} s)` : "");
          else if (process.stdout.isTTY) {
            const out = process.stdout as { columns?: number; rows?: number };
            show(markerStatus(m ? m.label : null, at, out.columns ?? 80, out.rows ?? 24));
          } else if (m) err(`pstlab: paused at marker ${JSON.stringify(disarm(m.label))} (${at.toFixed(1)} s)\n`);
        },
      }, loaded.events);
      await player.play();
      // Quit while paused on a marker: its status line does not outlive playback.
      if (markerShown && !panel && process.stdout.isTTY) {
        const o = process.stdout as { columns?: number; rows?: number };
        show(markerStatus(null, 0, o.columns ?? 80, o.rows ?? 24));
      }
      markerShown = false;
      panel?.draw(player.vt(), player.state, true);
    } while (v.loop && !player.state.quit);
  } finally {
    restore();
    panel = null;
    process.off("exit", restore);
    process.off("SIGHUP", onHup);
    process.off("SIGTERM", onTerm);
    process.off("SIGINT", onInt);
  }
  const at = `at ${captureTime().toFixed(1)} s`;
  if (labelFile) {
    labelFile.write();
    err(`pstlab: wrote ${v.label}: ${labelFile.summary()}; score with: pstlab report ${path} --labels ${v.label}\n`);
  } else if (player?.state.quit && !player.state.ended) err(`pstlab: playback stopped ${at}\n`);
  return 0;
});
