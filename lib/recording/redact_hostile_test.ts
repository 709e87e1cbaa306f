// Redaction where the first version leaked or broke reports: tmux-wrapped OSC 7501,
// OSC 52, every header string, unknown events; structural OSC 7501 values replaced by
// placeholders that keep the report valid; and a property: secrets placed anywhere
// pstlab decodes are all gone after one pass (a second pass finds nothing) while the
// protocol's reports stay the same.
import { compilePattern, type Pattern } from "../regex/pattern.ts";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compilePatterns, Redactor, totalOf } from "./redact.ts";
import type { Event, Header } from "./model.ts";
import { encodeBase64 } from "../osc7501/base64.ts";
import { wrapTmux } from "../osc7501/encode.ts";
import { Tracker } from "../osc7501/tracker.ts";

const te = new TextEncoder();
const td = new TextDecoder();
const b64 = (s: string) => encodeBase64(te.encode(s));
const o = (t: number, s: string | Uint8Array): Event => ({
  t,
  kind: "output",
  bytes: typeof s === "string" ? te.encode(s) : s,
});

function run(patterns: Pattern[], header: Header, events: Event[]) {
  const r = new Redactor({ patterns, replace: "[R]" });
  const h = r.header(header);
  const out: Event[] = [];
  for (const e of events) out.push(...r.push(e));
  out.push(...r.end());
  return { r, header: h, events: out };
}

/** Every report the tracker accepts, as (state, id, kind, app-or-null) — what scoring reads. */
function reports(events: Event[]): string[] {
  const seen: string[] = [];
  const tr = new Tracker((e) => {
    if (e.type === "report") {
      seen.push(
        `${e.state}|${e.id === null ? "root" : "id"}|${e.kind}|${e.app === null ? "-" : "app"}|${e.title === null}|${
          e.msg === null
        }`,
      );
    } else if (e.type === "discarded" || e.type === "ignored") seen.push(`${e.type}:${e.reason}`);
  });
  for (const e of events) if (e.kind === "output") tr.feed(e.bytes, e.t);
  return seen;
}

describe("redact: places that leaked", () => {
  test("OSC 7501 msg and title inside tmux passthrough, nested twice", () => {
    const seq = te.encode(
      `\x1b]7501;state=blocked:kind=question:title=${b64("sk-SECRET1")}:msg=${b64("key sk-SECRET1?")}\x1b\\`,
    );
    const { events, r } = run([compilePattern("sk-[A-Z0-9]+")], { cols: 80, rows: 24 }, [
      o(0, wrapTmux(seq, 1)),
      o(1, wrapTmux(seq, 2)),
    ]);
    const text = events.map((e) => td.decode((e as { bytes: Uint8Array }).bytes)).join("");
    assert.ok(!text.includes(b64("sk-SECRET1")) && !text.includes(b64("key sk-SECRET1?")));
    assert.equal(r.stats.osc7501, 4);
    assert.deepEqual(reports(events), reports([o(0, wrapTmux(seq, 1)), o(1, wrapTmux(seq, 2))]));
  });
  test("OSC 52 clipboard payloads are decoded and scrubbed", () => {
    const { events, r } = run([compilePattern("hunter2")], { cols: 80, rows: 24 }, [
      o(0, `\x1b]52;c;${b64("pw=hunter2")}\x07`),
    ]);
    assert.equal(td.decode((events[0] as { bytes: Uint8Array }).bytes), `\x1b]52;c;${b64("pw=[R]")}\x07`);
    assert.equal(r.stats.osc52, 1);
  });
  test("every header string: tags, theme, unknown keys (and their names), provenance, term type", () => {
    const header: Header = {
      cols: 80,
      rows: 24,
      termType: "xterm-tok",
      tags: ["tok-1"],
      theme: { fg: "tok-2" },
      extra: { "tok-key": "tok-3", nested: ["tok-4"] },
      provenance: { tool: "pstlab", version: "1", osc7501_revision: "0.4", fixture_schema: 1, emitter: "tok-5" },
    };
    const { header: h, r } = run([compilePattern("tok-?[0-9a-z]*")], header, []);
    assert.ok(!JSON.stringify(h).includes("tok"), JSON.stringify(h));
    assert.equal(r.stats.header, 7);
  });
  test("events of unknown codes", () => {
    const { events } = run([compilePattern("sk-[a-z]+")], { cols: 80, rows: 24 }, [{
      t: 0,
      kind: "other",
      code: "z",
      data: "sk-abc",
    }]);
    assert.deepEqual(events[0], { t: 0, kind: "other", code: "z", data: "[R]" });
  });
  test("structural values become redacted-N: valid, the same for the same secret, reports unchanged", () => {
    const src = [
      o(0, "\x1b]7501;state=working:app=deployer:id=eu-west:progress=10\x1b\\"),
      o(1, "\x1b]7501;state=blocked:app=deployer:id=eu-west/db:kind=permission\x1b\\"),
      o(2, "\x1b]7501;state=done:id=eu-west\x1b\\"),
    ];
    const { events } = run([compilePattern("eu-west"), compilePattern("deploy")], { cols: 80, rows: 24 }, src);
    const text = events.map((e) => td.decode((e as { bytes: Uint8Array }).bytes)).join("");
    assert.equal((text.match(/id=redacted-2\b/g) ?? []).length, 3);
    assert.match(text, /id=redacted-2\/db/);
    assert.match(text, /app=redacted-1er/);
    assert.deepEqual(reports(events), reports(src));
  });
});

