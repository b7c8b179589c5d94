// The post-match analysis on the replay page: an "Analyse" button, the server's progress
// (polled), then each player's summary, a graph of each player's chance of finishing first
// trick by trick, and the list of mistakes; a mistake steps the replay to its trick and
// shows the card played next to the better one, with a button to play that position again
// against bots (POST /api/tables/ID/practice: a new table at that position).  The server does the work
// (POST/GET /api/tables/ID/analysis, docs/protocol.md); a second look is one GET.
// The server sends codes and numbers (grades, cards, calls); every word is worded here from the
// catalogues (analysis.*), numbers in the reader's digits.
import { h, fill, api, cardEl, cardName, navigate, toast, SUIT_SYMBOL } from "./util.js";
import { rememberSeat, myName } from "./seats.js";
import { t, num } from "./i18n.js";

const POLL_MS = 700;
const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
/** Each seat's line drawn its own way too (solid, dashes, dots, dash and dot): players told apart
 *  by more than colour (a keyboard and screen-reader player's try; a colour-blind reader's). */
const DASHES = ["", "7 3", "2 3", "8 3 2 3"];
const SVG = "http://www.w3.org/2000/svg";

/** ``x`` to ``places`` decimals, a half up, as the decimal it is written as (`callbreak.analysis.records.half_up`,
 *  held to it by a test): the figures shown are those the grades are taken on. */
export const halfUp = (x, places) => Math.floor(Math.round(x * 10 ** places * 1e6) / 1e6 + 0.5) / 10 ** places;
export const pct = (x) => `${num(Math.round(halfUp(x, 2) * 100))}%`;
export const dec = (x) => num(halfUp(x, 1).toFixed(1));
/** A grade code ("good", "inaccuracy", "mistake", "blunder") in the reader's words. */
const gradeWord = (grade) => t(`analysis.grade.${grade}`);
/** A call ("4") or a card ("TS") in a line of text: "call 4", "10♠" (the card's face). */
const actionText = (a) => /^\d+$/.test(a) ? t("analysis.call", { n: Number(a) }) : `${a[0] === "T" ? "10" : a[0]}${SUIT_SYMBOL[a[1]]}`;
/** The same, as a screen reader says it: "the ace of spades" ("A♠" was read "A black spade suit"). */
const actionWords = (a) => /^\d+$/.test(a) ? t("analysis.call", { n: Number(a) }) : cardName(a);

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.appendChild(c);
  return el;
}

/** Each player's chance of finishing first after their card in each trick, as an SVG chart: the
 *  chance marked at 0, 50 and 100 %, each round named along the top, each listed mistake a dot
 *  on its player's line (``mistakes``; a tap on one is ``pick(decision)``).  Lines at the same
 *  value are drawn a pixel apart, so that none hides another. */
