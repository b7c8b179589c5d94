// The table's dialogs: round summary, final places (with the whole score sheet), scores, last trick.
// They draw from the table page's context `ctx`:
//   { S, id, token, spectator, me(), shortName(s), send(msg), closeDialog(openerTestid) }
import { h, clear, cardEl, toast, api, navigate, copyText } from "./util.js";
import { parseTenths, ordinal } from "./scoring.js";
import { rememberSeat } from "./seats.js";
import { t as tr, num } from "./i18n.js";

/**
 * What the table shows behind the round summary: the round that just finished.
 * Between rounds the server's state is already the next deal's (the new hand, the next round's
 * number); until that deal starts, the page shows the finished round — its number, calls, tricks
 * won and dealer, and no cards in hand — so the summary and the table behind it agree.
 */
export function behindSummary(table, state) {
  if (!table || !state || table.status !== "between_rounds" || !state.last_round || state.finished_round) return state;
  const lr = state.last_round;
  return {
    ...state,
    finished_round: true,
    round_number: lr.round,
    sudden_death: state.rounds !== null && state.rounds !== undefined && lr.round > state.rounds,
    next_sudden_death: state.sudden_death,
    dealer: lr.dealer === undefined ? null : lr.dealer,
    phase: "over",
    to_act: null,
    hand: [],
    hand_sizes: [0, 0, 0, 0],
    calls: lr.calls,
    tricks_won: lr.tricks_won,
    trick: [],
    tricks: [],
    legal_calls: [],
    legal_cards: [],
  };
}

/** A modal dialog: focus moves into it and stays there; Escape or Close calls onClose. */
export function modal(title, testid, body, onClose, extra) {
  const closeBtn = h("button", { class: "btn", type: "button", onclick: onClose, "data-testid": `${testid}-close` }, tr("dialog.close"));
  const dlg = h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": `${testid}-title`, "data-testid": testid },
    h("h2", { id: `${testid}-title` }, title), ...body, h("div", { class: "row wrap" }, ...(extra || []), onClose ? closeBtn : null));
  const ov = h("div", { class: "overlay", onclick: (e) => { if (e.target === ov && onClose) onClose(); } }, dlg);
  dlg.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && onClose) { e.preventDefault(); onClose(); return; }
    if (e.key !== "Tab") return;
    // Keep the keyboard inside the dialog while it is open.
    const stops = [...dlg.querySelectorAll("a[href], button:not([disabled])")];
    if (!stops.length) return;
    const first = stops[0], last = stops[stops.length - 1];
    if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
    else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
  });
  // Move the focus into the dialog (also when a button behind it opened it), unless it is already there.
  setTimeout(() => {
    if (!dlg.isConnected || dlg.contains(document.activeElement)) return;
    const b = dlg.querySelector(".btn.primary") || (onClose ? closeBtn : dlg.querySelector("a[href], button"));
    if (b) b.focus({ preventScroll: true });   // (a button in the sticky foot: the dialog stays at its top)
  }, 0);
  return ov;
}

/** Draw the dialog the table wants now (if any) into `box`. */
export function drawDialogs(box, ctx) {
  clear(box);
  const { S } = ctx;
  const t = S.table, st = S.state;
  if (!t || !st) return;
  if (S.dialog === "last" && st.tricks && st.tricks.length) {
    box.append(lastTrickDialog(ctx));
    return;
  }
  if (S.dialog === "scores") {
    // (the way to carry on from another device: the home page's join box takes this link)
    const link = `${location.origin}/t/${ctx.id}#${ctx.token}`;
    const other = !ctx.spectator && ctx.token && t.status !== "over" ? h("div", { class: "hint", "data-testid": "other-device" },
      h("p", null, tr("table.other_device")),
      h("div", { class: "share-box" }, h("input", { value: link, readonly: true, "data-testid": "seat-link", "aria-label": tr("table.copy_seat_link"), onfocus: (e) => e.target.select() })),
      h("button", { class: "btn", type: "button", "data-testid": "copy-seat-link", onclick: () => copyText(link) }, tr("table.copy_seat_link"))) : null;
    box.append(modal(tr("table.scores"), "scores", [scoreSheet(ctx, "scoreboard"), other], () => ctx.closeDialog("scores-btn")));
    return;
  }
  // The round's last trick stays on the table (then flies to its winner) before a summary covers it.
  if (S.held) return;
  if (t.status === "over" && st.places && S.showFinal) {
    box.append(finalDialog(ctx));
    return;
  }
  if (t.status === "between_rounds" && st.last_round) box.append(roundDialog(ctx));
}

