// `check`'s reading of one capture: the protocol's events (for the spec lint), the
// records in force when the program exited, and two timelines on one clock — the
// protocol's verdict after every event and the screen manifest's at 50 ms — then the
// findings of every check that applies.

import { type OpenOptions, openRecording } from "../lib/recording/open.ts";
import { createDetector } from "../lib/detect/kinds.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { manifestFor } from "../lib/detect/choose.ts";
import type { Timeline } from "../lib/detect/timeline.ts";
import { type ProtocolEvent, Tracker } from "../lib/osc7501/tracker.ts";
import { runDetectors } from "./clock.ts";
import { sha256File } from "./analyze.ts";
import { MIN_TERMINAL_RECORDS, type ProtocolLog, specLint } from "../lib/check/spec_lint.ts";
import { agreement } from "../lib/check/agreement.ts";
import { hookAgreement } from "../lib/check/hooks.ts";
import { compareGolden, transitions } from "../lib/check/golden.ts";
import { evaluateRules, type Rule } from "../lib/check/rules.ts";
import type { FileCheck } from "../lib/check/findings.ts";

export interface CheckOptions {
  manifest: string;
  tolerance: number;
  open: OpenOptions;
  /** The golden capture's transitions and its name, when --against was given. */
  golden?: { name: string; log: ProtocolLog };
  rules?: { file: string; rules: Rule[] };
}

export interface CaptureRead {
  log: ProtocolLog;
  protocol: Timeline;
  screen: Timeline;
  /** The hooks detector's timeline ("no hook data" throughout on a capture without hooks). */
  hooks: Timeline;
  end: number;
  manifest: { name: string; why: string };
}

/** One pass over a capture: protocol log and both timelines. */
export async function readCapture(path: string, manifest: string, open: OpenOptions): Promise<CaptureRead> {
  const rec = await openRecording(path, open);
  const chosen = await manifestFor(path, rec.header, manifest, open);
  const events: ProtocolEvent[] = [];
  const tracker = new Tracker((e) => events.push(e));
  let exit: ProtocolLog["exit"] = null, overflow: ProtocolLog["overflow"] = null;
  const detectors = [
    createDetector("protocol", resolveManifest),
    createDetector(`screen:${chosen.name}@50ms`, resolveManifest),
    createDetector("hooks", resolveManifest),
  ];
  const { timelines, end } = await runDetectors(rec.header, rec.events, detectors, {
    onEvent: (e) => {
      if (e.kind === "output") {
        tracker.feed(e.bytes, e.t);
        if (!overflow && tracker.store.size > MIN_TERMINAL_RECORDS) overflow = { t: e.t, count: tracker.store.size };
      } else if (e.kind === "exit") {
        exit = { t: e.t, live: tracker.store.list() };
        tracker.exit(e.t);
      }
    },
  });
  tracker.end(end);
  const queryAnswered = rec.header.provenance?.query_answered ?? null;
  const term = rec.header.env?.TERM ?? rec.header.termType ?? "";
  const insideTmux = rec.header.env?.TMUX !== undefined || /^(tmux|screen)\b/.test(term);
  return {
    log: { events, exit, overflow, queryAnswered, insideTmux, end },
    protocol: timelines[0],
    screen: timelines[1],
    hooks: timelines[2],
    end,
    manifest: chosen,
  };
}

export async function checkFile(path: string, o: CheckOptions): Promise<FileCheck> {
  const c = await readCapture(path, o.manifest, o.open);
  const findings = [
    ...specLint(c.log),
    ...agreement(c.protocol, c.screen, c.end, o.tolerance),
    ...hookAgreement(c.protocol, c.hooks, c.end, o.tolerance),
    ...(o.golden
      ? compareGolden(transitions(c.log.events), transitions(o.golden.log.events), o.tolerance, o.golden.name)
      : []),
    ...(o.rules
      ? evaluateRules(o.rules.rules, o.rules.file, c.log, { screen: c.screen, protocol: c.protocol }, c.end)
      : []),
  ].sort((a, b) => a.start - b.start);
  return {
    path,
    sha256: sha256File(path),
    duration: c.end,
    manifest: c.manifest,
    reports: c.log.events.filter((e) => e.type === "report" && e.source === "osc7501").length,
    findings,
  };
}
