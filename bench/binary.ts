// Issue 12: the compiled binary's size and start-up (`pstlab --version`, `pstlab --help`),
// next to a compiled hello-world built by the same `bun build --compile` in the same run:
// the part of both that is the Bun runtime itself is the floor pstlab cannot go under.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const here = import.meta.dirname ?? ".";
const root = path.resolve(here, "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-binbench-"));
const bun = process.execPath;

// package.json's build script: its flags (--bytecode: start-up 30 → 10 ms, measured) and entries.
const script = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.build as string).split(
  /\s+/,
);
const words = script.slice(script.indexOf("--compile") + 1, script.indexOf("--outfile"));
const flags = words.filter((w) => w.startsWith("--"));

function build(entries: string[], out: string): void {
  const r = spawnSync(bun, ["build", "--compile", ...flags, ...entries, "--outfile", out], {
    cwd: root,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`bun build: ${r.stderr}`);
}

/** Median wall time of `runs` runs, after one warm-up run (page cache). */
function startup(cmd: string, args: string[], runs = 11): number {
  spawnSync(cmd, args, { stdio: "ignore" });
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: "ignore" });
    xs.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}`);
  }
  return xs.sort((a, b) => a - b)[runs >> 1];
}

try {
  const hello = path.join(dir, "hello.ts");
  fs.writeFileSync(hello, 'console.log("hello");\n');
  build([hello], path.join(dir, "hello"));
  build(words.filter((w) => !w.startsWith("--")), path.join(dir, "pstlab"));
  const size = (f: string) => fs.statSync(path.join(dir, f)).size / 1e6;
  const base = startup(path.join(dir, "hello"), []);
  const version = startup(path.join(dir, "pstlab"), ["--version"]);
  const help = startup(path.join(dir, "pstlab"), ["--help"]);
  console.log("| binary | size MB | start-up ms (median of 11) | × hello-world |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(
    `| hello-world, same bun build --compile ${flags.join(" ")} (baseline) | ${size("hello").toFixed(1)} | ${
      base.toFixed(0)
    } | 1.00 |`,
  );
  console.log(
    `| pstlab --version | ${size("pstlab").toFixed(1)} | ${version.toFixed(0)} | ${(version / base).toFixed(2)} |`,
  );
  console.log(`| pstlab --help | | ${help.toFixed(0)} | ${(help / base).toFixed(2)} |`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
