import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as fs from "node:fs";
import { AsciicastWriter } from "./asciicast.ts";
import { type Event, type Header } from "./model.ts";
import { collect, concatOutput, tmpDir, writeTmp } from "../testkit.ts";
import { openRecording } from "./open.ts";
import { FixtureError } from "../errors.ts";

const te = new TextEncoder();
const dir = tmpDir();

function writeCast(
  header: Header,
  events: Event[],
  version: 2 | 3 = 3,
  precision?: "ms" | "us",
): { text: string; w: AsciicastWriter } {
  const parts: string[] = [];
  const w = new AsciicastWriter({ write: (s) => parts.push(s) }, version, { precision });
  w.header(header);
  for (const e of events) w.event(e);
  w.end(events.at(-1)?.t ?? 0);
  return { text: parts.join(""), w };
}

let n = 0;
async function read(text: string, name = `t${n++}.cast`) {
  const rec = await openRecording(writeTmp(dir, name, text));
  const events = await collect(rec.events);
  return { rec, events };
}

async function fails(text: string, line: number | null, re: RegExp) {
  await assert.rejects(async () => {
    const { events } = await read(text);
    void events;
  }, (e: unknown) => {
    assert.ok(e instanceof FixtureError, String(e));
    assert.equal(e.line, line);
    assert.match(e.message, re);
    return true;
  });
}

describe("asciicast v3 reading", () => {
  test("header fields, events, comments, empty lines, unknown codes and keys", async () => {
    const text = [
      JSON.stringify({
        version: 3,
        term: { cols: 90, rows: 30, type: "xterm-256color", version: "VTE(7802)" },
        timestamp: 1700000000,
        idle_time_limit: 2,
        command: "bash",
        title: "t",
        env: { SHELL: "/bin/bash" },
        tags: ["a"],
        future: { x: 1 },
      }),
      "# a comment",
      "",
      '[0.248, "o", "\\u001b[1;31mHello"]',
      '[1.000, "i", "q"]',
      '[0.5, "r", "100x40"]',
      '[0.25, "m", "truth:blocked:permission"]',
      '[0, "z", "future event"]',
      '[0.002, "x", "3"]',
      "",
    ].join("\n");
    const { rec, events } = await read(text);
    assert.equal(rec.format, "v3");
    assert.deepEqual(rec.header, {
      cols: 90,
      rows: 30,
      termType: "xterm-256color",
      termVersion: "VTE(7802)",
      timestamp: 1700000000,
      idleTimeLimit: 2,
      command: "bash",
      title: "t",
      env: { SHELL: "/bin/bash" },
      tags: ["a"],
      extra: { future: { x: 1 } },
    });
    assert.deepEqual(events.map((e) => [e.t, e.kind]), [
      [0.248, "output"],
      [1.248, "input"],
      [1.748, "resize"],
      [1.998, "marker"],
      [1.998, "other"],
      [2, "exit"],
    ]);
    assert.deepEqual(events[2], { t: 1.748, kind: "resize", cols: 100, rows: 40 });
    assert.deepEqual(events[5], { t: 2, kind: "exit", status: 3 });
  });
  test("a truncated last line is a warning, not an error", async () => {
    const { rec, events } = await read('{"version":3,"term":{"cols":80,"rows":24}}\n[0.1,"o","a"]\n[0.2,"o","b');
    assert.equal(events.length, 1);
    assert.equal(rec.warnings.length, 1);
    assert.match(rec.warnings[0], /:3: last line is truncated/);
  });
  test("malformed shapes: one clear error with file and line", async () => {
    await fails('{"version":3,"term":{"cols":80,"rows":24}}\n[0.1,"o",\n[0.2,"o","x"]\n', 2, /not valid JSON/);
    await fails('{"version":4,"term":{"cols":80,"rows":24}}\n', 1, /unsupported asciicast version 4/);
    await fails(
      '{"version":3,"term":{"cols":80,"rows":24}}\n[0.1,"r","80by24"]\n',
      2,
      /resize data must be "COLSxROWS"/,
    );
    await fails('{"version":3,"term":{"cols":80,"rows":24}}\n[0.1,"r","0x24"]\n', 2, /resize 0x24 is out of range/);
    await fails(
      '{"version":3,"term":{"cols":80,"rows":24}}\n[0.1,"o","a"]\n[0.1,"x","1.5"]\n',
      3,
      /exit status must be an integer/,
    );
    await fails('{"version":3,"term":{"cols":80,"rows":24}}\n[-0.1,"o","a"]\n', 2, /interval is negative/);
    await fails('["not","an","object"]\n', 1, /header is not a JSON object/);
    await fails('{"version":3,"term":{"cols":80,"rows":24\n', 1, /header is not valid JSON/);
    await fails('{"version":3}\n', 1, /term must be an object/);
    await fails('{"version":3,"term":{"cols":"80","rows":24}}\n', 1, /term.cols must be an integer/);
    await fails('{"version":3,"term":{"cols":80,"rows":24}}\n{"t":1}\n', 2, /must be an array/);
    await fails('{"version":3,"term":{"cols":80,"rows":24}}\n["1","o","a"]\n', 2, /time must be a number/);
  });
});

