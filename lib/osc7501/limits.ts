// The protocol's limits (docs/osc7501.md §3, revision 0.4) as named constants.
// Every limit counts bytes, never characters. Each one is tested at the limit
// and one past it (limits_test.ts, parse_test.ts, scanner_test.ts).

/** The spec revision this implementation follows; recorded in fixtures and reports. */
export const SPEC_REVISION = "0.4";

/** `ESC ] 7501 ;` — 7 bytes. */
export const INTRODUCER = new Uint8Array([0x1b, 0x5d, 0x37, 0x35, 0x30, 0x31, 0x3b]);
export const INTRODUCER_BYTES = INTRODUCER.length;

/** Whole sequence, from `ESC ]` through the terminator (D7: the real terminator counts). */
export const MAX_SEQUENCE_BYTES = 4096;
/** The longest body: with a 1-byte BEL (with `ESC \` it is one byte less, 4087). */
export const MAX_BODY_BYTES_BEL = MAX_SEQUENCE_BYTES - INTRODUCER_BYTES - 1; // 4088

/** Any key, known or unknown (D2). */
export const MAX_KEY_BYTES = 16;

export const MAX_MSG_ENCODED_BYTES = 2732;
export const MAX_MSG_DECODED_BYTES = 2048;
export const MAX_TITLE_ENCODED_BYTES = 256;
export const MAX_TITLE_DECODED_BYTES = 192;
export const MAX_APP_BYTES = 32;

export const MAX_ID_BYTES = 128;
export const MAX_ID_SEGMENT_BYTES = 32;
export const MAX_ID_SEGMENTS = 8;

/** Records per terminal (D18: plain LRU, the root counts). */
export const MAX_RECORDS = 256;
/** The spec's floor: a terminal MUST keep at least this many. */
export const MIN_RECORDS = 64;

export const MAX_PROGRESS = 100;
