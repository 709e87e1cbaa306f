// Issue 5: median time to classify one 120x32 screen with the bundled claude.toml and
// with Herdr's claude.toml (goals ≤ 50 µs and ≤ 200 µs), on real and synthetic screens.
import * as fs from "node:fs";
import * as path from "node:path";
import { Screen } from "../lib/screen/screen.ts";
import { evaluate } from "../lib/detect/manifest.ts";
import { RegionView } from "../lib/detect/regions.ts";
import { resolveManifest } from "../lib/detect/bundled.ts";
import { snapshotBytes } from "../lib/recording/snapshot.ts";
import { median } from "./synth.ts";

const here = import.meta.dirname ?? ".";
const shared = path.resolve(here, "../../shared");
const te = new TextEncoder();
const screens: [string, Uint8Array][] = [];
const cap = path.join(shared, "captures/claudeless-2.1.29");
if (fs.existsSync(cap)) {
  for (const f of fs.readdirSync(cap)) {
    screens.push([f.replace(".tui.ansi.txt", ""), snapshotBytes(new Uint8Array(fs.readFileSync(path.join(cap, f))))]);
  }
}
// A busy synthetic screen: 28 rows of transcript, a spinner line, the prompt box.
const busy =
  Array.from({ length: 26 }, (_, i) => `● Read(src/module_${i}.ts) — ${"lorem ipsum ".repeat(8)}`).join("\r\n") +
  "\r\n✢ Reticulating… (12s · ↓ 2.1k tokens · esc to interrupt)\r\n" + "─".repeat(120) + "\r\n❯ \r\n" +
  "─".repeat(120) + "\r\n  ⏵⏵ accept edits on (shift+tab to cycle)";
screens.push(["synthetic-working", te.encode(busy)]);

const manifests = [["bundled claude.toml", "claude", 50]] as [string, string, number][];
const herdr = path.join(shared, "manifests/herdr/claude.toml");
if (fs.existsSync(herdr)) manifests.push(["Herdr claude.toml", herdr, 200]);

console.log("| manifest | screen | state | median µs | p95 µs | goal |");
console.log("| --- | --- | --- | ---: | ---: | ---: |");
for (const [label, spec, goal] of manifests) {
  const m = resolveManifest(spec);
  for (const [name, bytes] of screens) {
    const s = new Screen(120, 32);
    s.write(bytes, 0);
    const rows = s.rows();
    const src = { rows: () => rows, title: "", osc9: null };
    let state = "";
    for (let i = 0; i < 500; i++) state = evaluate(m, new RegionView(src)).state; // warm up
    const times: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const t0 = performance.now();
      evaluate(m, new RegionView(src));
      times.push((performance.now() - t0) * 1000);
    }
    times.sort((a, b) => a - b);
    const med = median(times);
    console.log(
      `| ${label} | ${name} | ${state} | ${med.toFixed(1)} | ${
        times[Math.floor(times.length * 0.95)].toFixed(1)
      } | ≤ ${goal} ${med <= goal ? "met" : "NOT met"} |`,
    );
    s.dispose();
  }
}
