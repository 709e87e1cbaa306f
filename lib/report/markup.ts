// The one way text becomes HTML: the `markup` template tag escapes every interpolated
// value (text and attribute values alike) unless it is Markup that `markup` itself
// built, or one of the page's own constants passed through `trusted`. (Not named `html`:
// deno fmt re-indents the contents of html`…` templates, which would change the page.) A renderer that writes
// `markup\`<td>${x}</td>\`` cannot forget to escape x: a merged shard's fields became
// markup in the page when escaping was a call each renderer had to remember.

import { stripInvisible } from "../text.ts";

/** HTML that pstlab built: only `markup` and `trusted` make one. */
export class Markup {
  private constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
  /** For markup, trusted and jsonScript only. */
  static of(text: string): Markup {
    return new Markup(text);
  }
}

/**
 * Text made inert in HTML, in element content and in quoted attribute values: markup
 * characters as entities, bidi overrides and invisible formatting removed, C0 and C1
 * controls (which browsers render or strip unpredictably) replaced by U+FFFD.
 */
export function escapeHtml(s: string): string {
  return stripInvisible(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g, "\ufffd");
}

type Value = Markup | string | number | boolean | null | undefined | readonly Value[];

function piece(v: Value): string {
  if (v instanceof Markup) return v.text;
  if (Array.isArray(v)) return v.map(piece).join("");
  if (v === null || v === undefined || v === false) return "";
  return escapeHtml(String(v));
}

/** Markup with every interpolation escaped (arrays are joined, null/undefined/false are empty). */
export function markup(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return Markup.of(out);
}

/** The page's own constants (its CSS, the player bundle, scripts hashed in the CSP): never capture text. */
export function trusted(constant: string): Markup {
  return Markup.of(constant);
}

/** Characters a page must not carry raw: the terminal writer would rewrite them (lib/stdio.ts). */
const UNSAFE =
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const u4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** JSON that is safe inside <script type="application/json">: `<`, `>`, `&` and line/format controls as \u escapes. */
export function inertJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026").replace(
    UNSAFE,
    u4,
  );
}

/**
 * A script constant with its raw control characters as \u escapes (the player bundle has
 * ESC, U+0001 and DEL inside string and template literals, where the escape means the
 * same). The page then holds no byte the terminal writer would rewrite, so `--format html`
 * on stdout is the file `-o` writes, and the CSP hash (taken of this text) still matches.
 */
export function inertScript(js: string): string {
  return js.replace(UNSAFE, u4);
}

/** A JSON data block for the page's scripts. */
export function jsonScript(id: string, v: unknown): Markup {
  return markup`<script type="application/json" id="${id}">${Markup.of(inertJson(v))}</script>`;
}
