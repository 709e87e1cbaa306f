// The reader's thread for `report` (lib/recording/ahead.ts): reads and packs the capture
// for the main thread and, beside it, runs the detectors that read no screen (kinds.ts
// `screen: false`: the protocol, the tail, quiet, hooks, the process table) on an
// observer with no emulator. The main thread emulates and runs the rest; each detector's
// timeline is the same wherever it ran (replay/analyze_ahead_test.ts). On the dense
// bench capture tail8k alone was a third of the main thread's time.
import { type AheadSide, serveAhead } from "../lib/recording/ahead_read.ts";
import { createDetector } from "../lib/detect/kinds.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import type { Event, Header } from "../lib/recording/model.ts";
import type { Verdict } from "../lib/detect/timeline.ts";
import { type ChangeColumns, DetectorRun } from "./clock.ts";
import type { GarbageWatch } from "../lib/runtime.ts";

/** What the main thread asks for: detector names (concrete: `auto` already chosen). */
export interface SidePayload {
  names: string[];
}

/** What comes back: per detector (in the payload's order) its change points, and the verdicts they index. */
export interface SideResult {
  columns: ChangeColumns[];
  verdicts: readonly Verdict[];
  end: number;
}

class Beside implements AheadSide {
  private run: DetectorRun | null = null;

  start(header: Header, payload: unknown, garbage: GarbageWatch): void {
    const { names } = payload as SidePayload;
    this.run = new DetectorRun(header, names.map((n) => createDetector(n, resolveManifest)), {
      screen: false,
      garbage,
    });
  }

  event(e: Event): void {
    this.run!.step(e);
  }

  finish(): { result: SideResult; transfer: Transferable[] } {
    const { sampler, end } = this.run!.finish();
    const columns = sampler.detectors.map((_, i) => sampler.columnsOf(i));
    return {
      result: { columns, verdicts: sampler.verdictTable(), end },
      transfer: columns.flatMap((c) => [c.times.buffer, c.ids.buffer]),
    };
  }
}

serveAhead(new Beside());
