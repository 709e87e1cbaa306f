// Fixture commands on real captures and on recordings made here with real programs
// (script -T, ttyrec, asciinema rec); each integration test skips when its tool is absent.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { cli, encodeTtyrecFrame, hasShared, SHARED, tmpDir, which, writeTmp } from "../testkit.ts";

const dir = tmpDir();
const te = new TextEncoder();
const read = (p: string) => new Uint8Array(fs.readFileSync(p));

function captures(): string[] {
  if (!hasShared) return [];
  const root = path.join(SHARED, "captures");
  const out: string[] = [];
  for (const d of fs.readdirSync(root)) {
    const sub = path.join(root, d);
    if (!fs.statSync(sub).isDirectory()) continue;
    for (const f of fs.readdirSync(sub)) out.push(path.join(sub, f));
  }
  return out;
}

describe("byte-exact round trips on real captures", { skip: !hasShared && "../shared/captures is absent" }, () => {
  for (const file of captures()) {
    test(path.basename(file), () => {
      const original = read(file);
      for (const chunk of [null, "7", "4096"]) {
        const cast = path.join(dir, `${path.basename(file)}.${chunk ?? "whole"}.cast`);
        const r1 = cli(["convert", file, cast, "--raw", ...(chunk ? ["--chunk", chunk] : [])]);
        assert.equal(r1.code, 0, r1.stderr);
        const r2 = cli(["convert", cast, "-", "--format", "raw"]);
        assert.equal(r2.code, 0, r2.stderr);
        assert.deepEqual(r2.bytes, original, `chunk ${chunk}`);
        // v3 → v3 is idempotent.
        const again = cast + ".again.cast";
        assert.equal(cli(["convert", cast, again]).code, 0);
        assert.equal(fs.readFileSync(again, "utf8"), fs.readFileSync(cast, "utf8"));
      }
    });
  }
});

describe("ttyrec", () => {
  test("hand-built frames: byte-exact, times from the frame headers", () => {
    const frames = [
      encodeTtyrecFrame(0, te.encode("\x1b[8;30;100thello ")),
      encodeTtyrecFrame(0.25, new Uint8Array([0xe2, 0x82])),
      encodeTtyrecFrame(1.5, new Uint8Array([0xac, 0xff])),
    ];
    const p = writeTmp(dir, "hand.ttyrec", new Uint8Array(frames.flatMap((f) => [...f])));
    const info = JSON.parse(cli(["info", "--json", p]).stdout);
    assert.equal(info.format, "ttyrec");
    assert.deepEqual(info.size, { cols: 100, rows: 30 });
    assert.equal(info.duration_s, 1.5);
    const cast = path.join(dir, "hand.cast");
    assert.equal(cli(["convert", p, cast]).code, 0);
    assert.deepEqual(
      cli(["convert", cast, "-", "--format", "raw"]).bytes,
      new Uint8Array([...te.encode("\x1b[8;30;100thello "), 0xe2, 0x82, 0xac, 0xff]),
    );
  });
  test("a truncated frame is a clear error", () => {
    const f = encodeTtyrecFrame(0, te.encode("abcdef"));
    const p = writeTmp(dir, "trunc.ttyrec", f.subarray(0, f.length - 2));
    const r = cli(["info", p]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /trunc\.ttyrec: truncated frame at byte 0/);
  });
  test("recorded by the real ttyrec", { skip: !which("ttyrec") && "ttyrec is not installed" }, () => {
    const p = path.join(dir, "real.ttyrec");
    const r = spawnSync("ttyrec", ["-e", "printf 'one\\n'; sleep 0.2; printf 'two \\342\\202\\254\\n'", p], {
      timeout: 20000,
      stdio: ["ignore", "ignore", "pipe"],
    });
    assert.equal(r.status, 0, String(r.stderr));
    const raw = read(p);
    const payload: number[] = [];
    for (let off = 0; off + 12 <= raw.length;) {
      const len = new DataView(raw.buffer, raw.byteOffset + off + 8, 4).getUint32(0, true);
      payload.push(...raw.subarray(off + 12, off + 12 + len));
      off += 12 + len;
    }
    const cast = path.join(dir, "real-ttyrec.cast");
    assert.equal(cli(["convert", p, cast]).code, 0);
    assert.deepEqual(cli(["convert", cast, "-", "--format", "raw"]).bytes, new Uint8Array(payload));
    assert.ok(new TextDecoder().decode(new Uint8Array(payload)).includes("two €"));
  });
});

