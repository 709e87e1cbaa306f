// What a terminal sends to a program, parsed as a terminal sends it: keys, and the
// terminal's own replies to queries. `play` writes a capture's bytes to the real
// terminal, so a query in the capture (`ESC [ c`, `ESC [ 6 n`, `ESC ] 11 ; ? BEL`) makes
// the terminal answer on our stdin; read as keys, the reply's leading ESC was Esc and
// quit playback. Here a reply is consumed whole and never becomes a key, and a lone ESC
// is the Esc key only when nothing follows it within ESC_WAIT_MS (as vim and tmux's
// escape-time do). Pure: the caller owns the clock (feed, then timeout() after wait()).

/** How long after a lone ESC more bytes of a sequence may still come (a reply over ssh arrives in pieces). */
export const ESC_WAIT_MS = 50;
/** How long an unterminated reply (OSC/DCS string, cut CSI) may wait for its end before it is dropped. */
export const SEQUENCE_WAIT_MS = 500;

type Mode = "ground" | "esc" | "csi" | "ss3" | "string" | "string-esc";

export class TermInput {
  private mode: Mode = "ground";
  private seq = "";

  /** The complete keys in `text` (and in what was pending before it); replies are consumed silently. */
  feed(text: string): string[] {
    const keys: string[] = [];
    for (const ch of text) this.step(ch, keys);
    return keys;
  }

  /** How long (ms) to wait before calling timeout(), or null when nothing is pending. */
  wait(): number | null {
    if (this.mode === "ground") return null;
    return this.mode === "esc" ? ESC_WAIT_MS : SEQUENCE_WAIT_MS;
  }

  /** The wait passed with nothing more: a lone ESC is the Esc key; a cut sequence is dropped, never a key. */
  timeout(): string[] {
    const lone = this.mode === "esc";
    this.reset();
    return lone ? ["\x1b"] : [];
  }

  private reset(): void {
    this.mode = "ground";
    this.seq = "";
  }

  private step(ch: string, keys: string[]): void {
    const c = ch.codePointAt(0)!;
    switch (this.mode) {
      case "ground":
        if (ch === "\x1b") {
          this.mode = "esc";
          this.seq = ch;
        } else keys.push(ch);
        return;
      case "esc":
        if (ch === "[") {
          this.mode = "csi";
          this.seq += ch;
        } else if (ch === "O") {
          this.mode = "ss3";
          this.seq += ch;
        } else if (ch === "]" || ch === "P" || ch === "_" || ch === "^" || ch === "X") {
          this.mode = "string"; // OSC, DCS, APC, PM, SOS: a reply, ended by BEL or ST
        } else if (ch === "\x1b") {
          keys.push("\x1b"); // Esc, then a new sequence starts
          this.seq = ch;
        } else {
          keys.push("\x1b" + ch); // Alt+key: one key, never Esc followed by the key
          this.reset();
        }
        return;
      case "ss3":
        keys.push(this.seq + ch); // ESC O A: an arrow in application cursor mode
        this.reset();
        return;
      case "csi":
        if (c >= 0x20 && c <= 0x3f) {
          this.seq += ch; // parameters and intermediates
          if (this.seq.length > 64) this.reset(); // no key is this long: drop it
          return;
        }
        if (c >= 0x40 && c <= 0x7e) {
          const s = this.seq + ch;
          this.reset();
          if (!isReply(s)) keys.push(s);
          return;
        }
        // A control character inside a CSI cancels it (ECMA-48); ESC starts anew.
        this.reset();
        if (ch === "\x1b") this.step(ch, keys);
        return;
      case "string":
        if (ch === "\x07" || c === 0x9c) this.reset();
        else if (ch === "\x1b") this.mode = "string-esc";
        // Its text is not kept (nothing is read from a reply): a string that never ends
        // costs no memory, and the caller's timeout() gives the keys back after SEQUENCE_WAIT_MS.
        return;
      case "string-esc":
        if (ch === "\\") this.reset();
        else {
          // ESC not followed by \ ends the string too; the ESC begins what comes next.
          this.reset();
          this.step("\x1b", keys);
          this.step(ch, keys);
        }
        return;
    }
  }
}

/**
 * A CSI the terminal sends as an answer, not a key: private-parameter replies (device
 * attributes `ESC [ ? 1 ; 2 c`, `ESC [ > 0 ; 276 ; 0 c`, mode reports `… $ y`, kitty's
 * `ESC [ ? 1 u`), cursor position and status reports (`ESC [ 12 ; 40 R`, `ESC [ 0 n`),
 * window reports (`… t`) and focus in/out (`ESC [ I`, `ESC [ O`).
 */
function isReply(s: string): boolean {
  const body = s.slice(2, -1), final = s[s.length - 1];
  if (/^[?<>=]/.test(body)) return true;
  if (/[$"' ]/.test(body)) return true;
  if (final === "c" || final === "n" || final === "t" || final === "I" || final === "O") return true;
  // CPR: ESC [ row ; col R (shift+F3 is ESC [ 1 ; 2 R on some terminals: no key of play's).
  return final === "R";
}
