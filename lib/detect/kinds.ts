// Detector names and the table of detector kinds. A name is `KIND`, `KIND:MANIFEST` or
// `quiet>=Ns`, then an optional `@INTERVAL` (`screen:claude@50ms`, `tail8k:auto`,
// `hash@500ms`). Every caller — building detectors, the default set, `auto`'s
// substitution, pooling in the report, gates, snapshot scoring, help and the error for
// an unknown name — reads names through parseDetectorName and the KINDS table, so a new
// kind of detector is one row here.
//
// `@` inside a manifest path: the interval is what follows the last `@`, unless that
// text holds a `/` or ends in `.toml` (then it is part of the path). A name that would
// read otherwise is written with its interval spelled out, so every name round-trips.

import { DetectorError } from "../errors.ts";
import type { Manifest } from "./manifest.ts";
import { resolveManifest } from "./bundled.ts";
import { AUTO, type ManifestChoice, manifestFor } from "./choose.ts";
import type { Header } from "../recording/model.ts";
import type { SourceName } from "../recording/sources.ts";
import type { OpenOptions } from "../recording/open.ts";
import {
  CombinedDetector,
  type Detector,
  HashDetector,
  HerdrDetector,
  HooksDetector,
  ProcessDetector,
  ProtocolDetector,
  QuestionDetector,
  QuietDetector,
  ScreenDetector,
  TailDetector,
  TitleDetector,
} from "./detectors.ts";

export interface DetectorName {
  kind: string;
  /** A bundled manifest's name, a path, or `auto`; null for a kind that takes none. */
  manifest: string | null;
  /** quiet's threshold in seconds; null for the other kinds. */
  seconds: number | null;
  /** The interval as written, in seconds (0: after every write); null: the kind's default. */
  every: number | null;
}

/** What a detector is built from, once its manifest is loaded. */
export interface DetectorArgs {
  /** The detector's name (canonicalName): the row label of every report. */
  name: string;
  every: number;
  manifest: Manifest | null;
  seconds: number | null;
}

export interface DetectorKind {
  kind: string;
  /** What follows the kind: `:<manifest>`, `>=<N>s`, or nothing. */
  takes: "manifest" | "seconds" | null;
  /** The default interval in seconds (0: after every write); null: the detector keeps its own timing and takes no @interval. */
  every: number | null;
  /** The interval is part of every name (`screen:claude@50ms`), not only when it is not the default. */
  alwaysInterval?: boolean;
  /** It judges one instant (no timers, no history), so it can score a screen snapshot. */
  instant: boolean;
  /**
   * It reads the emulated screen (rows, cursor, title, OSC 9). One that does not can be
   * judged on an observer with no emulator (Observer `screen: false`): report runs those
   * beside the reader, on the second thread (replay/ahead_worker.ts).
   */
  screen: boolean;
  /** Its entries in the default set (`report` without --detectors), in order. */
  defaults: Pick<DetectorName, "seconds" | "every">[];
  /** In the default set only when a capture has this source (recording/sources.ts declaredSources). */
  source?: SourceName;
  /** How it is written in help and errors. */
  shape: string;
  /** One line for help. */
  help: string;
  make(a: DetectorArgs): Detector;
}

/** The default sampling period (the osFoundry supervisor's 50 ms). */
export const DEFAULT_EVERY = 0.05;
export const DEFAULT_QUIET = [0.5, 1, 2, 3, 5, 8];

const m = (a: DetectorArgs) => a.manifest!;

