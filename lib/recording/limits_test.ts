// The reader limits (model.ts MAX_DIMENSION, MAX_TIME; ttyrec MAX_FRAME_BYTES; script
// byte counts bounded by the log), each at the limit and one past it, in every reader.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_DIMENSION, MAX_TIME } from "./model.ts";
import { openRecording } from "./open.ts";
import { MAX_FRAME_BYTES } from "./ttyrec.ts";
import { cli, collect, encodeTtyrecFrame, ROOT, tmpDir, writeTmp } from "../testkit.ts";
import { readTextFile } from "./source.ts";
import { AsciicastWriter } from "./asciicast.ts";
import { FixtureError, InputError } from "../errors.ts";

const dir = tmpDir("pstlab-limits-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function readAll(p: string, opts = {}) {
  const rec = await openRecording(p, opts);
  return { rec, events: await collect(rec.events) };
}
async function rejects(p: string, re: RegExp, opts = {}) {
  await assert.rejects(readAll(p, opts), (e: unknown) => e instanceof FixtureError && re.test(e.oneLine()), re.source);
}
const cast = (header: string, ...lines: string[]) =>
  writeTmp(dir, `c${n++}.cast`, [header, ...lines].join("\n") + "\n");
const H = '{"version":3,"term":{"cols":80,"rows":24}}';

describe("window sizes: 1–MAX_DIMENSION in every reader", () => {
  test("asciicast header and resize events", async () => {
    assert.equal(MAX_DIMENSION, 2000);
    await readAll(cast(`{"version":3,"term":{"cols":${MAX_DIMENSION},"rows":${MAX_DIMENSION}}}`));
    await rejects(
      cast(`{"version":3,"term":{"cols":${MAX_DIMENSION + 1},"rows":24}}`),
      /:1: header: term.cols must be an integer 0–2000, got 2001/,
    );
    await rejects(cast('{"version":2,"width":65535,"height":65535}'), /:1: header: width must be an integer 0–2000/);
    await readAll(cast(H, `[0.1,"r","${MAX_DIMENSION}x1"]`));
    await rejects(cast(H, `[0.1,"r","${MAX_DIMENSION + 1}x1"]`), /:2: resize 2001x1 is out of range/);
  });
  test("ttyrec CSI 8;rows;cols t", async () => {
    const ok = writeTmp(
      dir,
      "ok.ttyrec",
      encodeTtyrecFrame(0, new TextEncoder().encode(`\x1b[8;${MAX_DIMENSION};${MAX_DIMENSION}tx`)),
    );
    assert.equal((await readAll(ok)).rec.header.cols, MAX_DIMENSION);
    const bad = writeTmp(dir, "bad.ttyrec", encodeTtyrecFrame(0, new TextEncoder().encode("\x1b[8;99999;99999tx")));
    await rejects(bad, /ttyrec size \(CSI 8 t\) 99999x99999 is out of range/);
  });
  test("script: H COLUMNS/LINES beyond the limit; SIGWINCH 0x0 keeps the size", async () => {
    const log = writeTmp(dir, "s.log", "Script started on x\nabc");
    const big = writeTmp(dir, "big.tm", `H 0.0 COLUMNS 99999\nH 0.0 LINES 24\nO 0.1 3\n`);
    await rejects(log, /COLUMNS x LINES 99999x24 is out of range/, { timing: big });
    const zero = writeTmp(dir, "zero.tm", `O 0.1 1\nS 0.1 SIGWINCH ROWS=0 COLS=0\nO 0.1 2\n`);
    const { events } = await readAll(log, { timing: zero });
    assert.deepEqual(events.map((e) => e.kind), ["output", "output"]);
  });
});

