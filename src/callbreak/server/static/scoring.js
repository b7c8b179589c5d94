import { t } from "./i18n.js";

// Exact Callbreak scoring in integer tenths of a point, the same arithmetic as
// the engine's callbreak.scoring.score_tenths.  Never uses floating point for points.

export function overtrickTenths(rules) {
  return String(rules.overtrick_points) === "0" || Number(rules.overtrick_points) === 0 ? 0 : 1;
}

/** Whether a call is made: at least the call, and not past max_overtricks. */
export function made(call, tricks, rules) {
  if (tricks < call) return false;
  return rules.max_overtricks === null || rules.max_overtricks === undefined || tricks - call <= rules.max_overtricks;
}

/** One seat's points for one round, in tenths (an integer). */
export function scoreTenths(call, tricks, rules) {
  if (!Number.isInteger(tricks) || tricks < 0 || tricks > 13) throw new RangeError(`tricks must be 0..13, not ${tricks}`);
  if (made(call, tricks, rules)) {
    let base = call;
    if (rules.bonus_call !== null && rules.bonus_call !== undefined && call >= rules.bonus_call) base = rules.bonus_points;
    return base * 10 + overtrickTenths(rules) * (tricks - call);
  }
  if (rules.missed_penalty === "zero") return 0;
  if (rules.missed_penalty === "shortfall" && tricks < call) return -10 * (call - tricks);
  return -10 * call;
}

/** Tenths to the engine's Decimal text: 42 -> "4.2", -40 -> "-4.0", 3 -> "0.3". */
export function fmt(tenths) {
  const a = Math.abs(tenths);
  return `${tenths < 0 ? "-" : ""}${Math.floor(a / 10)}.${a % 10}`;
}

/** "4.2" / "-4.0" / "13" -> tenths (exact, from the text). */
export function parseTenths(text) {
  const m = /^(-?)(\d+)(?:\.(\d))?$/.exec(String(text).trim());
  if (!m) throw new RangeError(`not a score: ${text}`);
  const t = Number(m[2]) * 10 + Number(m[3] || 0);
  return m[1] ? -t : t;
}

/** Places 1..4; seats tied on total share the better place. */
export function placesOf(totals) {
  return totals.map((t) => 1 + totals.filter((o) => o > t).length);
}

/** 1 -> "1st", in the reader's language, as a sentence says it ("You came 3rd"); `label`: as a
 * list or a column names a place (Hindi: "तीसरा" standing alone, "तीसरे" in a sentence). */
export function ordinal(n, label = false) {
  return t(`${label ? "place_label" : "place"}.${n >= 1 && n <= 4 ? n : "n"}`, { n });
}

/**
 * The state of a score sheet: per-round points, running totals, places, whether
 * the next round is sudden death and whether the match is over.
 * rounds: [{calls: [4 ints], tricks: [4 ints]}] (complete rounds only).
 */
export function sheetState(rules, rounds) {
  const totals = [0, 0, 0, 0];
  const rows = [];
  for (const r of rounds) {
    const points = r.calls.map((c, i) => scoreTenths(c, r.tricks[i], rules));
    points.forEach((p, i) => { totals[i] += p; });
    rows.push({ points, totals: [...totals] });
  }
  const n = rounds.length;
  const top = Math.max(...totals);
  const tiedTop = totals.filter((t) => t === top).length > 1;
  const planned = rules.rounds;
  let over = false, suddenDeath = false;
  if (planned !== null && planned !== undefined && n >= planned) {
    if (rules.tie_break === "sudden_death" && tiedTop) suddenDeath = true;
    else over = true;
  }
  return { rows, totals, places: placesOf(totals), over, suddenDeath, tiedTop };
}
