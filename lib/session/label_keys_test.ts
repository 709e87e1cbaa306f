import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_PREFIX, LabelKeys, parsePrefixKey } from "./label_keys.ts";
import { labelOf } from "./driver.ts";

const te = new TextEncoder();
const P = String.fromCharCode(DEFAULT_PREFIX);

describe("label keys", () => {
  test("prefix + letter is a label; neither byte is forwarded", () => {
    const k = new LabelKeys(DEFAULT_PREFIX);
    const r = k.feed(te.encode(`ab${P}wcd${P}p${P}q${P}a${P}b${P}i${P}d${P}e`));
    assert.equal(new TextDecoder().decode(r.forward), "abcd");
    assert.deepEqual(r.labels, [
      "truth:working",
      "truth:blocked:permission",
      "truth:blocked:question",
      "truth:blocked:auth",
      "truth:blocked",
      "truth:idle",
      "truth:done",
      "truth:error",
    ]);
  });
  test("the prefix twice sends it once; an unknown follow-up is dropped; split across reads", () => {
    const k = new LabelKeys(DEFAULT_PREFIX);
    const r = k.feed(te.encode(`x${P}${P}y${P}zq${P}\x01`));
    assert.deepEqual([...r.forward], [...te.encode(`x${P}yq`)]);
    assert.deepEqual(r.unknown, ["z", "^A"], "said briefly, never forwarded");
    assert.deepEqual(k.feed(te.encode(P)).forward.length, 0);
    assert.ok(k.pending);
    assert.deepEqual(k.feed(te.encode("w")).labels, ["truth:working"]);
  });
  test("m takes the next line as a note (backspace edits, Esc cancels)", () => {
    const k = new LabelKeys(DEFAULT_PREFIX);
    const r = k.feed(te.encode(`${P}mhello wurld\x7f\x7f\x7fld\rtyped`));
    assert.deepEqual(r.labels, ["hello wuld"]);
    assert.equal(new TextDecoder().decode(r.forward), "typed");
    assert.deepEqual(k.feed(te.encode(`${P}mnever\x1bnext`)).labels, []);
  });
  test("prefix key names", () => {
    assert.equal(parsePrefixKey("ctrl-]"), 0x1d);
    assert.equal(parsePrefixKey("C-a"), 0x01);
    assert.equal(parsePrefixKey("^b"), 0x02);
    assert.equal(parsePrefixKey("none"), null);
    assert.equal(parsePrefixKey("x"), undefined);
  });
  test("the script driver's label takes the same keys and names", () => {
    assert.equal(labelOf("p"), "truth:blocked:permission");
    assert.equal(labelOf("blocked:question"), "truth:blocked:question");
    assert.equal(labelOf("working"), "truth:working");
    assert.equal(labelOf("truth:idle"), "truth:idle");
    assert.equal(labelOf("deploy started"), "deploy started");
  });
});
