// Issue 12: `report` next to the emulator it is built on, measured in the same run on
// the same bytes. A dense capture (a Claude-like spinner redrawn every 10 ms for 2,000 s,
// ~20 MB) through `report`'s default 15 detectors vs raw @xterm/headless parsing of the
// same chunks (configured like Screen): the ratio is the goal (≥ 0.5). Also a capture
// with one 1e6 s silent gap (< 1 s), and `--jobs 2` vs `--jobs 1` on 100 small captures.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import xterm from "@xterm/headless";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { analyzeFile } from "../replay/analyze.ts";
import { analyzeAll } from "../replay/pool.ts";
import { defaultDetectorNames } from "../lib/detect/kinds.ts";
import { openRecording } from "../lib/recording/open.ts";
import { openRecordingAhead } from "../lib/recording/ahead.ts";
import { workerUrl } from "../lib/runtime.ts";
import { sampleDetectors } from "../replay/clock.ts";
import { AsciicastWriter } from "../lib/recording/asciicast.ts";
import { OutputFile } from "../lib/recording/sink.ts";
import { goal, median } from "./synth.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-analysisbench-"));
const te = new TextEncoder();
const FRAMES = "·✢✳✶✻✽";

/** A Claude-like session: the spinner line redrawn every 10 ms, a prompt every 200 s. */
export function writeDense(file: string, seconds: number): void {
  const o = OutputFile.open(file, { overwrite: true });
  const w = new AsciicastWriter(o, 3);
  w.header({ cols: 120, rows: 32, command: "claude" });
  w.event({
    t: 0,
    kind: "output",
    bytes: te.encode(
      "\x1b[2J\x1b[H✻ Welcome to Claude Code\r\n\r\n" + "⏺ Read(src/parser.ts)\r\n  ⎿  42 lines\r\n".repeat(6),
    ),
  });
  let t = 0;
  for (let k = 0; t < seconds; k++) {
    t = Math.round(k * 10) / 1000;
    if (k % 20000 === 10000) {
      w.event({ t, kind: "marker", label: "truth:blocked:permission" });
      w.event({
        t,
        kind: "output",
        bytes: te.encode(
          "\x1b]7501;state=blocked:kind=permission\x1b\\\r\x1b[J Bash command\r\n\r\n Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n",
        ),
      });
      k += 300; // 3 s waiting for the user, no output
      t = Math.round(k * 10) / 1000;
      w.event({ t, kind: "marker", label: "truth:working" });
      w.event({
        t,
        kind: "output",
        bytes: te.encode(
          "\x1b]7501;state=working\x1b\\\x1b[6A\x1b[J⏺ Bash(npm test)\r\n  ⎿  Allowed\r\n\r\n\r\n\r\n\r\n",
        ),
      });
      continue;
    }
    if (k === 0) w.event({ t, kind: "marker", label: "truth:working" });
    const line = `\r\x1b[2K\x1b[38;5;174m${FRAMES[k % FRAMES.length]}\x1b[0m Pondering… (${Math.floor(t)}s · ↑ ${
      (k * 37) % 900 + 100
    } tokens · esc to interrupt)`;
    w.event({ t, kind: "output", bytes: te.encode(k % 100 === 0 ? `\x1b[4A${line}\x1b[4B\r` : line) });
  }
  w.end(t);
  o.close();
}

/**
 * The second dense shape (issue 25), to `bytes` bytes: every event redraws a spinner
 * line with \r + ESC[2K and a 256-colour SGR, jumps the cursor to row i%30, column
 * i%100, and writes 10–200 bytes of text; every 50 events a newline and an 80-byte log
 * line. 10 ms apart.
 */
export function writeJumpy(file: string, bytes: number): void {
  const o = OutputFile.open(file, { overwrite: true });
  const w = new AsciicastWriter(o, 3);
  w.header({ cols: 120, rows: 32, command: "claude" });
  // The truth: working throughout (the shape has no prompt; every detector is scored on it).
  w.event({ t: 0, kind: "marker", label: "truth:working" });
  let size = 0, t = 0;
  const words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ";
  for (let i = 0; size < bytes; i++) {
    t = Math.round(i * 10) / 1000;
    const n = 10 + ((i * 7919) % 191);
    const text = words.repeat(3).slice(i % 40, i % 40 + n);
    let s = `\r\x1b[2K\x1b[38;5;${i % 256}m${FRAMES[i % FRAMES.length]}\x1b[0m Pondering… (${
      Math.floor(t)
    }s · esc to interrupt)\x1b[${(i % 30) + 1};${(i % 100) + 1}H${text}`;
    if (i % 50 === 49) s += `\r\n${`log ${i} `.padEnd(80, "=")}\r\n`;
    const b = te.encode(s);
    size += b.length;
    w.event({ t, kind: "output", bytes: b });
  }
  w.end(t);
  o.close();
}