describe("asciicast v2 reading", () => {
  test("absolute times, width/height, env TERM", async () => {
    const { rec, events } = await read(
      '{"version":2,"width":80,"height":24,"env":{"TERM":"xterm","SHELL":"/bin/sh"}}\n[0.5,"o","a"]\n[1.25,"o","b"]\n[2,"m","x"]\n',
      "v2.cast",
    );
    assert.equal(rec.format, "v2");
    assert.equal(rec.header.termType, "xterm");
    assert.deepEqual(events.map((e) => e.t), [0.5, 1.25, 2]);
  });
  test("time going backwards is clamped with a warning", async () => {
    const { rec, events } = await read('{"version":2,"width":80,"height":24}\n[1,"o","a"]\n[0.5,"o","b"]\n');
    assert.deepEqual(events.map((e) => e.t), [1, 1]);
    assert.equal(rec.warnings.length, 1);
  });
});

describe("writing", () => {
  test("one o per read, b only for reads that are not valid UTF-8", () => {
    const { text } = writeCast({ cols: 80, rows: 24 }, [
      { t: 0.1, kind: "output", bytes: te.encode("ok") },
      { t: 0.2, kind: "output", bytes: new Uint8Array([0x41, 0xff, 0x42]) },
      { t: 0.2, kind: "output", bytes: new Uint8Array(0) },
    ]);
    assert.equal(
      text,
      [
        '{"version":3,"term":{"cols":80,"rows":24}}',
        '[0.100, "o", "ok"]',
        '[0.100, "b", "Qf9C"]',
        '[0.000, "o", "A\ufffdB"]',
        '[0.000, "o", ""]',
        "",
      ].join("\n"),
    );
  });
  test("a character split across reads is held back and reported as moved", () => {
    const euro = te.encode("€"); // e2 82 ac
    const { text, w } = writeCast({ cols: 80, rows: 24 }, [
      { t: 0, kind: "output", bytes: new Uint8Array([0x61, euro[0], euro[1]]) },
      { t: 1, kind: "output", bytes: new Uint8Array([euro[2], 0x62]) },
    ]);
    assert.ok(text.includes('[0.000, "o", "a"]'));
    assert.ok(text.includes('[1.000, "o", "€b"]'));
    assert.equal(w.stats.movedBytes, 2);
    assert.equal(w.stats.rawEvents, 0);
  });
  test("a character split across reads is held back even when the read is invalid anyway", () => {
    const euro = te.encode("€");
    const { text, w } = writeCast({ cols: 80, rows: 24 }, [
      { t: 0, kind: "output", bytes: new Uint8Array([0x61, 0xff, euro[0], euro[1]]) },
      { t: 1, kind: "output", bytes: new Uint8Array([euro[2], 0x62]) },
    ]);
    assert.ok(text.includes('[0.000, "b", "Yf8="]'), text); // a, 0xff: the invalid read, without the tail
    assert.ok(text.includes('[1.000, "o", "€b"]'), text);
    assert.equal(w.stats.movedBytes, 2);
  });
  test("an incomplete tail at the end is written with its bytes", async () => {
    const { text } = writeCast({ cols: 80, rows: 24 }, [{
      t: 0,
      kind: "output",
      bytes: new Uint8Array([0x61, 0xe2, 0x82]),
    }]);
    const { events } = await read(text);
    assert.deepEqual([...concatOutput(events)], [0x61, 0xe2, 0x82]);
  });
  test("ms intervals with error diffusion: no drift over long sessions", () => {
    const evs: Event[] = [];
    for (let i = 1; i <= 10000; i++) evs.push({ t: i * 0.0004, kind: "marker", label: "" });
    const { text } = writeCast({ cols: 80, rows: 24 }, evs);
    let sum = 0, i = 0;
    for (const line of text.trim().split("\n").slice(1)) {
      sum += Number(JSON.parse(line)[0]) * 1000;
      i++;
      assert.ok(Math.abs(sum - i * 0.4) <= 0.5 + 1e-6, `accumulated error at event ${i}: ${sum - i * 0.4} ms`);
    }
  });
  test("v2 writes absolute times and no exit event", () => {
    const { text, w } = writeCast({ cols: 80, rows: 24, termType: "xterm" }, [
      { t: 0.5, kind: "output", bytes: te.encode("a") },
      { t: 1.5, kind: "exit", status: 0 },
    ], 2);
    assert.equal(text, '{"version":2,"width":80,"height":24,"env":{"TERM":"xterm"}}\n[0.500000, "o", "a"]\n');
    assert.equal(w.stats.dropped, 1);
  });
});

