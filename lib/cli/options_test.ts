// The option table drives parsing and help: table tests for the parser, and a check
// that every command's help lists exactly the options it parses.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type CommandDef,
  duration,
  flag,
  formatFor,
  helpText,
  inAndOut,
  list,
  number,
  type Opt,
  parseCommand,
  text,
  usageLine,
  usageLines,
} from "./options.ts";
import { loadCommands } from "./commands.ts";
import { UsageError } from "../errors.ts";

const COMMANDS = await loadCommands();

const cmd = {
  name: "t",
  summary: "a test command",
  synopsis: "[A [B]]",
  options: {
    output: text("FILE", "out", "o"),
    quiet: flag("quiet", "q"),
    at: duration("S", "time"),
    n: number("N", "count", { min: 1, max: 9, integer: true }),
    list: list("L", "items"),
    append: { ...flag("append"), conflicts: ["overwrite", "quiet"], reason: "it keeps the file" },
    overwrite: flag("overwrite"),
    gate: { ...text("G", "gate"), requires: ["n", "at"] },
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
  test("declared conflicts and requirements, whichever order the flags come in", () => {
    usage(["--append", "--overwrite"], /^t: --append and --overwrite cannot be used together \(it keeps the file\)$/);
    usage(["--overwrite", "--append"], /^t: --append and --overwrite cannot be used together/);
    usage(["-q", "--append"], /^t: --append and --quiet cannot be used together/);
    usage(["--gate", "x"], /^t: --gate needs --n or --at$/);
    assert.deepEqual(parseCommand(cmd, ["--gate", "x", "--at", "1"])!.values, { gate: "x", at: 1 });
    assert.deepEqual(parseCommand(cmd, ["--append"])!.values, { append: true });
    assert.equal(parseCommand(cmd, ["--append", "--overwrite", "--help"]), null);
  });
  test("usage lists every option and the positionals; help says what each cannot go with", () => {
    assert.equal(usageLine(cmd), "pstlab t [OPTIONS] [A [B]]");
    const u = usageLines(cmd).join("\n");
    assert.match(u, /^Usage: pstlab t \[A \[B\]\] \[-o FILE\] \[-q\] \[--at S\]/);
    assert.match(u, /\[--append \| --overwrite\]/);
    assert.match(helpText(cmd), /--append +append \(not with --overwrite or --quiet\)/);
    assert.match(helpText(cmd), /--gate G +gate \(needs --n or --at\)/);
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

/** A value the option's own parser accepts, so a combination is refused for the combination alone. */
function sampleValue(name: string, o: Opt<unknown>): string[] {
  if (o.arg === undefined) return [`--${name}`];
  for (const v of ["1", "x.json", "1/2", "80x24", "none", "claude", "v3", "ms", "markdown", "correct", "query=none"]) {
    try {
      o.parse(v, `--${name}`);
      return [`--${name}`, v];
    } catch { /* the next */ }
  }
  throw new Error(`no sample value for --${name}`);
}

describe("every command's declared combinations are enforced by the parser", () => {
  for (const c of COMMANDS) {
    const opts = Object.entries(c.spec.options).filter(([, o]) => o.conflicts || o.requires);
    for (const [name, o] of opts) {
      test(`${c.spec.name} --${name}`, () => {
        for (const other of [...(o.conflicts ?? []), ...(o.requires ?? [])]) {
          assert.ok(Object.hasOwn(c.spec.options, other), `--${other} is not an option of ${c.spec.name}`);
        }
        const arg = sampleValue(name, o);
        for (const other of o.conflicts ?? []) {
          const both = sampleValue(other, c.spec.options[other]);
          const re = new RegExp(`^${c.spec.name}: --${name} and --${other} cannot be used together`);
          usage([...arg, ...both], re, c.spec);
          usage([...both, ...arg], re, c.spec);
        }
        if (o.requires) {
          usage(arg, new RegExp(`^${c.spec.name}: --${name} needs `), c.spec);
          for (const r of o.requires) {
            // r may need something of its own (--compare-manifest needs --labels): give its first.
            const chain = [r];
            for (
              let q = c.spec.options[r].requires?.[0];
              q && !chain.includes(q);
              q = c.spec.options[q].requires?.[0]
            ) {
              chain.push(q);
            }
            // A file argument where the command takes one (demo --overwrite --record takes none).
            const file = c.spec.positionals?.max === 0 ? [] : ["f"];
            const p = parseCommand(c.spec, [
              ...arg,
              ...chain.flatMap((x) => sampleValue(x, c.spec.options[x])),
              ...file,
            ]);
            assert.ok(p, `${c.spec.name} --${name} --${chain.join(" --")}`);
          }
        }
      });
    }
  }
  test("the five combinations once checked by hand are declared", () => {
    const declared = (cmd: string, a: string, b: string) =>
      COMMANDS.find((c) => c.spec.name === cmd)!.spec.options[a].conflicts?.includes(b);
    assert.ok(declared("record", "append", "overwrite"));
    assert.ok(declared("report", "merge", "shard"));
    assert.ok(declared("play", "label", "idle-time-limit"));
    assert.ok(declared("emit", "osc94", "id"));
    assert.ok(declared("redact", "check", "output"));
  });
});

describe("help comes from the same table", () => {
  for (const c of COMMANDS) {
    test(c.spec.name, () => {
      const help = helpText(c.spec);
      const listed = [...help.matchAll(/^ {2}(?:-[a-zA-Z], )?--([a-z0-9-]+)/gm)].map((m) => m[1]);
      assert.deepEqual(listed, [...Object.keys(c.spec.options), "help"]);
      // The usage names every option (it once left out play's --label, demo's --format, emit's --osc94).
      const synopsis = usageLines(c.spec).join(" ");
      for (const [name, o] of Object.entries(c.spec.options)) {
        const word = o.short ? `-${o.short}` : `--${name}`;
        assert.ok(new RegExp(`[[ ]${word}[ \\]]`).test(synopsis), `usage omits --${name}`);
      }
      assert.ok(usageLines(c.spec).every((l) => l.length <= 100), "usage wider than 100 columns");
      assert.match(help, /\nExamples:\n {2}\S/);
      for (const [name, o] of Object.entries(c.spec.options)) {
        if (o.short) assert.match(help, new RegExp(`-${o.short}, --${name}`));
      }
    });
  }
});

describe("an output that is required is not described as having a default", () => {
  // trim/redact once said `-o` defaulted to stdout while refusing to run without OUT.
  for (const c of COMMANDS.filter((c) => c.spec.positionals?.files?.includes("out"))) {
    test(c.spec.name, () => {
      const help = helpText(c.spec);
      assert.ok(!/default stdout/.test(help), `${c.spec.name} --help promises a default output`);
      assert.match(help, /OUT or -o is required; `-` is stdout/);
      assert.throws(() => inAndOut(c.spec.name, ["in.cast"], undefined), /missing the output/);
    });
  }
});

// Stdin can be read once: every command whose positionals take two or more inputs refuses
// a second `-` in the parser (one line, exit 2), before reading anything.
describe("- (stdin) at most once among a command's inputs", () => {
  for (const c of COMMANDS) {
    const p = c.spec.positionals;
    const roles = p?.files;
    if (!roles || p?.stopAtFirst || (p?.max !== undefined && p.max < 2)) continue;
    if (roles[Math.min(1, roles.length - 1)] !== "in" || roles[0] !== "in") continue;
    test(`${c.spec.name} - -`, () => {
      assert.throws(
        () => parseCommand(c.spec, ["-", "-"]),
        (e: unknown) => e instanceof UsageError && /\(stdin\) is given more than once/.test(e.message),
      );
    });
  }
  test("an IN OUT command: `-` in and `-` out is fine", () => {
    const convert = COMMANDS.find((c) => c.spec.name === "convert")!;
    assert.deepEqual(parseCommand(convert.spec, ["-", "-"])?.positionals, ["-", "-"]);
  });
});

describe("--detectors: a detector named twice is refused", () => {
  for (const c of COMMANDS.filter((c) => "detectors" in c.spec.options)) {
    for (const list of ["protocol,protocol", "screen:claude,screen:claude@50ms", "quiet>=2s, quiet>=2s"]) {
      test(`${c.spec.name} --detectors ${list}`, () => {
        assert.throws(
          () => parseCommand(c.spec, ["x.cast", "--detectors", list]),
          (e: unknown) => e instanceof UsageError && /is named twice/.test(e.message),
        );
      });
    }
  }
});
