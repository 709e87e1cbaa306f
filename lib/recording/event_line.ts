// The common asciicast event line, `[NUMBER, "o"|"i", "STRING"]`, decoded straight from
// its bytes: the JSON string's escapes are written as the UTF-8 bytes TextEncoder would
// give for the parsed string, and raw UTF-8 is copied through. JSON.parse of the decoded
// line and TextEncoder.encode of its string were most of reading a dense capture.
//
// This is only a fast path: whatever it is not sure of (invalid UTF-8, a raw control
// character, a number outside strict JSON grammar, a lone surrogate escape, extra
// elements, another code, anything else) it declines, and the reader parses the line
// the ordinary way (asciicast_common.ts), so messages and warnings stay that path's.

/** What fastEventLine found (valid until the next call). */
export interface FastEvent {
  /** The time field, the same double JSON.parse gives. */
  time: number;
  code: "o" | "i";
  /** The string's UTF-8 bytes (a new array). */
  bytes: Uint8Array;
}

const found: FastEvent = { time: 0, code: "o", bytes: new Uint8Array(0) };

/** JSON whitespace that can be inside a line (a line has no "\n"). */
function ws(b: Uint8Array, i: number): number {
  for (let c; i < b.length && ((c = b[i]) === 0x20 || c === 0x09 || c === 0x0d);) i++;
  return i;
}

function hex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** The code unit of `\uXXXX` at b[i] (the backslash), or -1. */
function unit(b: Uint8Array, i: number): number {
  if (i + 5 >= b.length || b[i] !== 0x5c || b[i + 1] !== 0x75) return -1;
  const a = hex(b[i + 2]), c = hex(b[i + 3]), d = hex(b[i + 4]), e = hex(b[i + 5]);
  if ((a | c | d | e) < 0) return -1;
  return (a << 12) | (c << 8) | (d << 4) | e;
}

/**
 * The length of the well-formed UTF-8 character at b[i] (lead byte ≥ 0x80), or 0 if it is
 * not one (the ranges of the WHATWG decoder: no overlong forms, no surrogates, ≤ U+10FFFF).
 */
function utf8Len(b: Uint8Array, i: number): number {
  const c = b[i], n = b.length;
  if (c >= 0xc2 && c <= 0xdf) return i + 1 < n && (b[i + 1] & 0xc0) === 0x80 ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (i + 2 >= n) return 0;
    const c1 = b[i + 1];
    const lo = c === 0xe0 ? 0xa0 : 0x80, hi = c === 0xed ? 0x9f : 0xbf;
    return c1 >= lo && c1 <= hi && (b[i + 2] & 0xc0) === 0x80 ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (i + 3 >= n) return 0;
    const c1 = b[i + 1];
    const lo = c === 0xf0 ? 0x90 : 0x80, hi = c === 0xf4 ? 0x8f : 0xbf;
    return c1 >= lo && c1 <= hi && (b[i + 2] & 0xc0) === 0x80 && (b[i + 3] & 0xc0) === 0x80 ? 4 : 0;
  }
  return 0;
}

/** The index after a strict JSON number starting at b[i], or -1. */
function numberEnd(b: Uint8Array, i: number): number {
  const n = b.length;
  if (i < n && b[i] === 0x2d) i++;
  if (i >= n) return -1;
  if (b[i] === 0x30) i++;
  else if (b[i] >= 0x31 && b[i] <= 0x39) { while (i < n && b[i] >= 0x30 && b[i] <= 0x39) i++; }
  else return -1;
  if (i < n && b[i] === 0x2e) {
    const d = ++i;
    while (i < n && b[i] >= 0x30 && b[i] <= 0x39) i++;
    if (i === d) return -1;
  }
  if (i < n && (b[i] | 0x20) === 0x65) {
    i++;
    if (i < n && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    const d = i;
    while (i < n && b[i] >= 0x30 && b[i] <= 0x39) i++;
    if (i === d) return -1;
  }
  return i;
}

/** The byte an escape letter stands for (\" \\ \/ \b \f \n \r \t), or -1. */
function simpleEscape(c: number): number {
  switch (c) {
    case 0x22:
    case 0x5c:
    case 0x2f:
      return c;
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
  }
  return -1;
}

/** Exact powers of ten (10^22 is the last a double holds exactly). */
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/**
 * The value of the strict JSON number b[s..e), the same double JSON.parse gives. Up to 15
 * digits and no exponent: the digits as an integer over an exact power of ten, one
 * correctly rounded division (Clinger's fast path, as every strtod takes it), so the
 * result is the correctly rounded value; anything else goes through Number().
 */
function numberValue(b: Uint8Array, s: number, e: number): number {
  let m = 0, digits = 0, frac = -1, simple = b[s] !== 0x2d;
  for (let k = s; k < e && simple; k++) {
    const c = b[k];
    if (c === 0x2e) frac = 0;
    else if (c >= 0x30 && c <= 0x39) {
      m = m * 10 + (c - 0x30);
      digits++;
      if (frac >= 0) frac++;
    } else simple = false; // an exponent
  }
  if (simple && digits <= 15) return frac > 0 ? m / POW10[frac] : m;
  let num = "";
  for (let k = s; k < e; k++) num += String.fromCharCode(b[k]);
  return Number(num);
}

/** 1 for a byte a JSON string holds as itself: printable ASCII but `"` and `\\`. */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) if (c !== 0x22 && c !== 0x5c) PLAIN[c] = 1;

