// The HTML report in headless Chromium (Debian's chromium + playwright-core; skipped
// when either is absent): it renders, the player plays, clicking the timeline seeks,
// and a capture carrying <script>/<img onerror> in its output, title, OSC 7501 msg,
// markers and header runs no script.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { encodeBase64 } from "../osc7501/base64.ts";
import { escapeHtml, inertJson, renderHtml, ZOOM_BUTTONS } from "./html.ts";
import { buildReport } from "./model.ts";
import { DRAWN_POINTS, drawnTimeline, drawnTruth, type FileResult } from "../score/result.ts";
import type { DetState } from "../detect/manifest.ts";
import { cli, tmpDir, writeTmp } from "../testkit.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
let playwright: { chromium: { launch(o: unknown): Promise<any> } } | null = null;
try {
  playwright = await import("playwright-core");
} catch { /* not installed */ }
const skip = !hasChromium
  ? "Debian chromium is not installed"
  : !playwright
  ? "playwright-core is not installed"
  : false;

const XSS = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">`;

describe("escaping helpers", () => {
  test("HTML escaping and inert JSON", () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    const j = inertJson({ s: "</script><script>alert(1)</script>\u2028" });
    assert.ok(!j.includes("</script"));
    assert.ok(!j.includes("<"));
    assert.deepEqual(JSON.parse(j), { s: "</script><script>alert(1)</script>\u2028" });
  });
});