describe("util-linux script timing", { skip: !which("script") && "script is not installed" }, () => {
  for (const mode of ["advanced", "classic"] as const) {
    test(`${mode} format, recorded by the real script`, () => {
      const sub = fs.mkdtempSync(path.join(dir, "script-"));
      const args = [
        "-q",
        "-T",
        "timing",
        "-O",
        "out.log",
        "-m",
        mode,
        "-c",
        "printf 'a\\342\\202'; sleep 0.2; printf '\\254b\\n'; exit 4",
      ];
      if (mode === "advanced") args.splice(5, 0, "-I", "in.log");
      const r = spawnSync("script", args, { cwd: sub, timeout: 20000, stdio: ["ignore", "ignore", "pipe"] });
      assert.equal(r.status, 0, String(r.stderr));
      const log = read(path.join(sub, "out.log"));
      const start = log.indexOf(0x0a) + 1;
      const total = fs.readFileSync(path.join(sub, "timing"), "utf8").trim().split("\n")
        .map((l) => l.split(" ")).filter((f) => f.length === 2 || f[0] === "O").reduce(
          (n, f) => n + Number(f.at(-1)),
          0,
        );
      const session = log.subarray(start, start + total);
      const cast = path.join(sub, "s.cast");
      const args2 = mode === "advanced"
        ? ["convert", path.join(sub, "timing"), cast]
        : ["convert", path.join(sub, "out.log"), cast, "--timing", path.join(sub, "timing")];
      const c = cli(args2);
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(cli(["convert", cast, "-", "--format", "raw"]).bytes, session);
      assert.ok(new TextDecoder().decode(session).includes("a€b"));
      const info = JSON.parse(cli(["info", "--json", cast]).stdout);
      if (mode === "advanced") assert.equal(info.exit_status, 4);
      assert.ok(info.duration_s >= 0.15, `duration ${info.duration_s}`);
    });
  }
  test("a classic timing file without its log is a clear error", () => {
    const p = writeTmp(dir, "lonely.timing", "0.1 5\n");
    const r = cli(["info", p]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /classic timing file: give the output log/);
  });
});

describe("asciinema 2.2 interoperability", { skip: !which("asciinema") && "asciinema is not installed" }, () => {
  test("asciinema rec → pstlab reads it; pstlab v2 → asciinema cat prints the same bytes", () => {
    const rec = path.join(dir, "asc.cast");
    const r = spawnSync("asciinema", [
      "rec",
      "-q",
      "-c",
      "printf 'hi\\033[1mbold\\033[0m\\n'; printf 'caf\\303\\251\\n'",
      rec,
    ], { timeout: 20000, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, SHELL: "/bin/bash" } });
    assert.equal(r.status, 0, String(r.stderr));
    const info = JSON.parse(cli(["info", "--json", rec]).stdout);
    assert.equal(info.format, "v2");
    const v3 = path.join(dir, "asc.v3.cast"), v2 = path.join(dir, "asc.v2.cast");
    assert.equal(cli(["convert", rec, v3]).code, 0);
    assert.equal(cli(["convert", v3, v2, "--format", "v2"]).code, 0);
    const ours = cli(["convert", v3, "-", "--format", "raw"]).bytes;
    assert.ok(new TextDecoder().decode(ours).includes("café"));
    // asciinema 2.2's cat needs a controlling terminal: run it under script (raw mode, so no \n → \r\n).
    const played = spawnSync("script", ["-qec", `asciinema cat ${v2}`, "/dev/null"], {
      timeout: 20000,
      stdio: ["ignore", "pipe", "pipe"],
    });
    assert.equal(played.status, 0, String(played.stderr));
    assert.deepEqual(new Uint8Array(played.stdout), ours);
  });
});

