// Labelling the truth while recording (and while replaying): a prefix key, then one
// letter. The prefix and its follow-up never reach the program nor the recorded input;
// the prefix pressed twice sends it once. `m` takes a free note: the next line typed.

export { LABEL_KEYS } from "../recording/model.ts";
import { LABEL_KEYS } from "../recording/model.ts";

export const DEFAULT_PREFIX = 0x1d; // Ctrl-]

/** `ctrl-]`, `C-a`, `^b` → the control byte; `none` → null. */
export function parsePrefixKey(s: string): number | null | undefined {
  if (s === "none") return null;
  const m = /^(?:ctrl-|c-|\^)(.)$/i.exec(s);
  if (!m) return undefined;
  const c = m[1].toUpperCase().charCodeAt(0);
  return c >= 0x40 && c <= 0x5f ? c & 0x1f : c === 0x3f ? 0x7f : undefined;
}

export function describeKey(code: number): string {
  return code === 0x7f ? "Ctrl-?" : `Ctrl-${String.fromCharCode(code | 0x40)}`;
}

export interface KeyResult {
  /** Bytes for the program. */
  forward: Uint8Array;
  /** Markers to write now, in order. */
  labels: string[];
  /** Keys pressed after the prefix that mean nothing (to say so briefly; never forwarded). */
  unknown: string[];
}

/** The prefix-key state machine over the bytes typed. */
export class LabelKeys {
  private mode: "normal" | "prefix" | "note" = "normal";
  private note: number[] = [];

  constructor(private readonly prefix: number) {}

  /** True while a prefix or a note is pending (a status line may say so). */
  get pending(): boolean {
    return this.mode !== "normal";
  }

  feed(bytes: Uint8Array): KeyResult {
    const forward: number[] = [];
    const labels: string[] = [];
    const unknown: string[] = [];
    for (const b of bytes) {
      if (this.mode === "normal") {
        if (b === this.prefix) this.mode = "prefix";
        else forward.push(b);
      } else if (this.mode === "prefix") {
        this.mode = "normal";
        const ch = String.fromCharCode(b);
        if (b === this.prefix) forward.push(b);
        else if (LABEL_KEYS[ch]) labels.push(LABEL_KEYS[ch]);
        else if (ch === "m") {
          this.mode = "note";
          this.note = [];
        } else unknown.push(b < 0x20 || b === 0x7f ? `^${String.fromCharCode(b ^ 0x40)}` : ch);
        // any other key after the prefix: said briefly, never forwarded
      } else if (b === 0x0d || b === 0x0a) {
        const text = new TextDecoder().decode(new Uint8Array(this.note)).trim();
        if (text) labels.push(text);
        this.mode = "normal";
      } else if (b === 0x1b || b === 0x03) this.mode = "normal"; // Esc or Ctrl-C: no note
      else if (b === 0x7f || b === 0x08) this.note.pop();
      else this.note.push(b);
    }
    return { forward: new Uint8Array(forward), labels, unknown };
  }
}