export function evaluationGraph(analysis, names, mistakes = [], pick = null) {
  // (labels of 12 units: 11 px or more on a phone; 9 were too small to read in Bengali, a player's try)
  const W = 320, H = 140, PAD = 6, LEFT = 38, TOP = 17;
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
  const x0 = LEFT + PAD, x1 = W - PAD;
  const xOf = new Map(keys.map(([d, tr], i) => [`${d}:${tr}`, x0 + (keys.length > 1 ? i * (x1 - x0) / (keys.length - 1) : 0)]));
  const yOf = (p) => TOP + PAD + (1 - p) * (H - TOP - 2 * PAD);
  const nudge = (seat) => (analysis.seats.indexOf(seat) - (analysis.seats.length - 1) / 2) * 1.5;
  const label = (x, y, text, anchor) => {
    const el = svg("text", { x, y, "font-size": 12, fill: "currentColor", "fill-opacity": 0.8, "text-anchor": anchor });
    el.textContent = text;
    return el;
  };
  const parts = [svg("rect", { x: LEFT, y: TOP, width: W - LEFT, height: H - TOP, fill: "none", stroke: "currentColor", "stroke-opacity": 0.25 })];
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    if (p > 0 && p < 1) parts.push(svg("line", { x1: LEFT, x2: W, y1: yOf(p), y2: yOf(p), stroke: "currentColor", "stroke-opacity": 0.12 }));
    if (p % 0.5 === 0) parts.push(label(LEFT - 3, yOf(p) + 3, pct(p), "end"));
  }
  const roundOf = new Map(analysis.decisions.map((x) => [x.deal, x.round]));  // (a deal thrown in is no round)
  keys.forEach(([d, tr], i) => {  // where each round starts: a faint line, and the round's number above
    if (i === 0 || keys[i - 1][0] !== d) {
      const x = xOf.get(`${d}:${tr}`);
      if (i > 0) parts.push(svg("line", { x1: x, x2: x, y1: TOP, y2: H, stroke: "currentColor", "stroke-opacity": 0.3, "stroke-dasharray": "3 3" }));
      parts.push(label(x + 2, TOP - 4, num(roundOf.get(d) ?? d + 1), "start"));
    }
  });
  const at = new Map();  // (seat, deal, trick) -> y on the seat's line
  for (const seat of analysis.seats) {
    const pts = (analysis.curve[seat] || []).map(([d, tr, p]) => {
      const y = yOf(p) + nudge(seat);
      at.set(`${seat}:${d}:${tr}`, y);
      return `${xOf.get(`${d}:${tr}`).toFixed(1)},${y.toFixed(1)}`;
    });
    if (pts.length) {
      const dash = DASHES[seat] ? { "stroke-dasharray": DASHES[seat] } : {};
      parts.push(svg("polyline", { points: pts.join(" "), fill: "none", stroke: COLOURS[seat], "stroke-width": 2, "data-seat": seat, ...dash }));
    }
  }
  for (const d of mistakes) {
    // a card's mistake at its trick; a call's at the first trick of its round (a call of a deal
    // thrown in, which has no trick: at the first trick of the round dealt again)
    const first = keys.find(([a]) => a >= d.deal);
    const key = d.trick !== null ? `${d.deal}:${d.trick}` : first && `${first[0]}:${first[1]}`;
    const y = key && at.get(`${d.seat}:${key}`);
    if (y === undefined || y === null) continue;
    const dot = svg("circle", { cx: xOf.get(key).toFixed(1), cy: y.toFixed(1), r: d.grade === "blunder" ? 4.5 : 3.5,
      fill: COLOURS[d.seat], stroke: "#fff", "stroke-width": 1, class: `graph-mark grade-${d.grade}`, "data-testid": "graph-mark",
      "data-seat": d.seat, "data-deal": d.deal, "data-trick": d.trick === null ? "" : d.trick });
    const title = svg("title");
    title.textContent = `${gradeWord(d.grade)} · ${names[d.seat]}`;
    dot.appendChild(title);
    // a finger's reach around the dot (a few pixels on a phone): an unseen circle takes the tap
    const reach = svg("circle", { cx: xOf.get(key).toFixed(1), cy: y.toFixed(1), r: 14, fill: "transparent", class: "graph-reach" });
    if (pick) for (const el of [reach, dot]) el.addEventListener("click", () => pick(d));
    parts.push(reach, dot);
  }
  // (a picture to the screen reader, said to be one: the mistakes it marks are the list below it,
  // whose buttons the keyboard reaches)
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("analysis.graph_aria", { label: t("analysis.graph_label") }), class: "analysis-graph", "data-testid": "analysis-graph" }, ...parts);
  const legend = h("p", { class: "analysis-legend" }, ...analysis.seats.map((s) => h("span", { class: "analysis-key" },
    svg("svg", { class: "swatch", viewBox: "0 0 24 6", "aria-hidden": "true", "data-seat": s },
      svg("line", { x1: 0, x2: 24, y1: 3, y2: 3, stroke: COLOURS[s], "stroke-width": 2.5, ...(DASHES[s] ? { "stroke-dasharray": DASHES[s] } : {}) })),
    names[s])));
  // (the caption the figure's last child, as HTML wants it; the chances' table after the figure)
  return h("div", null, h("figure", { class: "analysis-figure" }, chart, legend,
    h("figcaption", null, t("analysis.graph_caption"))), chancesTable(analysis, names, roundOf));
}

/** The graph's chances as text, for a reader who cannot see its lines: each player's chance of
 *  finishing first after each round's last trick, a row a round (a deal thrown in has none). */
function chancesTable(analysis, names, roundOf) {
  const after = new Map();  // deal -> seat -> the chance after its last trick
  for (const seat of analysis.seats) {
    for (const [d, , p] of analysis.curve[seat] || []) {
      if (!after.has(d)) after.set(d, new Map());
      after.get(d).set(seat, p);
    }
  }
  const deals = [...after.keys()].sort((a, b) => a - b);
  return h("details", { class: "analysis-chances", "data-testid": "graph-table" },
    h("summary", null, t("analysis.graph_table")),
    h("table", { class: "scoreboard" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, t("sheet.round")),
        ...analysis.seats.map((s) => h("th", { scope: "col" }, names[s])))),
      h("tbody", null, ...deals.map((d) => h("tr", { dataset: { deal: d } },
        h("th", { scope: "row" }, num(roundOf.get(d) ?? d + 1)),
        ...analysis.seats.map((s) => h("td", null, after.get(d).has(s) ? pct(after.get(d).get(s)) : "")))))));
}

