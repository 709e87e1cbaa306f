// Input detection: asciicast v2/v3 (first line a JSON header), ttyrec (by extension
// or by frames that chain), util-linux script timing (`--timing`, or a timing file
// given directly), anything else raw bytes.

import * as path from "node:path";
import { parseHeaderLine } from "./asciicast.ts";
import { readV3Events } from "./asciicast_v3.ts";
import { readV2Events } from "./asciicast_v2.ts";
import { DEFAULT_SIZE, type Format, type Header, type Recording } from "./model.ts";
import { readRawEvents } from "./raw.ts";
import { headerFromInfo, readScriptEvents, timingFormat } from "./script_timing.ts";
import { createHash } from "node:crypto";
import { openSource, type Source } from "./source.ts";
import { looksLikeTtyrec, readTtyrecEvents, ttyrecSize } from "./ttyrec.ts";
import * as fs from "node:fs";
import { isSnapshotPath, readSnapshot, snapshotEvents, snapshotSize } from "./snapshot.ts";
import { FixtureError } from "../errors.ts";

export interface OpenOptions {
  /** Force the input format. */
  from?: Format;
  /** Size for inputs that have none (raw, ttyrec, classic script). */
  size?: { cols: number; rows: number };
  /** Raw input: fixed read size (0 = whole file). */
  chunk?: number;
  /** script: the timing file (then `path` is the output log). */
  timing?: string;
  /** script: the input log (advanced format). */
  logIn?: string;
  /**
   * Refuse to guess raw bytes (report, check: what they judge must be a capture); --raw,
   * --input-format raw and a .raw or .recording file still read as raw.
   */
  captureOnly?: boolean;
}

const CAST_EXT = new Set([".cast", ".json", ".jsonl", ".ndjson"]);
const TTYREC_EXT = new Set([".ttyrec", ".tty"]);
/** Files that say they are raw terminal output (docs/fixture-format.md §3). */
const RAW_EXT = new Set([".raw", ".recording"]);

function firstLine(head: Uint8Array): string {
  const text = new TextDecoder("utf-8").decode(head.subarray(0, Math.min(head.length, 65536)));
  const nl = text.indexOf("\n");
  return (nl < 0 ? text : text.slice(0, nl)).replace(/\r$/, "");
}

function looksLikeCastHeader(line: string): boolean {
  if (!line.trimStart().startsWith("{")) return false;
  try {
    const h = JSON.parse(line);
    return typeof h === "object" && h !== null && !Array.isArray(h) && "version" in h;
  } catch {
    return false;
  }
}

export async function openRecording(p: string, opts: OpenOptions = {}): Promise<Recording> {
  if (opts.timing || opts.from === "script") return openScript(p, opts);
  const src = await openSource(p);
  if (src.size !== null) return recordingOf(p, src, opts);
  const h = hashing(src.chunks);
  return { ...(await recordingOf(p, { ...src, chunks: h.chunks }, opts)), digest: h.digest };
}

/**
 * A pipe's chunks (its head among them), hashed as they are read: a pipe is read once,
 * by the analysis, so its sha256 is that of the bytes read, known at their end.
 */
function hashing(
  chunks: AsyncIterable<Uint8Array>,
): { chunks: AsyncIterable<Uint8Array>; digest: () => string | null } {
  const h = createHash("sha256");
  let sum: string | null = null;
  return {
    chunks: (async function* () {
      for await (const c of chunks) {
        h.update(c);
        yield c;
      }
      sum = h.digest("hex");
    })(),
    digest: () => sum,
  };
}

