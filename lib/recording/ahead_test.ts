// Reading on a worker (ahead.ts) gives what reading in-process gives: the same header,
// events (in order, byte for byte), warnings and errors (at the same event), on every
// bundled and shared capture, on broken files, across batch boundaries, and when the
// caller stops early. The analysis on top gives the same result either way.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { openRecording } from "./open.ts";
import { AHEAD, BATCH_BYTES, BATCH_EVENTS, openRecordingAhead } from "./ahead.ts";
import type { Event } from "./model.ts";
import { sha256File } from "./source.ts";
import { collect, encodeTtyrecFrame, hasShared, ROOT, SHARED, tmpDir, writeTmp } from "../testkit.ts";
import { errorToData } from "../errors.ts";
import { workerUrl } from "../runtime.ts";

/** The entry report uses (it serves ahead_read.ts; here with no side). */
const WORKER = workerUrl("replay/ahead_worker.ts");

const dir = tmpDir("pstlab-ahead-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));

type Outcome = { format: string; header: unknown; events: Event[]; warnings: string[]; error: unknown };

/** Everything a reader gives, an error included as data (its one line, or its message). */
async function outcome(
  open: () => Promise<{ format: string; header: unknown; events: AsyncIterable<Event>; warnings: string[] }>,
): Promise<Outcome> {
  const events: Event[] = [];
  let rec;
  try {
    rec = await open();
  } catch (e) {
    return { format: "", header: null, events, warnings: [], error: errorToData(e) };
  }
  let error: unknown = null;
  try {
    for await (const e of rec.events) events.push(e);
  } catch (e) {
    error = errorToData(e);
  }
  // Bugs carry a stack, which says where (the thread differs): compare what the user sees.
  if (error && (error as { user: boolean }).user === false) error = { message: (error as { message: string }).message };
  // Byte arrays compared by content: a view into a batch equals the reader's own array.
  const plain = events.map((e) => "bytes" in e ? { ...e, bytes: Array.from(e.bytes) } : e);
  return { format: rec.format, header: rec.header, events: plain as Event[], warnings: [...rec.warnings], error };
}

async function same(file: string, opts = {}): Promise<Outcome> {
  const inProcess = await outcome(() => openRecording(file, opts));
  const ahead = await outcome(() => openRecordingAhead(file, opts, { worker: WORKER, min: 0 }));
  assert.deepEqual(ahead, inProcess, file);
  return ahead;
}

function captures(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
    if (e.isFile() && !e.name.endsWith(".md")) out.push(p);
  }
  return out.sort();
}

