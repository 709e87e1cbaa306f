// What the recorder needs from the terminal it runs in, handed to it rather than taken
// from `process` (asciinema's Tty trait): typed or piped input, raw mode, the bytes shown
// to the user, the window size and its changes, the signals that end a recording, the
// window title (to confirm a label), and a last chance to restore it all at exit. The
// real one is lib/cli/terminal.ts; `nullTerminal` is for headless runs with nothing
// attached, and tests hand the session a fake.

export interface TerminalSize {
  cols: number;
  rows: number;
}

/** The signals that end a recording (the child is stopped, the file kept). */
export const STOP_SIGNALS = ["SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

export interface Terminal {
  /** A person types here: raw mode and the labelling keys apply. */
  readonly interactive: boolean;
  /** Delivers typed or piped bytes, and `onEnd` once piped input runs out; returns a function that stops listening. */
  listen(onData: (bytes: Uint8Array) => void, onEnd: () => void): () => void;
  /** Raw mode on or off; never throws (the terminal may be gone). */
  setRaw(on: boolean): void;
  /** Bytes for the user to see (a headless terminal drops them). */
  write(bytes: Uint8Array): void;
  /** The window size now, or null when there is no window. */
  size(): TerminalSize | null;
  /** Calls `f` when the window size changes; returns a function that stops it. */
  onResize(f: () => void): () => void;
  /** Calls `f` with each stop signal the recorder receives; returns a function that stops it. */
  onSignal(f: (signal: StopSignal) => void): () => void;
  /** Shows `text` as the window title (the user's own title kept to come back to), or brings the user's back (null). */
  title(text: string | null): void;
  /** Calls `f` as the process exits, to restore the terminal on every path; returns a function that stops it. */
  onExit(f: () => void): () => void;
}

const nothing = () => {};

/** No input, no output, no window, no signals: a session driven only by its script or driver. */
export function nullTerminal(): Terminal {
  return {
    interactive: false,
    listen: () => nothing,
    setRaw: nothing,
    write: nothing,
    size: () => null,
    onResize: () => nothing,
    onSignal: () => nothing,
    title: nothing,
    onExit: () => nothing,
  };
}