describe("byte-exactness (property)", () => {
  // Random reads including invalid UTF-8 and multibyte characters split anywhere.
  const chunk = fc.oneof(
    fc.uint8Array({ maxLength: 12 }),
    fc.string({ maxLength: 8 }).map((s) => te.encode(s)),
    fc.constantFrom(
      te.encode("€"),
      te.encode("😀"),
      te.encode("中"),
      new Uint8Array([0xe2]),
      new Uint8Array([0x82, 0xac]),
      new Uint8Array([0xf0, 0x9f]),
      new Uint8Array([0xff, 0xc0, 0x80]),
    ),
  );
  const stream = fc.array(fc.tuple(fc.double({ min: 0, max: 2, noNaN: true }), fc.boolean(), chunk), { maxLength: 30 });
  for (const precision of ["ms", "us"] as const) {
    test(`write v3 (${precision}) → read → same bytes in the same order; write again → same file`, async () => {
      await fc.assert(
        fc.asyncProperty(stream, async (items) => {
          let t = 0;
          const events: Event[] = items.map(([dt, isInput, bytes]) => {
            t += dt;
            return { t, kind: isInput ? "input" : "output", bytes };
          });
          const { text, w } = writeCast({ cols: 80, rows: 24 }, events, 3, precision);
          const back = await read(text);
          for (const kind of ["output", "input"] as const) {
            const want = concatOutput(
              events.filter((e) => e.kind === kind).map((e) => ({ ...e, kind: "output" }) as Event),
            );
            const got = concatOutput(
              back.events.filter((e) => e.kind === kind).map((e) => ({ ...e, kind: "output" }) as Event),
            );
            assert.deepEqual(got, want, kind);
          }
          // Chunk boundaries are kept: one event per read, plus at most one flushed tail per stream.
          assert.ok(back.events.length >= events.length && back.events.length <= events.length + 2);
          if (w.stats.movedBytes === 0 && back.events.length === events.length) {
            for (let i = 0; i < events.length; i++) {
              assert.deepEqual(
                (back.events[i] as { bytes: Uint8Array }).bytes,
                (events[i] as { bytes: Uint8Array }).bytes,
              );
            }
          }
          // Idempotent: what we wrote reads back to a stream that writes the same file.
          const again = writeCast(back.rec.header, back.events, 3, precision).text;
          assert.equal(again, text);
        }),
        { numRuns: 150 },
      );
    });
  }
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
