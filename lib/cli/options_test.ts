// The option table drives parsing and help: table tests for the parser, and a check
// that every command's help lists exactly the options it parses.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CommandDef, duration, flag, formatFor, helpText, list, number, parseCommand, text } from "./options.ts";
import { COMMANDS } from "./commands.ts";
import { UsageError } from "../errors.ts";

const cmd = {
  name: "t",
  summary: "a test command",
  usage: "pstlab t …",
  options: {
    output: text("FILE", "out", "o"),
    quiet: flag("quiet", "q"),
    at: duration("S", "time"),
    n: number("N", "count", { min: 1, max: 9, integer: true }),
    list: list("L", "items"),
  },
  positionals: { max: 2 },
  examples: ["pstlab t"],
};
const rec = { ...cmd, name: "r", positionals: { stopAtFirst: true } };

const usage = (argv: string[], re: RegExp, c: CommandDef = cmd) =>
  assert.throws(() => parseCommand(c, argv), (e: unknown) => e instanceof UsageError && re.test(e.message), re.source);

describe("option table parser", () => {
  const cases: [string[], Record<string, unknown>, string[]][] = [
    [["-o", "x"], { output: "x" }, []],
    [["-ox"], { output: "x" }, []],
    [["--output=x", "a"], { output: "x" }, ["a"]],
    [["-qo", "x"], { quiet: true, output: "x" }, []],
    [["--at", "1m30s", "--n", "3"], { at: 90, n: 3 }, []],
    [["--list", "a, b,,c"], { list: ["a", "b", "c"] }, []],
    [["a", "--", "--quiet"], {}, ["a", "--quiet"]],
    [["-"], {}, ["-"]],
  ];
  for (const [argv, values, pos] of cases) {
    test(argv.join(" "), () => {
      const p = parseCommand(cmd, argv)!;
      assert.deepEqual(p.values, values);
      assert.deepEqual(p.positionals, pos);
    });
  }
  test("a value that starts with - reaches the value parser (one line, names the flag)", () => {
    usage(["--at", "-5"], /^t: bad --at "-5"/);
    usage(["--n", "10"], /^t: bad --n "10" \(expected an integer 1–9\)/);
    usage(["--n", "1.5"], /bad --n/);
    usage(["--n", "abc"], /bad --n/);
    usage(["--at", "1e400"], /bad --at/);
  });
  test("unknown options, missing values, values on flags, too many arguments", () => {
    usage(["--nope"], /unknown option '--nope'/);
    usage(["-z"], /unknown option '-z'/);
    usage(["-o"], /-o needs a value \(FILE\)/);
    usage(["--quiet=yes"], /--quiet takes no value/);
    usage(["a", "b", "c"], /unexpected argument "c"/);
    usage(["--list", ","], /--list is empty/);
  });
  test("record-style: options end at the first positional", () => {
    const p = parseCommand(rec, ["-q", "ls", "-o", "x", "--nope"])!;
    assert.deepEqual(p.values, { quiet: true });
    assert.deepEqual(p.positionals, ["ls", "-o", "x", "--nope"]);
  });
  test("--help anywhere returns null", () => {
    assert.equal(parseCommand(cmd, ["a", "--help"]), null);
    assert.equal(parseCommand(cmd, ["-h"]), null);
  });
  test("formatFor: explicit, then the -o extension, then the default", () => {
    const ext = { ".json": "json", ".md": "markdown" } as const;
    assert.equal(formatFor<string>("csv", "x.json", ext, "table"), "csv");
    assert.equal(formatFor<string>(undefined, "X.JSON", ext, "table"), "json");
    assert.equal(formatFor<string>(undefined, "-", ext, "table"), "table");
    assert.equal(formatFor<string>(undefined, undefined, ext, "table"), "table");
  });
});

describe("help comes from the same table", () => {
  for (const c of COMMANDS) {
    test(c.spec.name, () => {
      const help = helpText(c.spec);
      const listed = [...help.matchAll(/^ {2}(?:-[a-zA-Z], )?--([a-z0-9-]+)/gm)].map((m) => m[1]);
      assert.deepEqual(listed, [...Object.keys(c.spec.options), "help"]);
      assert.match(help, /\nExamples:\n {2}\S/);
      for (const [name, o] of Object.entries(c.spec.options)) {
        if (o.short) assert.match(help, new RegExp(`-${o.short}, --${name}`));
      }
    });
  }
});
