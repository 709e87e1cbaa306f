// The observer feeds a huge write in slices: what it then shows must be what the same
// bytes show written in any other pieces (screen, OSC 7501 records, tail).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Observer } from "./observer.ts";

test("one 3 MiB write reads like the same bytes in small writes", () => {
  const te = new TextEncoder();
  const unit = "line with 中文 and \x1b[31mcolour\x1b[0m\r\n\x1b]7501;state=working:id=a\x1b\\✻ Pondering…\r";
  const text = unit.repeat(Math.ceil((3 << 20) / te.encode(unit).length)) +
    "\x1b]7501;state=blocked:kind=permission:id=a\x1b\\Do you want to proceed?";
  const bytes = te.encode(text);
  const one = new Observer({ cols: 80, rows: 24 }), many = new Observer({ cols: 80, rows: 24 });
  one.apply({ t: 1, kind: "output", bytes });
  for (let at = 0; at < bytes.length; at += 4093) {
    many.apply({ t: 1, kind: "output", bytes: bytes.subarray(at, at + 4093) });
  }
  assert.deepEqual(one.observe(1).rows(), many.observe(1).rows());
  assert.deepEqual(one.tracker.store.list(), many.tracker.store.list());
  assert.deepEqual(one.observe(1).tailRows(), many.observe(1).tailRows());
  assert.equal(one.tracker.store.list()[0]?.state, "blocked");
  one.dispose();
  many.dispose();
});
