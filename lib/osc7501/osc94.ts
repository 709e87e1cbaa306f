// OSC 9;4 (ConEmu progress) onto the root record (docs/osc7501.md §6, D19). The mapping is a
// reported *source* (`osc9;4`) so reports can tell it from real OSC 7501.

import type { RecordState, Report } from "./parse.ts";
import { MAX_PROGRESS } from "./limits.ts";

/** The OSC 9 payload (after `9;`) as a root report, "clear-root", or null (not mapped). */
export function mapOsc94(payload: string): Report | "clear-root" | null {
  const parts = payload.split(";");
  if (parts[0] !== "4" || parts.length < 2 || parts.length > 3) return null;
  const st = parts[1];
  const n = parts.length === 3 && /^[0-9]{1,9}$/.test(parts[2]) ? Math.min(Number(parts[2]), MAX_PROGRESS) : null;
  const root = (state: RecordState, progress: number | null): Report => ({
    state,
    id: null,
    kind: null,
    progress,
    app: null,
    title: null,
    msg: null,
  });
  switch (st) {
    case "0":
      return "clear-root";
    case "1":
      return root("working", n); // pst clamps > 100 to 100
    case "2":
      return root("error", null);
    case "3":
      return root("working", null);
    case "4":
      return root("blocked", n);
    default:
      return null; // 9;4;5 and anything else
  }
}

/**
 * Program side (pst `WithOSC94`): mirror the root record for legacy terminals.
 * working → `1;N` or `3`; blocked → `4;N` (or `4;0`); error → `2`; idle/done/clear → `0`.
 */
export function osc94Mirror(state: string, progress: number | null): string {
  switch (state) {
    case "working":
      return progress === null ? "4;3" : `4;1;${progress}`;
    case "blocked":
      return `4;4;${progress ?? 0}`;
    case "error":
      return "4;2";
    default:
      return "4;0";
  }
}
