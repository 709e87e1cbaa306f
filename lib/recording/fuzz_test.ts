// Hostile input, kept out by properties: every reader, the protocol core and the whole
// analysis either succeed or fail with a UserError (one line, file:line) on arbitrary
// bytes and on mutated fixtures (bit flips, truncation, duplicated lines, absurd numbers).
// A longer run: PSTLAB_FUZZ_RUNS=5000 npm test.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as fs from "node:fs";
import * as path from "node:path";
import { type OpenOptions, openRecording } from "./open.ts";
import { collect, encodeTtyrecFrame, ROOT, tmpDir } from "../testkit.ts";
import { Tracker } from "../osc7501/tracker.ts";
import { UserError } from "../errors.ts";
import { MAX_DIMENSION } from "./model.ts";
import { analyzeFile } from "../../replay/analyze.ts";

const RUNS = Number(process.env.PSTLAB_FUZZ_RUNS ?? 60);
const dir = tmpDir("pstlab-fuzz-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const te = new TextEncoder();
let n = 0;

const DEPLOY = fs.readFileSync(path.join(ROOT, "fixtures/captures/deploy.cast"));
const CLAUDE_HEAD =
  fs.readFileSync(path.join(ROOT, "fixtures/captures/fake-claude.cast"), "utf8").split("\n").slice(0, 120).join("\n") +
  "\n";
const TTYREC = new Uint8Array([
  ...encodeTtyrecFrame(0, te.encode("\x1b[8;24;80thello\r\n")),
  ...encodeTtyrecFrame(0.5, te.encode("\x1b]7501;state=blocked\x07ok?")),
]);
const ABSURD = ["1e308", "1e400", "-1", "99999999999999999", "NaN", "0x10", '"1"', "null", "[]", "65535", "0"];

/** Mutations a hostile or broken file shows: flipped bits, cuts, repeated lines, absurd numbers. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.nat({ max: 7 }) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("dup" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("number" as const), at: fc.nat(), value: fc.constantFrom(...ABSURD) }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 16 }) }),
);

type Mutation = { kind: string; at: number; bit?: number; value?: string; bytes?: Uint8Array };

function mutate(base: Uint8Array, ms: Mutation[]): Uint8Array {
  let b = base;
  for (const m of ms) {
    const at = b.length ? m.at % b.length : 0;
    if (m.kind === "flip" && b.length) {
      b = b.slice();
      b[at] ^= 1 << m.bit!;
    } else if (m.kind === "cut") b = b.subarray(0, at);
    else if (m.kind === "insert") b = new Uint8Array([...b.subarray(0, at), ...m.bytes!, ...b.subarray(at)]);
    else {
      const text = new TextDecoder().decode(b);
      const lines = text.split("\n");
      const li = lines.length ? at % lines.length : 0;
      if (m.kind === "dup") lines.splice(li, 0, lines[li]);
      else lines[li] = lines[li].replace(/-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?/, m.value!);
      b = te.encode(lines.join("\n"));
    }
  }
  return b;
}

/** Reads everything; a failure must be a UserError with a one-line message. */
async function readsOrRefuses(bytes: Uint8Array, name: string, opts: OpenOptions = {}): Promise<void> {
  const p = path.join(dir, `${n++}-${name}`);
  fs.writeFileSync(p, bytes);
  try {
    const rec = await openRecording(p, opts);
    const events = await collect(rec.events);
    for (const e of events) {
      assert.ok(Number.isFinite(e.t) && e.t >= 0, `time ${e.t}`);
      if (e.kind === "resize") {
        assert.ok(
          e.cols >= 1 && e.rows >= 1 && e.cols <= MAX_DIMENSION && e.rows <= MAX_DIMENSION,
          `${e.cols}x${e.rows}`,
        );
      }
    }
    assert.ok(
      rec.header.cols >= 1 && rec.header.cols <= MAX_DIMENSION && rec.header.rows >= 1 &&
        rec.header.rows <= MAX_DIMENSION,
    );
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    assert.ok(!e.oneLine().includes("\n"), e.oneLine());
  } finally {
    fs.rmSync(p, { force: true });
  }
}

describe("readers on hostile bytes", () => {
  test("arbitrary bytes, in every input format", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 400 }),
        fc.constantFrom<OpenOptions>({}, { from: "raw" }, { from: "ttyrec" }, { from: "v3" }, { from: "snapshot" }, {
          chunk: 3,
          from: "raw",
        }),
        async (b, opts) => {
          await readsOrRefuses(b, "any.bin", opts);
        },
      ),
      { numRuns: RUNS },
    );
  });
  test("mutated asciicast fixtures", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(new Uint8Array(DEPLOY), te.encode(CLAUDE_HEAD)),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (base, ms) => {
          await readsOrRefuses(mutate(base, ms), "m.cast");
        },
      ),
      { numRuns: RUNS },
    );
  });
  test("mutated ttyrec", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (ms) => {
        await readsOrRefuses(mutate(TTYREC, ms), "m.ttyrec", { from: "ttyrec" });
      }),
      { numRuns: RUNS },
    );
  });
  test("mutated script timing files", async () => {
    const log = path.join(dir, "fuzz.log");
    fs.writeFileSync(log, "Script started on x\nhello world, this is the output log\n");
    const timing = te.encode(
      "H 0.0 COLUMNS 80\nH 0.0 LINES 24\nO 0.1 5\nS 0.1 SIGWINCH ROWS=30 COLS=100\nO 0.2 6\nI 0.1 2\nH 0.3 EXIT_CODE 0\n",
    );
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (ms) => {
        const t = path.join(dir, `t${n++}.timing`);
        fs.writeFileSync(t, mutate(timing, ms));
        try {
          await readsOrRefuses(fs.readFileSync(log), "log.txt", { timing: t });
        } finally {
          fs.rmSync(t, { force: true });
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("protocol core and analysis on hostile bytes", () => {
  test("the tracker never throws, whatever the bytes and however they are split", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }), (chunks) => {
        const tr = new Tracker(() => {});
        chunks.forEach((c, i) => tr.feed(c, i));
        tr.exit(chunks.length);
        tr.end(chunks.length);
      }),
      { numRuns: RUNS * 5 },
    );
  });
  test("report's analysis of a mutated capture succeeds or refuses with a UserError", async () => {
    let analysed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (ms) => {
        const p = path.join(dir, `a${n++}.cast`);
        fs.writeFileSync(p, mutate(new Uint8Array(DEPLOY), ms));
        try {
          await analyzeFile(p, {
            detectors: ["protocol", "screen:claude@50ms", "quiet>=2s", "herdr:claude", "hash@500ms"],
            truth: "protocol",
            open: {},
          });
          analysed++;
        } catch (e) {
          if (!(e instanceof UserError)) throw e;
          assert.ok(!e.oneLine().includes("\n"), e.oneLine());
        } finally {
          fs.rmSync(p, { force: true });
        }
      }),
      { numRuns: Math.max(10, RUNS / 3) },
    );
    // A few mutations leave the capture readable; an analysis that refused everything would pass unseen.
    assert.ok(analysed > 0, "no mutated capture was analysed");
  });
});
