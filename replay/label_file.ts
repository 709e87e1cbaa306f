// `play --label OUT.tsv`: truth labels taken while watching, at the capture time shown.
// The file is `seconds<TAB>state[<TAB>kind]` (what `report --labels` reads), kept sorted;
// an existing file is continued (its comments kept at the top); `u` undoes the last
// label taken, `x` deletes the label nearest the time shown. The file is rewritten
// whole, through a temporary file, after every change: a player killed by SIGHUP or
// SIGTERM (a closed terminal) leaves every label taken, and never half a file.

import * as fs from "node:fs";
import { LABEL_KEYS } from "../lib/recording/model.ts";
import { truthFromLabelsFile } from "../lib/score/truth.ts";
import { OutputFile } from "../lib/recording/sink.ts";
import { MAX_TEXT_INPUT } from "../lib/recording/source.ts";
import { InputError } from "../lib/errors.ts";
import { round6 } from "../lib/text.ts";

export interface LabelLine {
  t: number;
  state: string;
  kind: string | null;
}

export class LabelFile {
  readonly lines: LabelLine[] = [];
  private taken: LabelLine[] = [];
  /** The continued file's comment lines, written back first. */
  private comments: string[] = [];
  readonly existing: number;

  constructor(readonly path: string) {
    if (fs.existsSync(path) && fs.statSync(path).size > 0) {
      // The file this player writes: not an input (the output gate would refuse it), but
      // read whole, so bounded like one.
      if (fs.statSync(path).size > MAX_TEXT_INPUT) {
        throw new InputError(`${path}: too large to continue (more than ${MAX_TEXT_INPUT >> 20} MiB)`);
      }
      const text = fs.readFileSync(path, "utf8");
      truthFromLabelsFile(text, path); // validates: one line, file:line on anything wrong
      for (const l of text.split("\n")) {
        const f = l.replace(/\r$/, "").split("\t");
        if (l.startsWith("#")) this.comments.push(l.replace(/\r$/, ""));
        if (l.trim() === "" || l.startsWith("#")) continue;
        this.lines.push({ t: Number(f[0]), state: f[1].trim(), kind: f[2]?.trim() || null });
      }
    }
    this.existing = this.lines.length;
  }

  /**
   * A key pressed at capture time t: a label (what was done is returned), `u` an undo,
   * `x` deletes the label nearest t; null for other keys. The file is written at once.
   */
  key(ch: string, t: number): string | null {
    const said = this.apply(ch, t);
    if (said !== null) this.write();
    return said;
  }

  private apply(ch: string, t: number): string | null {
    const name = (l: LabelLine) => `${l.state}${l.kind ? `:${l.kind}` : ""} at ${l.t.toFixed(2)} s`;
    if (ch === "u") {
      const last = this.taken.pop();
      if (!last) return null;
      this.lines.splice(this.lines.lastIndexOf(last), 1);
      return `undone ${name(last)}`;
    }
    if (ch === "x") {
      const near = this.nearest(t);
      if (near < 0) return null;
      const [gone] = this.lines.splice(near, 1);
      const i = this.taken.indexOf(gone);
      if (i >= 0) this.taken.splice(i, 1);
      return `deleted ${name(gone)}`;
    }
    const label = LABEL_KEYS[ch];
    if (!label) return null;
    const [state, kind] = label.slice("truth:".length).split(":");
    const line = { t: round6(Math.max(0, t)), state, kind: kind ?? null };
    this.lines.push(line);
    this.taken.push(line);
    return `${state}${kind ? `:${kind}` : ""} at ${line.t.toFixed(2)} s`;
  }

  /** Index in `lines` of the label nearest t (the later one on a tie); -1 when there is none. */
  nearest(t: number): number {
    let best = -1;
    this.lines.forEach((l, i) => {
      if (best < 0 || Math.abs(l.t - t) <= Math.abs(this.lines[best].t - t)) best = i;
    });
    return best;
  }

  /** The labels around t for the panel, `▸` at the one in force: up to `n` lines. */
  around(t: number, n = 5): string[] {
    const sorted = [...this.lines].sort((a, b) => a.t - b.t);
    let cur = -1;
    sorted.forEach((l, i) => {
      if (l.t <= t + 1e-9) cur = i;
    });
    const from = Math.max(0, Math.min(cur - Math.floor((n - 1) / 2), sorted.length - n));
    return sorted.slice(from, from + n).map((l, i) =>
      `${from + i === cur ? "▸" : " "} ${l.t.toFixed(2).padStart(8)}  ${l.state}${l.kind ? `:${l.kind}` : ""}`
    );
  }

  /** The label in force at t (for the side-by-side panel). */
  at(t: number): string {
    let cur = "unlabeled";
    for (const l of [...this.lines].sort((a, b) => a.t - b.t)) {
      if (l.t > t + 1e-9) break;
      cur = `${l.state}${l.kind ? ` (${l.kind})` : ""}`;
    }
    return cur;
  }

  /** Sorted by time (a stable sort keeps the order labels were taken at the same time). */
  write(): void {
    const sorted = [...this.lines].sort((a, b) => a.t - b.t);
    OutputFile.writeAll(
      this.path,
      this.comments.map((c) => `${c}\n`).join("") +
        sorted.map((l) => `${l.t}\t${l.state}${l.kind ? `\t${l.kind}` : ""}\n`).join(""),
    );
  }

  summary(): string {
    const added = this.lines.length - this.existing;
    return `${this.lines.length} label${this.lines.length === 1 ? "" : "s"} (${
      added >= 0 ? `${added} new` : `${-added} removed`
    })`;
  }
}
