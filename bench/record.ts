// Issue 4: `seq 1 3000000` recorded headless, wall time next to util-linux
// `script -q -c … /dev/null`, to asciinema 2.2 `rec` (when installed) and to running it
// directly, in one run (goals: ≤ 1.3× script from issue 4, ≤ 1.0× both from issue 12).
// Issue 25: peak RSS of each (GNU time's %M), `record -- true` as the recorder's idle
// footprint (goal: the flood adds ≤ 16 MiB to it), and the bytes recorded: the sha256 of
// the recording's output equals that of script's log less the header and footer lines.
// PSTLAB_BIN=path measures a compiled pstlab instead of `bun main.ts`; PSTLAB_BEFORE=path
// measures a second build (an older one) in the same runs, interleaved, as "before"; RUNS=n
// runs each (default 3).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { goal, median as med } from "./synth.ts";

const N = Number(process.argv[2] ?? 3_000_000);
const here = import.meta.dirname ?? ".";
const main = path.resolve(here, "../main.ts");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-recbench-"));
const devnull = () => fs.openSync("/dev/null", "w");

const TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const rss: Record<string, number[]> = {
  script: [],
  asciinema: [],
  pstlab: [],
  idle: [],
  before: [],
  beforeIdle: [],
  esc: [],
  beforeEsc: [],
};
/**
 * A flood the screen must see (every line coloured: the headless screen starts at its first
 * escape), half as many lines as the seq flood: peak RSS only, no goal.
 */
const ESC_FLOOD = `yes "$(printf '\\033[32mline of green text\\033[0m')" | head -n ${N >> 1}`;
/** argv of the pstlab measured, and of the one measured as "before" (PSTLAB_BEFORE), if any. */
const pstlab = process.env.PSTLAB_BIN ? [process.env.PSTLAB_BIN] : [process.execPath, main];
const before = process.env.PSTLAB_BEFORE ? [process.env.PSTLAB_BEFORE] : null;

