// The terminal pstlab runs in, for the recorder (lib/session/terminal.ts): stdin, fd 1,
// the process's signals and SIGWINCH. Only lib/cli touches these.

import { raw } from "../stdio.ts";
import { stripInvisible } from "../text.ts";
import { STOP_SIGNALS, type StopSignal, type Terminal } from "../session/terminal.ts";

type Stdin = NodeJS.ReadStream & { setRawMode?: (b: boolean) => void; isTTY?: boolean };

const te = new TextEncoder();
const nothing = () => {};

/**
 * `show`: the user sees the session (interactive recording; else output is dropped and
 * the window is not followed). `input`: stdin is read (a person typing, or piped input
 * in a headless run). Signals reach the session either way.
 */
export function processTerminal(o: { show: boolean; input: boolean }): Terminal {
  const stdin = process.stdin as unknown as Stdin;
  const stdout = process.stdout as { columns?: number; rows?: number };
  let titlePushed = false;
  const show = (bytes: Uint8Array) => {
    if (o.show) raw("recorder passthrough", bytes);
  };
  return {
    interactive: o.show && !!stdin.isTTY,
    listen(onData, onEnd) {
      if (!o.input) return nothing;
      const data = (c: Uint8Array | string) => onData(typeof c === "string" ? te.encode(c) : new Uint8Array(c));
      stdin.on("data", data);
      stdin.on("end", onEnd);
      stdin.resume();
      return () => {
        stdin.off("data", data);
        stdin.off("end", onEnd);
        stdin.pause();
      };
    },
    setRaw(on) {
      try {
        stdin.setRawMode?.(on);
      } catch { /* the terminal is gone */ }
    },
    write: show,
    size: () => (stdout.columns && stdout.rows ? { cols: stdout.columns, rows: stdout.rows } : null),
    onResize(f) {
      if (!o.show) return nothing;
      process.on("SIGWINCH", f);
      return () => process.off("SIGWINCH", f);
    },
    onSignal(f) {
      const handlers = STOP_SIGNALS.map((s) => [s, () => f(s)] as [StopSignal, () => void]);
      for (const [s, h] of handlers) process.on(s, h);
      return () => {
        for (const [s, h] of handlers) process.off(s, h);
      };
    },
    // The user's title is pushed before the first change and popped after (XTWINOPS 22/23).
    title(text) {
      if (text === null) {
        if (titlePushed) show(te.encode("\x1b[23;0t"));
        titlePushed = false;
        return;
      }
      if (!titlePushed) show(te.encode("\x1b[22;0t"));
      titlePushed = true;
      // C1 controls and bidi formatting too: a title is shown by the terminal's own chrome.
      show(te.encode(`\x1b]2;${stripInvisible(text).replace(/[\x00-\x1f\x7f-\x9f]/g, "")}\x07`));
    },
    onExit(f) {
      process.on("exit", f);
      return () => process.off("exit", f);
    },
  };
}
