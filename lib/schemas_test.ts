// The published schemas (docs/schemas/*.json) are the ones pstlab validates with, and
// every JSON document pstlab writes for report, check and shards validates against its
// schema, on every bundled capture. PSTLAB_WRITE_SCHEMAS=1 rewrites the docs files.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, ROOT } from "./testkit.ts";
import { validator } from "./foreign_json.ts";
import { REPORT_JSON_SCHEMA } from "./report/schema.ts";
import { SHARD_SCHEMA } from "./score/shard_schema.ts";
import { CHECK_JSON_SCHEMA, MATRIX_JSON_SCHEMA } from "./check/schema.ts";

// check-matrix's documents are validated where they are made (lib/cli/check_matrix_test.ts).
const SCHEMAS = {
  report: REPORT_JSON_SCHEMA,
  shard: SHARD_SCHEMA,
  check: CHECK_JSON_SCHEMA,
  "check-matrix": MATRIX_JSON_SCHEMA,
};
const text = (s: unknown) => JSON.stringify(s, null, 2) + "\n";

test("docs/schemas/*.json are the schemas pstlab validates with", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const file = path.join(ROOT, "docs/schemas", `${name}.json`);
    if (process.env.PSTLAB_WRITE_SCHEMAS === "1") fs.writeFileSync(file, text(schema));
    // Compared as JSON: deno fmt lays the file out its own way.
    assert.deepEqual(
      JSON.parse(fs.readFileSync(file, "utf8")),
      JSON.parse(text(schema)),
      `${file} is stale: PSTLAB_WRITE_SCHEMAS=1 rewrites it`,
    );
  }
});

const dirs = ["fixtures/captures", "fixtures/corpus"];
const CAPTURES = dirs.flatMap((d) =>
  fs.readdirSync(path.join(ROOT, d)).filter((f) => f.endsWith(".cast")).sort().map((f) => path.join(d, f))
).concat(["fixtures/ci/golden.cast"]);

/** One CLI run; its stdout must be a document valid against `schema`. */
function validates(kind: keyof typeof SCHEMAS, args: string[], codes = [0]): void {
  const r = cli(args);
  assert.ok(codes.includes(r.code), `${args.join(" ")}: exit ${r.code} ${r.stderr}`);
  validator(SCHEMAS[kind], `${kind} JSON`)(JSON.parse(r.stdout), args.join(" "));
}

describe("every JSON pstlab writes validates against its published schema", () => {
  test("report --format json, every bundled capture (one run, and with --baseline and labels)", () => {
    validates("report", ["report", ...CAPTURES, "--format", "json", "--per-file"]);
    const old = path.join(ROOT, "fixtures/captures/sim-late.cast");
    const tmp = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? "/tmp"), "pstlab-schema-"));
    try {
      const base = path.join(tmp, "old.json");
      assert.equal(cli(["report", old, "-o", base]).code, 0);
      validates("report", ["report", old, "--baseline", base, "--format", "json"]);
      const labels = path.join(tmp, "l.tsv");
      fs.writeFileSync(labels, "0\tworking\n3\tblocked\n4\tidle\n");
      validates("report", ["report", old, "--labels", labels, "--label-tolerance", "0.5s", "--format", "json"]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  test("report --shard: the shard file of every bundled capture", () => {
    validates("shard", ["report", ...CAPTURES, "--shard", "1/1"]);
  });
  test("check --format json, every bundled capture, also --against a golden and --strict", () => {
    validates("check", ["check", ...CAPTURES, "--format", "json"], [0, 1]);
    validates("check", [
      "check",
      "fixtures/captures/sim-correct.cast",
      "--against",
      "fixtures/ci/golden.cast",
      "--strict",
      "--format",
      "json",
    ], [0, 1]);
  });
});