/** The seat's costliest decision in chance of finishing first (its own, not one made for it), or null. */
function worstLine(analysis, seat) {
  const worst = Math.max(0, ...analysis.decisions.filter((d) => d.seat === seat && !d.auto).map((d) => d.loss_win));
  return pct(worst) === pct(0) ? null
    : h("span", { class: "win-lost", "data-testid": "win-lost" }, t("analysis.worst", { loss: t("analysis.loss_win", { win: pct(worst) }) }));
}

function summaryTable(analysis, names) {
  const head = ["player", "col_accuracy", "col_inaccuracies", "col_mistakes", "col_blunders", "col_points_lost", "col_calls"].map((k) => t(`analysis.${k}`));
  // each cell names its column too (`data-label`): on a phone each player is a block of labelled
  // figures, not a row of seven columns whose headings were 10 px and ran together (style.css)
  // (its roles said outright: a table laid out as blocks is no table to some screen readers)
  const td = (k, ...children) => h("td", { role: "cell", dataset: { label: head[k] } }, ...children);
  return h("table", { class: "scoreboard analysis-summary", role: "table", "data-testid": "analysis-summary" },
    h("thead", { role: "rowgroup" }, h("tr", { role: "row" }, ...head.map((x) => h("th", { scope: "col", role: "columnheader" }, x)))),
    h("tbody", { role: "rowgroup" }, ...analysis.summaries.map((s) => h("tr", { role: "row", dataset: { seat: s.seat } },
      h("th", { scope: "row", role: "rowheader" }, names[s.seat]),
      td(1, pct(s.accuracy)),
      td(2, num(s.grades.inaccuracy)),
      td(3, num(s.grades.mistake)),
      td(4, num(s.grades.blunder)),
      // (figures joined without spaces: a narrow phone column wraps none of them mid-way)
      // and under them the most chance of finishing first one decision gave away, where it comes to
      // 1 % or more (a mistake graded by that chance alone showed "0.0/0.0" here, as if nothing was
      // lost; the chances' sum is no chance: it passed 100 %)
      td(5, `${dec(s.points_lost_calls)}/${dec(s.points_lost_cards)}`, worstLine(analysis, s.seat)),
      td(6, num(`${s.calls_made}/${s.calls_over}/${s.calls_missed}`))))));
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
    // (this browser's name; with none, "You", as a game alone against bots names its player)
    const res = await api("POST", `/api/tables/${encodeURIComponent(id)}/practice`, { deal: d.deal, step: d.step, name: myName() || t("seat.you") });
    rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: res.invite || null, host: true });
    navigate(`/t/${res.table}`);
  } catch (e) { toast(e.message); button.disabled = false; }
}

/** Which of decision `d`'s two losses sets its grade ("points" or "win"): the grade is the worse
 *  of the two losses' grades (analysis.engine.grade, on the losses as shown, with the analysis'
 *  `thresholds`); where both give it, "points". A test holds it to the engine's grade. */
export function gradedBy(d, thresholds) {
  const steps = (x, marks) => marks.filter((m) => x >= m).length;
  return steps(halfUp(d.loss_win, 2), thresholds.win) > steps(halfUp(d.loss_points, 1), thresholds.points) ? "win" : "points";
}

/** A mistake's loss in its list line: the loss that set its grade (a Nepali player's try: a
 *  "blunder" said "−0.1 pts", where its −25% chance of finishing first made it one), the points
 *  it gave away where they do, or where they come to 0.0. */
function lossText(d, thresholds) {
  return gradedBy(d, thresholds) === "win" || dec(d.loss_points) === dec(0)
    ? t("analysis.loss_win", { win: pct(d.loss_win) }) : t("analysis.loss_points", { points: dec(d.loss_points) });
}

/** A loss as the reader sees it: with a minus sign (a bare "40%" read as the chance left). */
const lost = (x, show) => show(x) === show(0) ? show(0) : `−${show(x)}`;

/** The mistake in detail: what was played, the better option, the losses, the hindsight. */
function betterBox(id, d, names) {
  const place = d.trick === null ? t("analysis.at_call", { round: d.round }) : t("replay.trick", { round: d.round, trick: d.trick });
  return h("div", { class: "panel analysis-better", "data-testid": "analysis-better", dataset: { taken: d.taken, best: d.best } },
    h("h3", { tabindex: "-1" }, t("analysis.verdict", { place, grade: gradeWord(d.grade), name: names[d.seat] })),
    h("div", { class: "analysis-cards" },
      h("figure", null, actionEl(d.taken), h("figcaption", null, t("analysis.played"))),
      h("figure", { class: "better" }, actionEl(d.best), h("figcaption", null, t("analysis.better")))),
    h("p", null, t("analysis.cost", { points: lost(d.loss_points, dec), win: lost(d.loss_win, pct), name: names[d.seat] })),
    h("p", { class: "hint" }, hindsightText(d)),
    h("button", { class: "btn primary", type: "button", "data-testid": "practice-btn", onclick: (e) => practise(id, d, e.currentTarget) },
      t("analysis.practice", { name: names[d.seat] })));
}