/** Where a line's string is decoded before it is copied out at its exact length. */
let scratch = new Uint8Array(1 << 16);

/**
 * A line `[NUMBER, "o"|"i", "STRING"]` decoded from its bytes, or null when the line is
 * anything else (the caller then parses it the ordinary way). The time is not checked
 * here beyond being a finite number ≥ 0 (a line that is not declines).
 */
export function fastEventLine(b: Uint8Array): FastEvent | null {
  const n = b.length;
  let i = ws(b, 0);
  if (i >= n || b[i] !== 0x5b) return null;
  i = ws(b, i + 1);
  const ns = i;
  i = numberEnd(b, i);
  if (i < 0) return null;
  const time = numberValue(b, ns, i);
  // Negative or beyond a double: the ordinary path words the error.
  if (!(time >= 0) || time === Infinity) return null;
  i = ws(b, i);
  if (i >= n || b[i] !== 0x2c) return null;
  i = ws(b, i + 1);
  if (i + 2 >= n || b[i] !== 0x22 || b[i + 2] !== 0x22) return null;
  const code = b[i + 1];
  if (code !== 0x6f && code !== 0x69) return null;
  i = ws(b, i + 3);
  if (i >= n || b[i] !== 0x2c) return null;
  i = ws(b, i + 1);
  if (i >= n || b[i] !== 0x22) return null;
  i++;
  // One pass: validate and decode into the scratch buffer (the output is never longer).
  // A line of more than 1 MiB gets its own buffer, so scratch never holds a huge one.
  const out = n - i <= scratch.length
    ? scratch
    : n - i > 1 << 20
    ? new Uint8Array(n - i)
    : (scratch = new Uint8Array(n - i));
  let o = 0;
  for (;;) {
    // The run of plain printable ASCII, the bulk of most strings, in the tightest loop.
    let c = 0;
    while (i < n && PLAIN[c = b[i]] === 1) {
      out[o++] = c;
      i++;
    }
    if (i >= n) return null;
    if (c >= 0x20 && c < 0x80) {
      if (c === 0x22) break;
      if (i + 1 >= n) return null;
      const x = b[i + 1];
      if (x !== 0x75) {
        const v = simpleEscape(x);
        if (v < 0) return null;
        out[o++] = v;
        i += 2;
        continue;
      }
      let u = unit(b, i);
      if (u < 0) return null;
      i += 6;
      if (u < 0x80) out[o++] = u;
      else if (u < 0x800) {
        out[o++] = 0xc0 | (u >> 6);
        out[o++] = 0x80 | (u & 0x3f);
      } else if (u < 0xd800 || u > 0xdfff) {
        out[o++] = 0xe0 | (u >> 12);
        out[o++] = 0x80 | ((u >> 6) & 0x3f);
        out[o++] = 0x80 | (u & 0x3f);
      } else {
        const lo = u <= 0xdbff ? unit(b, i) : -1;
        // A lone surrogate: the ordinary path keeps the parsed string (a writer copies it).
        if (lo < 0xdc00 || lo > 0xdfff) return null;
        i += 6;
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        out[o++] = 0xf0 | (u >> 18);
        out[o++] = 0x80 | ((u >> 12) & 0x3f);
        out[o++] = 0x80 | ((u >> 6) & 0x3f);
        out[o++] = 0x80 | (u & 0x3f);
      }
    } else if (c < 0x20) return null; // JSON.parse rejects it: the ordinary path says so
    else {
      const k = utf8Len(b, i);
      if (k === 0) return null;
      for (const end = i + k; i < end;) out[o++] = b[i++];
    }
  }
  i = ws(b, i + 1);
  if (i >= n || b[i] !== 0x5d) return null;
  if (ws(b, i + 1) !== n) return null;
  found.time = time;
  found.code = code === 0x6f ? "o" : "i";
  found.bytes = out.slice(0, o);
  return found;
}
