// This browser's seats: tokens kept in localStorage (callbreak.seat.ID, as the
// protocol says) plus a list of the tables played here, for "Past matches".
import { h, load, save } from "./util.js";
import { t } from "./i18n.js";

const LIST = "callbreak.tables";

export function tokenFor(id) {
  try { return localStorage.getItem(`callbreak.seat.${id}`); } catch { return null; }
}

export function rememberSeat(rec) {
  try { localStorage.setItem(`callbreak.seat.${rec.table}`, rec.token); } catch { /* ignore */ }
  const list = load(LIST, []).filter((r) => r.table !== rec.table);
  list.unshift({ created: Date.now(), ...rec });
  save(LIST, list.slice(0, 100));
}

/** Forget the seat's token (the server no longer takes it: the seat was left from another
 *  client), so that the table's invite offers this browser a seat again. */
export function forgetToken(id) {
  try { localStorage.removeItem(`callbreak.seat.${id}`); } catch { /* ignore */ }
}

export function seatRecord(id) {
  return load(LIST, []).find((r) => r.table === id) || null;
}

export function updateRecord(id, changes) {
  const list = load(LIST, []);
  const r = list.find((x) => x.table === id);
  if (r) { Object.assign(r, changes); save(LIST, list); }
}

export function allRecords() {
  return load(LIST, []);
}

export function myName() {
  return load("callbreak.name", "");
}

export function setMyName(name) {
  save("callbreak.name", name);
}

const RESUME_MS = 3 * 3600 * 1000;
/** "Your match is still on", with the way back to a match left in play (Back pressed at the table,
 *  the page closed, "Rules" tapped in a match: a Hindi player's try found no way back but the
 *  browser's): the latest table this browser sat at in the last hours that it did not see end; on
 *  the home page, and over the rules, the calculator and the list of matches (app.js). Drawn with
 *  the page, from what this browser keeps, so that nothing moves in under a finger once the page is
 *  shown. Null: no match on. */
export function resumeBanner() {
  const r = allRecords().find((x) => !x.over && tokenFor(x.table) && Date.now() - (x.created || 0) < RESUME_MS);
  if (!r) return null;
  return h("div", { class: "panel resume", "data-testid": "resume", role: "status" },
    h("span", null, t("home.in_play")), " ",
    h("a", { class: "btn primary", href: `/t/${r.table}`, "data-link": true, "data-testid": "resume-link" }, t("home.back_to_table")));
}