/**
 * The analysis panel for a finished table.  ``opts.names``: the players; ``opts.jump(deal,
 * trick, seat)``: show the replay at that seat's decision in that deal's trick (null: its calls); ``opts.auto``: start at once;
 * ``opts.mine``: the seat this browser played (its small slips are listed too), or null.
 */
export function analysisPanel(id, opts) {
  const names = opts.names;
  // (not a live region as a whole: its progress was read out every poll, and the whole result at
  // the end; a status line of its own says that the analysis is ready)
  const said = h("p", { class: "sr-only", role: "status", "data-testid": "analysis-said" });
  const box = h("section", { class: "panel analysis", "data-testid": "analysis" });
  const path = `/api/tables/${encodeURIComponent(id)}/analysis`;
  let alive = true;
  let timer = null;

  const button = () => h("button", { class: "btn primary", type: "button", "data-testid": "analyse-btn", onclick: start }, t("analysis.analyse"));
  const idle = (msg) => fill(box, h("h2", null, t("analysis.title")),
    h("p", null, msg || t("analysis.intro")), button());

  function progress(st) {
    // AnalysisStatus leaves out its fields at their defaults: no "done" while none is done
    const done = st.done || 0, total = st.total || 0;
    // (no count until the server says it: "0 of 1 rounds", then "0 of 3", a Bengali player's try)
    fill(box, h("h2", null, t("analysis.title")),
      h("p", null, total ? t("analysis.progress", { done, count: total }) : t("analysis.starting")),
      h("progress", { max: Math.max(total, 1), value: done, "data-testid": "analysis-progress", "aria-label": t("analysis.title") }));
  }

  function ready(a) {
    const detail = h("div", { "data-testid": "analysis-detail" });
    // (a call or card made for the seat, by its timer or a bot, is not the player's mistake); the
    // player's own small slips too (a Bengali player's try: only slips of their own, and the list
    // held none of them, only the bots' mistakes)
    const own = (d) => d.grade === "inaccuracy" && d.seat === opts.mine;
    const mistakes = a.decisions.filter((d) => (d.grade === "mistake" || d.grade === "blunder" || own(d)) && !d.auto);
    const pick = (d) => {
      if (opts.jump) opts.jump(d.deal, d.trick, d.seat);
      fill(detail, betterBox(id, d, names));
      detail.scrollIntoView({ block: "start" });  // the better card, with the replayed trick just below
      // the keyboard with it: its heading read out, "Play this position again" the next Tab (a
      // keyboard player's try: the focus stayed on the list's button, scrolled off the top)
      detail.querySelector("h3").focus({ preventScroll: true });
    };
    const item = (d, words) => t(d.trick === null ? "analysis.item_call" : "analysis.item_trick", {
      grade: gradeWord(d.grade), name: names[d.seat], round: d.round, trick: d.trick,
      taken: words(d.taken), best: words(d.best), loss: lossText(d, a.thresholds),
    });
    const list = h("ol", { class: "analysis-mistakes", "data-testid": "analysis-mistakes" }, ...mistakes.map((d) =>
      h("li", null, h("button", {
        type: "button", class: `btn analysis-mistake grade-${d.grade}`, "data-testid": "mistake-item",
        dataset: { deal: d.deal, trick: d.trick === null ? "" : d.trick, seat: d.seat },
        "aria-label": item(d, actionWords),
        onclick: () => pick(d),
      }, item(d, actionText)))));
    said.textContent = t("analysis.ready");
    fill(box, h("h2", null, t("analysis.title")),
      h("p", { class: "hint" }, t("analysis.method")),
      h("div", { class: "analysis-scroll" }, summaryTable(a, names)), evaluationGraph(a, names, mistakes, pick),
      // ("your own inaccuracies" only where some are listed: one who sat at no seat of it has none, a
      // Bengali player's try on a second phone)
      h("h3", null, t(!mistakes.length ? "analysis.no_mistakes" : mistakes.some(own) ? "analysis.mistakes" : "analysis.mistakes_all")), list, detail);
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
    else if (st.state === "failed") { idle(t("analysis.failed")); said.textContent = t("analysis.failed"); }  // (st.message: English, for the logs)
    else { progress(st); timer = setTimeout(poll, POLL_MS); }
  }

  async function start() {
    progress({ done: 0, total: 0 });  // (the count comes with the server's answer)
    try { show(await api("POST", path)); } catch (e) { if (alive) idle(e.message); }
  }

  // Asked for (auto): POST at once, which answers a stored analysis too (no 404 first); else a GET
  // learns whether there is one, without starting the work.
  const handle = { el: h("div", null, box, said), stop: () => { alive = false; if (timer) clearTimeout(timer); } };
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
