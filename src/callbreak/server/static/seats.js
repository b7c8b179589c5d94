// This browser's seats: tokens kept in localStorage (callbreak.seat.ID, as the
// protocol says) plus a list of the tables played here, for "Past matches".
import { load, save } from "./util.js";

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
