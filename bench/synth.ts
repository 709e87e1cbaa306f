// Deterministic synthetic pty output for benchmarks: text lines, SGR colours, cursor
// movement, spinner redraws with \r, box drawing and CJK, and OSC 7501 reports making up
// about `reportShare` of the bytes (plus OSC 133 / 9;4 now and then).

import { rng } from "../lib/sim/rng.ts";
import { AsciicastWriter } from "../lib/recording/asciicast.ts";
import { OutputFile } from "../lib/recording/sink.ts";
export { rng };

const te = new TextEncoder();
const WORDS = [
  "compiling",
  "crate",
  "serde",
  "tokio",
  "warning:",
  "unused",
  "variable",
  "fn",
  "main",
  "→",
  "└──",
  "中文",
  "✓",
  "done",
  "src/lib.rs:42:7",
  "error[E0308]",
];

export function* synthChunks(totalBytes: number, reportShare = 0.01, seed = 7): Generator<Uint8Array> {
  const r = rng(seed);
  let produced = 0, reportBytes = 0, n = 0;
  const states = ["working", "blocked", "idle", "done"];
  while (produced < totalBytes) {
    let s = "";
    const target = 512 + Math.floor(r() * 3584);
    while (s.length < target) {
      const x = r();
      if (reportBytes < produced * reportShare) {
        const st = states[Math.floor(r() * states.length)];
        const rep = `\x1b]7501;state=${st}:id=task${n % 300}:progress=${
          n % 101
        }:app=bench:msg=V29ya2luZyBvbiBpdA==\x1b\\`;
        s += rep;
        reportBytes += rep.length;
        n++;
      } else if (x < 0.35) {
        let line = "";
        const words = 4 + Math.floor(r() * 10);
        for (let i = 0; i < words; i++) line += WORDS[Math.floor(r() * WORDS.length)] + " ";
        s += line + "\r\n";
      } else if (x < 0.55) s += `\x1b[38;5;${Math.floor(r() * 256)}m${WORDS[Math.floor(r() * WORDS.length)]}\x1b[0m `;
      else if (x < 0.7) s += `\r\x1b[2K\x1b[1;36m${"⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"[n % 10]}\x1b[0m Thinking… (esc to interrupt)`;
      else if (x < 0.8) s += `\x1b[${1 + Math.floor(r() * 32)};${1 + Math.floor(r() * 120)}H\x1b[K`;
      else if (x < 0.88) s += "│ " + "─".repeat(20) + " │\r\n";
      else if (x < 0.9) s += "\x1b]133;A\x07$ ";
      else if (x < 0.91) s += `\x1b]9;4;1;${n % 100}\x07`;
      else s += `\x1b[?2026h\x1b[H\x1b[2J\x1b[?2026l`;
    }
    const b = te.encode(s);
    produced += b.length;
    yield b;
  }
}

export interface SynthCast {
  /** Seeds of the chunk content and of the gaps between chunks. */
  chunkSeed: number;
  timeSeed: number;
  /** Largest gap between chunks, in seconds (gaps are uniform in [0, step)). */
  step: number;
  /** Every this many chunks, a truth marker (working and blocked in turn); 0: none. */
  markerEvery?: number;
}

/** A 120x32 asciicast v3 file of about `mb` MB of synthChunks output (JSON escaping adds ~1.2×). */
export function writeSynthCast(file: string, mb: number, o: SynthCast): void {
  const out = OutputFile.open(file, { overwrite: true });
  const w = new AsciicastWriter(out, 3);
  w.header({ cols: 120, rows: 32 });
  const r = rng(o.timeSeed);
  let t = 0, k = 0;
  for (const c of synthChunks(mb * 1e6 / 1.2, 0.01, o.chunkSeed)) {
    t += r() * o.step;
    if (o.markerEvery && k++ % o.markerEvery === 0) {
      w.event({ t, kind: "marker", label: k % (2 * o.markerEvery) === 1 ? "truth:working" : "truth:blocked" });
    }
    w.event({ t, kind: "output", bytes: c });
  }
  w.end(t);
  out.close();
}

/** Peak resident set size of this process so far (Linux), in MB. */
export function peakRssMB(): number {
  try {
    const status = new TextDecoder().decode(Deno_or_fs_read("/proc/self/status"));
    const m = /VmHWM:\s+([0-9]+) kB/.exec(status);
    if (m) return Number(m[1]) / 1024;
  } catch { /* not Linux */ }
  return process.memoryUsage().rss / 1048576;
}

import * as fs from "node:fs";
function Deno_or_fs_read(p: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(p));
}

export function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

/**
 * One goal (issue 12's and earlier ones), for `npm run bench`'s summary table: bench/run.ts
 * collects these lines and keeps them out of the section they come from. `met` null: a
 * goal without a pass/fail line (a speed-up the machine decides).
 */
export function goal(measurement: string, result: string, target: string, met: boolean | null, note = ""): void {
  console.log(`@goal ${JSON.stringify({ measurement, result, target, met, note })}`);
}

/** The middle value (the upper one of an even count), as every bench reports repeated runs. */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1];
}
