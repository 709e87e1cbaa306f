// One self-contained HTML file: the tables, a swimlane timeline per capture (truth row
// plus one row per detector, coloured by state, needs-you episodes marked) and an
// embedded asciinema-player synchronised with a cursor on the timeline; clicking the
// timeline seeks. Capture text is untrusted: everything from it is HTML-escaped, the
// recording is embedded as inert JSON (`<` escaped, so `</script>` cannot end it), and
// a Content-Security-Policy allows only our own scripts by hash, so no injected inline
// handler (`<img onerror>`) could run even if escaping failed.

import { createHash } from "node:crypto";
import playerBundle from "asciinema-player/dist/bundle/asciinema-player.min.js" with { type: "text" };
import playerCss from "asciinema-player/dist/bundle/asciinema-player.css" with { type: "text" };
import { COLUMNS, footnotes, type Report, row, totals, truthNotes } from "./model.ts";
import { DRAWN_POINTS, type FileResult } from "../score/result.ts";
import { inertScript, jsonScript, type Markup, markup, trusted } from "./markup.ts";

let player: string | null = null;
/** The player bundle as the page carries it (escaped once, on first use). */
const playerJs = () => player ??= inertScript(playerBundle);
import { baselineRows, failLines, manifestLine } from "./text.ts";

export { escapeHtml, inertJson } from "./markup.ts";

/** On every slot of a coarsened lane: a slot is not an exact change. */
const COARSE = " (coarsened: the slot's longest needs-you verdict, else its longest)";

const AXIS_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

const COLORS: Record<string, string> = {
  working: "#4c78a8",
  idle: "#bdbdbd",
  blocked: "#e45756",
  unknown: "#eeeeee",
  unlabeled: "#ffffff",
};
const X0 = 230, W = 1000, ROW = 20;
/** Episodes shown as a button each; more are picked from a list (lib/report/html.ts zoom). */
export const ZOOM_BUTTONS = 12;

function timeline(f: FileResult, id: string): Markup {
  const dur = Math.max(f.duration, 1e-6);
  const x = (t: number) => X0 + (Math.max(0, Math.min(t, dur)) / dur) * W;
  const lanes: { name: string; segs: { a: number; b: number; state: string; ny: boolean; tip: string }[] }[] = [];
  lanes.push({
    name: `truth (${f.truth})`,
    segs: [
      ...(f.truthSegments.length && f.truthSegments[0].start > 0
        ? [{ a: 0, b: f.truthSegments[0].start, state: "unlabeled", ny: false, tip: "unlabeled" }]
        : []),
      ...f.truthSegments.map((s, i) => {
        const b = i + 1 < f.truthSegments.length ? f.truthSegments[i + 1].start : dur;
        return {
          a: s.start,
          b,
          state: s.state,
          ny: s.state === "blocked",
          tip: `${s.state}${s.kind ? ` (${s.kind})` : ""}${f.truthChanges !== undefined ? COARSE : ""}`,
        };
      }),
    ],
  });
  for (const tl of f.timelines) {
    lanes.push({
      name: tl.detector,
      segs: tl.points.map((p, i) => {
        const b = i + 1 < tl.points.length ? tl.points[i + 1].t : dur;
        return {
          a: p.t,
          b,
          state: p.needsYou ? "blocked" : p.state,
          ny: p.needsYou,
          tip: `${p.needsYou ? "NEEDS YOU" : p.state}${p.rule ? ` — ${p.rule}` : ""}${
            tl.changes !== undefined ? COARSE : ""
          }`,
        };
      }),
    });
  }
  const height = lanes.length * ROW + 30;
  const out: Markup[] = [
    markup`<svg class="timeline" id="${id}" viewBox="0 0 ${
      X0 + W + 10
    } ${height}" width="100%" role="img" aria-label="timeline">`,
    markup`<clipPath id="${id}-clip"><rect x="${X0}" y="0" width="${W}" height="${height}"/></clipPath>`,
  ];
  lanes.forEach((lane, i) => {
    out.push(markup`<text x="${X0 - 8}" y="${4 + i * ROW + 13}" text-anchor="end" class="lane">${lane.name}</text>`);
  });
  // The lanes in one group the page can stretch onto an episode's window (zoom), clipped
  // to the plot; the episode's detection marks are drawn into `.marks` by the page.
  out.push(markup`<g clip-path="url(#${id}-clip)"><g class="lanes">`);
  lanes.forEach((lane, i) => {
    const y = 4 + i * ROW;
    for (const s of lane.segs) {
      if (s.b <= s.a) continue;
      const w = Math.max(0.5, x(s.b) - x(s.a));
      out.push(
        markup`<rect x="${x(s.a).toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${ROW - 6}" fill="${
          COLORS[s.state] ?? "#ddd"
        }"${s.ny ? trusted(' class="ny"') : ""}><title>${s.a.toFixed(2)}–${s.b.toFixed(2)} s: ${s.tip}</title></rect>`,
      );
    }
  });
  out.push(trusted('</g><g class="marks"></g></g>'));
  const axisY = lanes.length * ROW + 8;
  // At most 12 ticks whatever the length: a 34-hour capture had one every 1,200 s (100
  // labels run together). Hours are labelled in hours.
  const step = AXIS_STEPS.find((s) => dur / s <= 12) ?? Math.ceil(dur / 12 / 86400) * 86400;
  const label = (t: number) => step >= 3600 ? `${t / 3600} h` : `${t} s`;
  out.push(trusted('<g class="ticks">'));
  for (let t = 0; t <= dur + 1e-9; t += step) {
    out.push(
      markup`<line x1="${x(t)}" x2="${x(t)}" y1="2" y2="${axisY}" class="grid"/><text x="${x(t)}" y="${
        axisY + 14
      }" text-anchor="middle" class="axis">${label(t)}</text>`,
    );
  }
  out.push(
    trusted("</g>"),
    markup`<text class="axis zoomed" x="${X0}" y="${axisY + 14}" visibility="hidden"></text>`,
  );
  out.push(markup`<line class="cursor" x1="${X0}" x2="${X0}" y1="0" y2="${axisY}"/>`, trusted("</svg>"));
  return markup`${out}`;
}