/** Wall seconds; the peak RSS (KiB, GNU time) goes to rss[key] when time is there. */
function wall(cmd: string, args: string[], key?: string): number {
  const t0 = performance.now();
  const rssFile = path.join(dir, "rss.txt");
  const [c, a] = TIME && key ? [TIME, ["-f", "%M", "-o", rssFile, cmd, ...args]] : [cmd, args];
  const r = spawnSync(c, a, { stdio: ["ignore", devnull(), "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`);
  const sec = (performance.now() - t0) / 1000;
  if (TIME && key) rss[key].push(Number(fs.readFileSync(rssFile, "utf8").trim().split("\n").at(-1)) / 1024);
  return sec;
}

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

const runs = Number(process.env.RUNS ?? 3);
const rows: Record<string, number[]> = { direct: [], script: [], asciinema: [], pstlab: [], before: [] };
const hasAsciinema = spawnSync("asciinema", ["--version"]).status === 0;
let size = 0;
let same = { ours: "", theirs: "" };
for (let i = 0; i < runs; i++) {
  rows.direct.push(wall("seq", ["1", String(N)]));
  const log = path.join(dir, "script.log");
  rows.script.push(wall("script", ["-q", "-c", `seq 1 ${N}`, log], "script"));
  if (hasAsciinema) {
    rows.asciinema.push(
      wall("asciinema", ["rec", "-q", "--overwrite", "-c", `seq 1 ${N}`, path.join(dir, `a${i}.cast`)], "asciinema"),
    );
  }
  const out = path.join(dir, `seq${i}.cast`);
  for (
    const [argv, key, idleKey, escKey, tag] of [
      [pstlab, "pstlab", "idle", "esc", ""],
      [before, "before", "beforeIdle", "beforeEsc", "b"],
    ] as const
  ) {
    if (!argv) continue;
    const [cmd, ...pre] = argv;
    const file = path.join(dir, `seq${i}${tag}.cast`);
    rows[key].push(wall(cmd, [...pre, "record", "-q", "--headless", "-o", file, "--", "seq", "1", String(N)], key));
    wall(
      cmd,
      [...pre, "record", "-q", "--headless", "-o", path.join(dir, `idle${i}${tag}.cast`), "--", "true"],
      idleKey,
    );
    const escFile = path.join(dir, `esc${i}${tag}.cast`);
    wall(cmd, [...pre, "record", "-q", "--headless", "-o", escFile, "--", "sh", "-c", ESC_FLOOD], escKey);
    fs.rmSync(escFile);
  }
  size = fs.statSync(out).size;
  if (i === 0) {
    // The bytes: script's log is "Script started …\n" + output + "\nScript done …\n".
    const l = fs.readFileSync(log);
    const text = l.toString("latin1");
    const theirs = l.subarray(text.indexOf("\n") + 1, text.lastIndexOf("\nScript done"));
    const raw = path.join(dir, "seq.raw");
    wall(pstlab[0], [...pstlab.slice(1), "convert", out, raw, "--format", "raw"]);
    same = { ours: sha(fs.readFileSync(raw)), theirs: sha(theirs) };
  }
}
console.log(`record: seq 1 ${N} (${runs} runs each, median wall time; recording ${(size / 1e6).toFixed(1)} MB)`);
console.log("| command | wall s | × script | peak RSS MiB (median) |");
console.log("| --- | ---: | ---: | ---: |");
for (
  const [k, label] of [
    ["direct", "seq (direct, to /dev/null)"],
    ["script", "script -q -c … /dev/null"],
    [
      "asciinema",
      "asciinema rec -q -c …",
    ],
    ["pstlab", "pstlab record --headless"],
    ["before", `before: ${before?.[0]} record --headless`],
  ] as const
) {
  if (k === "before" && !before) continue;
  if (rows[k].length === 0) {
    console.log(`| ${label} | (not installed) | | |`);
    continue;
  }
  const mem = k in rss && rss[k].length ? med(rss[k]).toFixed(0) : "";
  console.log(
    `| ${label} | ${med(rows[k]).toFixed(2)} | ${(med(rows[k]) / med(rows.script)).toFixed(2)} | ${mem} |`,
  );
}
if (rss.idle.length) {
  console.log(`| pstlab record --headless -- true (the idle footprint) | | | ${med(rss.idle).toFixed(0)} |`);
}
console.log(
  `| pstlab record --headless, ${N >> 1} coloured lines (the screen runs) | | | ${med(rss.esc).toFixed(0)} |`,
);
if (rss.beforeIdle.length) {
  console.log(`| before: record --headless -- true | | | ${med(rss.beforeIdle).toFixed(0)} |`);
  console.log(`| before: ${N >> 1} coloured lines | | | ${med(rss.beforeEsc).toFixed(0)} |`);
  console.log(
    `\nbefore → now, same runs: the flood adds +${(med(rss.before) - med(rss.beforeIdle)).toFixed(0)} → +${
      (med(rss.pstlab) - med(rss.idle)).toFixed(0)
    } MiB to the idle recorder (${med(rss.beforeIdle).toFixed(0)} → ${med(rss.idle).toFixed(0)} MiB)`,
  );
}
console.log(
  `\nbytes recorded: sha256 of the recording's output ${
    same.ours.slice(0, 16)
  }…, of script's log less its header and footer ${same.theirs.slice(0, 16)}… — ${
    same.ours === same.theirs ? "identical" : "DIFFERENT"
  }`,
);
goal(
  "record of seq 1 3000000: output bytes identical to script's log",
  same.ours === same.theirs ? "identical (sha256)" : "different",
  "identical",
  same.ours === same.theirs,
);
if (rss.idle.length) {
  const added = med(rss.pstlab) - med(rss.idle);
  const others = [
    `script ${med(rss.script).toFixed(0)} MiB`,
    ...(rss.asciinema.length ? [`asciinema rec ${med(rss.asciinema).toFixed(0)} MiB`] : []),
  ];
  console.log(
    `goal: the flood adds ≤ 16 MiB to the idle recorder: ${added <= 16 ? "met" : "NOT met"} (+${added.toFixed(0)} MiB)`,
  );
  goal(
    "record --headless of seq 1 3000000: peak RSS over record -- true",
    `+${added.toFixed(0)} MiB (${med(rss.pstlab).toFixed(0)} vs ${med(rss.idle).toFixed(0)} MiB)`,
    "≤ +16 MiB",
    added <= 16,
    others.join(", "),
  );
}
const ratio = med(rows.pstlab) / med(rows.script);
console.log(`goal ≤ 1.0× script: ${ratio <= 1.0 ? "met" : "NOT met"} (${ratio.toFixed(2)}×)`);
goal("record --headless of seq 1 3000000 vs script", `${ratio.toFixed(2)}×`, "≤ 1.0×", ratio <= 1.0);
if (hasAsciinema) {
  const a = med(rows.pstlab) / med(rows.asciinema);
  console.log(`goal ≤ 1.0× asciinema rec: ${a <= 1.0 ? "met" : "NOT met"} (${a.toFixed(2)}×)`);
  goal("record --headless of seq 1 3000000 vs asciinema rec", `${a.toFixed(2)}×`, "≤ 1.0×", a <= 1.0);
}
fs.rmSync(dir, { recursive: true, force: true });
