// Detector names: one parser and one table of kinds, so every caller reads a name the
// same way — including a manifest path with `@` in it, which the callers' own regular
// expressions once read five different ways.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  canonicalIfValid,
  canonicalName,
  createDetector,
  defaultDetectorNames,
  formatDetectorName,
  instantDetectorNames,
  judgesInstant,
  KINDS,
  MAX_INTERVAL,
  MIN_INTERVAL,
  parseDetectorName,
  poolName,
  sameDetector,
  usesAuto,
  withManifest,
} from "./kinds.ts";
import { instantDetectors } from "../../replay/snapshots.ts";
import { BUNDLED } from "./bundled.ts";
import { ROOT, tmpDir } from "../testkit.ts";

describe("detector names", () => {
  test("every default name parses and formats back to itself, and is its detector's name", () => {
    for (const n of [...defaultDetectorNames("claude"), ...defaultDetectorNames("auto")]) {
      assert.equal(formatDetectorName(parseDetectorName(n)), n);
    }
    for (const n of defaultDetectorNames("claude")) assert.equal(createDetector(n).name, n);
  });
  test("the parts of a name", () => {
    assert.deepEqual(parseDetectorName("screen:claude@0.7s"), {
      kind: "screen",
      manifest: "claude",
      seconds: null,
      every: 0.7,
    });
    assert.deepEqual(parseDetectorName("quiet>=2.5s@write"), { kind: "quiet", manifest: null, seconds: 2.5, every: 0 });
    assert.deepEqual(parseDetectorName("tail8k:auto"), {
      kind: "tail8k",
      manifest: "auto",
      seconds: null,
      every: null,
    });
    assert.equal(canonicalName(parseDetectorName("screen:claude")), "screen:claude@50ms");
    assert.equal(canonicalName(parseDetectorName("tail8k:claude@50ms")), "tail8k:claude");
    assert.equal(canonicalName(parseDetectorName("protocol@write")), "protocol");
    assert.equal(canonicalName(parseDetectorName("hash")), "hash@500ms");
  });
  test("bad names: one line each, the unknown one listing every kind of the table", () => {
    assert.throws(() => parseDetectorName("nope"), (e: Error) => {
      for (const k of KINDS) assert.ok(e.message.includes(k.shape), k.shape);
      return /^unknown detector "nope" \(known: /.test(e.message);
    });
    assert.throws(() => parseDetectorName("screen"), /detector "screen" needs a manifest, e\.g\. screen:claude/);
    assert.throws(() => parseDetectorName("quiet"), /unknown detector "quiet"/);
    assert.throws(() => parseDetectorName("question:claude"), /detector "question:claude" takes no manifest/);
    assert.throws(() => parseDetectorName("screen:claude@fast"), /bad sampling interval "@fast"/);
    assert.throws(() => parseDetectorName("screen:claude@0ms"), /out of range/);
    // The limits, at and one step past each (MIN_INTERVAL, MAX_INTERVAL).
    assert.equal(parseDetectorName("screen:claude@1ms").every, MIN_INTERVAL);
    assert.throws(() => parseDetectorName("screen:claude@0.9ms"), /out of range \(1ms to 3600s/);
    assert.throws(() => parseDetectorName("screen:claude@0.0001ms"), /out of range/);
    assert.equal(parseDetectorName("screen:claude@3600s").every, MAX_INTERVAL);
    assert.throws(() => parseDetectorName("screen:claude@3600.001s"), /out of range/);
    assert.throws(() => parseDetectorName("herdr:claude@1s"), /herdr:<manifest> has its own timing; no @interval/);
  });
  test("auto: substituted, pooled and matched by gates through the same parser", () => {
    assert.equal(withManifest("screen:auto@700ms", "codex"), "screen:codex@700ms");
    assert.equal(withManifest("quiet>=2s", "codex"), "quiet>=2s");
    assert.equal(usesAuto("herdr:auto"), true);
    assert.equal(usesAuto("protocol"), false);
    assert.equal(poolName("screen:codex@700ms"), "screen:auto@700ms");
    assert.equal(poolName("tail8k:codex"), "tail8k:auto");
    assert.equal(poolName("quiet>=2s"), "quiet>=2s");
    assert.ok(sameDetector("screen:claude@50ms", "screen:auto@50ms"));
    assert.ok(sameDetector("screen:claude", "screen:auto@50ms"));
    assert.ok(!sameDetector("screen:claude@700ms", "screen:auto@50ms"));
    assert.ok(!sameDetector("screen:claude@50ms", "screen:codex@50ms"));
    assert.ok(!sameDetector("protcol", "protocol"));
    assert.equal(canonicalIfValid("screen:claude"), "screen:claude@50ms");
    assert.equal(canonicalIfValid("protcol"), "protcol");
  });
  test("snapshot scoring: the kinds that judge an instant, from the table", () => {
    assert.deepEqual(
      instantDetectorNames("auto"),
      ["screen:auto", "tail8k:auto", "question", "title:auto", "combined:auto"],
    );
    assert.deepEqual(instantDetectors(["screen:claude@700ms", "quiet>=2s", "herdr:claude", "screen:claude"]), {
      kept: ["screen:claude"],
      dropped: ["quiet>=2s", "herdr:claude"],
    });
    for (const k of KINDS) {
      const name = formatDetectorName({
        kind: k.kind,
        manifest: k.takes === "manifest" ? "claude" : null,
        seconds: k.takes === "seconds" ? 1 : null,
        every: null,
      });
      assert.equal(judgesInstant(name), k.instant, name);
    }
  });
});

describe("a manifest path with @ in it", () => {
  // A folder and a file both named with `@`, as a home directory or a versioned copy can be.
  const dir = tmpDir("pstlab-kinds-");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const folder = path.join(dir, "team@host");
  fs.mkdirSync(folder);
  const file = path.join(folder, "claude@v2.toml");
  fs.copyFileSync(path.join(ROOT, "fixtures/manifests/claude.toml"), file);
  const loaded = "claude@v2"; // a path's manifest is named by its file

  test("every kind builds from it, with and without an interval, and its name round-trips", () => {
    for (const k of KINDS.filter((k) => k.takes === "manifest")) {
      for (const every of k.every === null ? [null] : [null, 0.7]) {
        const asked = formatDetectorName({ kind: k.kind, manifest: file, seconds: null, every });
        assert.deepEqual(parseDetectorName(asked), { kind: k.kind, manifest: file, seconds: null, every }, asked);
        const d = createDetector(asked);
        assert.equal(d.every, every ?? k.every ?? d.every, asked);
        const back = parseDetectorName(d.name);
        assert.equal(back.manifest, loaded, d.name);
        assert.equal(canonicalName(back), d.name);
      }
    }
  });
  test("auto, pooling, gates and snapshot scoring read the same manifest", () => {
    assert.equal(withManifest("tail8k:auto", file), `tail8k:${file}`);
    assert.equal(createDetector(withManifest("tail8k:auto", file)).name, `tail8k:${loaded}@50ms`);
    assert.equal(usesAuto(`screen:${file}@50ms`), false);
    assert.equal(poolName(`tail8k:${loaded}@50ms`), "tail8k:auto");
    assert.equal(poolName(`screen:${loaded}@700ms`), "screen:auto@700ms");
    assert.ok(sameDetector(`screen:${loaded}@50ms`, "screen:auto@50ms"));
    assert.ok(sameDetector(`tail8k:${loaded}@50ms`, "tail8k:auto"));
    assert.deepEqual(instantDetectors([`screen:${file}@50ms`, `herdr:${file}`]), {
      kept: [`screen:${file}`],
      dropped: [`herdr:${file}`],
    });
    assert.equal(createDetector(`herdr:${file}`).name, `herdr:${loaded}`);
  });
  test("a manifest whose last @ reads as an interval needs the interval written", () => {
    assert.throws(() => parseDetectorName("tail8k:team@host/rules@v2"), /bad sampling interval "@v2"/);
    assert.equal(parseDetectorName("tail8k:team@host/rules@v2@write").manifest, "team@host/rules@v2");
    assert.equal(
      formatDetectorName({ kind: "tail8k", manifest: "team@host/rules@v2", seconds: null, every: null }),
      "tail8k:team@host/rules@v2@50ms",
    );
  });
  test("bundled names hold no @ (they are written without a path)", () => {
    for (const name of Object.keys(BUNDLED)) assert.ok(!name.includes("@"), name);
  });
});
