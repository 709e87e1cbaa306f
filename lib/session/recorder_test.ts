// The recording session in-process, handed a fake terminal: what is typed reaches the
// program (labels taken out, the prefix twice sending it once), what the program writes
// is shown, a window resize is recorded and reaches the program, a stop signal ends it
// and keeps the file, and everything the session set up on the terminal is undone.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runSession, type SessionOptions } from "./recorder.ts";
import { STOP_SIGNALS, type StopSignal, type Terminal, type TerminalSize } from "./terminal.ts";
import type { Event } from "../recording/model.ts";
import { concatOutput, memoryWriter } from "../testkit.ts";
import { DEFAULT_PREFIX } from "./label_keys.ts";
import { SIZE_MAX } from "../units.ts";

const te = new TextEncoder();
const td = new TextDecoder();

class FakeTerminal implements Terminal {
  readonly shown: Uint8Array[] = [];
  readonly titles: (string | null)[] = [];
  readonly raw: boolean[] = [];
  now: TerminalSize = { cols: 80, rows: 24 };
  private onData: ((b: Uint8Array) => void) | null = null;
  readonly resizes = new Set<() => void>();
  readonly signals = new Set<(s: StopSignal) => void>();
  readonly exits = new Set<() => void>();
  constructor(readonly interactive: boolean) {}
  listen(onData: (b: Uint8Array) => void) {
    this.onData = onData;
    return () => void (this.onData = null);
  }
  setRaw(on: boolean) {
    this.raw.push(on);
  }
  write(b: Uint8Array) {
    this.shown.push(b.slice());
  }
  size() {
    return this.now;
  }
  onResize(f: () => void) {
    this.resizes.add(f);
    return () => void this.resizes.delete(f);
  }
  onSignal(f: (s: StopSignal) => void) {
    this.signals.add(f);
    return () => void this.signals.delete(f);
  }
  title(text: string | null) {
    this.titles.push(text);
  }
  onExit(f: () => void) {
    this.exits.add(f);
    return () => void this.exits.delete(f);
  }
  // What the test does to it.
  type(s: string) {
    assert.ok(this.onData, "the session is not listening");
    this.onData(te.encode(s));
  }
  resize(cols: number, rows: number) {
    this.now = { cols, rows };
    for (const f of this.resizes) f();
  }
  signal(s: StopSignal) {
    for (const f of this.signals) f(s);
  }
  text() {
    return td.decode(concatOutput(this.shown.map((bytes) => ({ t: 0, kind: "output" as const, bytes }))));
  }
  /** Resolves once the session listens (it spawns the program first). */
  async listening(ms = 15000) {
    const end = Date.now() + ms;
    while (!this.onData && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    assert.ok(this.onData, "the session never listened");
  }
  /** Resolves once the shown text matches (the program's pace, not a timer's). */
  async until(re: RegExp, ms = 15000) {
    const end = Date.now() + ms;
    while (!re.test(this.text()) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    assert.match(this.text(), re);
  }
}

function options(argv: string[], terminal: Terminal | undefined, more: Partial<SessionOptions> = {}): SessionOptions {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return {
    argv,
    cols: 80,
    rows: 24,
    headless: false,
    captureInput: false,
    answer: true,
    env: { ...env, TERM: "xterm-256color" },
    terminal,
    followWinch: true,
    drainGraceMs: 1000,
    ...more,
  };
}

const ctrl = String.fromCharCode(DEFAULT_PREFIX);
const outputText = (events: Event[]) => td.decode(concatOutput(events));

describe("the session and its terminal", () => {
  test("typed keys, label keys, the prefix twice, a resize; then raw mode and every hook undone", async () => {
    const term = new FakeTerminal(true);
    const writer = memoryWriter();
    // cat -v shows a control byte as ^]; once it ends, stty reports the size the program sees.
    const done = runSession(options(["sh", "-c", "cat -v; stty size"], term), writer);
    await term.listening();
    term.type("one\r");
    await term.until(/one\r\n.*one/s);
    term.type(`${ctrl}w`);
    term.resize(100, 30);
    term.type(`two${ctrl}${ctrl}\r`);
    await term.until(/two\^\]\r\n.*two\^\]/s);
    term.type(`${ctrl}i\x04`);
    const r = await done;

    assert.equal(r.status, 0);
    const markers = writer.events.filter((e) => e.kind === "marker").map((e) => (e as { label: string }).label);
    assert.deepEqual(markers, ["truth:working", "truth:idle"]);
    assert.deepEqual(
      writer.events.filter((e) => e.kind === "resize").map((e) => [(e as TerminalSize).cols, (e as TerminalSize).rows]),
      [[100, 30]],
    );
    const recorded = outputText(writer.events);
    assert.match(recorded, /30 100/, "the program did not see the new size");
    // The tty echoes the doubled prefix once and cat -v prints it once: two ^], never the labels' letters.
    assert.equal((recorded.match(/\^\]/g) ?? []).length, 2, recorded);
    assert.ok(!/\^\][wi]/.test(recorded), recorded);
    // What the program wrote is what the user saw.
    assert.equal(term.text(), recorded);
    assert.deepEqual(term.raw, [true, false]);
    assert.equal(term.titles[0], "pstlab ✓ truth:working");
    assert.equal(term.titles.at(-1), null, "the user's title was not brought back");
    assert.deepEqual([term.resizes.size, term.signals.size, term.exits.size], [0, 0, 0]);
  });

  test("a window larger than pstlab records gives the program the largest size a reader takes, and says so", async () => {
    const term = new FakeTerminal(true);
    const writer = memoryWriter();
    const done = runSession(options(["sh", "-c", "read x; stty size"], term), writer);
    await term.listening();
    term.resize(SIZE_MAX + 500, 40);
    term.type("\r");
    const r = await done;
    assert.equal(r.status, 0);
    const resizes = writer.events.filter((e) => e.kind === "resize").map((e) => [
      (e as TerminalSize).cols,
      (e as TerminalSize).rows,
    ]);
    assert.deepEqual(resizes, [[SIZE_MAX, 40]]);
    assert.match(outputText(writer.events), new RegExp(`40 ${SIZE_MAX}`), "the program saw another size");
    const markers = writer.events.filter((e) => e.kind === "marker").map((e) => (e as { label: string }).label);
    assert.ok(
      markers.some((m) => m.includes(`window ${SIZE_MAX + 500}x40 is larger than pstlab records`)),
      markers.join(),
    );
  });

  for (const sig of STOP_SIGNALS) {
    test(`${sig} from the terminal stops the program and keeps the recording`, async () => {
      const term = new FakeTerminal(true);
      const writer = memoryWriter();
      const done = runSession(options(["sh", "-c", "echo ready; exec sleep 30"], term), writer);
      await term.until(/ready/);
      term.signal(sig);
      const r = await done;
      assert.equal(r.interrupted, sig);
      assert.equal(r.status, 128 + 15, "stopped with SIGTERM");
      assert.equal(writer.events.at(-1)?.kind, "exit");
      assert.match(outputText(writer.events), /ready/);
      assert.deepEqual(term.raw, [true, false]);
      assert.equal(term.signals.size, 0);
    });
  }

  test("a terminal nobody types at: no raw mode, no label keys, nothing shown when headless", async () => {
    const term = new FakeTerminal(false);
    const writer = memoryWriter();
    const r = await runSession(options(["sh", "-c", `printf 'a${ctrl}w b'`], term, { headless: true }), writer);
    assert.equal(r.status, 0);
    assert.deepEqual(term.raw, []);
    assert.deepEqual(term.shown, []);
    assert.equal(writer.events.filter((e) => e.kind === "marker").length, 0);
    assert.match(outputText(writer.events), /a\x1dw b/);
  });

  test("no terminal at all (nullTerminal) records a program on its own", async () => {
    const writer = memoryWriter();
    const r = await runSession(options(["sh", "-c", "echo alone"], undefined, { headless: true }), writer);
    assert.equal(r.status, 0);
    assert.match(outputText(writer.events), /alone/);
  });
});