describe("times: finite and at most MAX_TIME", () => {
  test("asciicast v3 intervals and v2 times", async () => {
    await readAll(cast(H, `[${MAX_TIME},"o","a"]`));
    await rejects(cast(H, `[${MAX_TIME},"o","a"]`, '[0.5,"o","b"]'), /:3: time 100000000.5 s is beyond the limit/);
    await rejects(cast(H, '[1e303,"o","a"]'), /:2: interval 1e\+303 s is beyond the limit/);
    await rejects(
      cast('{"version":2,"width":80,"height":24}', '[1e303,"o","a"]'),
      /:2: time 1e\+303 s is beyond the limit/,
    );
  });
  test("ttyrec: a first frame at 0 then a real clock is a corrupt time, not a 56-year gap", async () => {
    const p = writeTmp(
      dir,
      "zero.ttyrec",
      new Uint8Array([
        ...encodeTtyrecFrame(0, new Uint8Array([0x61]), 0),
        ...encodeTtyrecFrame(0, new Uint8Array([0x62]), 1_700_000_000),
      ]),
    );
    await rejects(p, /frame 2 \(byte 13\): time 1700000000 s is beyond the limit/, { from: "ttyrec" });
  });
  test("script timing deltas", async () => {
    const log = writeTmp(dir, "t.log", "ab");
    await rejects(log, /:2: time .* is beyond the limit/, {
      timing: writeTmp(dir, "t.tm", "0.1 1\n99999999999.0 1\n"),
    });
  });
  test("a writer never writes a time no reader accepts", () => {
    const w = new AsciicastWriter({ write() {} }, 3);
    assert.throws(() => w.event({ t: Infinity, kind: "marker", label: "x" }), /refusing to write the time Infinity/);
  });
});

describe("lengths: bounded by what the file holds", () => {
  test("a ttyrec frame longer than MAX_FRAME_BYTES fails at its header, without buffering", async () => {
    const head = new Uint8Array(12);
    new DataView(head.buffer).setUint32(8, MAX_FRAME_BYTES + 1, true);
    await rejects(writeTmp(dir, "long.ttyrec", head), /frame 1 \(byte 0\): length 67108865 is beyond the limit/, {
      from: "ttyrec",
    });
  });
  test("a ttyrec frame of exactly MAX_FRAME_BYTES that the file does not hold is a truncated frame", async () => {
    const head = new Uint8Array(12);
    new DataView(head.buffer).setUint32(8, MAX_FRAME_BYTES, true);
    await rejects(writeTmp(dir, "short.ttyrec", head), /truncated frame at byte 0/, { from: "ttyrec" });
  });
  test("a script byte count beyond the log is one clear error, not an allocation", async () => {
    const log = writeTmp(dir, "c.log", "abc");
    for (const count of ["99999999999999999", "99999999999999", "4"]) {
      await rejects(log, /:1: output log .* ends before the \d+ bytes this line needs/, {
        timing: writeTmp(dir, `c${count}.tm`, `0.1 ${count}\n`),
      });
    }
    await rejects(log, /:1: output log ends before/, { timing: writeTmp(dir, "adv.tm", "O 0.1 99999999999999999\n") });
  });
  test("a ttyrec of many large frames reads in linear time (no re-merging per chunk)", async () => {
    const frame = encodeTtyrecFrame(0, new Uint8Array(8 << 20).fill(0x61));
    const p = path.join(dir, "big.ttyrec");
    fs.writeFileSync(p, new Uint8Array([...frame.subarray(0, 12)]));
    for (let i = 0; i < 4; i++) fs.appendFileSync(p, i === 0 ? frame.subarray(12) : frame);
    const { events } = await readAll(p, { from: "ttyrec" });
    assert.equal(events.length, 4);
    assert.ok(events.every((e) => e.kind === "output" && e.bytes.length === 8 << 20));
  });
});

describe("small text inputs are read with a bound (MAX_TEXT_INPUT)", () => {
  const dir = tmpDir("pstlab-textlimit-");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  test("at the limit it is read; one byte past it is one line naming the file", () => {
    const f = path.join(dir, "m.toml");
    fs.writeFileSync(f, "x".repeat(4096));
    assert.equal(readTextFile(f, 4096).length, 4096);
    assert.throws(
      () => readTextFile(f, 4095),
      (e: Error) => e instanceof InputError && /m\.toml: too large/.test(e.message),
    );
  });
  test("an endless device ends at the limit, not in memory", () => {
    assert.throws(() => readTextFile("/dev/zero"), /\/dev\/zero: too large \(more than 64 MiB/);
  });
  test("every command that reads a small text file goes through the bound (manifest, rules, labels, script)", () => {
    const cast = path.join(ROOT, "fixtures/captures/deploy.cast");
    for (
      const args of [
        ["report", cast, "--manifest", "/dev/zero"],
        ["check", cast, "--rules", "/dev/zero"],
        ["report", cast, "--labels", "/dev/zero"],
        ["lint", "/dev/zero"],
        ["record", "--headless", "--script", "/dev/zero", "-o", path.join(dir, "s.cast"), "--", "true"],
      ]
    ) {
      const r = cli(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^pstlab: .*\/dev\/zero: too large[^\n]*\n$/, args.join(" "));
    }
  });
});
