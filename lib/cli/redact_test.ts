// `redact` on the command line: the bundled deploy capture redacted of `eu-west` and
// `deploy` scores exactly as before; `--check` finds what remains (exit 1) and prints
// places and counts, never the secret.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, ROOT, tmpDir } from "../testkit.ts";

const dir = tmpDir("pstlab-redact-");
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const DEPLOY = path.join(ROOT, "fixtures/captures/deploy.cast");

/** What a report counts, without the input's identity (path, hash, byte count, the command quoted in the manifest's why). */
function counts(file: string) {
  const r = cli(["report", file, "--format", "json", "--episodes"]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  return {
    detectors: j.detectors.map((d: { per_input: unknown[] }) => ({
      ...d,
      per_input: d.per_input.map((p) => ({ ...(p as object), path: "" })),
      episode_list: undefined,
    })),
    inputs: j.inputs.map((i: { manifest: { name: string } }) => ({
      ...i,
      path: "",
      sha256: "",
      output_bytes: 0,
      manifest: i.manifest.name,
    })),
  };
}

describe("redact on the command line", () => {
  test("the redacted deploy capture scores the same in every count", () => {
    const out = path.join(dir, "public.cast");
    const r = cli(["redact", DEPLOY, out, "--pattern", "eu-west", "--pattern", "deploy"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /replacements \(output 2, input 0, OSC 7501 text 2, OSC 7501 fields \d+, OSC 52 0, markers 0, other events 0, header 1\)/,
    );
    assert.ok(!/eu-west|deploy/.test(fs.readFileSync(out, "utf8")));
    assert.deepEqual(counts(out), counts(DEPLOY));
  });
  test("--check: exit 1 with places and counts while matches remain, 0 after redaction; the secret is never printed", () => {
    const before = cli(["redact", "--check", DEPLOY, "--pattern", "eu-west"]);
    assert.equal(before.code, 1);
    assert.match(before.stdout, /7 matches remain \(output 2, input 0, OSC 7501 text 1, OSC 7501 fields 4,/);
    assert.ok(!before.stdout.includes("eu-west") && !before.stderr.includes("eu-west"));
    const out = path.join(dir, "p2.cast");
    assert.equal(cli(["redact", DEPLOY, "-o", out, "--pattern", "eu-west"]).code, 0);
    const after = cli(["redact", "--check", out, "--pattern", "eu-west"]);
    assert.equal(after.code, 0, after.stdout + after.stderr);
    assert.match(after.stdout, /no match of any pattern/);
  });
  test("--check writes nothing and takes one file", () => {
    const r = cli(["redact", "--check", DEPLOY, path.join(dir, "x.cast"), "--pattern", "x"]);
    assert.equal(r.code, 2);
    assert.ok(!fs.existsSync(path.join(dir, "x.cast")));
  });
  test("mixed pattern flags are not an internal error", () => {
    const r = cli(["redact", DEPLOY, path.join(dir, "m.cast"), "--pattern", "\\-x", "--pattern", "abc"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(cli(["redact", DEPLOY, path.join(dir, "n.cast"), "--pattern", "("]).code, 2);
  });
  test("--check --env-values passes on a file redact --env-values wrote: the placeholder is not a secret", () => {
    const src = path.join(dir, "env.cast");
    fs.writeFileSync(
      src,
      JSON.stringify({ version: 2, width: 80, height: 24, env: { API_TOKEN: "ghp_s3cretvalue", SHELL: "/bin/sh" } }) +
        "\n" + JSON.stringify([0.1, "o", "token ghp_s3cretvalue\r\n"]) + "\n",
    );
    const env = { API_TOKEN: "" };
    assert.equal(cli(["redact", "--check", src, "--env-values"], { env }).code, 1);
    for (const replace of [[], ["--replace", "**hidden-secret**"]]) {
      const out = path.join(dir, `env-${replace.length}.cast`);
      const r = cli(["redact", src, out, "--env-values", ...replace], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!fs.readFileSync(out, "utf8").includes("ghp_s3cretvalue"));
      const again = cli(["redact", "--check", out, "--env-values", ...replace], { env });
      assert.equal(again.code, 0, again.stdout + again.stderr);
    }
  });
  test("--env-values: a header env value that is not a string (a number, a nested object) is a secret, in the header and in the output", () => {
    const src = path.join(dir, "envx.cast");
    fs.writeFileSync(
      src,
      JSON.stringify({
        version: 3,
        term: { cols: 80, rows: 24 },
        env: { X_SECRET: 12345678, Y_TOKEN: { nested: "nestedsecretvalue" }, SHELL: "/bin/sh" },
      }) + "\n" + JSON.stringify([0.1, "o", "tok 12345678 nestedsecretvalue\r\n"]) + "\n",
    );
    const out = path.join(dir, "envx-out.cast");
    const r = cli(["redact", src, out, "--env-values"], { env: {} });
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(out, "utf8");
    assert.ok(!text.includes("12345678") && !text.includes("nestedsecretvalue"), text);
    // --pattern on a number: scrubbed in the header's env, and --check sees it there first.
    const check = cli(["redact", "--check", src, "--pattern", "12345678"]);
    assert.equal(check.code, 1, check.stdout);
    assert.match(check.stdout, /2 matches remain \(output 1,.* header 1\)/);
    const out2 = path.join(dir, "envx-out2.cast");
    assert.equal(cli(["redact", src, out2, "--pattern", "12345678"]).code, 0);
    assert.ok(!fs.readFileSync(out2, "utf8").includes("12345678"));
    assert.equal(cli(["redact", "--check", out2, "--pattern", "12345678"]).code, 0);
  });
  test("an empty --pattern, or one that can match only the empty string, is refused: one line, exit 2, nothing written", () => {
    for (const pat of ["", "^", "\\b", "(?:)", "a{0}"]) {
      for (const args of [[DEPLOY, path.join(dir, "e.cast")], ["--check", DEPLOY]]) {
        const r = cli(["redact", ...args, "--pattern", pat]);
        assert.equal(r.code, 2, `${JSON.stringify(pat)}: ${r.stderr}`);
        assert.match(r.stderr, /empty pattern/);
        assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
        assert.ok(!fs.existsSync(path.join(dir, "e.cast")));
      }
    }
    // A pattern that can also match the empty string is a real pattern.
    assert.equal(cli(["redact", DEPLOY, path.join(dir, "f.cast"), "--pattern", "eu-west-?[0-9]*"]).code, 0);
  });
  test("a report written in two reads keeps its time: scan and the protocol's latency are unchanged", () => {
    const src = path.join(dir, "lat.cast");
    const b64 = (t: string) => Buffer.from(t).toString("base64");
    const lines: unknown[] = [
      { version: 3, term: { cols: 80, rows: 24 }, command: "claude" },
      [0, "m", "truth:working"],
      [0.1, "o", "\x1b]7501;state=working:app=claude-code\x1b\\working\r\n"],
      [1.0, "m", "truth:blocked:permission"],
      [0, "o", "Do you want to proceed?\r\n"],
      [0, "o", "\x1b]7501;state=blocked"],
      [2.0, "o", `:kind=permission:app=claude-code:msg=${b64("Allow hunter2SECRETzz?")}\x1b\\`],
      [3.0, "m", "truth:working"],
      [0, "o", "\x1b]7501;sta"],
      [1.5, "o", `te=working:app=claude-code:msg=${b64("plain")}\x1b\\ok\r\n`],
    ];
    fs.writeFileSync(src, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const out = path.join(dir, "lat-out.cast");
    const r = cli(["redact", src, out, "--pattern", "hunter2SECRETzz"]);
    assert.equal(r.code, 0, r.stderr);
    const scan = (f: string) => cli(["scan", f]).stdout;
    assert.match(scan(src), /3\.100 +report .*blocked/);
    assert.equal(scan(out), scan(src).replace("hunter2SECRETzz", "[REDACTED]"));
    const latency = (f: string) => {
      const j = JSON.parse(cli(["report", f, "--detectors", "protocol", "--format", "json"]).stdout);
      return j.detectors.map((d: { per_input: unknown[] }) => d.per_input.map((p) => ({ ...(p as object), path: "" })));
    };
    assert.deepEqual(latency(out), latency(src));
  });
  test("--replace with a control character is refused: it would forge or cut sequences in the output", () => {
    for (const rep of ["\x1b]7501;state=blocked\x07", "\x07", "a\u009db"]) {
      const r = cli(["redact", DEPLOY, path.join(dir, "r.cast"), "--pattern", "deploy", "--replace", rep]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--replace must be printable text/);
      assert.ok(!r.stderr.includes("\x1b") && !fs.existsSync(path.join(dir, "r.cast")));
    }
  });
});

describe("the replacement text", () => {
  test("is refused when its own pattern matches it, or when it holds an invisible formatting character", () => {
    for (
      const [args, re] of [
        [["--pattern", "sk-[A-Z]+|RED"], /the --replace text is matched by --pattern "sk-\[A-Z\]\+\|RED"/],
        [["--pattern", "sk-[A-Z]+", "--replace", "sk-XXXX"], /the --replace text is matched by --pattern/],
        [["--pattern", "x", "--replace", "\u202e"], /--replace must be printable text/],
        [["--pattern", "x", "--replace", "a\u200bb"], /--replace must be printable text/],
      ] as const
    ) {
      const r = cli(["redact", DEPLOY, path.join(dir, "never.cast"), ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.ok(!fs.existsSync(path.join(dir, "never.cast")));
    }
    // A replacement the pattern does not match is fine.
    assert.equal(cli(["redact", DEPLOY, "-", "--pattern", "sk-[A-Z]+", "--replace", "sk-xxxx"]).code, 0);
  });
});
