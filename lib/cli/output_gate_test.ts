// The output gate (lib/recording/sink.ts) over every command that writes a file: the
// writing commands and their output flags come from the option tables (`file: "out"`
// marks, IN OUT positionals), so a new writer without an entry here fails the first test.
// Each is run with its output set to each of its inputs (by name, hard link and symlink),
// to an existing file, to a read-only file, to a path on a full tmpfs, and (the streaming
// ones) killed mid-write; nothing changes that should not.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { cli, MAIN, ROOT, runtimeArgv, tmpDir, writeTmp } from "../testkit.ts";
import { loadCommands } from "./commands.ts";
import type { CommandDef } from "./options.ts";

const COMMANDS = await loadCommands();
const dir = tmpDir("pstlab-gate-");
let mounted: string | null = null;
after(() => {
  if (mounted) spawnSync("umount", [mounted]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const CAST = fs.readFileSync(path.join(ROOT, "fixtures/captures/sim-correct.cast"));
const LABELS = "0\tworking\n1\tidle\n";
const RULES = '[[expect]]\nfinal = "done"\n';
const MANIFEST = fs.readFileSync(path.join(ROOT, "fixtures/manifests/claude.toml"));

/** A fresh set of inputs (each test may damage its own copy if the gate fails). */
function inputs(tag: string) {
  const d = fs.mkdtempSync(path.join(dir, `${tag.replace(/\W+/g, "_")}-`));
  return {
    d,
    cast: writeTmp(d, "in.cast", CAST),
    labels: writeTmp(d, "labels.tsv", LABELS),
    rules: writeTmp(d, "rules.toml", RULES),
    manifest: writeTmp(d, "rules-manifest.toml", MANIFEST),
    script: writeTmp(d, "script.txt", "wait-exit\n"),
  };
}
type Inputs = ReturnType<typeof inputs>;

/** `command --flag` (or `command OUT` for a positional output) → a command line writing OUT, and its inputs. */
const WRITERS: Record<string, (out: string, i: Inputs) => { args: string[]; inputs: string[] }> = {
  "record --output": (out, i) => ({
    args: ["record", "-q", "--headless", "--script", i.script, "-o", out, "--", "sh", "-c", "echo hi"],
    inputs: [i.script],
  }),
  "report --output": (out, i) => ({
    args: ["report", i.cast, "--labels", i.labels, "--manifest", i.manifest, "--format", "json", "-o", out],
    inputs: [i.cast, i.labels, i.manifest],
  }),
  "check --output": (out, i) => ({
    args: ["check", i.cast, "--rules", i.rules, "--format", "json", "-o", out],
    inputs: [i.cast, i.rules],
  }),
  "convert --output": (out, i) => ({ args: ["convert", i.cast, "-o", out], inputs: [i.cast] }),
  "convert OUT": (out, i) => ({ args: ["convert", i.cast, out], inputs: [i.cast] }),
  "cat --output": (out, i) => ({ args: ["cat", i.cast, i.cast, "-o", out], inputs: [i.cast] }),
  "trim --output": (out, i) => ({ args: ["trim", i.cast, "--to", "1000", "-o", out], inputs: [i.cast] }),
  "trim OUT": (out, i) => ({ args: ["trim", i.cast, "--to", "1000", out], inputs: [i.cast] }),
  "redact --output": (out, i) => ({ args: ["redact", i.cast, "--pattern", "x", "-o", out], inputs: [i.cast] }),
  "redact OUT": (out, i) => ({ args: ["redact", i.cast, "--pattern", "x", out], inputs: [i.cast] }),
  // demo has no input; its recording takes minutes, so only the refusals are run (below).
  "demo --record": (out) => ({ args: ["demo", "--no-report", "--tasks", "1", "--record", out], inputs: [] }),
  // play --label continues the file it names (issue 22 owns its writing); the capture is its input.
  "play --label": (out, i) => ({ args: ["play", i.cast, "--label", out], inputs: [i.cast] }),
};
for (const f of ["markdown", "json", "csv", "junit", "html"]) {
  WRITERS[`report --export-${f}`] = (out, i) => ({
    args: ["report", i.cast, "--labels", i.labels, `--export-${f}`, out],
    inputs: [i.cast, i.labels],
  });
}
/** Writers whose normal run takes too long (or needs a terminal) for the cases that let it run. */
const REFUSALS_ONLY = new Set(["demo --record", "play --label"]);

function writersInTables(): string[] {
  const found: string[] = [];
  for (const c of COMMANDS) {
    const spec = c.spec as CommandDef;
    for (const [name, o] of Object.entries(spec.options)) if (o.file === "out") found.push(`${spec.name} --${name}`);
    if (spec.positionals?.files?.includes("out")) found.push(`${spec.name} OUT`);
  }
  return found;
}

// check's --overwrite is for its --script cells (it needs --script): not -o FILE's.
const hasOverwrite = (key: string) => {
  const o = (COMMANDS.find((c) => c.spec.name === key.split(" ")[0])!.spec.options as Record<
    string,
    { requires?: readonly string[] }
  >).overwrite;
  // An --overwrite that needs this very output (demo's needs --record) is this output's.
  return !!o && (!o.requires?.length || o.requires.includes(key.split(" --")[1]));
};

const snapshot = (files: string[]) => files.map((f) => fs.readFileSync(f).toString("base64"));
const litter = (d: string) => fs.readdirSync(d).filter((f) => f.includes(".pstlab-"));
const temps = (d: string) => litter(d).filter((f) => f.endsWith(".tmp"));

describe("the output gate, over every command that writes", () => {
  test("every writer in the option tables has a command line here (and nothing here is not a writer)", () => {
    assert.deepEqual(writersInTables().sort(), Object.keys(WRITERS).sort());
  });

  for (const key of Object.keys(WRITERS)) {
    test(`${key}: each input as the output is refused (by name, hard link, symlink), even with --overwrite`, () => {
      const i = inputs(key);
      const { inputs: ins } = WRITERS[key]("unused", i);
      for (const [n, input] of ins.entries()) {
        const before = snapshot(ins);
        // The same file under three names: the gate compares identities, not names.
        const alias = [input, path.join(i.d, `hard-${n}`), path.join(i.d, `sym-${n}`)][n % 3];
        if (n % 3 === 1) fs.linkSync(input, alias);
        if (n % 3 === 2) fs.symlinkSync(input, alias);
        const args = WRITERS[key](alias, i).args;
        if (hasOverwrite(key)) args.splice(1, 0, "--overwrite");
        const r = cli(args, { cwd: i.d });
        assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
        // play --label reads the file it continues first, as labels (issue 22 owns its writing).
        assert.match(r.stderr, /an input of this command|refusing to write over the input|expected "seconds<TAB>state/);
        assert.deepEqual(snapshot(ins), before, `${args.join(" ")} changed an input`);
        assert.deepEqual(litter(i.d), []);
      }
    });

    test(`${key}: an existing file is kept without --overwrite, and a read-only one even with it`, () => {
      const i = inputs(key);
      const existing = writeTmp(i.d, "existing.out", "precious\n");
      const mustRefuse = hasOverwrite(key) && key !== "play --label";
      if (mustRefuse) {
        const r = cli(WRITERS[key](existing, i).args, { cwd: i.d });
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, /file exists \(use --overwrite/);
        assert.equal(fs.readFileSync(existing, "utf8"), "precious\n");
      }
      fs.chmodSync(existing, 0o444);
      const args = WRITERS[key](existing, i).args;
      if (hasOverwrite(key)) args.splice(1, 0, "--overwrite");
      const r = cli(args, { cwd: i.d });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /existing\.out:( is read-only \(mode 444\)|1: expected "seconds<TAB>state)/);
      assert.equal(fs.readFileSync(existing, "utf8"), "precious\n");
      assert.equal(fs.statSync(existing).mode & 0o777, 0o444);
      assert.deepEqual(litter(i.d), []);
    });

    if (REFUSALS_ONLY.has(key)) continue;

    test(`${key}: a symlinked output is written through to its target; the link stays a link`, () => {
      const i = inputs(key);
      fs.mkdirSync(path.join(i.d, "tgt"));
      const real = writeTmp(path.join(i.d, "tgt"), "real.out", "old\n");
      const link = path.join(i.d, "lnk.out");
      fs.symlinkSync("tgt/real.out", link);
      const args = WRITERS[key](link, i).args;
      if (hasOverwrite(key)) args.splice(1, 0, "--overwrite");
      const r = cli(args, { cwd: i.d });
      assert.ok(r.code === 0 || r.code === 1, `${args.join(" ")}: ${r.stderr}`);
      assert.ok(fs.lstatSync(link).isSymbolicLink(), "the link was replaced by a file");
      assert.notEqual(fs.readFileSync(real, "utf8"), "old\n", "the target was left stale");
      assert.deepEqual([...litter(i.d), ...litter(path.join(i.d, "tgt"))], []);
    });

    test(`${key}: a file replaced keeps its mode`, () => {
      const i = inputs(key);
      const existing = writeTmp(i.d, "existing.out", "old\n");
      fs.chmodSync(existing, 0o640);
      const args = WRITERS[key](existing, i).args;
      if (hasOverwrite(key)) args.splice(1, 0, "--overwrite");
      const r = cli(args, { cwd: i.d });
      assert.ok(r.code === 0 || r.code === 1, `${args.join(" ")}: ${r.stderr}`);
      assert.notEqual(fs.readFileSync(existing, "utf8"), "old\n");
      assert.equal(fs.statSync(existing).mode & 0o777, 0o640);
      assert.deepEqual(litter(i.d), []);
    });
  }
});

describe("a report never replaces a recording", () => {
  test("report -o, check -o and --export-* over a capture are refused; over a report they replace it", () => {
    const src = path.join(ROOT, "fixtures/captures/deploy.cast");
    const d = tmpDir("pstlab-noreplace-");
    try {
      for (const [name, body] of [["other.cast", fs.readFileSync(src)], ["named.txt", fs.readFileSync(src)]] as const) {
        const victim = path.join(d, name);
        fs.writeFileSync(victim, body);
        for (
          const args of [["report", src, "-o", victim], ["check", src, "-o", victim], [
            "report",
            src,
            "--export-json",
            victim,
          ]]
        ) {
          const r = cli(args);
          assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
          assert.match(r.stderr, /is a recording; refusing to write a report over it/);
          assert.deepEqual(fs.readFileSync(victim), Buffer.from(body));
        }
      }
      const rep = path.join(d, "report.md");
      for (let i = 0; i < 2; i++) {
        assert.equal(cli(["report", src, "-o", rep]).code, 0, "a report re-run replaces its report");
      }
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe("/dev/stdout, /dev/stderr and /dev/fd/N when they are pipes", { skip: !fs.existsSync("/dev/fd/1") }, () => {
  test("are written in place (their link names a pipe, not a folder)", () => {
    const src = path.join(ROOT, "fixtures/captures/deploy.cast");
    for (const target of ["/dev/stdout", "/dev/fd/1"]) {
      const r = cli(["convert", src, target]);
      assert.equal(r.code, 0, `${target}: ${r.stderr}`);
      assert.match(r.stdout, /^\{"version":3/, target);
    }
    const e = cli(["trim", src, "/dev/stderr", "--to", "1"]);
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stderr, /\{"version":3/);
  });
});

describe("two outputs of one command line that are the same file are refused (by name, link, identity)", () => {
  const cases: [string, (i: Inputs) => string[]][] = [
    ["-o X --export-csv X", () => ["-o", "same.json", "--format", "json", "--export-csv", "same.json"]],
    ["-o X --export-csv ./X", (i) => ["-o", "same.json", "--format", "json", "--export-csv", `${i.d}/./same.json`]],
    ["--export-markdown X --export-html symlink-to-X", () => ["--export-markdown", "m.md", "--export-html", "sym.md"]],
    ["-o X --export-json hard-link-of-X", () => ["-o", "h.json", "--format", "json", "--export-json", "hard.json"]],
  ];
  for (const [name, extra] of cases) {
    test(`report ${name}`, () => {
      const i = inputs(name);
      fs.symlinkSync("m.md", path.join(i.d, "sym.md"));
      writeTmp(i.d, "h.json", "");
      fs.linkSync(path.join(i.d, "h.json"), path.join(i.d, "hard.json"));
      const r = cli(["report", i.cast, "--labels", i.labels, ...extra(i)], { cwd: i.d });
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /^pstlab: .*: is (given twice as an output|the same file as the output .*); give each output its own file\n$/,
      );
      assert.doesNotMatch(r.stderr, /wrote/);
      assert.equal(fs.readFileSync(path.join(i.d, "h.json"), "utf8"), "");
      assert.ok(!fs.existsSync(path.join(i.d, "m.md")) && !fs.existsSync(path.join(i.d, "same.json")));
    });
  }
});

/** A 64 KiB tmpfs filled to the last byte (root only; skipped elsewhere). */
function fullTmpfs(): string | null {
  const m = path.join(dir, "full");
  fs.mkdirSync(m, { recursive: true });
  if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", m]).status !== 0) return null;
  mounted = m;
  spawnSync("sh", ["-c", `cat /dev/zero > ${m}/filler`]);
  return m;
}
const full = fullTmpfs();

describe("a full disk leaves no file", { skip: !full && "cannot mount a tmpfs here (needs root)" }, () => {
  for (const key of Object.keys(WRITERS).filter((k) => !REFUSALS_ONLY.has(k))) {
    test(key, () => {
      const i = inputs(key);
      const out = path.join(full!, `out-${key.replace(/\W+/g, "_")}.json`);
      const r = cli(WRITERS[key](out, i).args, { cwd: i.d });
      assert.ok(r.code === 2 || r.code === 1, `${key}: exit ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, /no space left on device/);
      assert.deepEqual(fs.readdirSync(full!), ["filler"]);
    });
  }
});

// Under Deno a signal listener is armed on a turn of the event loop, and its fs.read of a
// FIFO holds the loop, so the cleanup handler is not yet armed when the signal comes (the
// process dies by the default action and its temp file stays): a known gap, Bun only.
const denoSignals = !!(globalThis as { Deno?: unknown }).Deno &&
  "Deno: signal listeners are armed on an event-loop turn a blocked FIFO read never gives";
describe("killed mid-write: the temp file goes, the target stays as it was", { skip: denoSignals }, () => {
  // The streaming writers open their output before the input ends: fed through a FIFO that
  // is never closed, each is stopped while its temp file exists.
  const streaming = Object.keys(WRITERS).filter((k) => /^(convert|cat|trim|redact) /.test(k) && !k.startsWith("cat"));
  for (const key of streaming) {
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      test(`${key} (${sig})`, async () => {
        const i = inputs(key);
        const fifo = path.join(i.d, "live.fifo");
        spawnSync("mkfifo", [fifo]);
        const target = writeTmp(i.d, "existing.cast", "precious\n");
        const args = WRITERS[key](target, { ...i, cast: fifo }).args;
        args.splice(1, 0, "--overwrite");
        const [cmd, ...pre] = runtimeArgv();
        const child = spawn(cmd, [...pre, MAIN, ...args], { cwd: i.d, stdio: "ignore" });
        // Read-write: never blocks (a writer that waited for a reader would hang the test if none came).
        const writer = fs.openSync(fifo, "r+");
        fs.writeSync(writer, CAST.subarray(0, CAST.indexOf(0x0a, 4000) + 1));
        const deadline = Date.now() + 30000;
        while (temps(i.d).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.equal(temps(i.d).length, 1, "no temp file appeared");
        const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
        child.kill(sig);
        const code = await exited;
        fs.closeSync(writer);
        assert.equal(code, sig === "SIGTERM" ? 143 : 130);
        assert.deepEqual(litter(i.d), []);
        assert.equal(fs.readFileSync(target, "utf8"), "precious\n");
      });
    }
  }
});

describe("recordings", () => {
  test("record --overwrite over a good recording with a command that does not exist keeps it", () => {
    const i = inputs("typo");
    const before = fs.readFileSync(i.cast);
    const r = cli(["record", "-q", "--headless", "--overwrite", "-o", i.cast, "--", "no-such-command-pstlab"], {
      cwd: i.d,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(fs.readFileSync(i.cast), before);
    assert.deepEqual(litter(i.d), []);
  });
  test("record to a new file with a command that does not exist leaves no file", () => {
    const i = inputs("typo-new");
    const r = cli(["record", "-q", "--headless", "-o", "new.cast", "--", "no-such-command-pstlab"], { cwd: i.d });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(!fs.existsSync(path.join(i.d, "new.cast")));
  });
  test("two recorders given one new name: one records, the other is refused (O_EXCL)", async () => {
    const i = inputs("race");
    const [cmd, ...pre] = runtimeArgv();
    const run = () =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const c = spawn(cmd, [...pre, MAIN, "record", "--headless", "-o", "same.cast", "--", "sh", "-c", "sleep 1"], {
          cwd: i.d,
          stdio: ["ignore", "ignore", "pipe"],
        });
        let err = "";
        c.stderr!.on("data", (d) => (err += d));
        c.on("exit", (code) => resolve({ code, err }));
      });
    const rs = await Promise.all([run(), run()]);
    assert.deepEqual(rs.map((r) => r.code).sort(), [0, 2], rs.map((r) => r.err).join("\n"));
    assert.match(rs.find((r) => r.code === 2)!.err, /same\.cast: (file exists|being written by another pstlab)/);
    const lines = fs.readFileSync(path.join(i.d, "same.cast"), "utf8").trim().split("\n");
    assert.equal(lines.filter((l) => l.startsWith("{")).length, 1, "two headers in one file");
  });
  test("demo --record over an existing file is refused without --overwrite", () => {
    const i = inputs("demo");
    const r = cli(["demo", "--no-report", "--tasks", "1", "--record", i.cast], { cwd: i.d });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /file exists \(use --overwrite/);
    assert.deepEqual(fs.readFileSync(i.cast), CAST);
  });
  test("TMPDIR missing: a recording without the labels FIFO (said once); --hooks is one line, exit 2, no file", () => {
    const i = inputs("tmpdir");
    const env = { TMPDIR: path.join(i.d, "no-such-folder") };
    const r = cli(["record", "--headless", "-o", "a.cast", "--", "sh", "-c", "echo hi"], { cwd: i.d, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr.match(/cannot make a FIFO in .*no-such-folder \(\$TMPDIR\): no such folder/g)?.length,
      1,
      r.stderr,
    );
    assert.match(fs.readFileSync(path.join(i.d, "a.cast"), "utf8"), /"hi\\r\\n"/);
    const h = cli(["record", "--headless", "--hooks", "-o", "b.cast", "--", "sh", "-c", "echo hi"], { cwd: i.d, env });
    assert.equal(h.code, 2, h.stderr);
    assert.match(h.stderr, /^pstlab: recording to b\.cast.*\npstlab: record --hooks: cannot make a FIFO in .*\n$/);
    assert.ok(!fs.existsSync(path.join(i.d, "b.cast")));
  });
  test("TMPDIR a folder where nothing can be made (/proc) or a file: the warning says so, not 'no such folder'", () => {
    const i = inputs("tmpdir-proc");
    const cases: [string, RegExp][] = [
      ["/proc", /cannot make a FIFO in \/proc \(\$TMPDIR\): the folder exists but nothing can be made in it/],
      [i.script, /cannot make a FIFO in .*script\.txt \(\$TMPDIR\): not a folder/],
    ];
    for (const [tmp, re] of cases) {
      if (!fs.existsSync(tmp)) continue;
      const r = cli(["record", "--headless", "--overwrite", "-o", "a.cast", "--", "sh", "-c", "echo hi"], {
        cwd: i.d,
        env: { TMPDIR: tmp },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, re);
    }
  });
  test("a lock taken by a live writer refuses a second --overwrite", () => {
    const i = inputs("lock");
    // A live process's pid in the lock: this test's own.
    writeTmp(i.d, ".in2.cast.pstlab-lock", `${process.pid}\n`);
    const target = writeTmp(i.d, "in2.cast", "precious\n");
    const r = cli(["convert", i.cast, "--overwrite", target], { cwd: i.d });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /being written by another pstlab \(pid \d+\)/);
    assert.equal(fs.readFileSync(target, "utf8"), "precious\n");
    // A stale lock (a pid that is gone) is taken over.
    writeTmp(i.d, ".in2.cast.pstlab-lock", "999999999\n");
    const r2 = cli(["convert", i.cast, "--overwrite", target], { cwd: i.d });
    assert.equal(r2.code, 0, r2.stderr);
    assert.deepEqual(litter(i.d), []);
  });
});

describe("inputs are read once", () => {
  test("report live.fifo -o r.html reads the FIFO once (the page says it embeds no player for it)", async () => {
    const i = inputs("fifo");
    const fifo = path.join(i.d, "live.fifo");
    spawnSync("mkfifo", [fifo]);
    const [cmd, ...pre] = runtimeArgv();
    const child = spawn(cmd, [...pre, MAIN, "report", fifo, "-o", "r.html"], { cwd: i.d, stdio: "ignore" });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    // A writer that opens, writes the capture and closes, as `report <(cat in.cast)` would.
    spawn("sh", ["-c", "cat in.cast > live.fifo"], { cwd: i.d, stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0, "report waited on a second open of the FIFO");
    assert.match(fs.readFileSync(path.join(i.d, "r.html"), "utf8"), /not embedded: read from a pipe/);
  });
  test("a FIFO of a capture that names no agent (auto sniffs the screen): read once, the writer first", async () => {
    const i = inputs("fifo2");
    const fifo = path.join(i.d, "live.fifo");
    spawnSync("mkfifo", [fifo]);
    // The writer waits for a reader and is gone once the capture is read: a second open
    // (auto's sniff of the screen) waited for ever, and in a blocking open no signal ran.
    spawn("sh", ["-c", `cat ${JSON.stringify(path.join(ROOT, "fixtures/captures/deploy.cast"))} > live.fifo`], {
      cwd: i.d,
      stdio: "ignore",
    });
    await new Promise((r) => setTimeout(r, 300));
    const [cmd, ...pre] = runtimeArgv();
    const child = spawn(cmd, [...pre, MAIN, "report", fifo], { cwd: i.d, stdio: "ignore" });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0, "report opened the FIFO a second time");
  });
  test("a FIFO nobody writes: SIGTERM still stops report (143), the open does not block the thread", {
    skip: denoSignals,
  }, async () => {
    const i = inputs("fifo3");
    const fifo = path.join(i.d, "never.fifo");
    spawnSync("mkfifo", [fifo]);
    const [cmd, ...pre] = runtimeArgv();
    const child = spawn(cmd, [...pre, MAIN, "report", fifo], { cwd: i.d, stdio: "ignore" });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    await new Promise((r) => setTimeout(r, 1500)); // started and waiting in the open
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 143);
  });
});

// Every long-running command stops at once on SIGINT/SIGTERM with 130/143 and leaves no
// temp file: a handler armed by the gate used to be disarmed before a signal that came
// during synchronous work was dispatched, and the runtime then dropped it (the run went on
// and exited 0). "Started" is read from /proc: the child holds the big input open.
describe("stopped by a signal while it works (a large capture)", {
  skip: (!fs.existsSync("/proc/self/fd") && "needs /proc") || denoSignals,
}, () => {
  const d = fs.mkdtempSync(path.join(dir, "sig-"));
  const header = CAST.subarray(0, CAST.indexOf(0x0a) + 1);
  const line = '[0.001, "o", "building module 42 of 9000: compiling sources\\r\\n"]\n';
  const big = path.join(d, "big.cast");
  fs.writeFileSync(big, Buffer.concat([header, Buffer.from(line.repeat(500_000))]));
  const RUNS: Record<string, string[]> = {
    "report (stdout)": ["report", big, "--truth", "protocol"],
    "report -o": ["report", big, "--truth", "protocol", "-o", "r.txt"],
    "check (stdout)": ["check", big],
    "check -o": ["check", big, "--format", "json", "-o", "c.json"],
    "convert": ["convert", big, "-o", "v.cast"],
    "redact": ["redact", big, "--pattern", "module", "-o", "x.cast"],
    "trim": ["trim", big, "--to", "1000000", "-o", "t.cast"],
    "cat": ["cat", big, big, "-o", "k.cast"],
    "scan": ["scan", big],
    "info": ["info", big],
  };
  const holds = (pid: number) => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((f) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${f}`) === big;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  };
  for (const [name, args] of Object.entries(RUNS)) {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      test(`${name} (${sig})`, async () => {
        const w = fs.mkdtempSync(path.join(d, "w-"));
        const [cmd, ...pre] = runtimeArgv();
        const child = spawn(cmd, [...pre, MAIN, ...args], { cwd: w, stdio: ["ignore", "ignore", "pipe"] });
        let err = "";
        child.stderr!.on("data", (b) => (err += b));
        const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
        let done = false;
        exited.then(() => (done = true));
        while (!done && !holds(child.pid!)) await new Promise((r) => setTimeout(r, 5));
        assert.ok(!done, `finished before it could be signalled: ${err}`);
        child.kill(sig);
        const killer = setTimeout(() => child.kill("SIGKILL"), 20000);
        const code = await exited;
        clearTimeout(killer);
        assert.equal(code, sig === "SIGTERM" ? 143 : 130, err);
        assert.deepEqual(fs.readdirSync(w), [], "a temp file, lock or output was left");
      });
    }
  }
});