function lastTrickDialog(ctx) {
  const st = ctx.S.state;
  const trick = st.tricks[st.tricks.length - 1];
  return modal(tr("table.last_trick"), "last-trick", [
    h("div", { class: "example" }, ...trick.cards.map((c, k) => {
      const seat = (trick.leader + k) % 4;
      return h("figure", null, cardEl(c, { small: true, cls: seat === trick.winner ? "win" : "" }), h("figcaption", null, ctx.shortName(seat)));
    })),
    h("p", null, tr("dialog.won_it", { name: ctx.shortName(trick.winner) }))], () => ctx.closeDialog("last-trick-btn"));
}

/**
 * The score sheet: a row per finished round, a column per player; each cell the call and the
 * tricks won ("3/4") over the points; then the round being played ("Now") and the totals.
 */
export function scoreSheet(ctx, testid) {
  const t = ctx.S.table, st = ctx.S.state, sheet = ctx.S.sheet || [];
  const pts = sheet.map((r) => r.points);
  const calls = sheet.map((r) => r.calls);
  const won = sheet.map((r) => r.tricks_won);
  const fixed = st.rounds === null || st.rounds === undefined ? Infinity : st.rounds;
  const rows = pts.map((row, k) => h("tr", { class: k + 1 > fixed ? "sudden" : "", dataset: { round: k + 1 } },
    h("th", { scope: "row" }, num(k + 1), k + 1 > fixed ? h("span", { class: "tag" }, " ", tr("sheet.sd")) : null),
    ...row.map((p, s) => {
      const c = calls[k] ? calls[k][s] : null, w = won[k] ? won[k][s] : null;
      return h("td", { "data-testid": `${testid}-cell-${k + 1}-${s}`, "aria-label": tr("sheet.cell", { name: ctx.shortName(s), round: k + 1, call: c, won: w, points: num(p) }) },
        h("span", { class: "ct" }, c === null ? "" : num(`${c}/${w}`)),
        h("span", { class: `pts${p.startsWith("-") ? " neg" : ""}` }, num(p)));
    })));
  const now = st.calls && st.phase !== "over" && t.status === "playing"
    ? h("tr", null, h("th", { scope: "row" }, tr("sheet.now")),
      ...st.calls.map((c, s) => h("td", null, h("span", { class: "ct" }, c === null ? "—" : num(`${c}/${st.tricks_won[s]}`)))))
    : null;
  return h("div", { class: "sheet-wrap" },
    h("table", { class: "sheet scoreboard", "data-testid": testid },
      h("caption", { class: "hint" }, tr("sheet.caption")),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, tr("sheet.round")), ...t.seats.map((_, s) => h("th", { scope: "col" }, ctx.shortName(s))))),
      h("tbody", null, ...rows, now),
      h("tfoot", null, h("tr", null, h("th", { scope: "row" }, tr("sheet.total")),
        ...(st.totals || ["0.0", "0.0", "0.0", "0.0"]).map((x, s) => h("td", { "data-testid": `${testid === "scoreboard" ? "score" : testid}-total-${s}` }, num(x)))))));
}

function roundDialog(ctx) {
  const { S, spectator, me, shortName, send } = ctx;
  const t = S.table, st = S.state, lr = st.last_round;
  const ready = t.seats.map((s) => !!(s && s.ready));
  const iAmReady = me() >= 0 && ready[me()];
  const rows = [0, 1, 2, 3].map((s) => h("tr", null, h("th", { scope: "row" }, shortName(s)),
    h("td", null, num(lr.calls[s])), h("td", null, num(lr.tricks_won[s])),
    h("td", { "data-testid": `round-points-${s}` }, num(lr.points[s])), h("td", null, st.totals ? num(st.totals[s]) : "")));
  const nextSudden = st.next_sudden_death === undefined ? st.sudden_death : st.next_sudden_death;
  const mine = me();
  const verdict = mine >= 0 ? tr("dialog.round_you", { call: num(lr.calls[mine]), won: num(lr.tricks_won[mine]), points: num(lr.points[mine]) }) : "";
  const body = [
    verdict ? h("p", { id: "round-verdict" }, h("strong", null, verdict)) : null,
    h("table", { class: "scoreboard" }, h("thead", null, h("tr", null, ...["", tr("sheet.call"), tr("sheet.won"), tr("sheet.points"), tr("sheet.total")].map((x) => h("th", { scope: "col" }, x)))), h("tbody", null, ...rows)),
    t.deadline ? h("p", { class: "hint" }, tr("dialog.next_in_before"), h("span", { class: "next-secs" }, ""), tr("dialog.next_in_after")) : null,
    nextSudden ? h("p", { "data-testid": "sudden-death-next" }, h("strong", null, tr("dialog.next_sudden"))) : null,
  ];
  const extra = [];
  if (!spectator) {
    extra.push(iAmReady
      ? h("span", null, tr("dialog.waiting_others"))
      : h("button", { class: "btn primary", type: "button", "data-testid": "ready-btn", onclick: () => send({ type: "ready" }) }, tr("dialog.next_round")));
  }
  if (!spectator && t.rules.rounds === null && t.you === t.host) {
    extra.push(h("button", { class: "btn", type: "button", "data-testid": "end-btn", onclick: () => send({ type: "end" }) }, tr("dialog.end_match")));
  }
  const ov = modal(tr("dialog.round_summary", { round: lr.round }), "round-summary", body, null, extra);
  // the player's own round read with the dialog's name (a screen reader said only "Round 1
  // summary, Next round button": a keyboard and screen-reader player's try)
  if (verdict) ov.querySelector("[role=dialog]").setAttribute("aria-describedby", "round-verdict");
  return ov;
}

