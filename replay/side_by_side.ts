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

export const PANEL = 46;

export class SideBySide {
  readonly observer: Observer;
  private sampler: Sampler;
  private truth = "unlabeled";
  /** With play --label: the label being taken, shown beside the detectors. */
  private label: string | null = null;
  private lastFrame = "";
  private lastDraw = 0;

  constructor(
    private readonly header: Header,
    private readonly detectors: Detector[],
    private readonly write: (s: string) => void,
    private readonly term: () => { cols: number; rows: number },
    private readonly color: boolean,
    private readonly duration: number,
    /** `record --side-by-side`: the same panel over a live session (no duration, no player keys). */
    private readonly live = false,
  ) {
    this.observer = new Observer(header);
    this.sampler = new Sampler(detectors, this.observer);
  }

  setLabel(text: string): void {
    this.label = text;
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
      if (p) this.truth = `${p.state}${p.kind ? ` (${p.kind})` : ""}`;
    }
  }

  /** A panel line from [text, sgr] parts, clipped to `width` visible characters. */
  private line(parts: [string, string?][], width: number): string {
    let left = width, out = "";
    for (const [text, code] of parts) {
      if (left <= 0) break;
      const t = [...text].slice(0, left).join("");
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
    const rows = this.observer.screen.rows();
    const wide = tc >= this.header.cols + 3 + PANEL;
    const screenW = wide ? Math.min(this.header.cols, tc - PANEL - 3) : tc;
    const panelW = wide ? Math.max(20, tc - screenW - 4) : tc;
    const panel = this.panelLines(vt, st, panelW);
    const screenH = wide ? Math.min(rows.length, tr) : Math.max(1, tr - panel.length - 1);
    const lines: string[] = [];
    const clip = (s: string, w: number) => [...s].slice(0, w).join("");
    for (let y = 0; y < (wide ? tr : screenH); y++) {
      const left = y < screenH ? clip(rows[y] ?? "", screenW).replace(/[\x00-\x1f\x7f]/g, " ") : "";
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
    if (this.live) {
      out.push(L(["pstlab record", "1"], [`  ${vt.toFixed(1)} s  `], [st.ended ? "■ end" : "● rec", "1;31"]));
      out.push(L(["this panel is not recorded · exit the program to stop", "2"]));
    } else {
      const status = st.ended ? "■ end" : st.paused ? "❚❚ paused" : "▶";
      out.push(
        L(["pstlab play", "1"], [`  ${vt.toFixed(1)} / ${this.duration.toFixed(1)} s  ×${st.speed}  ${status}`]),
      );
      out.push(L(["space pause · . step · ] marker · +/- · q", "2"]));
    }
    out.push("");
    out.push(L(["truth      "], [this.truth, this.truth.startsWith("blocked") ? "1;31" : undefined]));
    if (this.label !== null) {
      out.push(L(["your label "], [this.label, this.label.startsWith("blocked") ? "1;31" : undefined]));
    }
    const recs = this.observer.tracker.store.list();
    if (recs.length === 0) out.push(L(["osc 7501   "], ["no records", "2"]));
    recs.slice(0, 4).forEach((r, i) => {
      const text = `${r.id ?? "root"} ${r.state}${r.kind ? ` ${r.kind}` : ""}${r.msg ? ` "${disarm(r.msg)}"` : ""}`;
      out.push(L([i === 0 ? "osc 7501   " : "           "], [text, r.state === "blocked" ? "1;31" : undefined]));
    });
    // The other sources, when the capture has them: the newest hook, the program holding the terminal.
    const o = this.observer.observe(vt);
    if (o.hookData) {
      const h = o.hook;
      const text = h ? `${h.state}${h.kind ? ` ${h.kind}` : ""}${h.msg ? ` "${disarm(h.msg)}"` : ""}` : "none yet";
      out.push(L(["hooks      "], [text, h?.state === "blocked" ? "1;31" : h ? undefined : "2"]));
    }
    if (o.processData) {
      const f = o.foreground;
      const text = f ? `${disarm(f.name)}${o.shellInFront ? " (the shell)" : ""}` : "none yet";
      out.push(L(["process    "], [text, f ? undefined : "2"]));
    }
    out.push("", L(["detectors", "2"]));
    for (let i = 0; i < this.detectors.length; i++) {
      const v = this.sampler.verdictAt(i, vt);
      const name = this.detectors[i].name.padEnd(22);
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
    return out;
  }
}
