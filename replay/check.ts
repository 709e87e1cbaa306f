// `check`'s reading of one capture: the protocol's events (for the spec lint), the
// records in force when the program exited, and two timelines on one clock — the
// protocol's verdict after every event and the screen manifest's at 50 ms — then the
// findings of every check that applies.

import { type OpenOptions, openRecording } from "../lib/recording/open.ts";
import { InputError } from "../lib/errors.ts";
import { QUERY_ANSWERED_MARKER, SESSION_STOP_MARKERS } from "../lib/recording/model.ts";
import { createDetector } from "../lib/detect/kinds.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { manifestFor } from "../lib/detect/choose.ts";
import type { Timeline } from "../lib/detect/timeline.ts";
import { type ProtocolEvent, Tracker } from "../lib/osc7501/tracker.ts";
import { runDetectors } from "./clock.ts";
import { sha256File } from "../lib/recording/source.ts";
import { MIN_TERMINAL_RECORDS, type ProtocolLog, specLint } from "../lib/check/spec_lint.ts";
import { agreement, promptLatencies } from "../lib/check/agreement.ts";
import { hookAgreement } from "../lib/check/hooks.ts";
import { compareGolden, transitions } from "../lib/check/golden.ts";
import { evaluateRules, type Rule } from "../lib/check/rules.ts";
import { type FileCheck, finding } from "../lib/check/findings.ts";

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
  /** The recorder answered the query this many seconds late (provenance query_answer_delay_s). */
  answerDelay?: number;
  /** When input was typed (record --capture-input), in order. */
  inputs: number[];
  /** The recorder's own word that it stopped the session (a script wait that timed out, --timeout), first one. */
  stopped?: { t: number; why: string };
  /** A pipe's sha256 of the bytes read (Recording.digest); undefined for a file (hashed by path). */
  digest?: string | null;
  /** With answerDelay: when each late answer was sent (its QUERY_ANSWERED_MARKER events). */
  answersSent?: number[];
}

/** One pass over a capture: protocol log and both timelines. */
export async function readCapture(path: string, manifest: string, open: OpenOptions): Promise<CaptureRead> {
  const rec = await openRecording(path, open);
  // A pane capture (`.txt`, `.ansi`, `.snap`) is one instant: no report can be early, late or
  // left behind in it, and a build log named .txt passed as one.
  if (rec.format === "snapshot") {
    throw new InputError(
      `${path}: a screen snapshot (one instant, no time): check judges a recording (report --labels scores snapshots)`,
    );
  }
  const chosen = await manifestFor(path, rec.header, manifest, open);
  const events: ProtocolEvent[] = [];
  const tracker = new Tracker((e) => events.push(e));
  const answersSent: number[] = [];
  let stopped: { t: number; why: string } | undefined;
  const inputs: number[] = [];
  const exits: ProtocolLog["exits"] = [];
  let overflow: ProtocolLog["overflow"] = null;
  const detectors = [
    createDetector("protocol", resolveManifest),
    createDetector(`screen:${chosen.name}@50ms`, resolveManifest),
    createDetector("hooks", resolveManifest),
  ];
  const { timelines, end } = await runDetectors(rec.header, rec.events, detectors, {
    onEvent: (e) => {
      if (e.kind === "marker" && e.label === QUERY_ANSWERED_MARKER) answersSent.push(e.t);
      if (e.kind === "input") inputs.push(e.t);
      if (e.kind === "marker" && !stopped && isStopMarker(e.label)) {
        stopped = { t: e.t, why: e.label.replace(/^pstlab: /, "") };
      }
      if (e.kind === "output") {
        tracker.feed(e.bytes, e.t);
        if (!overflow && tracker.store.size > MIN_TERMINAL_RECORDS) overflow = { t: e.t, count: tracker.store.size };
      } else if (e.kind === "exit") {
        exits.push({ t: e.t, live: tracker.store.list() });
        tracker.exit(e.t);
      }
    },
  });
  tracker.end(end);
  const delay = rec.header.provenance?.query_answer_delay_s;
  const answerDelay = typeof delay === "number" && delay > 0 ? delay : undefined;
  // A late answer happened only if the recorder sent it before the program ended (its markers).
  const queryAnswered = answerDelay !== undefined
    ? answersSent.length > 0
    : rec.header.provenance?.query_answered ?? null;
  // Whether pstlab itself ran inside tmux does not matter: the program wrote to pstlab's pty.
  // What matters is a multiplexer *between* the program and pstlab, i.e. the recorded command.
  const multiplexer = multiplexerOf(rec.header.command ?? "");
  return {
    log: { events, exits, overflow, queryAnswered, multiplexer, end },
    protocol: timelines[0],
    screen: timelines[1],
    hooks: timelines[2],
    end,
    manifest: chosen,
    answerDelay,
    answersSent: answerDelay !== undefined ? answersSent : undefined,
    digest: rec.digest?.(),
    stopped,
    inputs,
  };
}

