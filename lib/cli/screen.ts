// `pstlab screen`: the emulated screen at a time, for bug reports.

import { defineCommand, out } from "./common.ts";
import { AT, flag, INPUT_OPTIONS, ONE_FILE } from "./options.ts";
import { openInput, printWarnings } from "./input.ts";
import { observeAt } from "./detect_common.ts";
import { disarm, round6, stripInvisible } from "../text.ts";
import { summaryOf } from "./commands.ts";
import { warnPastEnd } from "./times.ts";

export const spec = {
  name: "screen",
  summary: summaryOf("screen"),
  synopsis: "FILE",
  options: {
    at: AT,
    plain: flag("only the rows (no header line)"),
    json: flag('{"t", "cols", "rows", "lines", "title", "osc9", "altScreen", "cursor"}'),
    ...INPUT_OPTIONS,
  },
  positionals: ONE_FILE,
  examples: ["pstlab screen session.cast --at 61.2", "pstlab screen capture.raw --size 80x24 --plain > screen.txt"],
};

export const command = defineCommand(spec, async (p) => {
  const rec = await openInput(p.positionals[0], p.values);
  const at = p.values.at ?? Infinity;
  const { observer, t, pastEnd } = await observeAt(rec, at);
  const s = observer.screen;
  const rows = s.rows();
  if (p.values.json) {
    out(
      JSON.stringify({
        t: round6(t),
        cols: s.cols,
        rows: s.rowCount,
        lines: rows,
        title: s.title,
        osc9: s.osc9,
        altScreen: s.altScreen,
        cursor: s.cursor(),
      }) + "\n",
    );
  } else {
    let end = rows.length;
    while (end > 0 && rows[end - 1] === "") end--;
    const head = p.values.plain ? [] : [
      `# ${disarm(rec.path)} at ${t.toFixed(3)} s — ${s.cols}x${s.rowCount}${
        s.altScreen ? ", alternate screen" : ""
      }, cursor ${s.cursor().x},${s.cursor().y}${s.title ? `, title "${disarm(s.title)}"` : ""}`,
    ];
    out(
      [...head, ...rows.slice(0, end).map((r) => stripInvisible(r).replace(/[\x00-\x1f\x7f-\x9f]/g, "?"))].join("\n") +
        "\n",
    );
  }
  printWarnings(rec);
  // Past the end is the screen at the end: right for "what did it end on", but a typo'd
  // time must not pass for the screen asked for.
  if (pastEnd !== null) warnPastEnd("--at", at, rec.path, pastEnd, "the screen at the end");
  return 0;
});