describe("coarsened lanes", () => {
  test("a lane with more change points than DRAWN_POINTS is drawn in slots, and the page says so", () => {
    const points = Array.from(
      { length: DRAWN_POINTS * 3 },
      (_, i) => ({
        t: i,
        verdict: {
          state: (i % 2 ? "blocked" : "working") as DetState,
          needsYou: i % 2 === 1,
          rule: null,
          evidence: null,
        },
      }),
    );
    const busy = drawnTimeline({ detector: "busy<x>", points, samples: points.length }, points.length);
    const calm = drawnTimeline({ detector: "calm", points: points.slice(0, 3), samples: 3 }, points.length);
    const file: FileResult = {
      path: "long.cast",
      sha256: "",
      format: "asciicast v3",
      cols: 80,
      rows: 24,
      duration: points.length,
      outputBytes: 0,
      command: null,
      manifest: null,
      truth: "markers",
      truthSegments: [],
      blockedEpisodes: 0,
      scores: [],
      warnings: [],
      timelines: [busy, calm],
    };
    const html = renderHtml(buildReport([file], null, []), [null]);
    assert.ok(html.includes(`Coarsened to ${DRAWN_POINTS} slots of 3.00 s`), "the note names the slot");
    assert.ok(html.includes(`busy&lt;x&gt; (${DRAWN_POINTS * 3} changes)`), "the note names the lane, escaped");
    assert.ok(!/calm \(/.test(html), "an exact lane is not listed");
    assert.ok(/<title>[^<]*NEEDS YOU[^<]*\(coarsened: /.test(html), "a coarsened slot says so in its tooltip");
    assert.equal(html.match(/\(coarsened: /g)?.length, busy.points.length, "only the coarsened lane's slots");
    assert.ok((html.match(/<rect /g) ?? []).length <= DRAWN_POINTS + 1 + 3, "at most one rect per slot");
  });
  test("the time axis has at most 12 ticks at any length, in hours past an hour's step", () => {
    const file = (duration: number): FileResult => ({
      path: "long.cast",
      sha256: "",
      format: "asciicast v3",
      cols: 80,
      rows: 24,
      duration,
      outputBytes: 0,
      command: null,
      manifest: null,
      truth: "markers",
      truthSegments: [],
      blockedEpisodes: 0,
      scores: [],
      warnings: [],
      timelines: [],
    });
    const ticks = (d: number) =>
      [...renderHtml(buildReport([file(d)], null, []), [null]).matchAll(/class="axis">([^<]*)</g)].map((m) => m[1]);
    assert.deepEqual(ticks(710).slice(0, 3), ["0 s", "60 s", "120 s"]);
    assert.deepEqual(ticks(122110).slice(0, 3), ["0 h", "3 h", "6 h"]);
    for (const d of [1, 59, 710, 7200, 122110, 30 * 86400]) {
      assert.ok(ticks(d).length <= 13, `${d} s: ${ticks(d).length} ticks`);
    }
  });
  test("a truth with more segments than DRAWN_POINTS is drawn in slots too, and named in the note", () => {
    const segs = Array.from(
      { length: DRAWN_POINTS + 1 },
      (_, i) => ({
        start: i,
        state: (i % 2 ? "blocked" : "working") as "blocked" | "working",
        kind: i % 2 ? "permission" : null,
      }),
    );
    const d = drawnTruth(segs, segs.length);
    assert.equal(d.changes, DRAWN_POINTS + 1);
    assert.ok(d.segments.length <= DRAWN_POINTS + 1);
    assert.equal(drawnTruth(segs.slice(0, DRAWN_POINTS), DRAWN_POINTS).changes, undefined);
    const file: FileResult = {
      path: "long.cast",
      sha256: "",
      format: "asciicast v3",
      cols: 80,
      rows: 24,
      duration: segs.length,
      outputBytes: 0,
      command: null,
      manifest: null,
      truth: "markers",
      truthSegments: d.segments,
      truthChanges: d.changes,
      blockedEpisodes: 0,
      scores: [],
      warnings: [],
      timelines: [],
    };
    assert.ok(renderHtml(buildReport([file], null, []), [null]).includes(`truth (${DRAWN_POINTS + 1} changes)`));
  });
});

describe("HTML report in headless Chromium", { skip }, () => {
  test("renders, plays, seeks on click, and runs no script from the capture", async () => {
    const dir = tmpDir("pstlab-html-");
    const msg = encodeBase64(new TextEncoder().encode(XSS.slice(0, 60)));
    const frames: unknown[][] = [
      [0.1, "o", `\x1b]0;${XSS}\x07`],
      [0, "m", "truth:working"],
      [0.1, "o", `hello ${XSS}\r\n`],
      [0.5, "m", `truth:blocked ${XSS}`],
      [0.05, "m", "truth:blocked:permission"],
      [0.0, "o", `\x1b]7501;state=blocked:kind=permission:msg=${msg}\x1b\\Do you want to proceed?\r\n❯ 1. Yes\r\n`],
    ];
    for (let k = 0; k < 30; k++) frames.push([0.1, "o", `\rtick ${k} ${XSS}`]);
    frames.push([0, "m", "truth:working"], [0.1, "o", `\x1b]7501;state=working\x1b\\\x1b[2J\x1b[Hdone\r\n`], [
      2,
      "x",
      "0",
    ]);
    const cast = writeTmp(
      dir,
      "evil<script>.cast",
      JSON.stringify({ version: 3, term: { cols: 80, rows: 24 }, command: XSS, title: XSS }) + "\n" + frames.map((f) =>
        JSON.stringify(f)
      ).join("\n") + "\n",
    );
    const html = path.join(dir, "report.html");
    const r = cli([
      "report",
      cast,
      "--format",
      "html",
      "-o",
      html,
      "--detectors",
      "protocol,screen:claude@50ms,question",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(html, "utf8");
    assert.ok(!/<img src=x onerror/.test(text), "raw capture markup must not appear in the page");

    const browser = await playwright!.chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      const dialogs: string[] = [];
      page.on("pageerror", (e: Error) => errors.push(e.message));
      page.on("dialog", (d: { message(): string; dismiss(): Promise<void> }) => {
        dialogs.push(d.message());
        d.dismiss();
      });
      await page.goto("file://" + html);
      await page.waitForFunction(
        () => (window as unknown as { __pstlabPlayers?: unknown[] }).__pstlabPlayers?.length === 1,
        null,
        { timeout: 10000 },
      );
      const time = () =>
        page.evaluate(async () =>
          await (window as unknown as { __pstlabPlayers: { getCurrentTime(): Promise<number> }[] }).__pstlabPlayers[0]
            .getCurrentTime()
        );
      assert.equal(await page.locator("table tbody tr").count(), 3);
      assert.equal(await page.locator("svg.timeline rect").count() > 5, true);
      // Plays.
      await page.evaluate(() =>
        (window as unknown as { __pstlabPlayers: { play(): void }[] }).__pstlabPlayers[0].play()
      );
      await page.waitForTimeout(1200);
      assert.ok((await time()) > 0.5, `player time ${await time()}`);
      // Clicking 75 % along the timeline seeks there.
      const box = await page.locator("svg.timeline").boundingBox();
      const vb = await page.evaluate(() => {
        const s = (globalThis as any).document.querySelector("svg.timeline");
        return s.viewBox.baseVal.width as number;
      });
      const x0 = 230, w = 1000;
      await page.mouse.click(box.x + ((x0 + 0.75 * w) / vb) * box.width, box.y + 8);
      await page.waitForTimeout(300);
      const seek = Number(await page.locator("section[data-capture]").getAttribute("data-seek"));
      const duration = 5.8;
      assert.ok(Math.abs(seek - 0.75 * duration) < 0.3, `seek ${seek}`);
      assert.ok(Math.abs((await time()) - seek) < 1, `player at ${await time()} after seek to ${seek}`);
      // Zoom onto the episode: the lanes stretch onto its window, each lane's detection is
      // marked with its latency (or "missed"), and a click seeks within the window.
      await page.locator(".zoom button[data-ep='0']").click();
      assert.match(String(await page.locator("svg.timeline .lanes").getAttribute("transform")), /^matrix\(/);
      const lat: string[] = await page.locator("svg.timeline .marks .lat").allTextContents();
      assert.equal(lat.length, 3, lat.join(", "));
      assert.ok(lat.every((l) => /^\+\d+\.\d\d s$|^missed$/.test(l)), lat.join(", "));
      assert.match(String(await page.locator("svg.timeline .zoomed").textContent()), /^episode #1: /);
      await page.mouse.click(box.x + ((x0 + 0.5 * w) / vb) * box.width, box.y + 8);
      await page.waitForTimeout(300);
      const inWindow = Number(await page.locator("section[data-capture]").getAttribute("data-seek"));
      assert.ok(inWindow > 0.3 && inWindow < 3.5, `a click in the zoomed window seeks inside it: ${inWindow}`);
      await page.locator(".zoom button[data-ep='-1']").click();
      assert.equal(await page.locator("svg.timeline .lanes").getAttribute("transform"), null);
      // Nothing from the capture ran.
      assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      assert.deepEqual(dialogs, []);
      assert.deepEqual(errors, []);
      assert.ok((await page.content()).includes("&lt;script&gt;window.__pwned=1&lt;/script&gt;"));
    } finally {
      await browser.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("past ZOOM_BUTTONS episodes, one is picked from a list or stepped to", async () => {
    const dir = tmpDir("pstlab-html-zoom-");
    const n = ZOOM_BUTTONS + 3;
    const frames: unknown[] = [[0, "m", "truth:working"]];
    for (let k = 0; k < n; k++) {
      frames.push(
        [1, "o", "\x1b]7501;state=blocked:kind=permission\x1b\\Do you want to proceed?\r\n"],
        [0, "m", "truth:blocked:permission"],
        [1, "o", "\x1b]7501;state=working\x1b\\working\r\n"],
        [0, "m", "truth:working"],
      );
    }
    const cast = writeTmp(
      dir,
      "many.cast",
      JSON.stringify({ version: 3, term: { cols: 80, rows: 24 } }) + "\n" +
        frames.map((f) => JSON.stringify(f)).join("\n") + "\n",
    );
    const html = path.join(dir, "report.html");
    const r = cli(["report", cast, "--format", "html", "-o", html, "--detectors", "protocol"]);
    assert.equal(r.code, 0, r.stderr);
    const browser = await playwright!.chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e: Error) => errors.push(e.message));
      await page.goto("file://" + html);
      await page.waitForFunction(
        () => (window as unknown as { __pstlabPlayers?: unknown[] }).__pstlabPlayers?.length === 1,
        null,
        { timeout: 10000 },
      );
      assert.equal(await page.locator(".zoom button[data-ep]").count(), 0);
      assert.equal(await page.locator(".zoom select option").count(), n + 1);
      const zoomed = async () => String(await page.locator("svg.timeline .zoomed").textContent());
      await page.locator(".zoom button[data-step='1']").click();
      assert.match(await zoomed(), /^episode #1: /);
      await page.locator(".zoom button[data-step='1']").click();
      assert.match(await zoomed(), /^episode #2: /);
      await page.locator(".zoom select").selectOption("10");
      assert.match(await zoomed(), /^episode #11: /);
      await page.locator(".zoom button[data-step='-1']").click();
      assert.match(await zoomed(), /^episode #10: /);
      assert.equal(await page.locator(".zoom select").inputValue(), "9");
      for (let k = 0; k < n + 2; k++) await page.locator(".zoom button[data-step='1']").click();
      assert.match(await zoomed(), new RegExp(`^episode #${n}: `));
      await page.locator(".zoom select").selectOption("-1");
      assert.equal(await page.locator("svg.timeline .lanes").getAttribute("transform"), null);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
