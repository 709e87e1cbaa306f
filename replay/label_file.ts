// `play --label OUT.tsv`: truth labels taken while watching, at the capture time shown.
// The file is `seconds<TAB>state[<TAB>kind]` (what `report --labels` reads), kept sorted;
// an existing file is continued; `u` undoes the last label taken; the file is written
// whole, through a temporary file, when playback ends.

import * as fs from "node:fs";
import { LABEL_KEYS } from "../lib/recording/model.ts";
import { truthFromLabelsFile } from "../lib/score/truth.ts";
import { OutputFile } from "../lib/recording/sink.ts";
import { round6 } from "../lib/text.ts";

export interface LabelLine {
  t: number;
  state: string;
  kind: string | null;
}

export class LabelFile {
  readonly lines: LabelLine[] = [];
  private taken: LabelLine[] = [];
  readonly existing: number;

  constructor(readonly path: string) {
    if (fs.existsSync(path) && fs.statSync(path).size > 0) {
      const text = fs.readFileSync(path, "utf8");
      truthFromLabelsFile(text, path); // validates: one line, file:line on anything wrong
      for (const l of text.split("\n")) {
        const f = l.replace(/\r$/, "").split("\t");
        if (l.trim() === "" || l.startsWith("#")) continue;
        this.lines.push({ t: Number(f[0]), state: f[1].trim(), kind: f[2]?.trim() || null });
      }
    }
    this.existing = this.lines.length;
  }

  /** A key pressed at capture time t: a label (returned), `u` an undo; null for other keys. */
  key(ch: string, t: number): string | null {
    if (ch === "u") {
      const last = this.taken.pop();
      if (!last) return null;
      this.lines.splice(this.lines.lastIndexOf(last), 1);
      return `undone ${last.state}${last.kind ? `:${last.kind}` : ""} at ${last.t.toFixed(2)} s`;
    }
    const label = LABEL_KEYS[ch];
    if (!label) return null;
    const [state, kind] = label.slice("truth:".length).split(":");
    const line = { t: round6(Math.max(0, t)), state, kind: kind ?? null };
    this.lines.push(line);
    this.taken.push(line);
    return `${state}${kind ? `:${kind}` : ""} at ${line.t.toFixed(2)} s`;
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
    OutputFile.writeAll(this.path, sorted.map((l) => `${l.t}\t${l.state}${l.kind ? `\t${l.kind}` : ""}\n`).join(""));
  }

  summary(): string {
    const added = this.lines.length - this.existing;
    return `${this.lines.length} label${this.lines.length === 1 ? "" : "s"} (${
      added >= 0 ? `${added} new` : `${-added} removed`
    })`;
  }
}