/**
 * The recorder's markers for a session it ended itself (lib/session/recorder.ts): then the
 * program did not exit on its own, and what it left reported at that exit is not its
 * choice.
 */
const isStopMarker = (label: string) => Object.values(SESSION_STOP_MARKERS).some((m) => label.startsWith(m));

const MULTIPLEXERS = new Set(["tmux", "screen", "zellij", "byobu"]);

/** The multiplexer a recorded command line runs (`tmux new-session ./x`, `env A=1 /usr/bin/tmux …`), or null. */
export function multiplexerOf(command: string): string | null {
  const words = command.split(/\s+/).filter(Boolean).map((w) => w.replace(/^'(.*)'$/, "$1"));
  let i = 0;
  if (words[i] !== undefined && /(^|\/)env$/.test(words[i])) i++;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  const name = (words[i] ?? "").split("/").pop() ?? "";
  return MULTIPLEXERS.has(name) ? name : null;
}

export async function checkFile(path: string, o: CheckOptions): Promise<FileCheck> {
  const c = await readCapture(path, o.manifest, o.open);
  // A session pstlab stopped is the session's failure, not the emitter's: said once, and
  // the state the program was left in at that exit is not held against it.
  const lint = specLint(c.log).filter((f) => !(c.stopped && f.check === "left-at-exit" && f.start >= c.stopped.t));
  const findings = [
    ...(c.stopped ? [finding("session", c.stopped.t, c.stopped.t, `the recording says: ${c.stopped.why}`)] : []),
    ...lint,
    ...agreement(c.protocol, c.screen, c.end, o.tolerance, c.inputs),
    ...hookAgreement(c.protocol, c.hooks, c.end, o.tolerance),
    ...(o.golden
      ? compareGolden(transitions(c.log.events), transitions(o.golden.log.events), o.tolerance, o.golden.name)
      : []),
    ...(o.rules
      ? evaluateRules(o.rules.rules, o.rules.file, c.log, { screen: c.screen, protocol: c.protocol }, c.end)
      : []),
  ].sort((a, b) => a.start - b.start);
  const reports = c.log.events.filter((e) => e.type === "report" && e.source === "osc7501").length;
  const queries = c.log.events.filter((e) => e.type === "query").length;
  // docs/osc7501.md §5: a program may stay silent until its query is answered. One that asked, got
  // no answer in time (none, or a late one) and reported nothing made a documented choice: its
  // unreported prompts are warnings, not violations. Garbage or a hang stays a violation.
  if (reports === 0 && queries > 0 && (c.log.queryAnswered === false || (c.answerDelay ?? 0) > 0)) {
    for (const f of findings) {
      if (f.check === "prompt-unreported") {
        f.severity = "warning";
        f.message += ` (the program asked, ${
          c.log.queryAnswered ? `got its answer only at ${c.answersSent![0].toFixed(2)} s` : "got no answer"
        } and reports nothing: a documented choice)`;
      }
    }
  }
  return {
    path,
    sha256: c.digest ?? sha256File(path),
    duration: c.end,
    manifest: c.manifest,
    reports,
    queries,
    ...(c.answerDelay !== undefined ? { answerDelay: c.answerDelay, answersSent: c.answersSent } : {}),
    findings,
    latencies: promptLatencies(c.protocol, c.screen, c.end, o.tolerance),
    transitions: transitions(c.log.events),
  };
}