describe("redact: patterns", () => {
  test("patterns compile together through the one regex runner; a bad one is one line", () => {
    const ps = compilePatterns(["\\-x", "abc"]);
    assert.equal(ps.length, 2);
    const { events } = run(ps, { cols: 80, rows: 24 }, [o(0, "-x abc")]);
    assert.equal(td.decode((events[0] as { bytes: Uint8Array }).bytes), "[R] [R]");
    assert.throws(() => compilePatterns(["("]), /bad --pattern "\("/);
  });
  test("a pattern that backtracks catastrophically in JavaScript runs in linear time (the one regex runner)", () => {
    // (a+)+$ on 40 a's and a b: 2^40 steps for a backtracking engine; the guard sends it to RE2.
    const [p] = compilePatterns(["(a+)+$"]);
    const text = "a".repeat(40) + "b\r\n" + "x".repeat(70000);
    const { events, r } = run([p], { cols: 80, rows: 24 }, [o(0, text)]);
    assert.equal(totalOf(r.stats), 0);
    assert.equal(td.decode((events[0] as { bytes: Uint8Array }).bytes), text);
  });
});

describe("redact: property", () => {
  const secret = fc.stringMatching(/^[a-z]{3}[0-9]{3}$/).map((s) => `zq${s}`);
  // Every place a secret can hide in a capture, as a function of the secret.
  const places: ((s: string) => Event | ((h: Header) => void))[] = [
    (s) => o(0, `plain ${s} text\r\n`),
    (s) => ({ t: 0, kind: "input", bytes: te.encode(`${s}\r`) }),
    (s) => ({ t: 0, kind: "marker", label: `note ${s}` }),
    (s) => ({ t: 0, kind: "other", code: "z", data: s }),
    (s) => o(0, `\x1b]7501;state=working:msg=${b64(`doing ${s}`)}:title=${b64(s)}\x1b\\`),
    (s) => o(0, wrapTmux(te.encode(`\x1b]7501;state=blocked:kind=question:msg=${b64(`ask ${s}?`)}\x1b\\`), 1)),
    (s) => o(0, `\x1b]7501;state=working:id=job/${s}:app=${s}\x1b\\`),
    (s) => o(0, `\x1b]52;c;${b64(`copy ${s}`)}\x07`),
    (s) => o(0, `\x1b]0;title ${s}\x07`),
    (s) => (h: Header) => {
      h.tags = [...(h.tags ?? []), s];
    },
    (s) => (h: Header) => {
      h.extra = { ...(h.extra ?? {}), [`k${s}`]: s };
    },
    (s) => (h: Header) => {
      h.command = `run --key ${s}`;
    },
  ];
  test("after one pass no secret is found anywhere pstlab decodes; reports are unchanged", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(secret, fc.nat({ max: places.length - 1 })), { minLength: 1, maxLength: 12 }),
        (items) => {
          const header: Header = { cols: 80, rows: 24 };
          const events: Event[] = [];
          items.forEach(([s, k], i) => {
            const p = places[k](s);
            if (typeof p === "function") p(header);
            else events.push({ ...p, t: i } as Event);
          });
          const patterns = [...new Set(items.map(([s]) => s))].map((s) => compilePattern(s));
          const first = run(patterns, header, events);
          assert.ok(totalOf(first.r.stats) >= 1);
          const second = run(patterns, first.header, first.events);
          assert.equal(totalOf(second.r.stats), 0, JSON.stringify(second.r.stats));
          assert.deepEqual(reports(first.events), reports(events));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("redact: reports keep their time (issue: a report split across reads moved into its first read)", () => {
  const SECRET = "hunter2SECRETzz";
  /** Every tracker event with its time, the secret's text replaced as redact replaces it. */
  function timeline(events: Event[]): string[] {
    const seen: string[] = [];
    const tr = new Tracker((e) => {
      const scrub = (s: string | null) => s === null ? "-" : s.split(SECRET).join("[R]");
      if (e.type === "report") {
        seen.push(
          `${e.t}|${e.state}|${e.id === null}|${e.kind}|${e.app === null}|${scrub(e.title)}|${scrub(e.msg)}|${e.depth}`,
        );
      } else seen.push(`${e.t}|${e.type}`);
    });
    for (const e of events) if (e.kind === "output") tr.feed(e.bytes, e.t);
    return seen;
  }
  const split = (bytes: Uint8Array, cuts: number[]): Event[] => {
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const evs: Event[] = [];
    let from = 0;
    for (const c of [...at, bytes.length]) {
      evs.push(o(evs.length, bytes.subarray(from, c)));
      from = c;
    }
    return evs;
  };
  test("the reproduction: the blocked report stays at the read holding its terminator", () => {
    const src = [
      o(1.1, `Do you want to proceed?\r\n\x1b]7501;state=blocked`),
      o(3.1, `:kind=permission:app=claude-code:msg=${b64(`Allow ${SECRET}?`)}\x1b\\`),
    ];
    const { events } = run([compilePattern(SECRET)], { cols: 80, rows: 24 }, src);
    assert.deepEqual(timeline(events), timeline(src));
    assert.equal(timeline(src)[0].split("|")[0], "3.1");
  });
  test("sequences split at random offsets (tmux, title, msg, unknown keys, OSC 52, text): the same timeline (property)", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        `\x1b]7501;state=blocked:kind=permission:msg=${b64(`Allow ${SECRET}?`)}\x1b\\`,
        `\x1b]7501;state=working:title=${b64(`t ${SECRET}`)}:app=x\x07`,
        `\x1b]7501;state=idle:x-${SECRET}=${SECRET}:msg=${b64("fine")}\x1b\\`,
        `\x1b]7501;state=working:id=job-${SECRET}\x1b\\`,
        `\x1b]52;c;${b64(`copy ${SECRET}`)}\x07`,
        `plain ${SECRET} é日\r\n`,
        `\x1b[31mhun\x1b]7501;state=working\x1b\\ter2SECRETzz\x1b[0m`,
        `\x1b]0;${SECRET}\x07`,
        `\x1b]7501;state=${SECRET}\x1b\\`,
        `\x1b]7501;state=working:progress=${SECRET}\x1b\\`,
        `\x1b]7501;state=blocked:kind=${SECRET}\x1b\\`,
        `\x1b]7501;state=working:id=a/${SECRET.repeat(3)}\x1b\\`,
        `\x1b]7501;state=working:app=${SECRET.repeat(5)}\x1b\\`,
        `\x1b]7501;state=working:id=${SECRET} x\x1b\\`,
        `\x1b]7501;state=idle:msg=${b64(`ws ${SECRET}`).slice(0, 8)}\r\n${b64(`ws ${SECRET}`).slice(8)}\x1b\\`,
        "working…\r\n",
      ),
      fc.constantFrom(1, 2).map((d) =>
        td.decode(wrapTmux(te.encode(`\x1b]7501;state=blocked:msg=${b64(`p ${SECRET}`)}\x1b\\`), d))
      ),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (ps, cuts) => {
          const src = split(te.encode(ps.join("")), cuts);
          const { events } = run([compilePattern(SECRET)], { cols: 80, rows: 24 }, src);
          assert.deepEqual(timeline(events), timeline(src));
          assert.ok(
            !td.decode(Uint8Array.from(events.flatMap((e) => e.kind === "output" ? [...e.bytes] : []))).includes(
              SECRET,
            ),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("redact: protocol structure is never a match, and no secret hides in it (table)", () => {
  const SECRET = "hunter2SECRETzz";
  const cases: { name: string; pattern: string; src: string; want: string }[] = [
    {
      name: "a pattern that is a state keeps valid reports (only the text outside them is scrubbed)",
      pattern: "working",
      src: "\x1b]7501;state=working:app=a\x1b\\working",
      want: "\x1b]7501;state=working:app=a\x1b\\[R]",
    },
    {
      name: "a valid kind and progress are vocabulary",
      pattern: "permission|50",
      src: "\x1b]7501;state=blocked:kind=permission\x1b\\\x1b]7501;state=working:progress=50\x07",
      want: "\x1b]7501;state=blocked:kind=permission\x1b\\\x1b]7501;state=working:progress=50\x07",
    },
    {
      name: "a secret as an invalid state, kind or progress is scrubbed",
      pattern: SECRET,
      src: `\x1b]7501;state=${SECRET}:kind=${SECRET}:progress=${SECRET}\x1b\\`,
      want: "\x1b]7501;state=redacted-1:kind=redacted-1:progress=redacted-1\x1b\\",
    },
    {
      name:
        "the parser judges the scrubbed report as the original: an id over the segment limit stays over it (masked)",
      pattern: SECRET,
      src: `\x1b]7501;state=working:id=${SECRET.repeat(3)}\x1b\\`,
      want: `\x1b]7501;state=working:id=${`${"x".repeat(14)}1`.repeat(3)}\x1b\\`,
    },
    {
      name: "a raw match running over a title's terminator: the terminator and the report after it stay",
      pattern: "pw=\\S*",
      src: "\x1b]0;pw=abc\x07\x1b]7501;state=blocked\x07\x1bPq pw=x\x1b\\",
      // "q" is the DCS's payload, inside the match: removed; its introducer stays.
      want: "\x1b]0;[R]\x07\x1b]7501;state=blocked\x07\x1bP [R]\x1b\\",
    },
    {
      name: "a valid OSC 9;4 progress report is vocabulary; the text after it is not",
      pattern: "50|4;1",
      src: "\x1b]9;4;1;50\x07 50% \x1b]9;4;1;50\x1b\\",
      want: "\x1b]9;4;1;50\x07 [R]% \x1b]9;4;1;50\x1b\\",
    },
    {
      name: "an unknown key's name keeps its length",
      pattern: "hunter",
      src: "\x1b]7501;state=idle:xhunter=1\x1b\\",
      want: "\x1b]7501;state=idle:xxxxxxx=1\x1b\\",
    },
    {
      name: "a secret as shown, split by a report: the shown characters go, the report stays",
      pattern: SECRET,
      src: "hun\x1b]7501;state=blocked\x1b\\ter2SE\x1b[1mCRETzz",
      want: "[R]\x1b]7501;state=blocked\x1b\\\x1b[1m",
    },
    {
      name: "a raw match running into a report: its bytes outside the report go, the report stays",
      pattern: "pw=[^\\n]*",
      src: "pw=abc\x1b]7501;state=idle\x07def\n",
      want: "[R]\x1b]7501;state=idle\x07\n",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const src = [o(0, c.src)];
      const { events } = run([compilePattern(c.pattern)], { cols: 80, rows: 24 }, src);
      assert.equal(td.decode((events[0] as { bytes: Uint8Array }).bytes), c.want);
      assert.deepEqual(reports(events), reports(src));
    });
  }
  test("truth markers keep their state and kind whatever the pattern; the rest of a label is scrubbed", () => {
    const src: Event[] = [
      { t: 0, kind: "marker", label: "truth:blocked:permission" },
      { t: 1, kind: "marker", label: `truth:working:${SECRET}` },
      { t: 2, kind: "marker", label: `note blocked ${SECRET}` },
      { t: 3, kind: "marker", label: `truth:${SECRET}` },
    ];
    const { events } = run([compilePattern(`truth|blocked|permission|working|${SECRET}`)], {
      cols: 80,
      rows: 24,
    }, src);
    assert.deepEqual(events.map((e) => (e as { label: string }).label), [
      "truth:blocked:permission",
      "truth:working:[R]",
      "note [R] [R]",
      "[R]:[R]",
    ]);
  });
  test("numbers anywhere in the header are matched as their JSON text; size, start time and idle limit are not", () => {
    const header: Header = {
      cols: 80,
      rows: 24,
      timestamp: 12345678,
      idleTimeLimit: 2,
      envExtra: { X_SECRET: 12345678, LIST: [12345678, 1] },
      extra: { pin: 12345678, deep: { n: 12345678 } },
      theme: { n: 12345678 },
    };
    const { header: h, r } = run([compilePattern("12345678")], header, []);
    assert.equal(r.stats.header, 5);
    assert.equal(h.timestamp, 12345678);
    assert.deepEqual(h.envExtra, { X_SECRET: "[R]", LIST: ["[R]", 1] });
    assert.deepEqual(h.extra, { pin: "[R]", deep: { n: "[R]" } });
  });
});
