// Headless recording answers the queries a real terminal would, so TUIs that probe the
// terminal do not hang: xterm.js itself answers DA1, DA2, DSR/CPR and DECRQM; this adds
// XTVERSION, OSC 10/11/12 colours, window-size reports, the kitty keyboard query, and
// XTGETTCAP for `Pst` (the OSC 7501 terminfo capability, as SwiftTerm does). The OSC
// 7501 query itself is answered by the recorder, in stream order (recorder.ts).

import { VERSION } from "../version.ts";

export interface ParserHost {
  parser: {
    registerCsiHandler(id: { prefix?: string; final: string }, cb: (params: (number | number[])[]) => boolean): unknown;
    registerOscHandler(id: number, cb: (data: string) => boolean): unknown;
    registerDcsHandler(
      id: { intermediates?: string; final: string },
      cb: (data: string, params: (number | number[])[]) => boolean,
    ): unknown;
  };
  cols: number;
  rows: number;
}

export const COLORS = { fg: "rgb:d8d8/d8d8/d8d8", bg: "rgb:1e1e/1e1e/1e1e", cursor: "rgb:d8d8/d8d8/d8d8" };
const ST = "\x1b\\";
const hex = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, "0")).join("");
const unhex = (h: string) =>
  /^([0-9a-fA-F]{2})+$/.test(h)
    ? new TextDecoder().decode(new Uint8Array(h.match(/../g)!.map((x) => parseInt(x, 16))))
    : null;
/** terminfo `Pst`: `\E]7501;%p1%s\E\\` (docs/osc7501.md §5.4). */
export const PST_CAP = "\\E]7501;%p1%s\\E\\\\";

export function installResponder(host: ParserHost, reply: (s: string) => void): void {
  const p = host.parser;
  p.registerCsiHandler({ prefix: ">", final: "q" }, () => {
    reply(`\x1bP>|pstlab(${VERSION})${ST}`);
    return true;
  });
  const color = (id: number, value: string) => (data: string) => {
    if (data !== "?") return false;
    reply(`\x1b]${id};${value}${ST}`);
    return true;
  };
  p.registerOscHandler(10, color(10, COLORS.fg));
  p.registerOscHandler(11, color(11, COLORS.bg));
  p.registerOscHandler(12, color(12, COLORS.cursor));
  p.registerCsiHandler({ final: "t" }, (params) => {
    const op = params[0];
    if (op === 18) reply(`\x1b[8;${host.rows};${host.cols}t`);
    else if (op === 14) reply(`\x1b[4;${host.rows * 16};${host.cols * 8}t`);
    else if (op === 16) reply(`\x1b[6;16;8t`);
    else return false;
    return true;
  });
  p.registerCsiHandler({ prefix: "?", final: "u" }, () => {
    reply("\x1b[?0u"); // kitty keyboard protocol: no flags
    return true;
  });
  p.registerDcsHandler({ intermediates: "+", final: "q" }, (data) => {
    for (const name of data.split(";")) {
      const cap = unhex(name);
      if (cap === "Pst") reply(`\x1bP1+r${name}=${hex(PST_CAP)}${ST}`);
      else if (cap === "TN") reply(`\x1bP1+r${name}=${hex("xterm-256color")}${ST}`);
      else reply(`\x1bP0+r${name}${ST}`);
    }
    return true;
  });
}
