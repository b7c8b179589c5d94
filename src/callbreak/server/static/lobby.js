// A table's lobby: who sits where, the invite (share sheet, copy, WhatsApp / SMS), the host's Start.
// ctx: { S, id, spectator, record, send } from the table page.
import { h, copyText, rulesSummary } from "./util.js";
import { seatRecord } from "./seats.js";
import { levelName } from "./avatars.js";
import { t as tr } from "./i18n.js";

const INVITE_TEXT = tr("lobby.invite_text");

/** Whether a host name is this machine only (a friend's phone cannot open a link to it). */
export function isLoopbackHost(hostname) {
  const host = String(hostname || "").toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || host === "0:0:0:0:0:0:0:1"
    || host === "0.0.0.0" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The warning for an invite link that names this machine (null when the link is fine). */
export function localLinkWarning(link) {
  let url;
  try { url = new URL(link); } catch { return null; }
  if (!isLoopbackHost(url.hostname)) return null;
  return {
    host: url.hostname,
    text: tr("lobby.local_text", { host: url.hostname }),
    how: tr("lobby.local_how"),
    command: "callbreak serve --host 0.0.0.0",
    then: tr("lobby.local_then", { address: `http://192.168.1.20${url.port ? `:${url.port}` : ""}` }),
  };
}

/** Share links for browsers without a share sheet (navigator.share is missing on plain http). */
export function shareLinks(link) {
  const msg = `${INVITE_TEXT}: ${link}`;
  return {
    whatsapp: `https://wa.me/?text=${encodeURIComponent(msg)}`,
    sms: `sms:?&body=${encodeURIComponent(msg)}`,
  };
}

function inviteBox(link, isHost) {
  const input = h("input", { value: link, readonly: true, "data-testid": "invite-link", "aria-label": tr("lobby.invite_link"), onfocus: (e) => e.target.select() });
  const box = h("div", { class: "invite", "data-testid": "invite" });
  // (how to serve on the network is the host's to do: a friend on the same machine is told nothing)
  const warn = isHost ? localLinkWarning(link) : null;
  if (warn) {
    box.append(h("div", { class: "local-warning", role: "note", "data-testid": "invite-local-warning" },
      h("p", null, h("strong", null, warn.text)),
      h("p", null, warn.how, " ", h("code", null, warn.command), warn.then)));
  }
  box.append(h("p", null, tr("lobby.send_link")), h("div", { class: "share-box" }, input));
  const copy = (primary) => h("button", { class: `btn${primary ? " primary" : ""}`, type: "button", "data-testid": "copy-invite", onclick: () => copyText(link) }, tr("lobby.copy_link"));
  const actions = h("div", { class: "row wrap invite-actions" });
  if (typeof navigator.share === "function") {
    actions.append(h("button", {
      class: "btn primary", type: "button", "data-testid": "share-invite",
      onclick: () => { navigator.share({ title: "Callbreak", text: INVITE_TEXT, url: link }).catch(() => {}); },
    }, tr("lobby.share")), copy(false));
  } else {
    const links = shareLinks(link);
    actions.append(copy(true),
      h("a", { class: "btn", href: links.whatsapp, target: "_blank", rel: "noopener", "data-testid": "share-whatsapp" }, tr("lobby.whatsapp")),
      h("a", { class: "btn", href: links.sms, "data-testid": "share-sms" }, tr("lobby.sms")));
  }
  box.append(actions);
  return box;
}

function seatLine(s, i, t) {
  if (s && s.name) {
    const who = s.kind === "bot" ? tr("seat.with_bot", { name: s.name, bot: tr("bot.level", { level: levelName(s.level || t.bots) }) }) : s.name;
    if (i === t.you) return tr("seat.name_you", { name: who });
    // (a friend seated by a rematch, or by a link opened and closed, whose page is not open: a
    // game started now runs their turns out on the timer)
    return s.kind === "human" && !s.connected ? `${who} · ${tr("lobby.not_here")}` : who;
  }
  return tr("lobby.empty_seat", { level: levelName(t.bots) });
}

export function renderLobby(ctx) {
  const { S, id, spectator, record, send } = ctx;
  const t = S.table;
  const rec = seatRecord(id) || record;
  const code = t.invite || (rec && rec.invite);
  const link = code ? `${location.origin}/join/${code}` : null;
  const isHost = !spectator && t.you === t.host;
  const box = h("div", { class: "lobby center-msg", "data-testid": "lobby", style: { position: "static", transform: "none", maxWidth: "none", margin: "10px" } },
    h("h2", null, tr("lobby.waiting_players")),
    h("p", { "data-testid": "lobby-rules" }, rulesSummary(t.rules || {}), " · ", h("a", { href: "/rules", "data-link": true, style: { color: "#ffd27a" } }, tr("lobby.how_to_play"))),
    h("ol", null, ...t.seats.map((s, i) => h("li", { "data-testid": `lobby-seat-${i}` }, seatLine(s, i, t)))));
  // The host's Start comes before the invite, so that it is on the first screen of a phone.
  // ("Start: empty seats get bots" said of a full table too: a Hindi players' try)
  const full = t.seats.every((s) => s && s.name);
  if (isHost) box.append(h("button", { class: "btn primary", type: "button", "data-testid": "start-btn", onclick: () => send({ type: "start" }) },
    full ? tr("lobby.start_full") : tr("lobby.start", { level: levelName(t.bots) })));
  else box.append(h("p", null, tr("lobby.waiting_host")));
  if (link) box.append(inviteBox(link, isHost));
  box.append(h("p", { class: "hint", style: { color: "inherit" } }, tr("lobby.watch_link"), " ", h("a", { href: `/watch/${id}`, "data-link": true, style: { color: "#ffd27a" } }, `${location.origin}/watch/${id}`)));
  return box;
}
