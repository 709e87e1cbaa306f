// `pstlab cat`: concatenate captures, inserting a resize where sizes differ.

import { defineCommand, err } from "./common.ts";
import { AT_LEAST_ONE_FILE, duration, INPUT_OPTIONS, OUTPUT, RECORDING_OUTPUT_OPTIONS } from "./options.ts";
import { openInput, printWarnings } from "./input.ts";
import { openOutput, provenance, summarize, writeAll } from "./output.ts";
import { type Event, MAX_TIME, type Recording } from "../recording/model.ts";
import { sameFile } from "../recording/sink.ts";
import { EscapeState } from "../recording/escape_state.ts";
import { UsageError } from "../errors.ts";
import { summaryOf } from "./commands.ts";

export const spec = {
  name: "cat",
  summary: summaryOf("cat"),
  synopsis: "A B …",
  options: {
    output: OUTPUT,
    gap: duration("SECONDS", "pause between files (default 0)"),
    ...RECORDING_OUTPUT_OPTIONS,
    ...INPUT_OPTIONS,
  },
  positionals: AT_LEAST_ONE_FILE,
  notes: [
    "Each file starts where the previous one ended; the header is the first file's.",
    "Each file's exit event stays where it was: output after it starts a new segment, so",
    "replay judges every file's run on its own (docs/fixture-format.md convention 5).",
    "A truth label holds until the next one: a file whose own truth starts later (or never)",
    "is named on stderr, with the label that speaks for it until then.",
  ],
  examples: ["pstlab cat part1.cast part2.cast > whole.cast", "pstlab cat a.cast b.ttyrec -o both.cast"],
};

/**
 * Where a file's truth starts with a label carried from the files before it: a truth
 * label holds until the next one, so the last label of one file speaks for the start of
 * the next until that file's own first label (all of it, when it has none).
 */
export interface CarriedTruth {
  file: string;
  label: string;
  /** The file's first truth label, seconds into the file; null: it has none. */
  ownAt: number | null;
}

/** The recordings one after another, `gap` apart, with a resize where the size changes. */
async function* concatenated(
  recs: Recording[],
  gap: number,
  carried: CarriedTruth[] = [],
  seams: string[] = [],
): AsyncIterable<Event> {
  let offset = 0, last = 0;
  let size = { cols: recs[0].header.cols, rows: recs[0].header.rows };
  let truth: string | null = null;
  for (let i = 0; i < recs.length; i++) {
    const rec = recs[i];
    if (i > 0) {
      offset = last + gap;
      // The writer takes no time past MAX_TIME (no reader would read it back): said here, as the flag's fault.
      if (offset > MAX_TIME) {
        throw new UsageError(
          `cat: with --gap ${gap} s, ${rec.path} would start at ${
            offset.toFixed(3)
          } s, past the ${MAX_TIME} s a capture may hold`,
        );
      }
      if (rec.header.cols !== size.cols || rec.header.rows !== size.rows) {
        size = { cols: rec.header.cols, rows: rec.header.rows };
        yield { t: offset, kind: "resize", ...size };
      }
    }
    const before = truth;
    let own: number | null = null, ownLabel: string | null = null;
    // A part that ends inside an escape sequence: the next part's first output continues it
    // (an OSC 7501 report cut by trim --to swallowed the next file's first line).
    const esc = new EscapeState();
    for await (const e of rec.events) {
      last = e.t + offset;
      if (e.kind === "output") esc.feed(e.bytes);
      if (e.kind === "resize") size = { cols: e.cols, rows: e.rows };
      else if (e.kind === "marker" && e.label.startsWith("truth:")) {
        if (own === null) {
          own = e.t;
          ownLabel = e.label;
        }
        truth = e.label;
      }
      yield { ...e, t: last };
    }
    if (esc.inside && i < recs.length - 1) {
      seams.push(
        `${rec.path} ends inside an escape sequence: ${recs[i + 1].path}'s first output continues it in the result`,
      );
    }
    // The same label carried up to its own first one changes nothing.
    if (before !== null && (own === null || (own > 0 && ownLabel !== before))) {
      carried.push({ file: rec.path, label: before, ownAt: own });
    }
  }
}

export const command = defineCommand(spec, async (p) => {
  const outPath = p.values.output ?? "-";
  const gap = p.values.gap ?? 0;
  const clash = p.positionals.find((inPath) => sameFile(inPath, outPath));
  if (clash) throw new UsageError(`cat: refusing to write over the input ${clash}`);
  const recs: Recording[] = [];
  for (const path of p.positionals) recs.push(await openInput(path, p.values));
  const first = recs[0];
  const o = openOutput(outPath, {
    ...first.header,
    provenance: first.header.provenance ?? provenance({ query_answered: null }),
  }, p.values);
  const carried: CarriedTruth[] = [], seams: string[] = [];
  await writeAll(o, concatenated(recs, gap, carried, seams));
  for (const s of seams) err(`pstlab: warning: ${s}\n`);
  for (const r of recs) printWarnings(r);
  for (const c of carried) {
    err(
      `pstlab: warning: ${c.file}: ${
        c.ownAt === null ? "has no truth label" : `its first truth label is ${c.ownAt.toFixed(3)} s in`
      }: the label before it (${c.label}) holds ${c.ownAt === null ? "over all of it" : "until then"} in the result\n`,
    );
  }
  summarize(outPath, o);
  return 0;
});