const { Terminal } = xterm as unknown as {
  Terminal: new (
    o: Record<string, unknown>,
  ) => {
    loadAddon(a: unknown): void;
    unicode: { activeVersion: string };
    _core: { writeSync(b: Uint8Array): void };
    dispose(): void;
  };
};

async function rawParse(file: string): Promise<number> {
  const rec = await openRecording(file);
  const chunks: Uint8Array[] = [];
  for await (const e of rec.events) if (e.kind === "output") chunks.push(e.bytes);
  const term = new Terminal({
    cols: rec.header.cols,
    rows: rec.header.rows,
    scrollback: 100,
    allowProposedApi: true,
    logLevel: "off",
  });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = "11";
  const t0 = performance.now();
  for (const c of chunks) term._core.writeSync(c);
  const sec = (performance.now() - t0) / 1000;
  term.dispose();
  return sec;
}

/**
 * The floor under any analysis: reading the capture, and report's own loop with no
 * detector (screen, OSC 7501 parser, tail), read the way report reads it — on a second
 * thread for a big file (lib/recording/ahead.ts) — and, for comparison, in-process.
 */
async function floor(file: string): Promise<{ read: number; apply: number; applyInProcess: number }> {
  const t0 = performance.now();
  const r1 = await openRecording(file);
  for await (const _ of r1.events) { /* read only */ }
  const read = (performance.now() - t0) / 1000;
  const loop = async (min?: number) => {
    const t0 = performance.now();
    const r = await openRecordingAhead(file, {}, { worker: workerUrl("replay/ahead_worker.ts"), min });
    const { observer } = await sampleDetectors(r.header, r.runs ? { runs: r.runs } : r.events, []);
    observer.dispose();
    return (performance.now() - t0) / 1000;
  };
  return { read, apply: await loop(), applyInProcess: await loop(Infinity) };
}

async function report(file: string): Promise<number> {
  const t0 = performance.now();
  await analyzeFile(file, { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} });
  return (performance.now() - t0) / 1000;
}

