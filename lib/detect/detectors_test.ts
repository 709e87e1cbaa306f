// Each detector's behaviour on small synthetic streams, including the traps from
// docs/detection.md §7 (prompt box visible while working, a stale title, a one-frame spinner
// flash, a reply ending in "Would you like me to…?"), and the real captures.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { createDetector, defaultDetectorNames } from "./kinds.ts";
import { runDetectors } from "../../replay/clock.ts";
import { type Timeline, type Verdict, verdictAt } from "./timeline.ts";
import type { Event } from "../recording/model.ts";
import { fromArray, hasShared, SHARED } from "../testkit.ts";
import { openRecording } from "../recording/open.ts";

const te = new TextEncoder();
const o = (t: number, s: string): Event => ({ t, kind: "output", bytes: te.encode(s) });
const header = { cols: 120, rows: 32 };

async function run(names: string[], events: Event[], until?: number): Promise<Map<string, Timeline>> {
  const dets = names.map((n) => createDetector(n));
  const { timelines } = await runDetectors(header, fromArray(events), dets, { until });
  return new Map(timelines.map((t) => [t.detector, t]));
}
const at = (tl: Timeline | undefined, t: number): Verdict => verdictAt(tl!, t)!;
/** Times where needsYou switched on/off. */
const edges = (tl: Timeline) => {
  const out: [number, boolean][] = [];
  let prev = false;
  for (const p of tl.points) if (p.verdict.needsYou !== prev) out.push([p.t, prev = p.verdict.needsYou]);
  return out;
};

// Claude-like frames. Words placed with CSI n G and no newlines, as the real captures.
const HOME = "\x1b[H\x1b[2J";
const promptBox = "\x1b[20;1H" + "─".repeat(80) + "\r\x1b[1B❯ \r\x1b[1B" + "─".repeat(80) +
  "\r\x1b[1B  ? for shortcuts";
const working = (n: number) => `\x1b[18;1H\x1b[2K✢ Reticulating… (${n}s · ↓ 12 tokens · esc to interrupt)`;
const permission =
  "\x1b[10;1H\r\x1b[1C\x1b[1BDo\x1b[5Gyou\x1b[9Gwant\x1b[14Gto\x1b[17Gproceed?\r\x1b[1C\x1b[1B❯\x1b[4G1. Yes\r\x1b[3C\x1b[1B2. No\r\x1b[1B\x1b[2GEsc\x1b[6Gto\x1b[9Gcancel\x1b[16G·\x1b[18GTab\x1b[22Gto\x1b[25Gamend";
const erase = "\x1b[10;1H\x1b[J";

describe("screen rules vs the stripped tail (osFoundry's fixture lesson)", () => {
  // The seed's claude.blocked.raw excerpt, reconstructed from the write-up.
  const excerpt = "\r\x1b[1C\x1b[1B\x1b[39mDo\x1b[5Gyou\x1b[9Gwant\x1b[14Gto\x1b[17Gproceed?" +
    "\r\x1b[1C\x1b[1B\x1b[38;2;177;185;249m❯\x1b[4G\x1b[38;2;153;153;153m1. \x1b[38;2;177;185;249mYes" +
    "\r\x1b[3C\x1b[1B\x1b[38;2;153;153;153m2. \x1b[39mYes,\x1b[12Gand\x1b[16Galways\x1b[23Gallow ...";
  test("claude.blocked.raw: blocked on the emulated screen, not on the stripped tail", async () => {
    const tls = await run(["screen:claude@write", "tail8k:claude@write"], [o(0, excerpt)]);
    assert.equal(at(tls.get("screen:claude@write"), 0).state, "blocked");
    assert.equal(at(tls.get("tail8k:claude@write"), 0).state, "idle");
  });
});

