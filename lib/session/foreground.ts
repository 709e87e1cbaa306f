// Which process group holds the recorded terminal: the equivalent of tcgetpgrp() on
// the master, read from /proc so it works the same on Bun and Deno (neither exposes
// tcgetpgrp): field 8 of /proc/<child>/stat is the tty's foreground group (tpgid), field 6
// the session, and /proc/<tpgid>/comm names the group's leader. The child is a session leader on the pty, so its
// stat reports that pty. Linux only: elsewhere there is no /proc and nothing is recorded
// (the detectors then say "no process data").

import * as fs from "node:fs";
import type { Foreground } from "../recording/sources.ts";

/** Whether this system lets the recorder read the foreground group (Linux /proc). */
export function foregroundAvailable(): boolean {
  try {
    return fs.existsSync(`/proc/${process.pid}/stat`);
  } catch {
    return false;
  }
}

/** The tty's foreground group as seen from `pid`'s stat, or null (gone, no tty, no /proc). */
export function readForeground(pid: number): Foreground | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  // comm (field 2) is in parentheses and may hold ") ": the fields after it follow the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const sid = Number(fields[3]), tpgid = Number(fields[5]);
  if (!Number.isInteger(tpgid) || tpgid <= 0 || !Number.isInteger(sid) || sid <= 0) return null;
  let name: string;
  try {
    name = fs.readFileSync(`/proc/${tpgid}/comm`, "utf8").replace(/\n$/, "");
  } catch {
    return null; // the group's leader is gone (it exited, the rest of its group lives on): no name to give
  }
  return { pgid: tpgid, sid, name };
}

/** Reports each change of the foreground group (its id or its leader's name, which changes on exec). */
export class ForegroundWatch {
  private last: Foreground | null = null;
  constructor(private readonly pid: number, private readonly onChange: (f: Foreground) => void) {}

  sample(): void {
    const f = readForeground(this.pid);
    if (!f || (this.last && this.last.pgid === f.pgid && this.last.name === f.name)) return;
    this.last = f;
    this.onChange(f);
  }
}