async function recordingOf(p: string, src: Source, opts: OpenOptions): Promise<Recording> {
  const warnings: string[] = [];
  const ext = p === "-" ? "" : path.extname(p).toLowerCase();
  const line = firstLine(src.head);
  let format: Format;
  if (opts.from) format = opts.from;
  else if (CAST_EXT.has(ext) || looksLikeCastHeader(line)) format = "v3"; // version decided by the header
  else if (p !== "-" && isSnapshotPath(p)) format = "snapshot";
  else if (TTYREC_EXT.has(ext) || looksLikeTtyrec(src.head, src.size)) format = "ttyrec";
  else if (p !== "-" && timingFormat(line) !== null) return openScript(p, { ...opts, timing: p });
  else format = "raw";

  if (format === "v3" || format === "v2") {
    if (src.head.length === 0) throw new FixtureError(p, null, "empty file (no asciicast header)");
    const { version, header } = parseHeaderLine(p, line, warnings);
    // Told v2 or v3, and the header says the other: said, not read as the header says.
    if ((opts.from === "v2" || opts.from === "v3") && opts.from !== `v${version}`) {
      throw new FixtureError(p, 1, `the header is asciicast v${version}, not ${opts.from} (--input-format)`);
    }
    return {
      format: version === 3 ? "v3" : "v2",
      path: p,
      header,
      warnings,
      events: version === 3 ? readV3Events(p, src.chunks, warnings) : readV2Events(p, src.chunks, warnings),
    };
  }
  if (format === "ttyrec") {
    const size = opts.size ?? (src.head.length > 12 ? ttyrecSize(p, src.head.subarray(12)) : null) ?? DEFAULT_SIZE;
    return { format, path: p, header: { ...size }, warnings, events: readTtyrecEvents(p, src.chunks) };
  }
  if (format === "snapshot") {
    const bytes = await readSnapshot(src.chunks);
    const header: Header = { ...snapshotSize(p, bytes, opts.size, warnings) };
    return { format, path: p, header, warnings, events: snapshotEvents(bytes) };
  }
  // Raw bytes by a guess: an empty pipe is an upstream command that failed, not a capture
  // of nothing (`redact - OUT` replaced OUT with an empty recording); and a command that
  // judges a capture (report, check) is not handed a shell script as one of no time
  // (`check mycli.sh` passed).
  const explicit = opts.from === "raw" || RAW_EXT.has(ext);
  if (!explicit && src.head.length === 0) {
    throw new FixtureError(p, null, "empty input (nothing was read; give --raw to take it as an empty raw capture)");
  }
  if (!explicit && opts.captureOnly) {
    throw new FixtureError(
      p,
      null,
      "not a capture pstlab recognises (asciicast v2/v3, ttyrec, a script log with its timing file, a screen snapshot); give --raw to read it as raw terminal output",
    );
  }
  const header: Header = { ...(opts.size ?? DEFAULT_SIZE) };
  return { format: "raw", path: p, header, warnings, events: readRawEvents(src.chunks, opts.chunk ?? 0, src.size) };
}

async function openScript(p: string, opts: OpenOptions): Promise<Recording> {
  const timing = opts.timing ?? p;
  const tsrc = await openSource(timing);
  const line = firstLine(tsrc.head);
  const fmt = timingFormat(line);
  if (fmt === null) {
    throw new FixtureError(timing, 1, "not a script timing file (expected `<delta> <bytes>` or `O|I|S|H <delta> …`)");
  }
  // H lines at the top carry the log paths and the terminal info.
  const info: Record<string, string> = {};
  for (const l of new TextDecoder().decode(tsrc.head).split("\n")) {
    const m = /^H [0-9.]+ ([A-Z_]+) ?(.*)$/.exec(l);
    if (m) info[m[1]] = m[2];
    else if (l !== "" && !l.startsWith("H ")) break;
  }
  const resolveLog = (name: string | undefined): string | undefined => {
    if (!name) return undefined;
    if (path.isAbsolute(name) && fs.existsSync(name)) return name;
    const beside = path.join(path.dirname(timing), path.basename(name));
    if (fs.existsSync(beside)) return beside;
    return fs.existsSync(name) ? name : undefined;
  };
  const out = p !== timing ? p : resolveLog(info.OUTPUT_LOG);
  // The log is read at the offsets its timing file gives, by its path (it said "-: no such file").
  if (out === "-") {
    throw new FixtureError(
      timing,
      null,
      "a script output log is read by its path, not from stdin (-): give the log's file",
    );
  }
  if (!out) {
    throw new FixtureError(
      timing,
      null,
      fmt === "classic"
        ? "classic timing file: give the output log as FILE and this file with --timing"
        : "the output log named in OUTPUT_LOG was not found; give it as FILE with --timing",
    );
  }
  const inLog = opts.logIn ?? resolveLog(info.INPUT_LOG);
  const header = headerFromInfo(timing, info, opts.size ?? DEFAULT_SIZE);
  const events = readScriptEvents({ timing, out, in: inLog }, tsrc.chunks, info);
  return { format: "script", path: p, header, warnings: [], events };
}
