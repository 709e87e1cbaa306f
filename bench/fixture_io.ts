// Issue 3: read + write throughput of asciicast v3 on a 200 MB capture (MB/s) and
// peak RSS, which must not grow with the file size (goal ≥ 100 MB/s, RSS < 150 MB).
// Each measurement runs in a fresh process so its peak RSS is its own; the baseline
// (plain block copy of the same file) runs in the same process as the measurement.
// Usage: bun bench/fixture_io.ts [MB …]   (default: 50 200)
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { openRecording } from "../lib/recording/open.ts";
import { OutputFile } from "../lib/recording/sink.ts";
import { createWriter } from "../lib/recording/writer.ts";
import { peakRssMB, writeSynthCast } from "./synth.ts";
import { sha256File } from "../lib/recording/source.ts";

async function child(file: string, out: string) {
  const size = fs.statSync(file).size;
  // Baseline: copy the file in 1 MiB blocks.
  let t0 = performance.now();
  const fdIn = fs.openSync(file, "r"), fdOut = fs.openSync(out, "w");
  const buf = new Uint8Array(1 << 20);
  for (let n; (n = fs.readSync(fdIn, buf, 0, buf.length, null)) > 0;) fs.writeSync(fdOut, buf, 0, n);
  fs.closeSync(fdIn);
  fs.closeSync(fdOut);
  const copy = (performance.now() - t0) / 1000;
  const rssAfterCopy = peakRssMB();
  // Read every event and write v3 again.
  t0 = performance.now();
  const rec = await openRecording(file);
  const o = OutputFile.open(out, { overwrite: true });
  const w = createWriter("v3", o, rec.header);
  let events = 0, last = 0;
  for await (const e of rec.events) {
    w.event(e);
    last = e.t;
    events++;
  }
  w.end(last);
  o.close();
  const rw = (performance.now() - t0) / 1000;
  const rss = peakRssMB();
  console.log(
    JSON.stringify({ size, events, copy, rw, rss, rssAfterCopy, same: sha256File(out) === sha256File(file) }),
  );
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4]);
} else {
  const sizes = process.argv.slice(2).map(Number);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-io-"));
  console.log(
    "| capture | events | block copy MB/s | v3 read+write MB/s | ratio | peak RSS MB | byte-identical rewrite |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const mb of sizes.length ? sizes : [50, 200]) {
    const file = path.join(dir, `cap${mb}.cast`);
    writeSynthCast(file, mb, { chunkSeed: 7, timeSeed: 3, step: 0.05 });
    const r = spawnSync(process.execPath, [
      import.meta.filename ?? process.argv[1],
      "--child",
      file,
      path.join(dir, "out.cast"),
    ], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    const m = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    const MBs = (s: number) => (m.size / 1e6 / s).toFixed(0);
    console.log(
      `| ${(m.size / 1e6).toFixed(0)} MB | ${m.events} | ${MBs(m.copy)} | ${MBs(m.rw)} | ${
        (m.copy / m.rw).toFixed(3)
      } | ${m.rss.toFixed(0)} | ${m.same ? "yes (sha256)" : "NO"} |`,
    );
    fs.rmSync(file);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