describe("detectors on a synthetic turn", () => {
  // 0–2 s working (spinner every 0.1 s), 2 s permission prompt, answered at 5 s, working
  // to 6 s, then idle prompt at 6 s; silence afterwards.
  const evs: Event[] = [o(0, HOME + promptBox)];
  for (let k = 0; k < 20; k++) evs.push(o(k * 0.1, working(k)));
  evs.push(o(2, permission));
  evs.push(o(5, erase + working(5)));
  for (let k = 51; k < 60; k++) evs.push(o(k * 0.1, working(k)));
  evs.push(o(6, "\x1b[18;1H\x1b[2K✻ Worked for 6s\r\n"));
  const names = [
    "screen:claude@50ms",
    "screen:claude@700ms",
    "tail8k:claude",
    "question",
    "quiet>=1s",
    "hash@500ms",
    "herdr:claude",
  ];
  test("screen rules at 50 ms: blocked from the first sample after 2 s until the erase", async () => {
    const tls = await run(names, evs, 12);
    assert.deepEqual(edges(tls.get("screen:claude@50ms")!), [[2, true], [5, false]]);
    assert.equal(at(tls.get("screen:claude@50ms"), 1).state, "working"); // the prompt box is visible while working
    assert.equal(at(tls.get("screen:claude@50ms"), 8).state, "idle");
  });
  test("a 700 ms sweep: detected at the next tick, lingers until the next", async () => {
    const tls = await run(names, evs, 12);
    assert.deepEqual(edges(tls.get("screen:claude@700ms")!), [[2.1, true], [5.6, false]]);
  });
  test("the stripped tail never sees a prompt placed with CSI n G", async () => {
    const tls = await run(names, evs, 12);
    assert.deepEqual(edges(tls.get("tail8k:claude")!), []);
  });
  test("quiet>=1s fires on every silence, prompt or not", async () => {
    const tls = await run(names, evs, 12);
    assert.deepEqual(edges(tls.get("quiet>=1s")!), [[3, true], [5, false], [7, true]]);
  });
  test("hash@500ms: unchanged screen reads as needs-you", async () => {
    const tls = await run(names, evs, 12);
    assert.deepEqual(edges(tls.get("hash@500ms")!), [[2.5, true], [5, false], [6.5, true]]);
  });
  test("herdr: 3 s startup grace, then Herdr's rules and publish logic", async () => {
    const tls = await run(names, evs, 12);
    const h = tls.get("herdr:claude")!;
    assert.equal(at(h, 2.9).state, "unknown");
    assert.deepEqual(edges(h), [[3, true], [5.1, false]]);
    assert.equal(at(h, 5.5).state, "working");
  });
});

describe("traps", () => {
  test("a reply ending in 'Would you like me to…?' fools the question detector only", async () => {
    const evs = [o(0, HOME + "\x1b[5;1H● Fixed the bug. Would you like me to add a regression test?" + promptBox)];
    const tls = await run(["question", "screen:claude@50ms"], evs, 1);
    assert.equal(at(tls.get("question"), 1).needsYou, true);
    assert.equal(at(tls.get("screen:claude@50ms"), 1).state, "idle");
  });
  test("a stale title pins title-only detection; the screen wins for screen rules", async () => {
    const evs = [o(0, "\x1b]0;✳ Claude Code\x07" + HOME + promptBox), o(1, working(1))];
    const herdrClaude = `screen:${path.join(SHARED, "manifests/herdr/claude.toml")}@50ms`;
    const tls = await run(["title:claude", "screen:claude@50ms", ...(hasShared ? [herdrClaude] : [])], evs, 2);
    assert.equal(at(tls.get("title:claude"), 2).state, "idle"); // stale ✳ says idle mid-turn
    assert.equal(at(tls.get("screen:claude@50ms"), 2).state, "working");
    if (hasShared) assert.equal(at(tls.get(herdrClaude), 2).state, "working");
  });
  test("a one-frame spinner flash: seen every write, missed by a sweep, held by Herdr's confirmation", async () => {
    const evs = [o(0, HOME + promptBox), o(4.02, working(0)), o(4.05, "\x1b[18;1H\x1b[2K")];
    const tls = await run(["screen:claude@write", "screen:claude@700ms", "herdr:claude"], evs, 8);
    const w = tls.get("screen:claude@write")!.points.map((p) => [p.t, p.verdict.state]);
    assert.deepEqual(w, [[0, "idle"], [4.02, "working"], [4.05, "idle"]]);
    assert.deepEqual(tls.get("screen:claude@700ms")!.points.map((p) => p.verdict.state), ["idle"]);
    // Herdr samples at 4.1 (after the flash): it never saw it either.
    assert.equal(at(tls.get("herdr:claude"), 5).state, "idle");
  });
  test("an answered prompt scrolled out of the viewport does not count", async () => {
    const evs = [o(0, HOME + "Do you want to proceed?\r\n❯ 1. Yes\r\n" + "line\r\n".repeat(40) + "? for shortcuts")];
    const tls = await run(["screen:claude@write"], evs);
    assert.equal(at(tls.get("screen:claude@write"), 0).state, "idle");
  });
});

