// `play --side-by-side`: the recording on an emulated screen, next to a live panel of
// verdicts — the truth, the OSC 7501 records, and each detector's state — updated as it
// plays. Detectors are sampled on the same virtual clock as `report`, so what the
// panel shows at time t is what the report scored at t.

import type { Event, Header } from "../lib/recording/model.ts";
import { Observer } from "../lib/detect/observer.ts";
import { Sampler } from "./clock.ts";
import type { Detector } from "../lib/detect/detectors.ts";
import { parseTruthLabel } from "../lib/score/truth.ts";
import type { PlayerState } from "./player.ts";
import { disarm } from "../lib/text.ts";

/** The panel's narrowest width: a 120-column capture fits beside it in 160 columns. */
export const PANEL = 30;
/** The panel's widest: room for every verdict's rule and an OSC 7501 message. */
export const ROOMY = 46;

/**
 * Which screen rows to show in `h` terminal rows (-1: a "⋮" separator). Nothing is
 * cropped when everything written fits; else the rows around the cursor and the bottom
 * rows (where a prompt, an input box or a status line is) are kept, the middle dropped.
 */
export function visibleRows(rows: string[], h: number, cursorY: number): number[] {
  const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);
  if (h <= 0) return [];
  let last = rows.length - 1;
  while (last > 0 && rows[last].trim() === "") last--;
  const end = Math.max(last, Math.min(cursorY, rows.length - 1)) + 1;
  if (end <= h) return range(0, Math.min(h, rows.length));
  if (cursorY >= end - h || h < 4) return range(end - h, end);
  const bottom = Math.max(1, Math.floor(h / 4));
  const around = h - bottom - 1;
  const start = Math.max(0, Math.min(cursorY - Math.floor(around / 2), end - bottom - around - 1));
  return [...range(start, start + around), -1, ...range(end - bottom, end)];
}

export interface PanelClock {
  /** The capture time shown for a virtual time (play --from, idle limits). */
  captureTime(vt: number): number;
  /** The capture time at the end of playback. */
  end: number;
}

export class SideBySide {
  observer!: Observer;
  private sampler!: Sampler;
  private detectors!: Detector[];
  private truth = "unlabeled";
  /** With play --label: the label being taken, shown beside the detectors. */
  private label: string | null = null;
  /** With play --label: the labels around a capture time, one line each. */
  private labelsAround: ((t: number, width: number) => string[]) | null = null;
  /** A line from the player (a label taken or removed, the `g` prompt). */
  private note = "";
  private lastFrame = "";
  private lastDraw = 0;

  constructor(
    private readonly header: Header,
    private readonly makeDetectors: () => Detector[],
    private readonly write: (s: string) => void,
    private readonly term: () => { cols: number; rows: number },
    private readonly color: boolean,
    private readonly clock: PanelClock,
    /** `record --side-by-side`: the same panel over a live session (no end, no player keys). */
    private readonly live = false,
  ) {
    this.reset();
  }

  /** From nothing again (a backward seek replays the events into a fresh screen and detectors). */
  reset(): void {
    this.detectors = this.makeDetectors();
    this.observer = new Observer(this.header);
    this.sampler = new Sampler(this.detectors, this.observer);
    this.truth = "unlabeled";
  }

  setLabel(text: string): void {
    this.label = text;
  }

  setLabels(fn: (t: number, width: number) => string[]): void {
    this.labelsAround = fn;
  }

  setNote(text: string): void {
    this.note = text;
  }

  start(): void {
    this.write("\x1b[?1049h\x1b[?25l\x1b[2J");
  }

  stop(): void {
    this.write("\x1b[?25h\x1b[?1049l");
  }

  event(e: Event): void {
    this.sampler.advanceBefore(e.t);
    this.observer.apply(e);
    this.sampler.afterEvent(e.t);
    if (e.kind === "marker") {
      const p = parseTruthLabel(e.label);
      // The kind is the capture's text: a hostile one must not retitle the terminal (disarmed).
      if (p) this.truth = disarm(`${p.state}${p.kind ? ` (${p.kind})` : ""}`);
    }
  }

  /** A panel line from [text, sgr] parts, clipped to `width` visible characters. */
  private line(parts: [string, string?][], width: number): string {
    let left = width, out = "";
    for (const [text, code] of parts) {
      if (left <= 0) break;
      const t = [...disarm(text)].slice(0, left).join(""); // labels, kinds, rule names: capture or file text
      left -= [...t].length;
      out += this.color && code ? `\x1b[${code}m${t}\x1b[0m` : t;
    }
    return out;
  }

