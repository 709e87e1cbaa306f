// Reason codes for every report that is not applied (docs/osc7501.md §3: a conformance
// instrument says why it refused each report). Codes are part of the JSON contract of
// `scan`, so they are only ever added, never renamed.

/** Discarded: the report broke a limit or carried unusable text. */
export const DISCARD_REASONS = [
  "sequence-too-long", // over MAX_SEQUENCE_BYTES, counted with the real terminator (D7)
  "key-too-long", // any key over MAX_KEY_BYTES (D2)
  "value-too-long", // a known key's raw value over its limit (app, id, title, msg) (D2, D10)
  "bad-base64", // title/msg not strict standard base64 (D3)
  "bad-utf8", // title/msg decodes to invalid UTF-8
  "control-char", // title/msg decodes to C0, DEL or C1 (§2.5)
  "text-too-long", // title/msg decoded text over its limit
  "aborted-by-esc", // ESC not followed by `\` inside the body (D5)
  "aborted-by-can", // CAN inside the body
  "aborted-by-sub", // SUB inside the body
  "unterminated", // input ended before the terminator
] as const;

/** Ignored: nothing to apply (no usable state, or an id that must not fall back to the root). */
export const IGNORE_REASONS = [
  "no-state", // no state pair, or `state=`
  "unknown-state", // a state this revision does not define (last occurrence wins)
  "bad-id", // invalid id: never falls back to the root (D1)
  "missing-separator", // `ESC ] 7501` terminated without `;`
] as const;

export type DiscardReason = (typeof DISCARD_REASONS)[number];
export type IgnoreReason = (typeof IGNORE_REASONS)[number];
export type Reason = DiscardReason | IgnoreReason;

const discardSet = new Set<string>(DISCARD_REASONS);

export function dispositionOf(reason: Reason): "discarded" | "ignored" {
  return discardSet.has(reason) ? "discarded" : "ignored";
}
