// Helpers shared by tests (not used by the product).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export function tmpDir(prefix = "pstlab-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function writeTmp(dir: string, name: string, data: string | Uint8Array): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, data);
  return p;
}

/** Where other people's captures live; tests skip cleanly when absent. */
export const SHARED = process.env.PSTLAB_SHARED ?? path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "../../../shared");
export const hasShared = fs.existsSync(path.join(SHARED, "captures"));

export function which(cmd: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch { /* next */ }
  }
  return null;
}