if (import.meta.main && process.argv[2] === "--jobs-child") {
  const files = fs.readFileSync(process.argv[4], "utf8").split("\n").filter((l) => l !== "");
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await analyzeAll(
    files,
    { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} },
    Number(process.argv[3]),
    () => {},
  );
  const c = process.cpuUsage(c0);
  console.log(JSON.stringify({ wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 }));
} else if (import.meta.main) {
  const seconds = Number(process.env.PSTLAB_BENCH_SECONDS ?? 2000);
  const dense = path.join(dir, "dense.cast");
  writeDense(dense, seconds);
  const size = fs.statSync(dense).size / 1e6;
  // Three rounds, interleaved, medians: one run of each moved by ±20 % on a busy machine.
  const raws: number[] = [], reps: number[] = [], fls: Awaited<ReturnType<typeof floor>>[] = [];
  for (let i = 0; i < 3; i++) {
    raws.push(await rawParse(dense));
    reps.push(await report(dense));
    fls.push(await floor(dense));
  }
  const raw = median(raws), rep = median(reps);
  const fl = {
    read: median(fls.map((f) => f.read)),
    apply: median(fls.map((f) => f.apply)),
    applyInProcess: median(fls.map((f) => f.applyInProcess)),
  };
  const r = raw / rep;
  console.log("| measurement | pstlab | baseline (same run) | ratio | goal |");
  console.log("| --- | ---: | ---: | ---: | --- |");
  console.log(
    `| report, 15 detectors, dense ${size.toFixed(1)} MB / ${seconds} s vs raw @xterm/headless parse | ${
      rep.toFixed(2)
    } s | ${raw.toFixed(2)} s | ${r.toFixed(2)} | ≥ 0.5 ${r >= 0.5 ? "met" : "NOT met"} |`,
  );
  // Where the ceiling is: the baseline parses chunks already in memory; a report must
  // first read them (JSON lines), and feed the OSC parser and the tail as well.
  console.log(
    `| · floor: read the capture only (JSON lines → events) | ${fl.read.toFixed(2)} s | ${raw.toFixed(2)} s | ${
      (raw / fl.read).toFixed(2)
    } | |`,
  );
  console.log(
    `| · floor: read + screen + OSC 7501 parser + tail, no detector (reading on a second thread, as report does) | ${
      fl.apply.toFixed(2)
    } s | ${raw.toFixed(2)} s | ${(raw / fl.apply).toFixed(2)} (the ceiling) | |`,
  );
  console.log(
    `| · the same, read in-process (one thread) | ${fl.applyInProcess.toFixed(2)} s | ${raw.toFixed(2)} s | ${
      (raw / fl.applyInProcess).toFixed(2)
    } | |`,
  );
  goal(
    `report (15 detectors) on a dense ${size.toFixed(1)} MB capture vs raw @xterm/headless parsing`,
    `${r.toFixed(2)} (${rep.toFixed(2)} s vs ${raw.toFixed(2)} s)`,
    "≥ 0.5",
    r >= 0.5,
    `reading + emulating with no detector alone: ${(raw / fl.apply).toFixed(2)}`,
  );
  // The floor on its own (issue 25's table): read + screen + OSC 7501 parser + tail.
  goal(
    "the floor: read + screen + OSC 7501 parser + tail, no detector, vs raw @xterm/headless parsing",
    `${(raw / fl.apply).toFixed(2)} (${fl.apply.toFixed(2)} s vs ${raw.toFixed(2)} s)`,
    "≥ 0.7",
    raw / fl.apply >= 0.7,
  );
  const gap = path.join(dir, "gap.cast");
  fs.writeFileSync(
    gap,
    '{"version":3,"term":{"cols":80,"rows":24}}\n[0.1,"o","\\u001b]7501;state=working\\u001b\\\\hi"]\n[1000000,"o","\\u001b]7501;state=blocked:kind=question\\u001b\\\\ok? "]\n[1,"o","\\u001b]7501;state=idle\\u001b\\\\"]\n',
  );
  const gapSec = await report(gap);
  console.log(`| report, a capture with one 1e6 s silent gap | ${gapSec.toFixed(2)} s | | | < 1 s |`);
  goal("report on a capture with one 1e6 s silent gap", `${gapSec.toFixed(2)} s`, "< 1 s", gapSec < 1);
  const small: string[] = [];
  for (let i = 0; i < 100; i++) {
    const p = path.join(dir, `s${i}.cast`);
    writeDense(p, 20);
    small.push(p);
  }
  // Each in a fresh process, as a user runs it: --jobs 1 analyses on a cold main thread,
  // --jobs N on N cold workers. CPU time (every thread of the process) says where the
  // second core went: JSC compiles and collects on helper threads, so one job already
  // keeps more than one core busy.
  const list = path.join(dir, "list.txt");
  fs.writeFileSync(list, small.join("\n"));
  const run = (jobs: number) => {
    const r = spawnSync(process.execPath, [
      import.meta.filename ?? "bench/analysis.ts",
      "--jobs-child",
      String(jobs),
      list,
    ], { encoding: "utf8" });
    return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as { wall: number; cpu: number };
  };
  const one = run(1), two = run(2);
  console.log(
    `| report --jobs 2 vs --jobs 1, 100 captures of 20 s (fresh processes) | ${two.wall.toFixed(2)} s (CPU ${
      two.cpu.toFixed(2)
    } s) | ${one.wall.toFixed(2)} s (CPU ${one.cpu.toFixed(2)} s) | ${
      (one.wall / two.wall).toFixed(2)
    }× | scales (${os.cpus().length} cores) |`,
  );
  // What two cores give this workload at best, without pstlab's pool: two independent
  // processes with --jobs 1, each on half the files, at the same time.
  const halves = [small.slice(0, 50), small.slice(50)].map((h, i) => {
    const f = path.join(dir, `half${i}.txt`);
    fs.writeFileSync(f, h.join("\n"));
    return f;
  });
  const t1 = performance.now();
  await Promise.all(halves.map((f) =>
    new Promise<void>((resolve) => {
      const c = spawn(process.execPath, [import.meta.filename ?? "bench/analysis.ts", "--jobs-child", "1", f], {
        stdio: "ignore",
      });
      c.on("exit", () => resolve());
    })
  ));
  const pair = (performance.now() - t1) / 1000;
  console.log(
    `| · two independent --jobs 1 processes, 50 captures each, at once (the machine's own ceiling) | ${
      pair.toFixed(2)
    } s | ${one.wall.toFixed(2)} s | ${(one.wall / pair).toFixed(2)}× | |`,
  );
  goal(
    "report --jobs 2 vs --jobs 1, 100 captures",
    `${(one.wall / two.wall).toFixed(2)}×`,
    `scales (${os.cpus().length} cores)`,
    null,
    `two independent processes: ${(one.wall / pair).toFixed(2)}×`,
  );
  fs.rmSync(dir, { recursive: true, force: true });
}
