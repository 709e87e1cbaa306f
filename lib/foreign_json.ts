// The one gate for JSON that pstlab reads from outside (shard files for `report --merge`,
// `--baseline` reports): read with a size cap, parsed, and validated against a JSON
// Schema before any field is used, so a wrong type, an absurd count, a non-finite
// number or a bad hash is one line (exit 2) naming the file, never a crash later on.
//
// The validator is Ajv (JSON Schema, draft-07): the schemas are the same documents we
// publish in docs/schemas/ for consumers of our JSON, so what we accept and what we
// promise cannot drift; Ajv compiles a schema once into a plain function (fast on a
// 100 MB shard), rejects NaN/Infinity by default, and needs nothing but JavaScript, so it
// runs the same in Bun, Deno and the compiled binary.

import { noteInputFd, readAllBounded } from "./inputs.ts";
import * as fs from "node:fs";
import Ajv from "ajv";
import { InputError } from "./errors.ts";

/** Past this a JSON input is refused before it is read (a shard of 1,000 long captures is ~100 MB). */
export const MAX_FOREIGN_JSON_BYTES = 256 << 20;

export type JsonSchema = Record<string, unknown>;

export interface Validator<T> {
  /** The value, typed, or a UserError naming `file` and the first problem. */
  (doc: unknown, file: string): T;
}

type AjvFn = ((d: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
let ajv: { compile: (s: JsonSchema) => AjvFn } | null = null;

/** A validator for `schema`, compiled on first use (startup stays free for commands that never read JSON). */
export function validator<T>(schema: JsonSchema, what: string): Validator<T> {
  let fn: AjvFn | null = null;
  return (doc, file) => {
    ajv ??= new (Ajv as unknown as new (o: object) => { compile: (s: JsonSchema) => AjvFn })({
      allErrors: false,
      strict: true,
    });
    fn ??= ajv.compile(schema);
    if (!fn(doc)) {
      const e = fn.errors?.[0];
      const where = e?.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "the document";
      throw new InputError(`${file}: not a valid ${what}: ${where} ${e?.message ?? "is invalid"}`);
    }
    return doc as T;
  };
}

/** Reads at most `max` bytes of `path` (a FIFO or `-` too, read once); refuses a bigger file before reading it. */
export function readCapped(path: string, max = MAX_FOREIGN_JSON_BYTES): string {
  let fd: number;
  try {
    fd = path === "-" ? 0 : fs.openSync(path, "r");
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (e as Error).message;
    throw new InputError(`${path}: ${why}`);
  }
  const tooBig = () => new InputError(`${path}: over ${max} bytes, the most pstlab reads as JSON`);
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) throw new InputError(`${path}: is a directory`);
    if (fd !== 0) noteInputFd(fd, path); // no output of this command may replace it (the output gate)
    if (st.isFile() && st.size > max) throw tooBig();
    return new TextDecoder("utf-8", { fatal: false }).decode(readAllBounded(fd, max, tooBig));
  } finally {
    if (fd !== 0) fs.closeSync(fd);
  }
}

/** Parses and validates JSON text from `file`. */
export function parseForeign<T>(text: string, file: string, check: Validator<T>, what: string): T {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new InputError(`${file}: not a ${what} (not JSON)`);
  }
  return check(doc, file);
}

/** Reads, parses and validates a JSON file: the one way pstlab takes JSON from outside. */
export function readForeign<T>(path: string, check: Validator<T>, what: string, max = MAX_FOREIGN_JSON_BYTES): T {
  return parseForeign(readCapped(path, max), path, check, what);
}