describe("convert, cat, trim, redact, info", () => {
  const base = '{"version":3,"term":{"cols":80,"rows":24}}\n';
  test("never overwrites a non-empty file without --overwrite; an empty one is fine", () => {
    const src = writeTmp(dir, "src.cast", base + '[0.1,"o","x"]\n');
    const dst = writeTmp(dir, "dst.cast", "keep me");
    const r = cli(["convert", src, dst]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /file exists \(use --overwrite/);
    assert.equal(fs.readFileSync(dst, "utf8"), "keep me");
    assert.equal(cli(["convert", src, dst, "--overwrite"]).code, 0);
    const empty = writeTmp(dir, "empty.cast", "");
    assert.equal(cli(["convert", src, empty]).code, 0);
    assert.equal(cli(["convert", src, src, "--overwrite"]).code, 2);
  });
  test("cat shifts times and inserts a resize when the size differs", () => {
    const a = writeTmp(dir, "a.cast", base + '[1,"o","a"]\n[0.5,"x","0"]\n');
    const b = writeTmp(dir, "b.cast", '{"version":3,"term":{"cols":100,"rows":30}}\n[0.25,"o","b"]\n');
    const r = cli(["cat", a, b]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n").slice(1).map((l) => JSON.parse(l));
    assert.deepEqual(lines, [[1, "o", "a"], [0.5, "x", "0"], [0, "r", "100x30"], [0.25, "o", "b"]]);
  });
  test("trim keeps a window (and the prelude on request)", () => {
    const src = writeTmp(dir, "long.cast", base + '[1,"o","a"]\n[1,"o","b"]\n[1,"o","c"]\n[1,"o","d"]\n');
    const t = path.join(dir, "t.cast");
    assert.equal(cli(["trim", src, t, "--from", "2", "--to", "3"]).code, 0);
    assert.deepEqual(fs.readFileSync(t, "utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l)), [[0, "o", "b"], [
      1,
      "o",
      "c",
    ]]);
    assert.equal(cli(["trim", src, t, "--from", "2", "--to", "3", "--keep-prelude", "--overwrite"]).code, 0);
    assert.deepEqual(fs.readFileSync(t, "utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l)), [[0, "o", "a"], [
      0,
      "o",
      "b",
    ], [1, "o", "c"]]);
    assert.equal(cli(["trim", src, t, "--from", "3", "--to", "2", "--overwrite"]).code, 2);
  });
  test("redact: counts, scrubs split secrets and OSC 7501 text, refuses to write over the input", () => {
    const msg = Buffer.from("token sk-abc123xyz", "utf8").toString("base64");
    const src = writeTmp(
      dir,
      "secret.cast",
      JSON.stringify({ version: 3, term: { cols: 80, rows: 24 }, command: "deploy --key sk-abc123xyz" }) + "\n" +
        `[0.1,"o","export KEY=sk-abc"]\n[0.1,"o","123xyz\\r\\n"]\n[0.1,"o","\\u001b]7501;state=working:msg=${msg}\\u0007"]\n[0.1,"i","sk-abc123xyz"]\n[0,"m","note sk-abc123xyz"]\n`,
    );
    const dst = path.join(dir, "public.cast");
    const r = cli(["redact", src, dst, "--pattern", "sk-[a-z0-9]+"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /5 replacements \(output 1, input 1, OSC 7501 text 1, OSC 7501 fields 0, OSC 52 0, markers 1, other events 0, header 1\)/,
    );
    const text = fs.readFileSync(dst, "utf8");
    assert.ok(!text.includes("sk-abc"), text);
    const scan = JSON.parse(cli(["scan", "--json", dst]).stdout.trim());
    assert.equal(scan.msg, "token [REDACTED]");
    assert.equal(cli(["redact", src, src, "--pattern", "x"]).code, 2);
    assert.equal(cli(["redact", src, path.join(dir, "p2.cast")]).code, 2); // nothing to scrub
  });
  test("info --json", () => {
    const src = writeTmp(
      dir,
      "info.cast",
      base +
        '[0.5,"o","\\u001b]7501;state=blocked\\u0007"]\n[0,"m","truth:blocked"]\n[1,"r","100x40"]\n[0.5,"o","\\u001b]7501;state=x\\u0007"]\n[0.5,"x","2"]\n',
    );
    const info = JSON.parse(cli(["info", "--json", src]).stdout);
    assert.equal(info.duration_s, 2.5);
    assert.deepEqual(info.events, { output: 2, input: 0, resize: 1, marker: 1, exit: 1, other: 0 });
    assert.deepEqual(info.labels, { "truth:blocked": 1 });
    assert.equal(info.exit_status, 2);
    assert.deepEqual([info.osc7501.reports, info.osc7501.ignored, info.osc7501.reasons], [1, 1, {
      "unknown-state": 1,
    }]);
    assert.equal(info.byte_exact, true);
    const lossy = writeTmp(dir, "lossy.cast", base + '[0.5,"o","bad \\ufffd"]\n');
    assert.equal(JSON.parse(cli(["info", "--json", lossy]).stdout).byte_exact, false);
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
