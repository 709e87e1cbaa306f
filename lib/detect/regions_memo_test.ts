// The input-box scan kept by place per stream (RegionView `stream`) gives what a fresh
// scan gives: random screens drawn from box pieces, a few rows changed at a time (the
// row, the row above it, or both), every input-box region, with and without a cursor.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseRegion, RegionView } from "./regions.ts";

const PIECES = ["", "text", "────────", "╭────╮", "❯ ", "❯", "› ", "> run it", "│ > typed │", "❯ 1. Yes", "  ok?"];
const REGIONS = ["after_last_input_box", "bottom_after_input_box(2)"].map((r) => parseRegion(r)!);

test("input-box scan memo by place = a fresh scan", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }),
      fc.array(
        fc.tuple(fc.nat(7), fc.constantFrom(...PIECES), fc.boolean(), fc.option(fc.nat(7), { nil: undefined })),
        { maxLength: 25 },
      ),
      (start, steps) => {
        const stream = {};
        let rows = [...start];
        const check = (cursorY: number | undefined) => {
          const src = {
            rows: () => rows,
            title: "",
            osc9: null,
            ...(cursorY === undefined ? {} : { cursor: () => ({ x: 0, y: cursorY }) }),
          };
          for (const r of REGIONS) {
            assert.deepEqual(new RegionView(src, stream).rows(r), new RegionView(src, null).rows(r), r.key);
          }
        };
        check(undefined);
        for (const [at, piece, alsoAbove, cursorY] of steps) {
          rows = [...rows];
          const i = at % rows.length;
          rows[i] = piece;
          if (alsoAbove && i > 0) rows[i - 1] = PIECES[(PIECES.indexOf(piece) + 3) % PIECES.length];
          check(cursorY === undefined ? undefined : cursorY % rows.length);
        }
      },
    ),
    { numRuns: 500 },
  );
});