  /** Redraws (at most every 40 ms unless forced). */
  draw(vt: number, st: PlayerState, force = false): void {
    const now = performance.now();
    if (!force && now - this.lastDraw < 40) return;
    this.lastDraw = now;
    this.sampler.advanceBefore(vt + 1e-9);
    const { cols: tc, rows: tr } = this.term();
    const screen = this.observer.screen;
    const rows = screen.rows();
    const cursorY = screen.cursor().y;
    // Side by side whenever the panel and a useful part of the screen fit (the screen's
    // right edge is cropped before anything stacks below it).
    const wide = tc - PANEL - 3 >= Math.min(this.header.cols, 40);
    // The panel is as wide as the screen's written part leaves room for, between PANEL
    // and ROOMY: what is written is cropped only when the narrowest panel needs the room.
    let used = screen.cursor().x + 1;
    for (const r of rows) used = Math.max(used, r.length + 1);
    const screenW = wide ? Math.min(this.header.cols, tc - PANEL - 3, Math.max(used, tc - ROOMY - 4)) : tc;
    const panelW = wide ? Math.max(PANEL, tc - screenW - 4) : tc;
    const panel = this.panelLines(vt, st, panelW);
    const screenH = wide ? tr : Math.max(1, tr - panel.length - 1);
    const shown = visibleRows(rows, screenH, cursorY);
    const lines: string[] = [];
    const clip = (s: string, w: number) => [...s].slice(0, w).join("");
    for (let y = 0; y < (wide ? tr : screenH); y++) {
      const r = shown[y];
      const left = r === undefined
        ? ""
        : r < 0
        ? this.line([["⋮", "2"]], 1)
        : clip(rows[r] ?? "", screenW).replace(/[\x00-\x1f\x7f]/g, " ");
      lines.push(`\x1b[${y + 1};1H\x1b[2K${left}`);
      if (wide && y < panel.length) {
        lines.push(`\x1b[${y + 1};${screenW + 2}H${this.line([["│", "2"]], 1)} ${panel[y]}`);
      }
    }
    if (!wide) {
      panel.slice(0, Math.max(0, tr - screenH)).forEach((p, i) => lines.push(`\x1b[${screenH + 1 + i};1H\x1b[2K${p}`));
    }
    const frame = lines.join("");
    if (frame !== this.lastFrame || force) {
      this.write(frame);
      this.lastFrame = frame;
    }
  }

  panelLines(vt: number, st: PlayerState, width = PANEL): string[] {
    const L = (...parts: [string, string?][]) => this.line(parts, width);
    const out: string[] = [];
    const t = this.clock.captureTime(vt);
    if (this.live) {
      out.push(L(["pstlab record", "1"], [` ${t.toFixed(1)} s `], [st.ended ? "■ end" : "● rec", "1;31"]));
      out.push(L(["not recorded · exit to stop", "2"]));
    } else {
      const status = st.ended ? "■ end" : st.paused ? "❚❚" : "▶";
      out.push(L(["pstlab play", "1"], [` ${t.toFixed(1)} / ${this.clock.end.toFixed(1)} s ×${st.speed} ${status}`]));
      out.push(L(["space ←→ , . g ] +- q", "2"]));
    }
    out.push(this.note ? L([this.note, "2"]) : "");
    out.push(L(["truth   "], [this.truth, this.truth.startsWith("blocked") ? "1;31" : undefined]));
    if (this.label !== null) {
      out.push(L(["label   "], [this.label, this.label.startsWith("blocked") ? "1;31" : undefined]));
    }
    const recs = this.observer.tracker.store.list();
    if (recs.length === 0) out.push(L(["osc 7501 "], ["no records", "2"]));
    recs.slice(0, 4).forEach((r, i) => {
      const text = `${r.id ?? "root"} ${r.state}${r.kind ? ` ${r.kind}` : ""}${r.msg ? ` "${disarm(r.msg)}"` : ""}`;
      out.push(L([i === 0 ? "osc 7501 " : "         "], [text, r.state === "blocked" ? "1;31" : undefined]));
    });
    // The other sources, when the capture has them: the newest hook, the program holding the terminal.
    const o = this.observer.observe(vt);
    if (o.hookData) {
      const h = o.hook;
      const text = h ? `${h.state}${h.kind ? ` ${h.kind}` : ""}${h.msg ? ` "${disarm(h.msg)}"` : ""}` : "none yet";
      out.push(L(["hooks   "], [text, h?.state === "blocked" ? "1;31" : h ? undefined : "2"]));
    }
    if (o.processData) {
      const f = o.foreground;
      const text = f ? `${disarm(f.name)}${o.shellInFront ? " (the shell)" : ""}` : "none yet";
      out.push(L(["process "], [text, f ? undefined : "2"]));
    }
    out.push("", L(["detectors", "2"]));
    const nameW = Math.max(8, Math.min(22, width - 12));
    for (let i = 0; i < this.detectors.length; i++) {
      const v = this.sampler.verdictAt(i, vt);
      const name = [...this.detectors[i].name].slice(0, nameW).join("").padEnd(nameW);
      if (!v) {
        out.push(L([`  ${name} `], ["…", "2"]));
        continue;
      }
      out.push(
        L([v.needsYou ? "●" : " ", "1;31"], [` ${name} `], [
          v.needsYou ? "NEEDS YOU" : v.state,
          v.needsYou ? "1;31" : undefined,
        ], [v.rule ? ` ${v.rule}` : "", "2"]),
      );
    }
    if (this.labelsAround) {
      const around = this.labelsAround(t, width);
      out.push("", L(["your labels (x deletes the nearest)", "2"]));
      if (!around.length) out.push(L(["  none yet", "2"]));
      for (const l of around) out.push(L([l]));
    }
    return out;
  }
}