describe("protocol and combined", () => {
  const rep = (t: number, body: string) => o(t, `\x1b]7501;${body}\x1b\\`);
  test("protocol: needs-you exactly when a blocked record exists", async () => {
    const tls = await run(["protocol"], [
      rep(0.5, "state=working"),
      rep(1.25, "state=blocked:kind=permission"),
      rep(3, "state=working"),
      o(4, "\x1b]133;A\x07"),
    ]);
    assert.deepEqual(edges(tls.get("protocol")!), [[1.25, true], [3, false]]);
    assert.equal(at(tls.get("protocol"), 4).state, "unknown");
  });
  test("combined: a prompt on screen always counts; otherwise the program's report", async () => {
    const evs = [
      o(0, HOME + promptBox),
      rep(0.5, "state=working"),
      o(1, permission),
      o(2, erase),
      rep(3, "state=blocked"),
    ];
    const tls = await run(["combined:claude@write"], evs);
    const c = tls.get("combined:claude@write")!;
    assert.equal(at(c, 0).state, "idle");
    assert.equal(at(c, 0.5).rule, "record:root:working");
    assert.equal(at(c, 1).rule, "screen:permission_prompt");
    assert.equal(at(c, 2).state, "working");
    assert.equal(at(c, 3).state, "blocked");
  });
  test("after the process exits, screen detectors read idle", async () => {
    const tls = await run(
      ["screen:claude@50ms", "quiet>=1s"],
      [o(0, permission), { t: 1, kind: "exit", status: 0 }],
      3,
    );
    assert.equal(at(tls.get("screen:claude@50ms"), 3).rule, "process-exited");
    assert.equal(at(tls.get("quiet>=1s"), 3).needsYou, false);
  });
});

describe("names", () => {
  test("stable names, round-tripping through createDetector", () => {
    for (const n of defaultDetectorNames("claude")) assert.equal(createDetector(n).name, n);
    assert.equal(createDetector("screen:claude@0.7s").name, "screen:claude@700ms");
    assert.equal(createDetector("quiet>=0.5s").every, 0.05);
    assert.throws(() => createDetector("screen"), /needs a manifest/);
    assert.throws(() => createDetector("nope"), /unknown detector/);
    assert.throws(() => createDetector("screen:claude@fast"), /bad sampling interval/);
  });
});

const CAP = path.join(SHARED, "captures");
describe("real captures", { skip: !hasShared && "../shared/captures is absent" }, () => {
  const cases: [string, string, string[]][] = [
    ["claudeless-2.1.29/initial_state.tui.ansi.txt", "idle", [
      "claude",
      path.join(SHARED, "manifests/herdr/claude.toml"),
    ]],
    ["claudeless-2.1.29/bash_permission_dialog.tui.ansi.txt", "blocked", [
      "claude",
      path.join(SHARED, "manifests/herdr/claude.toml"),
    ]],
    ["codex/codex_tui__bottom_pane__approval_overlay__tests__approval_overlay_permissions_prompt.snap", "blocked", [
      "codex",
      path.join(SHARED, "manifests/herdr/codex.toml"),
    ]],
    ["codex/codex_tui__status_indicator_widget__tests__renders_with_working_header.snap", "working", [
      "codex",
      path.join(SHARED, "manifests/herdr/codex.toml"),
    ]],
  ];
  for (const [file, want, manifests] of cases) {
    for (const m of manifests) {
      test(`${path.basename(file)} is ${want} with ${path.basename(path.dirname(m)) === "herdr" ? "herdr/" : ""}${path.basename(m, ".toml")}`, async () => {
        const rec = await openRecording(path.join(CAP, file));
        const d = createDetector(`screen:${m}@write`);
        const { timelines } = await runDetectors(rec.header, rec.events, [d]);
        assert.equal(verdictAt(timelines[0], 0)!.state, want);
      });
    }
  }
  const streams = hasShared ? fs.readdirSync(path.join(CAP, "alacritty")) : [];
  for (const f of streams) {
    test(`${f}: no blocked verdict with any bundled manifest, after any read`, async () => {
      const rec = await openRecording(path.join(CAP, "alacritty", f), { from: "raw", chunk: 64 });
      const dets = ["claude", "codex", "generic"].map((m) => createDetector(`screen:${m}@write`));
      const { timelines } = await runDetectors(rec.header, rec.events, dets);
      for (const tl of timelines) {
        const bad = tl.points.find((p) => p.verdict.state === "blocked");
        assert.equal(bad, undefined, `${tl.detector}: ${JSON.stringify(bad)}`);
      }
    });
  }
});
