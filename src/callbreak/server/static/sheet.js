// The score sheet's rows: every finished round `{round, dealer, calls, tricks_won, points}`.
// A state carries only the latest round; the whole sheet comes once, in the `snapshot` a
// connection starts with, and each `round_over` event adds its round.

/** The sheet of a snapshot message (none before the first round ends). */
export function sheetOf(snapshot) {
  return Array.isArray(snapshot.sheet) ? snapshot.sheet.map(row) : [];
}

/** `sheet` with the round a `round_over` event reports (replacing a row of the same number). */
export function addRound(sheet, ev) {
  return sheet.filter((r) => r.round !== ev.round).concat([row(ev)]).sort((a, b) => a.round - b.round);
}

function row(r) {
  return { round: r.round, calls: r.calls, tricks_won: r.tricks_won, points: r.points };
}
