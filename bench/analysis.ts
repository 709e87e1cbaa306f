// Issue 12: `report` next to the emulator it is built on, measured in the same run on
// the same bytes. A dense capture (a Claude-like spinner redrawn every 10 ms for 2,000 s,
// ~20 MB) through `report`'s default 15 detectors vs raw @xterm/headless parsing of the
// same chunks (configured like Screen): the ratio is the goal (≥ 0.5). Also a capture
// with one 1e6 s silent gap (< 1 s), and `--jobs 2` vs `--jobs 1` on 100 small captures.
// Issue 25: reading, the floor and report with the byte-level event reader vs the text
// reader before it (PSTLAB_EVENT_READER=text), same process, interleaved.
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
 * detector (screen, OSC 7501 parser, tail), read the way report reads it (in-process at
 * this size: lib/recording/ahead.ts AHEAD_MIN_BYTES) and, for comparison, read on a
 * second thread while the main thread emulates.
 */
async function floor(file: string): Promise<{ read: number; apply: number; applyTwoThreads: number }> {
  const read = await readOnly(file);
  return { read, apply: await floorLoop(file), applyTwoThreads: await floorLoop(file, 0) };
}

/** Report's own loop with no detector; `min`: read on a second thread from this size (0: always). */
async function floorLoop(file: string, min?: number): Promise<number> {
  const t0 = performance.now();
  const r = await openRecordingAhead(file, {}, { worker: workerUrl("replay/ahead_worker.ts"), min });
  const { observer } = await sampleDetectors(r.header, r.runs ? { runs: r.runs } : r.events, []);
  observer.dispose();
  return (performance.now() - t0) / 1000;
}

async function report(file: string): Promise<number> {
  const t0 = performance.now();
  await analyzeFile(file, { detectors: defaultDetectorNames("claude"), truth: "auto", open: {} });
  return (performance.now() - t0) / 1000;
}

/** Reading only: every event of the capture, nothing done with it. */
async function readOnly(file: string): Promise<number> {
  const t0 = performance.now();
  const rec = await openRecording(file);
  for await (const _ of rec.events) { /* read only */ }
  return (performance.now() - t0) / 1000;
}

/**
 * Issue 25: the byte-level event reader against the text reader it replaced (each line
 * decoded and JSON.parse'd, the `o` string encoded back to bytes; PSTLAB_EVENT_READER=text),
 * read-only, with no detector, and in a whole report, in this process, interleaved (which
 * goes first alternates), median of `runs`.
 */
async function readers(file: string, runs: number) {
  const r = {
    text: { read: [] as number[], floor: [] as number[], report: [] as number[] },
    bytes: { read: [] as number[], floor: [] as number[], report: [] as number[] },
  };
  const was = process.env.PSTLAB_EVENT_READER;
  for (let i = 0; i < runs; i++) {
    for (const kind of i % 2 ? ["bytes", "text"] as const : ["text", "bytes"] as const) {
      process.env.PSTLAB_EVENT_READER = kind;
      r[kind].read.push(await readOnly(file));
      r[kind].floor.push(await floorLoop(file, Infinity));
      r[kind].report.push(await report(file));
    }
  }
  if (was === undefined) delete process.env.PSTLAB_EVENT_READER;
  else process.env.PSTLAB_EVENT_READER = was;
  const med = (x: typeof r.text) => ({
    read: median(x.read),
    floor: median(x.floor),
    report: median(x.report),
  });
  return { text: med(r.text), bytes: med(r.bytes) };
}

