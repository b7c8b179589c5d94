// Past matches (the tables this browser sat at) and the replay viewer, which steps
// trick by trick through a finished match's hand history (JSON form).
import { h, clear, fill, api, cardEl, sortHand, rulesSummary } from "./util.js";
import { allRecords, seatRecord } from "./seats.js";
import { ordinal } from "./scoring.js";
import { analysisPanel } from "./analysis.js";
import { botNameIn } from "./avatars.js";
import { t as tr, num, when } from "./i18n.js";

export function renderMatches(root) {
  const list = h("ul", { class: "match-list", "data-testid": "match-list" });
  const box = h("div", { class: "page" }, h("h1", null, tr("matches.title")),
    h("p", { class: "lead" }, tr("matches.lead")), list);
  fill(root, box);
  const recs = allRecords();
  if (!recs.length) {
    list.append(h("li", null, tr("matches.none"), " ", h("a", { href: "/", "data-link": true }, tr("matches.play_one"))));
    return () => {};
  }
  let alive = true;
  const draw = (info) => {
    clear(list);
    for (const r of recs) {
      const m = info[r.table];
      const status = m ? m.status : r.over ? "over" : "unknown";
      const players = m ? m.players.filter(Boolean).join(", ") : "";
      const seat = m ? m.seat : r.seat;
      const result = m && m.places && seat !== null && seat !== undefined ? tr("matches.result", { place: ordinal(m.places[seat], true), total: num(m.totals[seat]) }) : "";
      list.append(h("li", { "data-testid": "match-item", dataset: { table: r.table } },
        h("span", null, h("strong", null, when(m ? m.created : r.created)), h("br"),
          h("small", null, [players, m ? rulesSummary(m.ruleset, { timers: false }) : "", status === "over" ? result : tr(`status.${status}`)].filter(Boolean).join(" · "))),
        h("span", { class: "row", style: { marginTop: 0 } },
          status === "over"
            ? [h("a", { class: "btn", href: `/replay/${r.table}`, "data-link": true }, tr("replay.title")), " ",
              h("a", { class: "btn", href: `/replay/${r.table}?analyse=1`, "data-link": true, "data-testid": "analyse-link" }, tr("analysis.analyse"))]
            : h("a", { class: "btn", href: `/t/${r.table}`, "data-link": true }, tr("matches.open")))));
    }
  };
  draw({});
  const tokens = recs.map((r) => r.token).filter(Boolean).slice(0, 50);
  api("POST", "/api/matches", { tokens }).then((res) => {  // (in the body: a URL's query is logged by proxies)
    if (!alive) return;
    const info = {};
    for (const m of res.matches || []) info[m.table] = m;
    draw(info);
  }).catch(() => { /* offline: the local list stays */ });
  return () => { alive = false; };
}

/** Every step of a history: one per trick (and the calls) of every deal. */
export function replaySteps(hist) {
  const steps = [];
  hist.deals.forEach((d, di) => {
    const hands = d.hands.map((x) => [...x]);
    const won = [0, 0, 0, 0];
    steps.push({ di, trick: null, hands: hands.map((x) => [...x]), won: [...won], label: d.redeal ? tr("replay.redeal", { round: d.round, why: d.redeal }) : tr("replay.calls", { round: d.round }) });
    d.tricks.forEach((t, ti) => {
      t.cards.forEach((c, k) => {
        const seat = (t.leader + k) % 4;
        hands[seat] = hands[seat].filter((x) => x !== c);
      });
      if (t.winner !== null && t.winner !== undefined) won[t.winner] += 1;
      steps.push({ di, trick: t, hands: hands.map((x) => [...x]), won: [...won], label: tr("replay.trick", { round: d.round, trick: ti + 1 }) });
    });
  });
  return steps;
}

/** The moment of a decision of ``seat`` in a deal: for a card of trick ``trick`` (1..13), `before`
 *  (the step after the trick before it) with the trick's cards played before the seat's; for a call
 *  (``trick`` null), the calls step with only the calls made before the seat's (the seat after the
 *  dealer calls first). */