/** Every kind of detector, in the order of the default set and of help. */
export const KINDS: readonly DetectorKind[] = [
  {
    kind: "protocol",
    takes: null,
    every: 0,
    instant: false,
    screen: false,
    defaults: [{ seconds: null, every: null }],
    shape: "protocol",
    help: "the program's own OSC 7501 reports: needs-you = the record in front is blocked",
    make: (a) => new ProtocolDetector(a.name, a.every),
  },
  {
    kind: "hooks",
    takes: null,
    every: 0,
    instant: false,
    screen: false,
    defaults: [{ seconds: null, every: null }],
    source: "hooks",
    shape: "hooks",
    help: "the agent's hooks (record --hooks, pstlab hook): the newest hook's state",
    make: (a) => new HooksDetector(a.name, a.every),
  },
  {
    kind: "process",
    takes: null,
    every: 0,
    instant: false,
    screen: false,
    defaults: [{ seconds: null, every: null }],
    source: "process",
    shape: "process",
    help: "the process table: idle while the shell holds the terminal, else working (never blocked)",
    make: (a) => new ProcessDetector(a.name, a.every),
  },
  {
    kind: "screen",
    takes: "manifest",
    every: DEFAULT_EVERY,
    alwaysInterval: true,
    instant: true,
    screen: true,
    defaults: [{ seconds: null, every: 0.05 }, { seconds: null, every: 0.7 }],
    shape: "screen:<m>@<iv>",
    help: "the manifest's rules on the emulated screen, sampled every interval",
    make: (a) => new ScreenDetector(a.name, m(a), a.every),
  },
  {
    kind: "tail8k",
    takes: "manifest",
    every: DEFAULT_EVERY,
    instant: true,
    screen: false,
    defaults: [{ seconds: null, every: null }],
    shape: "tail8k:<m>",
    help: "the same rules on the last 8 KB of output, escapes stripped (the naive way)",
    make: (a) => new TailDetector(a.name, m(a), a.every),
  },
  {
    kind: "question",
    takes: null,
    every: DEFAULT_EVERY,
    instant: true,
    screen: true,
    defaults: [{ seconds: null, every: null }],
    shape: "question",
    help: "any screen line that ends in ?",
    make: (a) => new QuestionDetector(a.name, a.every),
  },
  {
    kind: "quiet",
    takes: "seconds",
    every: DEFAULT_EVERY,
    instant: false,
    screen: false,
    defaults: DEFAULT_QUIET.map((seconds) => ({ seconds, every: null })),
    shape: "quiet>=<N>s",
    help: "no output for N seconds",
    make: (a) => new QuietDetector(a.name, a.seconds!, a.every),
  },
  {
    kind: "title",
    takes: "manifest",
    every: DEFAULT_EVERY,
    instant: true,
    screen: true,
    defaults: [{ seconds: null, every: null }],
    shape: "title:<m>",
    help: "the manifest's title and progress rules only (spinner glyphs…)",
    make: (a) => new TitleDetector(a.name, m(a), a.every),
  },
  {
    kind: "hash",
    takes: null,
    every: 0.5,
    alwaysInterval: true,
    instant: false,
    screen: true,
    defaults: [{ seconds: null, every: 0.5 }],
    shape: "hash@500ms",
    help: "Claude Squad's: the screen unchanged since the last sample = needs you",
    make: (a) => new HashDetector(a.name, a.every),
  },
  {
    kind: "combined",
    takes: "manifest",
    every: DEFAULT_EVERY,
    instant: true,
    screen: true,
    defaults: [{ seconds: null, every: null }],
    shape: "combined:<m>",
    help: "osFoundry's order: a blocked screen, then the program's report, then the screen",
    make: (a) => new CombinedDetector(a.name, m(a), a.every),
  },
  {
    kind: "herdr",
    takes: "manifest",
    every: null,
    instant: false,
    screen: true,
    defaults: [{ seconds: null, every: null }],
    shape: "herdr:<m>",
    help: "Herdr's publishing: 300 ms tick, working→idle confirmed, 3 s startup grace",
    make: (a) => new HerdrDetector(a.name, m(a)),
  },
];

const BY_KIND = new Map(KINDS.map((k) => [k.kind, k]));

export function kindOf(name: DetectorName): DetectorKind {
  return BY_KIND.get(name.kind)!;
}

/** The shortest and longest sampling intervals, in seconds. */
export const MIN_INTERVAL = 0.001;
export const MAX_INTERVAL = 3600;

/** "50ms", "0.7s", "2s", "write" → seconds (0 = every write). */
export function parseInterval(s: string): number {
  if (s === "write") return 0;
  const match = /^([0-9]+(?:\.[0-9]+)?)(ms|s)$/.exec(s);
  if (!match) throw new DetectorError(`bad sampling interval "@${s}" (use e.g. @50ms, @0.7s, @write)`);
  const sec = match[2] === "ms" ? Number(match[1]) / 1000 : Number(match[1]);
  // Below 1 ms a name could not say its interval (`@0.0001ms` read back as `@0s`), and a
  // sample per 0.1 µs of capture time would never finish.
  if (sec < MIN_INTERVAL || sec > MAX_INTERVAL) {
    throw new DetectorError(`sampling interval "@${s}" out of range (1ms to 3600s, or @write)`);
  }
  return sec;
}

