// The terminal-writes rule, checked: every byte to stdout or stderr goes through the one
// terminal writer, lib/stdio.ts (out/err filter it; raw() takes a channel from
// RAW_CHANNELS). A direct write anywhere else — process.stdout.write, console.log,
// fs.writeSync(1, …), writeAllSync(2, …), Deno.stdout, Bun.stdout — fails `npm run check`.
// Tests (*_test.ts), test kits, bench/ and tools/ are exempt: they are not the product.

import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The writer itself, and OutputFile's `-` (lib/recording/sink.ts), which sends its text
 * through the writer's filter (forTerminal) unless it is given one of the RAW_CHANNELS.
 */
const ALLOWED = new Set(["lib/stdio.ts", "lib/recording/sink.ts"]);

const DIRECT = [
  /\bprocess\s*\.\s*(stdout|stderr)\s*\.\s*write\s*\(/,
  /\bconsole\s*\.\s*(log|error|warn|info|debug|trace|dir|table)\s*\(/,
  /\b(fs\s*\.\s*)?write(All)?Sync\s*\(\s*(1|2|process\s*\.\s*(stdout|stderr)\s*\.\s*fd)\s*[,)]/,
  /\b(fs\s*\.\s*)?write(All)?Sync\s*\(\s*(this\.)?fd\s*===?\s*[12]/,
  /\bDeno\s*\.\s*(stdout|stderr)\b/,
  /\bBun\s*\.\s*(stdout|stderr)\b/,
];

function* sources(root: string, dir = ""): Generator<string> {
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (["node_modules", "bench", "tools", "fixtures", "dist", ".git"].includes(e.name)) continue;
      yield* sources(root, rel);
    } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts") && !/testkit/.test(e.name)) yield rel;
  }
}

/** `file:line: the write` for every direct terminal write outside the writer. */
export function directWrites(root: string, files: Iterable<string> = sources(root)): string[] {
  const found: string[] = [];
  for (const rel of files) {
    if (ALLOWED.has(rel)) continue;
    fs.readFileSync(path.join(root, rel), "utf8").split("\n").forEach((line, i) => {
      if (/^\s*(\/\/|\*)/.test(line)) return;
      const hit = DIRECT.find((re) => re.test(line));
      if (hit) found.push(`${rel}:${i + 1}: writes to the terminal outside lib/stdio.ts: ${line.trim()}`);
    });
  }
  return found;
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname ?? ".", "..");
  const found = directWrites(root);
  for (const f of found) console.error(f);
  if (found.length) {
    console.error(
      `stdio: ${found.length} direct write(s); print through lib/stdio.ts (out, err, or raw with a channel)`,
    );
    process.exit(1);
  }
  console.log("stdio: every terminal write goes through lib/stdio.ts");
}
