// One rule for every command taking --at, --from or --to (lib/cli/times.ts): a time past the
// capture's end is one warning line (the command still answers, at the end); --to before --from
// is bad input, exit 2. A table over every such command, so a new one cannot drift.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, ROOT, tmpDir } from "../testkit.ts";

const CAPTURE = path.join(ROOT, "fixtures/captures/sim-late.cast"); // 20.016 s
const dir = tmpDir("pstlab-times-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const out = (name: string) => path.join(dir, name);

/** Each command with a time option: how to run it with the given time flags. */
const AT_COMMANDS: [string, (flags: string[]) => string[]][] = [
  ["status", (f) => ["status", CAPTURE, ...f]],
  ["screen", (f) => ["screen", CAPTURE, ...f]],
  ["detect", (f) => ["detect", CAPTURE, ...f]],
  ["explain", (f) => ["explain", CAPTURE, ...f]],
];
const PAST = /^pstlab: warning: --at 60 s is past the end of .*sim-late\.cast \(20\.016 s\): /;

describe("--at past the end: one warning line, exit 0; inside: none", () => {
  for (const [name, argv] of AT_COMMANDS) {
    test(name, () => {
      const past = cli(argv(["--at", "1m"]));
      assert.equal(past.code, 0, past.stderr);
      assert.match(past.stderr, PAST);
      assert.equal(past.stderr.trim().split("\n").length, 1, past.stderr);
      const inside = cli(argv(["--at", "5"]));
      assert.equal(inside.code, 0, inside.stderr);
      assert.doesNotMatch(inside.stderr, /past the end/);
    });
  }
});

void out; // trim and play rows come once issue 22 has landed in trim.ts and play.ts
