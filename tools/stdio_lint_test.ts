import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { directWrites } from "./stdio_lint.ts";

const root = path.resolve(import.meta.dirname ?? ".", "..");

test("stdio: every terminal write in the product goes through lib/stdio.ts", () => {
  assert.deepEqual(directWrites(root), []);
});

test("stdio: a direct write is found, a comment or the writer itself is not", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pstlab-stdio-"));
  try {
    fs.mkdirSync(path.join(dir, "lib/cli"), { recursive: true });
    const files = {
      "lib/cli/a.ts": 'process.stdout.write("x");\n// console.log("in a comment")\n',
      "lib/cli/b.ts": "fs.writeSync(2, bytes);\nwriteAllSync(1, b);\nconsole.error(e);\n",
      "lib/stdio.ts": "fs.writeSync(1, bytes);\n",
    };
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
    const found = directWrites(dir, Object.keys(files));
    assert.deepEqual(found.map((f) => f.split(": ")[0]), [
      "lib/cli/a.ts:1",
      "lib/cli/b.ts:1",
      "lib/cli/b.ts:2",
      "lib/cli/b.ts:3",
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
