// The post-match analysis on the replay page: an "Analyse" button, the server's progress
// (polled), then each player's summary, a graph of each player's chance of finishing first
// trick by trick, and the list of mistakes; a mistake steps the replay to its trick and
// shows the card played next to the better one, with a button to play that position again
// against bots (POST /api/tables/ID/practice: a new table at that position).  The server does the work
// (POST/GET /api/tables/ID/analysis, docs/protocol.md); a second look is one GET.
// The server sends codes and numbers (grades, cards, calls); every word is worded here from the
// catalogues (analysis.*), numbers in the reader's digits.
import { h, fill, api, cardEl, navigate, toast, SUIT_SYMBOL } from "./util.js";
import { rememberSeat, myName } from "./seats.js";
import { t, num } from "./i18n.js";

const POLL_MS = 700;
const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const SVG = "http://www.w3.org/2000/svg";

const pct = (x) => `${num(Math.round(x * 100))}%`;
const dec = (x) => num(x.toFixed(1));
/** A grade code ("good", "inaccuracy", "mistake", "blunder") in the reader's words. */
const gradeWord = (grade) => t(`analysis.grade.${grade}`);
/** A call ("4") or a card ("TS") in a line of text: "call 4", "10♠" (the card's face). */
const actionText = (a) => /^\d+$/.test(a) ? t("analysis.call", { n: Number(a) }) : `${a[0] === "T" ? "10" : a[0]}${SUIT_SYMBOL[a[1]]}`;

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.appendChild(c);
  return el;
}

/** Each player's chance of finishing first after each of their cards, as an SVG chart. */
export function evaluationGraph(analysis, names) {
  const W = 320, H = 130, PAD = 6;
  // one x position per trick of the match: (deal, trick) in order
  const keys = [];
  const seen = new Set();
  for (const seat of analysis.seats) {
    for (const [deal, trick] of analysis.curve[seat] || []) {
      const k = `${deal}:${trick}`;
      if (!seen.has(k)) { seen.add(k); keys.push([deal, trick]); }
    }
  }
  keys.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const xOf = new Map(keys.map(([d, t], i) => [`${d}:${t}`, PAD + (keys.length > 1 ? i * (W - 2 * PAD) / (keys.length - 1) : 0)]));
  const yOf = (p) => PAD + (1 - p) * (H - 2 * PAD);
  const parts = [svg("rect", { x: 0, y: 0, width: W, height: H, fill: "none", stroke: "currentColor", "stroke-opacity": 0.25 })];
  for (const p of [0.25, 0.5, 0.75]) {
    parts.push(svg("line", { x1: 0, x2: W, y1: yOf(p), y2: yOf(p), stroke: "currentColor", "stroke-opacity": 0.12 }));
  }
  keys.forEach(([d, t], i) => {  // a faint line where each new round starts
    if (i > 0 && keys[i - 1][0] !== d) {
      const x = xOf.get(`${d}:${t}`);
      parts.push(svg("line", { x1: x, x2: x, y1: 0, y2: H, stroke: "currentColor", "stroke-opacity": 0.3, "stroke-dasharray": "3 3" }));
    }
  });
  for (const seat of analysis.seats) {
    const pts = (analysis.curve[seat] || []).map(([d, t, p]) => `${xOf.get(`${d}:${t}`).toFixed(1)},${yOf(p).toFixed(1)}`);
    if (pts.length) {
      parts.push(svg("polyline", { points: pts.join(" "), fill: "none", stroke: COLOURS[seat], "stroke-width": 2, "data-seat": seat }));
    }
  }
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("analysis.graph_label"), class: "analysis-graph", "data-testid": "analysis-graph" }, ...parts);
  const legend = h("p", { class: "analysis-legend" }, ...analysis.seats.map((s) =>
    h("span", { class: "analysis-key" }, h("span", { class: "swatch", style: { background: COLOURS[s] } }), names[s])));
  return h("figure", { class: "analysis-figure" }, chart,
    h("figcaption", null, t("analysis.graph_caption")), legend);
}

function summaryTable(analysis, names) {
  const head = ["player", "col_accuracy", "col_inaccuracies", "col_mistakes", "col_blunders", "col_points_lost", "col_calls"].map((k) => t(`analysis.${k}`));
  return h("table", { class: "scoreboard analysis-summary", "data-testid": "analysis-summary" },
    h("thead", null, h("tr", null, ...head.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", null, ...analysis.summaries.map((s) => h("tr", { dataset: { seat: s.seat } },
      h("th", { scope: "row" }, names[s.seat]),
      h("td", null, pct(s.accuracy)),
      h("td", null, num(s.grades.inaccuracy)),
      h("td", null, num(s.grades.mistake)),
      h("td", null, num(s.grades.blunder)),
      h("td", null, `${dec(s.points_lost_calls)} / ${dec(s.points_lost_cards)}`),
      h("td", null, num(`${s.calls_made} / ${s.calls_over} / ${s.calls_missed}`))))));
}

function hindsightText(d) {
  const hs = d.hindsight;
  if (!hs || hs.best === null || hs.taken === null) return d.kind === "card" ? t("analysis.hindsight_unsolved") : "";
  if (hs.best === hs.taken) return t("analysis.hindsight_kept", { count: hs.best });
  return t("analysis.hindsight_lost", { count: hs.best - hs.taken, taken: hs.taken, best: hs.best });
}

function actionEl(action) {
  return /^\d+$/.test(action) ? h("span", { class: "analysis-call" }, actionText(action)) : cardEl(action, { small: true });
}