export function formatInterval(sec: number): string {
  if (sec === 0) return "write";
  const ms = Math.round(sec * 1000);
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** Text after a name's last `@` that belongs to a manifest path, not an interval. */
const pathTail = (tail: string) => tail.includes("/") || tail.endsWith(".toml");

const unknown = (text: string) =>
  new DetectorError(`unknown detector "${text}" (known: ${KINDS.map((k) => k.shape).join(", ")})`);

export function parseDetectorName(text: string): DetectorName {
  const at = text.lastIndexOf("@");
  const tail = at > 0 && !pathTail(text.slice(at + 1)) ? text.slice(at + 1) : null;
  const base = tail === null ? text : text.slice(0, at);
  const match = /^([a-z0-9]+)(?::(.*)|>=([0-9]+(?:\.[0-9]+)?)s)?$/s.exec(base);
  const row = match ? BY_KIND.get(match[1]) : undefined;
  if (!match || !row) throw unknown(text);
  const [, kind, manifest, seconds] = match;
  if ((row.takes === "seconds") !== (seconds !== undefined)) throw unknown(text);
  if (row.takes === "manifest" && !manifest) {
    throw new DetectorError(`detector "${text}" needs a manifest, e.g. ${kind}:claude`);
  }
  if (row.takes !== "manifest" && manifest !== undefined) {
    throw new DetectorError(`detector "${text}" takes no manifest (${row.shape})`);
  }
  let every: number | null = null;
  if (tail !== null && row.every === null) {
    // A kind with its own timing: an interval is refused, anything else is the path's.
    if (/^(?:write|[0-9.]+m?s)$/.test(tail)) {
      throw new DetectorError(`${row.shape.replace("<m>", "<manifest>")} has its own timing; no @interval`);
    }
    return { kind, manifest: text.slice(kind.length + 1), seconds: null, every: null };
  }
  if (tail !== null) every = parseInterval(tail);
  return { kind, manifest: manifest ?? null, seconds: seconds === undefined ? null : Number(seconds), every };
}

/** The name as written: the interval appears when it was given (or when the manifest's `@` needs it). */
export function formatDetectorName(n: DetectorName): string {
  const row = kindOf(n);
  const base = n.kind + (n.manifest !== null ? `:${n.manifest}` : "") + (n.seconds !== null ? `>=${n.seconds}s` : "");
  if (row.every === null) return base;
  const at = n.manifest?.lastIndexOf("@") ?? -1;
  const ambiguous = at >= 0 && !pathTail(n.manifest!.slice(at + 1));
  const every = n.every ?? (ambiguous ? row.every : null);
  return every === null ? base : `${base}@${formatInterval(every)}`;
}

/** The name a detector carries (its report row): its interval as the kind spells it. */
export function canonicalName(n: DetectorName): string {
  const row = kindOf(n);
  if (row.every === null) return formatDetectorName(n);
  const every = n.every ?? row.every;
  return formatDetectorName({ ...n, every: row.alwaysInterval || every !== row.every ? every : null });
}

/** Builds a detector from its name; `manifests` loads a manifest by name or path. */
export function createDetector(name: string, manifests: (spec: string) => Manifest = resolveManifest): Detector {
  const n = parseDetectorName(name);
  const row = kindOf(n);
  const manifest = n.manifest === null ? null : manifests(n.manifest);
  return row.make({
    name: canonicalName({ ...n, manifest: manifest?.name ?? null }),
    every: n.every ?? row.every ?? 0,
    manifest,
    seconds: n.seconds,
  });
}

/**
 * The default detector set for a manifest (the reference table's rows, plus the rest);
 * a kind that reads a source beyond the bytes (process, hooks) only when `sources` has it.
 */
export function defaultDetectorNames(manifest: string, sources: ReadonlySet<SourceName> = new Set()): string[] {
  return KINDS.filter((k) => !k.source || sources.has(k.source)).flatMap((k) =>
    k.defaults.map((d) =>
      formatDetectorName({ kind: k.kind, manifest: k.takes === "manifest" ? manifest : null, ...d })
    )
  );
}

/** Whether the name's manifest is `auto` (chosen per recording). */
export function usesAuto(name: string): boolean {
  return parseDetectorName(name).manifest === AUTO;
}

/** A name with `auto` as its manifest (`screen:auto@50ms`) made concrete. */
export function withManifest(name: string, manifest: string): string {
  const n = parseDetectorName(name);
  return n.manifest === AUTO ? formatDetectorName({ ...n, manifest }) : name;
}

/** The manifest a name names (`auto` included), or null for a kind that takes none. */
export function manifestOf(name: string): string | null {
  return parseDetectorName(name).manifest;
}

/**
 * The manifest one detector reads on a capture: the one its name gives (`tail8k:claude`
 * reads claude whatever --manifest says), else the capture's (manifestFor).
 */
export function manifestForDetector(
  name: string,
  capture: { path: string; header: Header },
  flag: string | undefined,
  open: OpenOptions,
): Promise<ManifestChoice> {
  const named = manifestOf(name);
  if (named !== null && named !== AUTO) return Promise.resolve({ name: named, why: "named by --detector" });
  return manifestFor(capture.path, capture.header, flag, open);
}

/** The name a detector's rows pool under when files chose different manifests (`screen:auto@50ms`). */
export function poolName(name: string): string {
  const n = parseDetectorName(name);
  return n.manifest === null ? name : canonicalName({ ...n, manifest: AUTO });
}

/** Whether `name` (a gate, say) is the detector `asked` builds, `auto` in `asked` standing for any manifest. */
export function sameDetector(name: string, asked: string): boolean {
  let a: DetectorName, b: DetectorName;
  try {
    [a, b] = [parseDetectorName(name), parseDetectorName(asked)];
  } catch {
    return false; // a name that does not parse is nobody's
  }
  return canonicalName({ ...a, manifest: b.manifest === AUTO ? AUTO : a.manifest }) === canonicalName(b);
}

/**
 * Whether a name the user gave (`--gate`, `--fail-on-worse`) names a report row: the same
 * detector, or, when the user's name says `auto`, the detector auto resolved to (per file:
 * `screen:auto@50ms` is the row `screen:generic@50ms` when every file chose generic, and the
 * pooled row `screen:auto@50ms` when files chose differently).
 */
export function namesRow(given: string, row: string): boolean {
  if (canonicalIfValid(given) === canonicalIfValid(row)) return true;
  try {
    return usesAuto(given) && sameDetector(row, given);
  } catch {
    return false; // a name that does not parse names no row
  }
}

/** The canonical spelling of a name that parses; any other text as it is (its error comes later). */
export function canonicalIfValid(name: string): string {
  try {
    return canonicalName(parseDetectorName(name));
  } catch {
    return name;
  }
}

/** Whether the named detector judges one instant, and so can score a screen snapshot. */
export function judgesInstant(name: string): boolean {
  return kindOf(parseDetectorName(name)).instant;
}

/** The kinds that judge an instant, as a phrase: "screen, tail8k, … or combined". */
export function instantKinds(): string {
  const kinds = KINDS.filter((k) => k.instant).map((k) => k.kind);
  return `${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)}`;
}

/** Snapshot scoring's default set: one of each kind that judges an instant. */
export function instantDetectorNames(manifest: string): string[] {
  return KINDS.filter((k) => k.instant).map((k) =>
    formatDetectorName({ kind: k.kind, manifest: k.takes === "manifest" ? manifest : null, seconds: null, every: null })
  );
}

/** Help lines: every kind's shape and what it does. */
export function detectorHelp(indent = "  "): string[] {
  const width = Math.max(...KINDS.map((k) => k.shape.length)) + 2;
  return KINDS.map((k) => `${indent}${k.shape.padEnd(width)}${k.help}`);
}

/** Whether the named detector reads the emulated screen (KINDS `screen`). */
export function readsScreen(name: string): boolean {
  return kindOf(parseDetectorName(name)).screen;
}

/** The first name given twice (as the same detector: `screen:claude` is `screen:claude@50ms`), or null. */
export function repeatedDetector(names: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const n of names) {
    const c = canonicalIfValid(n);
    if (seen.has(c)) return n;
    seen.add(c);
  }
  return null;
}