function finalDialog(ctx) {
  const { S, id, token, spectator, me, shortName } = ctx;
  const st = S.state;
  const order = [0, 1, 2, 3].sort((a, b) => st.places[a] - st.places[b] || parseTenths(st.totals[b]) - parseTenths(st.totals[a]));
  const list = h("ol", { class: "places", "data-testid": "final-places" }, ...order.map((s) =>
    h("li", { class: `p${st.places[s]}${s === me() ? " me" : ""}`, dataset: { seat: s, place: st.places[s] } },
      h("span", null, `${ordinal(st.places[s], true)} · ${shortName(s)}`), h("span", null, num(st.totals[s])))));
  const mine = me();
  const verdict = mine >= 0 ? (st.places[mine] === 1 ? tr("dialog.you_won") : tr("dialog.you_came", { place: ordinal(st.places[mine]) })) : "";
  const extra = [];
  if (spectator && S.table.rematch) {  // (a spectator follows the players to their rematch: the table says where)
    extra.push(h("a", { class: "btn primary", href: `/watch/${encodeURIComponent(S.table.rematch)}`, "data-link": true, "data-testid": "watch-rematch" }, tr("dialog.watch_rematch")));
  }
  if (!spectator) {
    if (S.rematch) {
      extra.push(h("a", { class: "btn primary", href: `/t/${S.rematch.table}`, "data-link": true, "data-testid": "join-rematch" }, tr("dialog.join_rematch")));
    } else {
      extra.push(h("button", {
        class: "btn primary", type: "button", "data-testid": "rematch-btn",
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            const res = await api("POST", `/api/tables/${encodeURIComponent(id)}/rematch`, { token });
            rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: res.invite || null, host: true });
            navigate(`/t/${res.table}`);
          } catch (err) { toast(err.message); e.target.disabled = false; }
        },
      }, tr("dialog.rematch")));
    }
  }
  // (the match's hand history is the replay, in the player's language; its file, in the notation
  // of the machines and in English, is downloaded from there: a Nepali player's "hand history"
  // button gave that file, unreadable to them)
  extra.push(h("a", { class: "btn", href: `/replay/${encodeURIComponent(id)}`, "data-link": true, "data-testid": "replay-btn" }, tr("replay.title")));
  extra.push(h("a", { class: "btn", href: `/replay/${encodeURIComponent(id)}?analyse=1`, "data-link": true, "data-testid": "analyse-btn" }, tr("analysis.analyse")));
  // a position played again: back to the analysis of the match it came from
  const from = S.table.practice;
  if (from) extra.push(h("a", { class: "btn", href: `/replay/${encodeURIComponent(from.table)}?analyse=1`, "data-link": true, "data-testid": "back-to-analysis" }, tr("dialog.back_to_analysis")));
  extra.push(h("a", { class: "btn", href: "/", "data-link": true }, tr("nav.home")));
  // (another player asked for the rematch: said, not only the button's words changed)
  const waiting = !spectator && S.rematch ? h("p", { "data-testid": "rematch-waiting" }, tr("dialog.rematch_waiting")) : null;
  const ov = modal(tr("dialog.final_places"), "final", [h("p", { id: "final-verdict" }, h("strong", null, verdict)), waiting, list,
    h("h3", null, tr("sheet.title")), scoreSheet(ctx, "final-sheet")],
  () => { S.showFinal = false; ctx.closeDialog("results-btn"); }, extra);
  // the result read with the dialog's name ("Final places, Rematch button" was all a screen reader said)
  if (verdict) ov.querySelector("[role=dialog]").setAttribute("aria-describedby", "final-verdict");
  return ov;
}