/** Says which lanes were coarsened to fit (lib/score/result.ts drawnTimeline), so no one reads a slot as an exact change. */
function coarseNote(f: FileResult): Markup | "" {
  const coarse = [
    ...(f.truthChanges !== undefined ? [{ detector: "truth", changes: f.truthChanges }] : []),
    ...f.timelines.filter((tl) => tl.changes !== undefined),
  ];
  if (coarse.length === 0) return "";
  const slot = f.duration / DRAWN_POINTS;
  return markup`\n<p class="foot">Coarsened to ${DRAWN_POINTS} slots of ${
    slot.toFixed(2)
  } s (each shows its longest needs-you verdict, else its longest verdict; the tables are exact): ${
    coarse.map((tl) => `${tl.detector} (${tl.changes} changes)`).join(", ")
  }.</p>`;
}

const GLUE = `(function () {
  var players = [];
  document.querySelectorAll("[data-capture]").forEach(function (sec) {
    var data = JSON.parse(document.getElementById(sec.getAttribute("data-capture")).textContent);
    var svg = sec.querySelector("svg.timeline"), cursor = svg.querySelector(".cursor");
    var el = sec.querySelector(".player");
    var player = data.cast === null ? null : AsciinemaPlayer.create({ data: data.cast }, el, { fit: "width", terminalFontSize: "12px", preload: true, poster: "npt:" + data.poster });
    players.push(player);
    var win = [0, data.duration];
    var lanes = svg.querySelector(".lanes"), marks = svg.querySelector(".marks");
    var ticks = svg.querySelector(".ticks"), zoomed = svg.querySelector(".zoomed");
    var NS = "http://www.w3.org/2000/svg";
    function z(t) { return data.x0 + (t - win[0]) / (win[1] - win[0]) * data.w; }
    function at(t) { var x = Math.max(data.x0, Math.min(data.x0 + data.w, z(t))); cursor.setAttribute("x1", x); cursor.setAttribute("x2", x); }
    function draw(name, attrs, text) {
      var e = document.createElementNS(NS, name);
      for (var k in attrs) e.setAttribute(k, attrs[k]);
      if (text) e.textContent = text;
      marks.appendChild(e);
    }
    // Zoom: the lanes stretched onto the episode's window, its start and end drawn, and
    // in each lane where the detector first said needs-you, with its latency.
    function zoom(k) {
      var ep = data.episodes[k];
      while (marks.firstChild) marks.removeChild(marks.firstChild);
      if (!ep) {
        win = [0, data.duration];
        lanes.removeAttribute("transform");
        ticks.setAttribute("visibility", "visible");
        zoomed.setAttribute("visibility", "hidden");
        return;
      }
      var pad = Math.max(1, (ep.b - ep.a) * 0.5);
      win = [Math.max(0, ep.a - pad), Math.min(data.duration, ep.b + pad)];
      var kx = data.duration / (win[1] - win[0]);
      lanes.setAttribute("transform", "matrix(" + kx + " 0 0 1 " + (data.x0 - kx * data.x0 - win[0] / (win[1] - win[0]) * data.w) + " 0)");
      ticks.setAttribute("visibility", "hidden");
      zoomed.setAttribute("visibility", "visible");
      zoomed.textContent = "episode #" + (k + 1) + ": " + win[0].toFixed(2) + "–" + win[1].toFixed(2) + " s";
      [ep.a, ep.b].forEach(function (t) { draw("line", { x1: z(t), x2: z(t), y1: 0, y2: 4 + (ep.marks.length + 1) * data.row, class: "edge" }); });
      ep.marks.forEach(function (m) {
        var y = 4 + m[0] * data.row;
        if (m[1] === null) { draw("text", { x: z(ep.b) + 4, y: y + 12, class: "lat" }, "missed"); return; }
        draw("line", { x1: z(m[1]), x2: z(m[1]), y1: y - 2, y2: y + data.row - 4, class: "det" });
        draw("text", { x: z(m[1]) + 4, y: y + 12, class: "lat" }, "+" + (m[1] - ep.a).toFixed(2) + " s");
      });
    }
    var pick = sec.querySelector(".zoom select");
    function go(k) {
      zoom(k);
      sec.setAttribute("data-zoom", String(k));
      if (pick) pick.value = String(k);
    }
    sec.querySelectorAll(".zoom button[data-ep]").forEach(function (b) {
      b.addEventListener("click", function () { go(Number(b.getAttribute("data-ep"))); });
    });
    if (pick) pick.addEventListener("change", function () { go(Number(pick.value)); });
    sec.querySelectorAll(".zoom button[data-step]").forEach(function (b) {
      b.addEventListener("click", function () {
        var now = Number(sec.getAttribute("data-zoom") || "-1");
        go(Math.max(0, Math.min(data.episodes.length - 1, now + Number(b.getAttribute("data-step")))));
      });
    });
    svg.addEventListener("click", function (ev) {
      var r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
      var x = (ev.clientX - r.left) * vb.width / r.width;
      var t = Math.max(0, Math.min(data.duration, win[0] + (x - data.x0) / data.w * (win[1] - win[0])));
      sec.setAttribute("data-seek", t.toFixed(3));
      if (player) player.seek(t);
      at(t);
    });
    if (player) (function tick() {
      Promise.resolve(player.getCurrentTime()).then(function (t) { if (typeof t === "number") { at(t); sec.setAttribute("data-time", t.toFixed(3)); } });
      requestAnimationFrame(tick);
    })();
  });
  window.__pstlabPlayers = players;
})();`;

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1320px}
h1{font-size:20px}h2{font-size:16px;margin-top:32px}table{border-collapse:collapse;margin:8px 0}
th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left;font-family:ui-monospace,monospace}
.timeline{cursor:pointer;margin:8px 0}.lane{font:11px ui-monospace,monospace;fill:#333}.axis{font:10px sans-serif;fill:#666}
.grid{stroke:#eee}.cursor{stroke:#000;stroke-width:1.5}rect.ny{stroke:#a02020;stroke-width:.6}
.edge{stroke:#a02020;stroke-dasharray:3 2}.det{stroke:#000;stroke-width:2}.lat{font:10px ui-monospace,monospace;fill:#000}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}.foot{color:#666;font-size:12px;margin-top:24px}
.truth{background:#fff4d6;border-left:4px solid #e0a800;padding:6px 10px}.fail{color:#b00020;font-weight:bold}.defs{color:#555;font-size:12px}`;

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

function sha256b64(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("base64");
}

/** `casts[i]`: file i as asciicast v3 text for the player (null: not embedded), as the analysis read it. */
export function renderHtml(r: Report, casts: (string | null)[], notEmbedded: (string | null)[] = []): string {
  const t = totals(r);
  const sections: Markup[] = [];
  const dataBlocks: Markup[] = [];
  const table = (head: string[], rows: string[][]) =>
    markup`<table><thead><tr>${head.map((c) => markup`<th>${c}</th>`)}</tr></thead><tbody>${
      rows.map((cells) => markup`<tr>${cells.map((c) => markup`<td>${c}</td>`)}</tr>`)
    }</tbody></table>`;
  for (let i = 0; i < r.files.length; i++) {
    const f = r.files[i];
    const cast = casts[i] ?? null;
    // The player's poster: the screen at the first episode (else at the end), not a black box.
    // A moment into the episode: its label often lands just before the prompt is drawn.
    const first = f.scores[0]?.episodes[0];
    const poster = first ? first.start + Math.min(1, (first.end - first.start) / 2) : f.duration;
    // Each truth episode with every lane's detection (lane 0 is the truth), for the zoom.
    const episodes = (f.scores[0]?.episodes ?? []).map((e, k) => ({
      a: e.start,
      b: e.end,
      marks: f.scores.map((sc, d) => [d + 1, sc.episodes[k]?.detectedAt ?? null]),
    }));
    dataBlocks.push(
      jsonScript(`capture-${i}`, {
        cast,
        duration: Math.max(f.duration, 1e-6),
        x0: X0,
        w: W,
        row: ROW,
        poster,
        episodes,
      }),
    );
    const label = (k: number) => `#${k + 1} ${episodes[k].a.toFixed(1)}–${episodes[k].b.toFixed(1)} s`;
    // A button per episode, up to ZOOM_BUTTONS; past that (an 8-hour capture has a
    // thousand) a list to pick from, and a step to the previous or next one.
    const zoom = episodes.length === 0
      ? ""
      : episodes.length <= ZOOM_BUTTONS
      ? markup`\n<p class="zoom">Zoom onto an episode: ${
        episodes.map((_, k) => markup`<button type="button" data-ep="${k}">${label(k)}</button> `)
      }<button type="button" data-ep="-1">whole capture</button></p>`
      : markup`\n<p class="zoom">Zoom onto an episode (${episodes.length}): <button type="button" data-step="-1">‹ previous</button> <select aria-label="episode"><option value="-1">whole capture</option>${
        episodes.map((_, k) => markup`<option value="${k}">${label(k)}</option>`)
      }</select> <button type="button" data-step="1">next ›</button></p>`;
    const perFile = r.files.length > 1 && r.perFile[i]
      ? markup`\n${table(COLUMNS, r.perFile[i].summaries.map((s) => row(s, 1)))}`
      : "";
    sections.push(
      markup`<section data-capture="capture-${i}">\n<h2>${f.path}</h2>\n<p>${
        f.duration.toFixed(1)
      } s · ${f.cols}x${f.rows} · ${plural(f.blockedEpisodes, "blocked episode")} · truth: ${f.truth}${
        f.manifest ? ` · manifest: ${f.manifest.name}` : ""
      }${f.command ? markup` · <code>${f.command}</code>` : ""}</p>${perFile}\n${timeline(f, `timeline-${i}`)}${zoom}${
        coarseNote(f)
      }\n<div class="player">${
        cast === null ? markup`<p>(${notEmbedded[i] ?? "recording too large or not a file: not embedded"})</p>` : ""
      }</div>\n</section>`,
    );
  }
  const scripts = [playerJs(), GLUE];
  const csp = `default-src 'none'; script-src ${
    scripts.map((s) => `'sha256-${sha256b64(s)}'`).join(" ")
  } 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; worker-src blob:; connect-src data: blob:`;
  const legend = Object.entries(COLORS).filter(([k]) => k !== "unlabeled").map(([k, c]) =>
    markup`<span style="background:${c}"></span>${k === "blocked" ? "blocked / needs you" : k}`
  );
  const [baseHead, ...baseRows] = baselineRows(r);
  const comparison = r.baseline
    ? markup`\n<p>Compared with ${r.baseline.file} (durations: worse or better past ${
      r.baseline.tolerance.toFixed(2)
    } s):</p>${r.baseline.otherFiles ? markup`\n<p class="fail">warning: ${r.baseline.otherFiles}</p>` : ""}\n${
      table(baseHead, baseRows)
    }`
    : "";
  const fails = failLines(r).map((l) => markup`\n<p class="fail">${l}</p>`);
  const notes = footnotes(r);
  const manifest = manifestLine(r);
  const lines = [
    trusted(`<!doctype html>\n<html lang="en"><head><meta charset="utf-8">`),
    markup`<meta http-equiv="Content-Security-Policy" content="${trusted(csp)}">`,
    markup`<title>pstlab report — ${r.files.length === 1 ? r.files[0].path : `${r.files.length} captures`}</title>`,
    markup`<style>${trusted(playerCss)}</style><style>${trusted(CSS)}</style></head><body>`,
    trusted("<h1>pstlab report</h1>"),
    markup`<p class="truth">${notes[0]}</p>`,
    markup`<p>${plural(r.files.length, "capture")}, ${t.duration.toFixed(1)} s, ${
      plural(t.episodes, "blocked episode")
    } (truth: ${r.truth.source})</p>`,
    ...(manifest ? [markup`<p>${manifest}</p>`] : []),
    markup`${table(COLUMNS, r.summaries.map((s) => row(s, r.files.length)))}${comparison}${fails}`,
    markup`<p class="legend">${legend}</p>`,
    markup`<ul class="defs">${[...truthNotes(r), ...notes.slice(1)].map((n) => markup`<li>${n}</li>`)}</ul>`,
    ...sections,
    markup`<p class="foot">pstlab ${r.tool.version} · OSC 7501 revision ${r.spec.osc7501_revision} · ${
      r.files.map((f, i) => markup`${i ? " · " : ""}${f.path} sha256 ${f.sha256}`)
    }</p>`,
    ...dataBlocks,
    markup`<script>${trusted(playerJs())}</script>`,
    markup`<script>${trusted(GLUE)}</script>`,
    trusted("</body></html>\n"),
  ];
  return lines.join("\n");
}
