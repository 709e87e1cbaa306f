import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { accelerate, limitIdleTime, shift, slice } from "./transforms.ts";
import { type Event } from "./model.ts";
import { collect, fromArray } from "../testkit.ts";

const te = new TextEncoder();
const o = (t: number, s = "x"): Event => ({ t, kind: "output", bytes: te.encode(s) });
const times = async (it: AsyncIterable<Event>) => (await collect(it)).map((e) => Math.round(e.t * 1e6) / 1e6);

describe("limitIdleTime", () => {
  const cases: [number[], number, number[]][] = [
    [[0, 1, 2], 5, [0, 1, 2]],
    [[0, 1, 10, 11], 2, [0, 1, 3, 4]],
    [[3, 4], 1, [1, 2]],
    [[0, 0, 0], 0.5, [0, 0, 0]],
    [[0, 0.2, 7.2, 7.3], 0.5, [0, 0.2, 0.7, 0.8]],
  ];
  for (const [input, limit, want] of cases) {
    test(`${input} @${limit}`, async () =>
      assert.deepEqual(await times(limitIdleTime(fromArray(input.map((t) => o(t))), limit)), want));
  }
});

describe("accelerate", () => {
  const cases: [number[], number, number[]][] = [
    [[0, 1, 2], 2, [0, 0.5, 1]],
    [[0, 1, 3], 0.5, [0, 2, 6]],
    [[4], 4, [1]],
  ];
  for (const [input, speed, want] of cases) {
    test(`${input} ×${speed}`, async () =>
      assert.deepEqual(await times(accelerate(fromArray(input.map((t) => o(t))), speed)), want));
  }
});

describe("slice", () => {
  const input = [0, 1, 2, 3, 4];
  test("window", async () =>
    assert.deepEqual(await times(slice(fromArray(input.map((t) => o(t))), { from: 1, to: 3 })), [0, 1, 2]));
  test("open end", async () =>
    assert.deepEqual(await times(slice(fromArray(input.map((t) => o(t))), { from: 3.5 })), [0.5]));
  test("prelude kept at 0", async () => {
    assert.deepEqual(await times(slice(fromArray(input.map((t) => o(t))), { from: 2, to: 3, keepPrelude: true })), [
      0,
      0,
      0,
      1,
    ]);
  });
  test("shift", async () => assert.deepEqual(await times(shift(fromArray([o(0), o(1)]), 10)), [10, 11]));
});