export function momentOf(before, deal, trick, seat) {
  if (!trick) {
    const called = [];
    for (let s = (deal.dealer + 1) % 4, n = 0; s !== seat && n < 4; s = (s + 1) % 4, n++) called.push(s);
    return { ...before, called };
  }
  const t = deal.tricks[trick - 1];
  const cards = t.cards.slice(0, (seat - t.leader + 4) % 4);  // (on the table: out of their hands)
  const hands = before.hands.map((x) => x.filter((c) => !cards.includes(c)));
  return { ...before, hands, trick: { leader: t.leader, cards, winner: null }, label: tr("replay.trick", { round: deal.round, trick }) };
}

export function renderReplay(root, id) {
  const box = h("div", { class: "page replay" }, h("h1", null, tr("replay.title")), h("p", { class: "loading" }, tr("replay.loading")));
  fill(root, box);
  let alive = true;
  let onKey = null;
  let panel = null;
  (async () => {
    let hist;
    try {
      hist = await api("GET", `/api/tables/${encodeURIComponent(id)}/history?format=json`);
    } catch (e) {
      if (!alive) return;
      fill(box, h("h1", null, tr("replay.title")), h("p", { class: "error", role: "alert" }, e.status === 409 ? tr("error.not_over") : e.message),
        h("p", null, h("a", { href: "/matches", "data-link": true }, tr("matches.title"))));
      return;
    }
    // the bots' names in the reader's script, as at the table (the history keeps the maker's, and no
    // seat kinds: the table's seats say which were bots)
    const info = await api("GET", `/api/tables/${encodeURIComponent(id)}`).catch(() => null);
    if (!alive) return;
    const kinds = info && info.table && info.table.seats ? info.table.seats.map((s) => s && s.kind) : [];
    const steps = replaySteps(hist);
    const names = hist.players.map((n, i) => (n && kinds[i] === "bot" ? botNameIn(n) : n) || tr("seat.n", { n: i + 1 }));
    const trump = (hist.ruleset && hist.ruleset.changes && hist.ruleset.changes.trump) || "S";
    let k = 0;
    const view = h("div", { "data-testid": "replay-view" });
    const pos = h("span", { "data-testid": "replay-pos", "aria-live": "polite" });
    let moment = null;  // (a decision's moment on screen in place of step k, until the replay moves)
    // a step is shown where it is drawn: on a phone the trick lies below the analysis' panel, and
    // ▶ changed only the line beside it (a Bengali player's try: "nothing changes")
    const go = (n) => { k = Math.max(0, Math.min(steps.length - 1, n)); moment = null; draw(); inSight(); };
    const inSight = () => {
      const r = view.getBoundingClientRect();
      if (r.top > innerHeight * 0.6 || r.bottom < innerHeight * 0.3) view.scrollIntoView({ block: "start" });
    };
    // from a decision's moment: a card's lies after step k, so ◀ goes to step k itself; a call's
    // lies before its calls step k, so ▶ goes to k itself
    const prev = () => go(moment && !moment.called ? k : k - 1);
    const next = () => go(moment && moment.called ? k : k + 1);
    const nextDeal = (dir) => {
      const di = steps[k].di + dir;
      const j = steps.findIndex((s) => s.di === di);
      if (j >= 0) go(j); else go(dir > 0 ? steps.length - 1 : 0);
    };
    const controls = h("div", { class: "replay-controls" },
      h("button", { class: "btn", type: "button", onclick: () => nextDeal(-1), "aria-label": tr("replay.prev_round") }, "«"),
      h("button", { class: "btn", type: "button", "data-testid": "replay-prev", onclick: () => prev(), "aria-label": tr("replay.prev_trick") }, "◀"),
      h("button", { class: "btn primary", type: "button", "data-testid": "replay-next", onclick: () => next(), "aria-label": tr("replay.next_trick") }, "▶"),
      h("button", { class: "btn", type: "button", onclick: () => nextDeal(1), "aria-label": tr("replay.next_round") }, "»"),
      pos);
    function draw() {
      const s = moment || steps[k], d = hist.deals[s.di];
      pos.textContent = tr("replay.pos", { label: s.label, k: k + 1, n: steps.length });
      const t = s.trick;
      const done = t && d.tricks[d.tricks.length - 1] === t && d.points;
      fill(view, 
        h("div", { class: "panel" },
          h("h2", null, s.label),
          t ? h("div", { class: "replay-trick", "data-testid": "replay-trick" }, ...t.cards.map((c, i) => {
            const seat = (t.leader + i) % 4;
            return h("figure", null, cardEl(c, { small: true, cls: seat === t.winner ? "win" : "" }), h("figcaption", null, names[seat]));
          })) : null,
          t && t.winner !== null ? h("p", null, tr("replay.wins", { name: names[t.winner] })) : null,
          h("table", { class: "scoreboard" },
            h("thead", null, h("tr", null, ...["", tr("sheet.call"), tr("sheet.won"), ...(done ? [tr("sheet.points"), tr("sheet.total")] : [])].map((x) => h("th", { scope: "col" }, x)))),
            h("tbody", null, ...names.map((n, i) => h("tr", null, h("th", { scope: "row" }, d.dealer === i ? tr("replay.dealer", { name: n }) : n),
              h("td", null, d.calls[i] === null || (s.called && !s.called.includes(i)) ? "—" : num(d.calls[i])), h("td", null, num(s.won[i])),
              ...(done ? [h("td", null, num(d.points[i])), h("td", null, num(d.totals[i]))] : [])))))),
        h("div", { class: "panel replay-hands" }, h("h2", null, tr("replay.hands")),
          ...names.map((n, i) => h("div", null, h("strong", null, n), h("div", { class: "cards-inline" }, ...sortHand(s.hands[i], trump).map((c) => cardEl(c)))))));
    }
    // the analysis shows the moment of a decision: the hands before it, the calls or the trick's
    // cards made before it (it showed the step after it: the trick done, the card gone from the hand)
    const jump = (di, trick, seat) => {
      const first = steps.findIndex((st) => st.di === di);
      if (first < 0) return;
      k = first + (trick ? trick - 1 : 0);
      moment = momentOf(steps[k], hist.deals[di], trick, seat);
      draw();
    };
    const rec = seatRecord(id);
    panel = analysisPanel(id, { names, jump, auto: new URLSearchParams(location.search).get("analyse") === "1",
                                mine: rec && Number.isInteger(rec.seat) ? rec.seat : null });
    // best first (in seat order, the winner read third: a Bengali player's try), seats in order within a shared place
    const order = hist.places ? names.map((_, i) => i).sort((a, b) => hist.places[a] - hist.places[b] || a - b) : [];
    const places = hist.places ? h("p", { "data-testid": "replay-final" }, tr("replay.final"), " ", order.map((i) => tr("replay.final_one", { name: names[i], place: ordinal(hist.places[i], true), total: num(hist.totals[i]) })).join(" · ")) : null;
    fill(box, h("h1", null, tr("replay.title")), places, controls, panel.el, view,
      h("p", null, h("a", { href: `/api/tables/${encodeURIComponent(id)}/history?format=text`, download: `callbreak-${id}.txt`, "data-testid": "download-history" }, tr("replay.download_text")), " · ",
        h("a", { href: `/api/tables/${encodeURIComponent(id)}/history?format=json`, download: `callbreak-${id}.json` }, tr("replay.json"))));
    onKey = (e) => {
      const tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "SELECT") return;
      if (e.key === "ArrowRight") next();
      else if (e.key === "ArrowLeft") prev();
    };
    document.addEventListener("keydown", onKey);
    draw();
  })();
  return () => { alive = false; if (panel) panel.stop(); if (onKey) document.removeEventListener("keydown", onKey); };
}
