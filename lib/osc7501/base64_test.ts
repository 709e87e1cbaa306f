import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeBase64Strict, encodeBase64 } from "./base64.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (s: string) => {
  const r = decodeBase64Strict(enc(s));
  return r === null ? null : new TextDecoder().decode(r);
};

test("valid base64, padded and unpadded", () => {
  const cases: [string, string][] = [
    ["SGk=", "Hi"],
    ["SGk", "Hi"],
    ["SGVsbG8=", "Hello"],
    ["SGVsbG8", "Hello"],
    ["YQ==", "a"],
    ["YQ", "a"],
    ["YWJj", "abc"],
    ["", ""],
    ["U3luY2luZyBwaG90b3M=", "Syncing photos"],
  ];
  for (const [input, want] of cases) assert.equal(dec(input), want, input);
});

test("invalid base64 is rejected (docs/osc7501.md §2.5)", () => {
  const bad = [
    "YR==", // nonzero unused pad bits
    "YWI=x",
    "aG=k",
    "YQ==YQ==",
    "YQ=a", // padding in the middle
    "YQ===",
    "Y===",
    "====", // more than two `=`
    "YQ=", // wrong padding amount
    "Y",
    "YWJjZ", // impossible length
    "a-b_", // URL-safe alphabet
    "SGk=\n",
    "SG k=", // line breaks, whitespace
    "YWJ", // 'J' has nonzero unused bits (J=9 → 0b001001, low 2 bits 01)
  ];
  for (const input of bad) assert.equal(dec(input), null, JSON.stringify(input));
});

test("round trip: strict decode of our encoder's output, any bytes", () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
    const text = encodeBase64(bytes);
    assert.deepEqual(decodeBase64Strict(enc(text)), bytes);
    // Unpadded form decodes to the same bytes.
    assert.deepEqual(decodeBase64Strict(enc(text.replace(/=+$/, ""))), bytes);
  }));
});

test("encoder matches the platform's base64", () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
    let bin = "";
    for (const b of bytes) bin += String.fromCharCode(b);
    assert.equal(encodeBase64(bytes), btoa(bin));
  }));
});