if (import.meta.main && process.argv[2] === "--report-child") {
  // One report in a fresh process (cold JIT, as a user runs it); the read-ahead threshold
  // comes from the parent (PSTLAB_READ_AHEAD_MIN).
  console.log(JSON.stringify({ wall: await report(process.argv[3]) }));
} else if (import.meta.main && process.argv[2] === "--jobs-child") {
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
    applyTwoThreads: median(fls.map((f) => f.applyTwoThreads)),
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
    `| · floor: read + screen + OSC 7501 parser + tail, no detector (one thread, as report reads this size) | ${
      fl.apply.toFixed(2)
    } s | ${raw.toFixed(2)} s | ${(raw / fl.apply).toFixed(2)} (the ceiling) | |`,
  );
  console.log(
    `| · the same, read on a second thread while this one emulates | ${fl.applyTwoThreads.toFixed(2)} s | ${
      raw.toFixed(2)
    } s | ${(raw / fl.applyTwoThreads).toFixed(2)} | |`,
  );
  const rd = await readers(dense, Number(process.env.PSTLAB_BENCH_RUNS ?? 5));
  const mbps = (s: number) => `${(size / s).toFixed(0)} MB/s`;
  console.log(
    `| read the capture only: byte-level event reader vs the text reader before it (median of 5, interleaved) | ${
      rd.bytes.read.toFixed(3)
    } s (${mbps(rd.bytes.read)}) | ${rd.text.read.toFixed(3)} s (${mbps(rd.text.read)}) | ${
      (rd.text.read / rd.bytes.read).toFixed(2)
    }× | |`,
  );
  console.log(
    `| the floor read in-process (one thread): byte-level event reader vs the text reader before it | ${
      rd.bytes.floor.toFixed(2)
    } s | ${rd.text.floor.toFixed(2)} s | ${(rd.text.floor / rd.bytes.floor).toFixed(2)}× | |`,
  );
  console.log(
    `| report, 15 detectors: byte-level event reader vs the text reader before it (median of 5, interleaved) | ${
      rd.bytes.report.toFixed(2)
    } s | ${rd.text.report.toFixed(2)} s | ${(rd.text.report / rd.bytes.report).toFixed(2)}× | |`,
  );
  goal(
    "reading the dense capture: byte-level event reader vs the text reader before it (issue 25)",
    `${mbps(rd.bytes.read)} vs ${mbps(rd.text.read)} (${(rd.text.read / rd.bytes.read).toFixed(2)}×)`,
    "faster",
    rd.bytes.read < rd.text.read,
    `report, 15 detectors: ${rd.bytes.report.toFixed(2)} s vs ${rd.text.report.toFixed(2)} s`,
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
  // Two threads (lib/recording/ahead.ts: the capture read, and the detectors that read no
  // screen run, beside the emulating thread) against one, on a capture past the threshold,
  // each in fresh processes, interleaved, median of 3.
  const big = path.join(dir, "dense-big.cast");
  writeDense(big, seconds * 2.25);
  const bigMB = fs.statSync(big).size / 1e6;
  const child = (min: string) => {
    const r = spawnSync(process.execPath, [import.meta.filename ?? "bench/analysis.ts", "--report-child", big], {
      encoding: "utf8",
      env: { ...process.env, PSTLAB_READ_AHEAD_MIN: min },
    });
    return (JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as { wall: number }).wall;
  };
  const oneThread: number[] = [], twoThreads: number[] = [];
  for (let i = 0; i < 3; i++) {
    twoThreads.push(child("0"));
    oneThread.push(child(String(Number.MAX_SAFE_INTEGER)));
  }
  const tOne = median(oneThread), tTwo = median(twoThreads);
  console.log(
    `| report, 15 detectors, dense ${bigMB.toFixed(1)} MB, fresh processes: two threads vs one | ${
      tTwo.toFixed(2)
    } s | ${tOne.toFixed(2)} s | ${(tOne / tTwo).toFixed(2)}× | faster |`,
  );
  goal(
    `report on a ${bigMB.toFixed(0)} MB capture: two threads (read ahead, screenless detectors beside) vs one`,
    `${(tOne / tTwo).toFixed(2)}× (${tTwo.toFixed(2)} s vs ${tOne.toFixed(2)} s)`,
    "faster",
    tTwo < tOne,
    "below 32 MiB a capture is read on one thread",
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