/** A new table at the position before decision ``d``: its player takes that seat, bots the others. */
async function practise(id, d, button) {
  button.disabled = true;
  try {
    const res = await api("POST", `/api/tables/${encodeURIComponent(id)}/practice`, { deal: d.deal, step: d.step, name: myName() || t("analysis.player") });
    rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: res.invite || null, host: true });
    navigate(`/t/${res.table}`);
  } catch (e) { toast(e.message); button.disabled = false; }
}

/** A mistake's loss in its list line: the points it gave away, or, where they come to 0.0 (a
 *  decision graded by the chance of finishing first alone), that chance. */
function lossText(d) {
  return dec(d.loss_points) === dec(0) ? t("analysis.loss_win", { win: pct(d.loss_win) }) : t("analysis.loss_points", { points: dec(d.loss_points) });
}

/** The mistake in detail: what was played, the better option, the losses, the hindsight. */
function betterBox(id, d, names) {
  const place = d.trick === null ? t("analysis.at_call", { round: d.round }) : t("replay.trick", { round: d.round, trick: d.trick });
  return h("div", { class: "panel analysis-better", "data-testid": "analysis-better", dataset: { taken: d.taken, best: d.best } },
    h("h3", null, t("analysis.verdict", { place, grade: gradeWord(d.grade), name: names[d.seat] })),
    h("div", { class: "analysis-cards" },
      h("figure", null, actionEl(d.taken), h("figcaption", null, t("analysis.played"))),
      h("figure", { class: "better" }, actionEl(d.best), h("figcaption", null, t("analysis.better")))),
    h("p", null, t("analysis.cost", { points: dec(d.loss_points), win: pct(d.loss_win), name: names[d.seat] })),
    h("p", { class: "hint" }, hindsightText(d)),
    h("button", { class: "btn primary", type: "button", "data-testid": "practice-btn", onclick: (e) => practise(id, d, e.currentTarget) },
      t("analysis.practice", { name: names[d.seat] })));
}

/**
 * The analysis panel for a finished table.  ``opts.names``: the players; ``opts.jump(deal,
 * trick)``: step the replay to that deal's trick (null: its calls); ``opts.auto``: start at once.
 */
export function analysisPanel(id, opts) {
  const names = opts.names;
  const box = h("section", { class: "panel analysis", "data-testid": "analysis", "aria-live": "polite" });
  const path = `/api/tables/${encodeURIComponent(id)}/analysis`;
  let alive = true;
  let timer = null;

  const button = () => h("button", { class: "btn primary", type: "button", "data-testid": "analyse-btn", onclick: start }, t("analysis.analyse"));
  const idle = (msg) => fill(box, h("h2", null, t("analysis.title")),
    h("p", null, msg || t("analysis.intro")), button());

  function progress(st) {
    // AnalysisStatus leaves out its fields at their defaults: no "done" while none is done
    const done = st.done || 0, total = st.total || 0;
    fill(box, h("h2", null, t("analysis.title")),
      h("p", null, t("analysis.progress", { done, count: total })),
      h("progress", { max: Math.max(total, 1), value: done, "data-testid": "analysis-progress" }));
  }

  function ready(a) {
    const detail = h("div", { "data-testid": "analysis-detail" });
    // (a call or card made for the seat, by its timer or a bot, is not the player's mistake)
    const mistakes = a.decisions.filter((d) => (d.grade === "mistake" || d.grade === "blunder") && !d.auto);
    const list = h("ol", { class: "analysis-mistakes", "data-testid": "analysis-mistakes" }, ...mistakes.map((d) =>
      h("li", null, h("button", {
        type: "button", class: `btn analysis-mistake grade-${d.grade}`, "data-testid": "mistake-item",
        dataset: { deal: d.deal, trick: d.trick === null ? "" : d.trick, seat: d.seat },
        onclick: () => {
          if (opts.jump) opts.jump(d.deal, d.trick);
          fill(detail, betterBox(id, d, names));
          detail.scrollIntoView({ block: "start" });  // the better card, with the replayed trick just below
        },
      }, t(d.trick === null ? "analysis.item_call" : "analysis.item_trick", {
        grade: gradeWord(d.grade), name: names[d.seat], round: d.round, trick: d.trick,
        taken: actionText(d.taken), best: actionText(d.best), loss: lossText(d),
      })))));
    fill(box, h("h2", null, t("analysis.title")),
      h("p", { class: "hint" }, t("analysis.method")),
      h("div", { class: "analysis-scroll" }, summaryTable(a, names)), evaluationGraph(a, names),
      h("h3", null, t(mistakes.length ? "analysis.mistakes" : "analysis.no_mistakes")), list, detail);
  }

  async function poll() {
    timer = null;
    let st;
    try { st = await api("GET", path); } catch (e) { if (alive) idle(e.status === 404 ? null : e.message); return; }
    if (!alive) return;
    show(st);
  }

  function show(st) {
    if (st.state === "ready") ready(st.analysis);
    else if (st.state === "failed") idle(t("analysis.failed"));  // (st.message: English, for the logs)
    else { progress(st); timer = setTimeout(poll, POLL_MS); }
  }

  async function start() {
    progress({ done: 0, total: 1 });
    try { show(await api("POST", path)); } catch (e) { if (alive) idle(e.message); }
  }

  // Asked for (auto): POST at once, which answers a stored analysis too (no 404 first); else a GET
  // learns whether there is one, without starting the work.
  const handle = { el: box, stop: () => { alive = false; if (timer) clearTimeout(timer); } };
  if (opts.auto) { start(); return handle; }
  (async () => {
    let st = null;
    try { st = await api("GET", path); } catch (e) {
      if (!alive) return;
      idle(e.status === 404 ? null : e.message);
      return;
    }
    if (alive) show(st);
  })();
  return handle;
}
