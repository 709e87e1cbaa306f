// Strict standard base64 for `title` and `msg` (docs/osc7501.md §2.5): the standard alphabet
// (`+`, `/`), padding optional but correct when present, no padding in the middle,
// at most two `=`, zero unused bits (`YR==` is invalid). URL-safe `-`/`_` and line
// breaks are invalid. Hand-written because atob() accepts whitespace, bad padding
// and nonzero pad bits, which the protocol rejects.

const DECODE = new Int8Array(256).fill(-1);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const EQ = 0x3d;

/** Decodes strict base64; returns null when the input is not valid. */
export function decodeBase64Strict(src: Uint8Array): Uint8Array | null {
  let len = src.length;
  let pad = 0;
  while (len > 0 && src[len - 1] === EQ) {
    len--;
    pad++;
  }
  if (pad > 2) return null;
  // Padded input must fill whole quads; unpadded input may end in 2 or 3 chars.
  if (pad > 0 && (len + pad) % 4 !== 0) return null;
  const rem = len % 4;
  if (rem === 1) return null;
  if (pad > 0 && pad !== (4 - rem) % 4) return null;
  const out = new Uint8Array(((len >> 2) * 3) + (rem === 0 ? 0 : rem - 1));
  let o = 0;
  let i = 0;
  for (; i + 4 <= len; i += 4) {
    const a = DECODE[src[i]], b = DECODE[src[i + 1]], c = DECODE[src[i + 2]], d = DECODE[src[i + 3]];
    if ((a | b | c | d) < 0) return null; // also catches `=` in the middle
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  if (rem === 2) {
    const a = DECODE[src[i]], b = DECODE[src[i + 1]];
    if ((a | b) < 0 || (b & 0x0f) !== 0) return null; // unused bits must be zero
    out[o++] = (a << 2) | (b >> 4);
  } else if (rem === 3) {
    const a = DECODE[src[i]], b = DECODE[src[i + 1]], c = DECODE[src[i + 2]];
    if ((a | b | c) < 0 || (c & 0x03) !== 0) return null;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 0x0f) << 4) | (c >> 2);
  }
  return out;
}

/** Standard base64 with padding (what every encoder in the ecosystem writes). */
export function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63];
  }
  const rem = bytes.length - i;
  if (rem === 1) {
    const n = bytes[i] << 16;
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + "==";
  } else if (rem === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + "=";
  }
  return out;
}
