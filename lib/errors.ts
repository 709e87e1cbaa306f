// The error model. Everything a user can cause (bad usage, a bad fixture, a bad
// manifest, a bad detector name, an unreadable input) is a UserError: it carries the one
// line to print, and the CLI boundary turns it into `pstlab: LINE` and exit 2. Anything
// else is a bug and stays an exception (exit 70). Library code throws; it never prints
// or exits.

export class UserError extends Error {
  /** The one line the CLI prints after "pstlab: ". */
  oneLine(): string {
    return this.message;
  }
  override toString(): string {
    return this.oneLine();
  }
}

/** Bad flags or arguments. */
export class UsageError extends UserError {}

/** An input that cannot be opened or read (missing file, directory, permissions). */
export class InputError extends UserError {}

/** A problem in an input file: printed as `file:line: message`. */
export class FixtureError extends UserError {
  constructor(readonly file: string, readonly line: number | null, message: string) {
    super(message);
  }
  override oneLine(): string {
    return `${this.file}${this.line !== null ? `:${this.line}` : ""}: ${this.message}`;
  }
}

/** A manifest that cannot be loaded; the message names the rule where there is one. */
export class ManifestError extends UserError {
  constructor(readonly file: string, message: string) {
    super(message);
  }
  override oneLine(): string {
    return `manifest ${this.file}: ${this.message}`;
  }
}

/** A detector name that does not parse. */
export class DetectorError extends UserError {}

/** An error as data, so it can cross a worker boundary without matching class names. */
export type ErrorData = { user: true; line: string } | { user: false; message: string; stack?: string };

export function errorToData(e: unknown): ErrorData {
  if (e instanceof UserError) return { user: true, line: e.oneLine() };
  const err = e as Error;
  return { user: false, message: String(err?.message ?? e), stack: err?.stack };
}

/** A user error that arrived as data: it prints exactly the line it was sent with. */
class ForwardedUserError extends UserError {
  constructor(private readonly text: string) {
    super(text);
  }
  override oneLine(): string {
    return this.text;
  }
}

export function errorFromData(d: ErrorData): Error {
  if (d.user) return new ForwardedUserError(d.line);
  const e = new Error(d.message);
  if (d.stack) e.stack = d.stack;
  return e;
}