describe("read ahead: the same as reading in-process", () => {
  for (const f of captures(path.join(ROOT, "fixtures/captures"))) {
    test(`bundled ${path.basename(f)}`, async () => {
      const o = await same(f);
      assert.ok(o.events.length > 0);
    });
  }
  test("every shared capture", { skip: !hasShared && "no ../shared" }, async () => {
    for (const f of captures(path.join(SHARED, "captures"))) await same(f);
  });

  const H = '{"version":3,"term":{"cols":80,"rows":24}}';
  let n = 0;
  const cast = (...lines: string[]) => writeTmp(dir, `c${n++}.cast`, [H, ...lines].join("\n") + "\n");

  test("every kind of event, across many batches (by count and by bytes)", async () => {
    const lines: string[] = [];
    for (let i = 0; i < BATCH_EVENTS * (AHEAD + 2) + 7; i++) {
      const k = i % 7;
      if (k === 0) lines.push(`[0.001,"o","\\u001b[1mé✻ ${i}\\r\\n"]`);
      else if (k === 1) lines.push(`[0.001,"i","y${i}"]`);
      else if (k === 2) lines.push(`[0.001,"r","${80 + (i % 5)}x${24 + (i % 3)}"]`);
      else if (k === 3) lines.push(`[0.001,"m","truth:blocked:question ${i}"]`);
      else if (k === 4) lines.push(`[0.001,"p","{\\"pgid\\":${i},\\"sid\\":1,\\"name\\":\\"x\\"}"]`);
      else if (k === 5) lines.push(`[0.001,"x",${i % 256}]`);
      else lines.push(`[0.001,"b","/w=="]`, `[0.001,"o","?"]`); // raw bytes (invalid UTF-8)
    }
    // Events bigger than a batch, one of them bigger than the whole look-ahead.
    lines.push(`[0.5,"o","${"z".repeat(BATCH_BYTES + 3)}"]`, `[0.5,"o","${"q".repeat(BATCH_BYTES * (AHEAD + 1))}"]`);
    const o = await same(cast(...lines));
    assert.ok(o.events.length > BATCH_EVENTS * (AHEAD + 2));
  });

  test("a truncated last line: the same warning", async () => {
    const f = writeTmp(dir, "trunc.cast", `${H}\n[0.1,"o","a"]\n[0.2,"o","b`);
    const o = await same(f);
    assert.equal(o.warnings.length, 1);
  });

  test("a bad line after several batches: the same error, after the same events", async () => {
    const good = Array.from({ length: BATCH_EVENTS * 2 + 5 }, (_, i) => `[0.001,"o","${i}"]`);
    const o = await same(cast(...good, `[0.1,"o",1]`, `[0.1,"o","after"]`));
    assert.equal(o.events.length, good.length);
    assert.match((o.error as { line: string }).line, /:8199: "o" data must be a string/);
  });

  test("a header that does not parse, a missing file, a directory: the same one line", async () => {
    await same(writeTmp(dir, "badheader.cast", `{"version":3,"term":{"cols":0,"rows":24}}\n`));
    const missing = await same(path.join(dir, "nope.cast"));
    assert.ok(missing.error);
    await same(dir);
  });

  test("other formats: ttyrec, raw bytes, a snapshot-like text", async () => {
    const frames = [
      encodeTtyrecFrame(0, new TextEncoder().encode("hi\r\n")),
      encodeTtyrecFrame(0.5, new Uint8Array([0xff, 0x41])),
    ];
    const tty = path.join(dir, "a.ttyrec");
    fs.writeFileSync(tty, Buffer.concat(frames));
    await same(tty);
    await same(writeTmp(dir, "raw.bin", new Uint8Array(300_000).map((_, i) => (i * 31) % 256)));
  });

  test("the caller stops early: the worker goes, nothing hangs", async () => {
    const f = cast(...Array.from({ length: BATCH_EVENTS * (AHEAD + 3) }, (_, i) => `[0.001,"o","${i}"]`));
    for (let k = 0; k < 3; k++) {
      const rec = await openRecordingAhead(f, {}, { worker: WORKER, min: 0 });
      let seen = 0;
      for await (const _ of rec.events) if (++seen === 10 + k * BATCH_EVENTS) break;
      assert.equal(seen, 10 + k * BATCH_EVENTS);
    }
  });

  test("runs: the same events as `events`, and the file's sha256 after them", async () => {
    const f = path.join(ROOT, "fixtures/captures/fake-claude.cast");
    const rec = await openRecordingAhead(f, {}, { worker: WORKER, min: 0, hash: true });
    assert.ok(rec.runs, "a worker-read recording has runs");
    const flat: Event[] = [];
    for await (const run of rec.runs!) flat.push(...run);
    const ref = await collect((await openRecording(f)).events);
    assert.deepEqual(
      flat.map((e) => JSON.stringify({ ...e, bytes: "bytes" in e ? Array.from(e.bytes) : null })),
      ref.map((e) => JSON.stringify({ ...e, bytes: "bytes" in e ? Array.from(e.bytes) : null })),
    );
    assert.equal(await rec.sha256(), sha256File(f));
  });

  test("a worker that cannot start: read in-process, the same result", async () => {
    const f = path.join(ROOT, "fixtures/captures/fake-claude.cast");
    const broken = writeTmp(dir, "broken_worker.ts", "throw new Error('no');\n");
    for (const worker of [new URL("./no_such_worker.ts", import.meta.url).href, new URL(`file://${broken}`).href]) {
      const rec = await openRecordingAhead(f, {}, { worker, min: 0, hash: true, side: true });
      assert.equal(rec.runs, undefined, worker);
      assert.equal(rec.beside, undefined);
      assert.equal((await collect(rec.events)).length, (await collect((await openRecording(f)).events)).length);
    }
  });

  test("small files, stdin and script timing are read in-process", async () => {
    const f = path.join(ROOT, "fixtures/captures/fake-claude.cast");
    const rec = await openRecordingAhead(f, {}, { worker: WORKER, hash: true });
    assert.equal(rec.runs, undefined);
    assert.equal(await rec.sha256(), null);
    await collect(rec.events);
  });
});
