// The terminal modes a played capture leaves set on the user's terminal, and the bytes that
// undo them. `play` writes the capture's bytes to the real terminal: stopped while the
// recorded program was in the alternate screen (q, --to, the capture's end), the shell's
// prompt landed on vim's screen with the keypad in application mode. Only what the
// capture changed is undone, so a capture that set nothing gets nothing appended (plain
// playback's output stays byte for byte the capture's), and the user's cursor is not
// moved but by leaving the alternate screen (which puts it back where it was).

/** Private modes (CSI ? N h) whose set state is not the terminal's default. */
const SET_IS_CHANGE = [
  1, // DECCKM: application cursor keys
  66, // DECNKM: application keypad
  1000, // mouse reports: press/release, drag, any motion, and their encodings
  1001,
  1002,
  1003,
  1005,
  1006,
  1015,
  1016,
  1004, // focus in/out reports
  2004, // bracketed paste
];
/** Private modes (CSI ? N l) whose reset state is not the default: the cursor shown, autowrap. */
const RESET_IS_CHANGE = [25, 7];
/** The alternate screen's modes, in the order they are left (1049 first: it restores the cursor). */
const ALT = [1049, 1047, 47];

type State = "ground" | "esc" | "escInter" | "csi" | "string" | "stringEsc";

export class ModeTracker {
  private state: State = "ground";
  private params = "";
  private inter = "";
  /** Private modes the capture left away from the default. */
  private changed = new Set<number>();
  private keypad = false;
  private sgr = false;
  private insert = false;
  private scrollRegion = false;

  /** Follows the bytes written to the terminal (sequences split across writes included). */
  feed(bytes: Uint8Array | string): void {
    const s = typeof bytes === "string" ? bytes : null;
    const n = s !== null ? s.length : (bytes as Uint8Array).length;
    for (let i = 0; i < n; i++) {
      const c = s !== null ? s.charCodeAt(i) : (bytes as Uint8Array)[i];
      this.step(c);
    }
  }

  private step(c: number): void {
    // CAN and SUB abort any sequence; ESC starts a new one (or ends a string with ST).
    if (c === 0x18 || c === 0x1a) {
      this.state = "ground";
      return;
    }
    switch (this.state) {
      case "ground":
        if (c === 0x1b) this.state = "esc";
        return;
      case "esc":
        this.params = "", this.inter = "";
        if (c === 0x1b) return;
        if (c === 0x5b) this.state = "csi"; // [
        else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.state = "string"; // ] P X ^ _
        else if (c >= 0x20 && c <= 0x2f) this.state = "escInter";
        else {
          this.state = "ground";
          if (c === 0x3d) this.keypad = true; // ESC = DECKPAM
          else if (c === 0x3e) this.keypad = false; // ESC > DECKPNM
          else if (c === 0x63) this.clear(true); // ESC c RIS: everything back to the defaults
        }
        return;
      case "escInter":
        if (c === 0x1b) this.state = "esc";
        else if (c >= 0x30 && c <= 0x7e) this.state = "ground";
        return;
      case "csi":
        if (c === 0x1b) this.state = "esc";
        else if (c >= 0x30 && c <= 0x3f) this.params += String.fromCharCode(c);
        else if (c >= 0x20 && c <= 0x2f) this.inter += String.fromCharCode(c);
        else if (c >= 0x40 && c <= 0x7e) {
          this.state = "ground";
          this.csi(String.fromCharCode(c));
        }
        return;
      case "string":
        if (c === 0x07) this.state = "ground";
        else if (c === 0x1b) this.state = "stringEsc";
        return;
      case "stringEsc":
        if (c === 0x5c) this.state = "ground"; // ST
        else {
          this.state = "esc";
          this.step(c);
        }
        return;
    }
  }

  private csi(final: string): void {
    const p = this.params, inter = this.inter;
    if (inter === "!" && final === "p") return this.clear(false); // DECSTR soft reset
    if (inter !== "") return;
    if ((final === "h" || final === "l") && p.startsWith("?")) {
      const set = final === "h";
      for (const part of p.slice(1).split(";")) {
        const mode = Number(part);
        if (!Number.isInteger(mode)) continue;
        if (SET_IS_CHANGE.includes(mode) || ALT.includes(mode)) {
          if (set) this.changed.add(mode);
          else this.changed.delete(mode);
        } else if (RESET_IS_CHANGE.includes(mode)) {
          if (set) this.changed.delete(mode);
          else this.changed.add(mode);
        }
      }
    } else if ((final === "h" || final === "l") && p.split(";").includes("4")) {
      this.insert = final === "h"; // IRM
    } else if (final === "m" && !p.startsWith("?") && !p.startsWith(">")) {
      // Any attribute but a plain reset leaves the pen changed.
      this.sgr = !(p === "" || /^0*$/.test(p));
    } else if (final === "r" && !p.startsWith("?")) {
      this.scrollRegion = p !== "" && p !== ";";
    }
  }

  /** RIS resets everything, the alternate screen included; DECSTR all but the screen buffer and mouse modes. */
  private clear(hard: boolean): void {
    if (hard) this.changed.clear();
    else for (const m of [1, 66, 25, 7]) this.changed.delete(m);
    this.keypad =
      this.sgr =
      this.insert =
      this.scrollRegion =
        false;
  }

  /** Bytes that undo what the capture changed ("" when it changed nothing); the tracker then starts afresh. */
  restore(): string {
    let out = this.state === "ground" ? "" : "\x18"; // a sequence cut mid-way: abort it first
    const alt = ALT.filter((m) => this.changed.has(m));
    // Leaving 1049 puts the cursor back where it was before the capture entered it.
    for (const m of alt) out += `\x1b[?${m}l`;
    // The region reset homes the cursor: saved and restored around it.
    if (this.scrollRegion) out += "\x1b7\x1b[r\x1b8";
    for (const m of SET_IS_CHANGE) if (this.changed.has(m)) out += `\x1b[?${m}l`;
    if (this.keypad) out += "\x1b>";
    if (this.insert) out += "\x1b[4l";
    for (const m of RESET_IS_CHANGE) if (this.changed.has(m)) out += `\x1b[?${m}h`;
    if (this.sgr) out += "\x1b[m";
    this.state = "ground";
    this.clear(true);
    return out;
  }
}
