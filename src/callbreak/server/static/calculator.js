// The score calculator for games played with real cards: four names, a preset or
// custom scoring rules, up to 20 rounds (plus sudden-death rounds), kept in
// localStorage and exportable as a JSON sheet.
import { h, clear, fill, load, save, download, copyText, toast, keepFocus, presetRules, PRESETS, PRESET_LIST, fieldClass, NAME_MAX } from "./util.js";
import { fmt, ordinal, sheetState } from "./scoring.js";
import { t, num, westernDigits } from "./i18n.js";

const KEY = "callbreak.calc";
// What is typed in the open round's boxes and not saved yet (a Bengali reader's try: the browser
// closed on a train, the tricks typed were gone): kept apart from the sheet, never exported.
const DRAFT_KEY = "callbreak.calc.draft";
const MAX_ROUNDS = 20;
const MAX_WITH_TIEBREAK = 40;
// The Ruleset fields that matter to a score sheet.
export const SHEET_FIELDS = [
  "min_call", "max_call", "overtrick_points", "max_overtricks", "missed_penalty",
  "bonus_call", "bonus_points", "rounds", "tie_break",
];

function sheetRules(full) {
  const r = {};
  for (const f of SHEET_FIELDS) r[f] = full[f];
  return r;
}

function fresh() {
  return {
    names: [1, 2, 3, 4].map((n) => t("calc.player", { n })),
    preset: "standard",
    base: "standard",
    rules: sheetRules(presetRules("standard")),
    rounds: [],
    pending: null, // {calls: [...]} once the calls of the open round are saved
    ended_after: null, // rounds=None: the round after which the table chose to stop
  };
}

/** Read a sheet's rules: a preset name, {preset, changes}, or flat fields. */
function readRules(raw, presetHint) {
  if (typeof raw === "string") return { preset: PRESETS[raw] ? raw : "custom", rules: sheetRules(presetRules(raw)) };
  if (raw && typeof raw === "object" && ("changes" in raw || ("preset" in raw && Object.keys(raw).length === 1))) {
    const p = PRESETS[raw.preset] ? raw.preset : "standard";
    const changes = raw.changes || {};
    const rules = sheetRules({ ...presetRules(p), ...changes });
    return { preset: Object.keys(changes).some((k) => SHEET_FIELDS.includes(k)) ? "custom" : p, rules };
  }
  const base = presetRules(PRESETS[presetHint] ? presetHint : "standard");
  return { preset: PRESETS[presetHint] ? presetHint : "custom", rules: sheetRules({ ...base, ...(raw || {}) }) };
}

/**
 * Why ``rounds`` cannot all have been played under ``rules`` (the match over before the last of
 * them, ``endedAfter`` standing for an open-ended match's end), or null.
 */
function overBefore(rules, rounds, endedAfter) {
  const n = rounds.length;
  const plan = { ...rules, rounds: rules.rounds !== null ? rules.rounds : endedAfter };
  for (let k = 1; k < n; k++) {
    if (sheetState(plan, rounds.slice(0, k)).over) return t("calc.err_fewer_rounds", { round: num(k), count: num(n) });
  }
  return null;
}

/**
 * Validate a sheet loaded from storage or a file (ours or `callbreak score --save`); throw a
 * readable error.  ``file``: a file opened, whose rounds must not go on past the match's end
 * (as `callbreak score` refuses them); a sheet kept in this browser is taken as it was kept.
 */
export function checkSheet(s, file = false) {
  if (!s || typeof s !== "object") throw new Error(t("calc.err_not_sheet"));
  const names = s.players || s.names;
  if (!Array.isArray(names) || names.length !== 4) throw new Error(t("calc.err_four_names"));
  const { preset, rules } = readRules(s.rules === undefined ? "standard" : s.rules, s.preset);
  if (typeof rules.overtrick_points === "number") rules.overtrick_points = String(rules.overtrick_points);
  checkRules(rules);
  const rounds = (s.rounds || []).map((r, k) => {
    const bad = validRound(rules, r.calls, r.tricks);
    if (bad) throw new Error(t("calc.err_round", { round: k + 1, why: bad }));
    return { calls: r.calls.map(Number), tricks: r.tricks.map(Number) };
  });
  const endedAfter = Number.isInteger(s.ended_after) ? s.ended_after : null;
  const early = file ? overBefore(rules, rounds, endedAfter) : null;
  if (early) throw new Error(early);
  return {
    names: names.map((n) => String(n).slice(0, NAME_MAX)),
    preset: s.preset === "custom" ? "custom" : preset,
    base: PRESETS[s.base] ? s.base : preset !== "custom" ? preset : (s.rules && PRESETS[s.rules.preset] ? s.rules.preset : "standard"),
    rules,
    rounds,
    pending: s.pending && Array.isArray(s.pending.calls) ? { calls: s.pending.calls.map(Number) } : null,
    ended_after: endedAfter,
  };
}

function isInt(v, lo, hi) {
  return Number.isInteger(v) && v >= lo && v <= hi;
}

export function checkRules(r) {
  if (!isInt(r.min_call, 1, 2)) throw new Error(t("calc.err_min_call"));
  if (!isInt(r.max_call, r.min_call, 13)) throw new Error(t("calc.err_max_call", { min: r.min_call }));
  if (!["0", "0.1"].includes(String(r.overtrick_points))) throw new Error(t("calc.err_overtrick"));
  if (r.max_overtricks !== null && !isInt(r.max_overtricks, 0, 12)) throw new Error(t("calc.err_max_overtricks"));
  if (!["call", "shortfall", "zero"].includes(r.missed_penalty)) throw new Error(t("calc.err_penalty"));
  if (r.bonus_call !== null && !isInt(r.bonus_call, 1, 13)) throw new Error(t("calc.err_bonus_call"));
  if (!isInt(r.bonus_points, -1000, 1000)) throw new Error(t("calc.err_bonus_points"));
  if (r.rounds !== null && !isInt(r.rounds, 1, MAX_ROUNDS)) throw new Error(t("calc.err_rounds", { max: MAX_ROUNDS }));
  if (!["sudden_death", "share"].includes(r.tie_break)) throw new Error(t("calc.err_tie_break"));
}

/** null when the calls (and tricks, if given) are valid; else the reason. */
export function validRound(rules, calls, tricks) {
  if (!Array.isArray(calls) || calls.length !== 4) return t("calc.err_four_calls");
  for (const c of calls) {
    if (!isInt(c, rules.min_call, rules.max_call)) return t("calc.err_call_range", { min: rules.min_call, max: rules.max_call });
  }
  if (tricks === undefined) return null;
  if (!Array.isArray(tricks) || tricks.length !== 4) return t("calc.err_four_tricks");
  for (const n of tricks) if (!isInt(n, 0, 13)) return t("calc.err_trick_range");
  const sum = tricks.reduce((a, b) => a + b, 0);
  if (sum !== 13) return t("calc.err_total", { sum });
  return null;
}

function planned(sheet) {
  return sheet.rules.rounds !== null ? sheet.rules.rounds : sheet.ended_after;
}

export function computeSheet(sheet) {
  return sheetState({ ...sheet.rules, rounds: planned(sheet) }, sheet.rounds);
}

/** The closest preset to a sheet's rules and the changed fields (like Ruleset.describe). */
function describeRules(rules, base) {
  let best = null;
  for (const name of PRESETS[base] ? [base] : Object.keys(PRESETS)) {
    const base = presetRules(name);
    const changes = {};
    for (const f of SHEET_FIELDS) if (String(base[f]) !== String(rules[f])) changes[f] = rules[f];
    if (!best || Object.keys(changes).length < Object.keys(best.changes).length) best = { preset: name, changes };
  }
  return best;
}

/** The JSON export: the engine's score-sheet format (`callbreak score --load/--save`). */
export function exportSheet(sheet) {
  const st = computeSheet(sheet);
  const out = {
    format: "callbreak-scoresheet",
    version: 1,
    players: sheet.names,
    rules: describeRules(sheet.rules, sheet.preset === "custom" ? sheet.base : sheet.preset),
    rounds: sheet.rounds.map((r) => ({ calls: r.calls, tricks: r.tricks })),
    points: st.rows.map((row) => row.points.map(fmt)),
    totals: st.totals.map(fmt),
    places: st.places,
  };
  if (sheet.ended_after !== null) out.ended_after = sheet.ended_after;
  return out;
}

// (the boxes take the reader's digits too: a phone's keyboard in Bengali or Nepali types "৪", "४")
const toNumber = (v) => {
  const text = v === null || v === undefined ? "" : westernDigits(v).trim().replace(/^\u2212/, "-");   // (−: a minus as shown)
  return /^-?\d+$/.test(text) ? Number(text) : NaN;   // (a blank box, "1e1" or "0x0d" is no number here)
};

/** The sheet as words to send (a family's chat): each round's points, then the totals in place
 *  order, in the reader's language and digits (a Bengali reader's try: "Copy" gave 110 lines of
 *  JSON, English keys, for the family's WhatsApp group). */
export function sheetText(sheet) {
  const st = computeSheet(sheet);
  const lines = [`${t("home.title")}: ${t("calc.title")}`];
  sheet.rounds.forEach((_, k) => {
    const scores = sheet.names.map((n, i) => `${n} ${num(fmt(st.rows[k].points[i]))}`).join(", ");
    lines.push(t("calc.text_round", { round: num(k + 1), scores }));
  });
  const order = [0, 1, 2, 3].sort((a, b) => st.places[a] - st.places[b] || a - b);
  // (no round yet: no places, as the sheet shows none)
  const scores = order.map((i) => `${sheet.rounds.length ? `${ordinal(st.places[i], true)} ` : ""}${sheet.names[i]} ${num(fmt(st.totals[i]))}`).join(", ");
  lines.push(t("calc.text_total", { scores }));
  return lines.join("\n");
}

export function renderCalculator(root) {
  let sheet;
  try {
    sheet = checkSheet(load(KEY, null));
  } catch {
    sheet = fresh();
  }
  const persist = () => save(KEY, sheet);
  const status = h("p", { class: "status", "aria-live": "polite", "data-testid": "calc-status" });
  const error = h("p", { class: "error", role: "alert", "aria-live": "assertive", "data-testid": "calc-error", id: "calc-error" });
  const namesBox = h("div", { class: "names-grid" });
  const rulesBox = h("div");
  const tableBox = h("div", { class: "sheet-wrap" });
  const entryBox = h("div", { class: "entry" });

  function fail(msg) { error.textContent = msg || ""; }

  // ---- names ----------------------------------------------------------------
  function drawNames() {
    clear(namesBox);
    sheet.names.forEach((n, i) => {
      // a name not given yet is the box's grey hint, not text to erase before typing (found by a newcomer)
      const standIn = t("calc.player", { n: i + 1 });
      const input = h("input", {
        id: `calc-name-${i}`, value: n === standIn ? "" : n, placeholder: standIn, maxlength: NAME_MAX,
        autocomplete: "off", "data-testid": `calc-name-${i}`,
        oninput: (e) => { sheet.names[i] = e.target.value.slice(0, NAME_MAX) || t("calc.player", { n: i + 1 }); persist(); drawTable(); drawEntryLabels(); },
      });
      namesBox.append(h("label", { class: "field", for: `calc-name-${i}` }, h("span", null, t("calc.player", { n: i + 1 })), input));
    });
  }

  // ---- rules ----------------------------------------------------------------
  let presetSelect = null;
  function drawRules() {
    clear(rulesBox);
    const r = sheet.rules;
    const preset = presetSelect = h("select", { id: "calc-preset", "data-testid": "calc-preset" },
      ...[...PRESET_LIST, ["custom", t("preset.custom")]].map(([p, label]) => h("option", { value: p, selected: p === sheet.preset }, label)));
    preset.addEventListener("change", () => {
      if (preset.value === "custom") { sheet.preset = "custom"; persist(); drawRules(); return; }
      setRules(sheetRules(presetRules(preset.value)), preset.value);
    });
    const opts = (vals, cur) => vals.map(([v, label]) => h("option", { value: v, selected: String(v) === String(cur) }, label));
    const range = (lo, hi) => Array.from({ length: hi - lo + 1 }, (_, k) => [lo + k, num(lo + k)]);
    const field = (name, label, control) => {
      control.id = `calc-rule-${name}`;
      control.dataset.testid = `calc-rule-${name}`;
      control.addEventListener("change", () => {
        const v = control.value;
        const next = { ...sheet.rules };
        if (["rounds", "max_overtricks", "bonus_call"].includes(name)) next[name] = v === "none" ? null : Number(v);
        else if (["min_call", "max_call"].includes(name)) next[name] = Number(v);
        // (typed: in the reader's digits too; a blank or "১৫" in a number box was taken for 0, a
        // Bengali reader's try: NaN is refused by `checkRules`, with its reason, and nothing changes)
        else if (name === "bonus_points") next[name] = toNumber(v);
        else next[name] = v;
        setRules(next, "custom");
      });
      return h("label", { class: fieldClass(control), for: control.id }, h("span", null, label), control);
    };
    const custom = h("details", { class: "rules-fields", open: sheet.preset === "custom" },
      h("summary", null, t("calc.scoring_rules")),
      h("div", { class: "fields-grid" },
        field("min_call", t("rule.min_call"), h("select", null, ...opts(range(1, 2), r.min_call))),
        field("max_call", t("rule.max_call"), h("select", null, ...opts(range(1, 13), r.max_call))),
        field("overtrick_points", t("rule.overtrick_points"), h("select", null, ...opts([["0.1", num("+0.1")], ["0", num(0)]], r.overtrick_points))),
        field("max_overtricks", t("rule.max_overtricks"), h("select", null, ...opts([["none", t("rule.no_limit")], ...range(0, 12)], r.max_overtricks ?? "none"))),
        field("missed_penalty", t("calc.missed_scores"), h("select", null, ...opts([["call", t("rule.minus_call")], ["shortfall", t("rule.minus_shortfall")], ["zero", num(0)]], r.missed_penalty))),
        field("bonus_call", t("rule.bonus_call"), h("select", null, ...opts([["none", t("rule.no_bonus")], ...range(1, 13)], r.bonus_call ?? "none"))),
        field("bonus_points", t("calc.bonus_scores"), h("input", { type: "text", inputmode: "numeric", autocomplete: "off", value: num(r.bonus_points) })),
        field("rounds", t("home.rounds"), h("select", null, ...opts([...range(1, MAX_ROUNDS), ["none", t("summary.no_end")]], r.rounds ?? "none"))),
        field("tie_break", t("rule.tie_break"), h("select", null, ...opts([["sudden_death", t("calc.sudden_rounds")], ["share", t("calc.share_first")]], r.tie_break))),
      ));
    rulesBox.append(h("label", { class: "field", for: "calc-preset" }, h("span", null, t("nav.rules")), preset), custom);
  }

  function setRules(next, presetName) {
    try {
      checkRules(next);
      // (a match made shorter than the rounds written: the rounds past its end were tagged sudden
      // death with no tie, a Bengali reader's try)
      // (the match as these rules would have it: over before its last round written, when no tie
      // at the top after its planned rounds leads to sudden death)
      const early = overBefore(next, sheet.rounds, sheet.ended_after);
      if (early) throw new Error(t("calc.sentence", { text: early }));
      sheet.rounds.forEach((rd, k) => {
        const bad = validRound(next, rd.calls, rd.tricks);
        if (bad) throw new Error(t("calc.sentence", { text: t("calc.err_round_rules", { round: k + 1, why: bad }) }));
      });
    } catch (e) {
      fail(e.message);
      // (said where the rules are too, shown only: the sheet's error line, read out, may be a screen below)
      toast(e.message, 6000, "", { quiet: true });
      // the rules drawn as they were, their panel kept open and the box changed kept in focus (a
      // refused bonus closed the panel the box was in, a reviewer's read)
      const open = !!rulesBox.querySelector("details.rules-fields[open]");
      keepFocus(rulesBox, () => {
        drawRules();
        if (open) rulesBox.querySelector("details.rules-fields").open = true;
      });
      return;
    }
    fail("");
    // the open round's calls saved, which these rules do not allow: back in their boxes to mend, with
    // the reason (they were dropped with no word, and the tricks typed with them: a family's try)
    const misfit = sheet.pending && validRound(next, sheet.pending.calls);
    if (misfit) {
      // (kept as the open round's typed calls, the tricks typed for later, before anything is drawn:
      // also where these rules end the match and no box is drawn, for the rules changed back)
      save(DRAFT_KEY, { round: sheet.rounds.length, calling: true, values: sheet.pending.calls.map(String), later: typedTricks() });
      sheet.pending = null;
    }
    sheet.rules = next;
    if (presetName !== "custom") sheet.base = presetName;
    sheet.preset = presetName;
    presetSelect.value = presetName;  // (a scoring rule changed: the box says "Custom", not the preset)
    persist();
    drawAll();
    if (misfit && inputs.length) {  // (the tricks typed come back once the calls are saved again)
      submitMarks(true);
      fail(t("calc.sentence", { text: t("calc.err_calls_rules", { round: sheet.rounds.length + 1, why: misfit }) }));
    }
  }

  // ---- the sheet -------------------------------------------------------------
  function drawTable() {
    clear(tableBox);
    const st = computeSheet(sheet);
    const head = h("tr", null, h("th", { scope: "col" }, t("sheet.round")),
      ...sheet.names.map((n) => h("th", { scope: "col", class: "pname" }, n)));
    const body = h("tbody");
    sheet.rounds.forEach((rd, k) => {
      const p = planned(sheet);
      const sd = p !== null && k >= p;
      body.append(h("tr", { class: sd ? "sudden" : null, "data-testid": `calc-row-${k}` },
        h("th", { scope: "row" }, num(k + 1), sd ? h("span", { class: "tag", title: t("calc.sd_title") }, " ", t("sheet.sd")) : null),
        ...rd.calls.map((c, i) => h("td", null,
          h("span", { class: "ct" }, num(`${c} / ${rd.tricks[i]}`)),
          h("span", { class: `pts ${st.rows[k].points[i] < 0 ? "neg" : ""}`, "data-testid": `pts-${k}-${i}` }, num(fmt(st.rows[k].points[i]))),
          h("span", { class: "run", "data-testid": `tot-${k}-${i}` }, num(fmt(st.rows[k].totals[i])))))));
    });
    const foot = h("tfoot", null,
      h("tr", null, h("th", { scope: "row" }, t("sheet.total")),
        ...st.totals.map((x, i) => h("td", { class: "total", "data-testid": `total-${i}` }, num(fmt(x))))),
      h("tr", null, h("th", { scope: "row" }, t("calc.place")),
        // (no round yet: no places, rather than four players "1st")
        ...st.places.map((p, i) => h("td", { class: `place place-${p}`, "data-testid": `place-${i}` }, sheet.rounds.length ? ordinal(p, true) : "–"))));
    tableBox.append(h("table", { class: "sheet", "data-testid": "calc-sheet" },
      h("caption", { class: "sr-only" }, t("calc.caption")),
      h("thead", null, head), body, foot));
    const n = sheet.rounds.length;
    const p = planned(sheet);
    let said;
    if (st.over) {
      const winners = sheet.names.filter((_, i) => st.places[i] === 1);
      said = `${t("calc.over_after", { count: n })} ${t(winners.length > 1 ? "calc.shared_first" : "calc.winner", { names: winners.join(", ") })}`;
    } else if (st.suddenDeath) {
      said = t("calc.tied", { round: n + 1 });
    } else {
      said = p !== null ? t("calc.round_of", { round: n + 1, rounds: p }) : t("calc.round", { round: n + 1 });
    }
    // (a live region: written only when it says something new; each keystroke in a name wrote it
    // again, and a screen reader read "Round 1 of 5." at every letter)
    if (status.textContent !== said) status.textContent = said;
    return st;
  }

  // ---- entering a round -------------------------------------------------------
  let inputs = [];
  function drawEntryLabels() {
    inputs.forEach((inp, i) => { inp.labels?.[0]?.querySelector("span")?.replaceChildren(sheet.names[i]); });
  }

  function drawEntry(st) {
    clear(entryBox);
    inputs = [];
    const n = sheet.rounds.length;
    const draft = load(DRAFT_KEY, null);
    const typed = draft && draft.round === n && draft.calling === !sheet.pending && Array.isArray(draft.values) ? draft.values : [];
    const total = n;
    const canEnd = sheet.rules.rounds === null && sheet.ended_after === null && n > 0;
    if (st.over) {
      entryBox.append(h("p", null, t("calc.match_over")));
    } else if (total >= (st.suddenDeath ? MAX_WITH_TIEBREAK : MAX_ROUNDS)) {
      entryBox.append(h("p", null, t("calc.at_most", { max: MAX_ROUNDS })));
    } else {
      const calling = !sheet.pending;
      const grid = h("div", { class: "entry-grid" });
      for (let i = 0; i < 4; i++) {
        const id = `calc-${calling ? "call" : "tricks"}-${i}`;
        const inp = h("input", {
          id, type: "text", inputmode: "numeric", autocomplete: "off", "data-testid": id,
          min: calling ? sheet.rules.min_call : 0, max: calling ? sheet.rules.max_call : 13, required: true,
          value: String(typed[i] ?? ""),
          oninput: () => keepDraft(),
          onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); (i < 3 ? inputs[i + 1] : saveBtn).focus(); } },
        });
        inputs.push(inp);
        grid.append(h("label", { class: "field", for: id },
          h("span", null, sheet.names[i]),
          calling ? null : h("small", null, t("calc.called", { call: sheet.pending.calls[i] })),
          inp));
      }
      const saveBtn = h("button", { class: "btn primary", type: "submit", "data-testid": calling ? "calc-save-calls" : "calc-save-tricks" },
        calling ? t("calc.save_calls") : t("calc.save_tricks"));
      const form = h("form", { class: "entry-form", novalidate: true, onsubmit: (e) => { e.preventDefault(); submit(calling); } },
        h("h3", null, t(`calc.entry_${calling ? "calls" : "tricks"}${st.suddenDeath ? "_sudden" : ""}`, { round: n + 1 })),
        h("p", { class: "hint" }, calling
          ? t("calc.calls_from", { min: sheet.rules.min_call, max: sheet.rules.max_call })
          : t("calc.tricks_total")),
        grid,
        h("div", { class: "row" }, saveBtn,
          calling ? null : h("button", { class: "btn", type: "button", "data-testid": "calc-back", onclick: changeCalls }, t("calc.change_calls"))));
      entryBox.append(form);
    }
    const row = h("div", { class: "row wrap" });
    if (canEnd) row.append(h("button", { class: "btn", type: "button", "data-testid": "calc-end", onclick: () => { sheet.ended_after = n; sheet.pending = null; persist(); drawAll(); } }, t("calc.end_here")));
    // (while a round's tricks are entered, "Change calls" steps back first: an undo then would drop
    // the calls just saved with no word)
    if (n > 0 && !sheet.pending) row.append(h("button", { class: "btn", type: "button", "data-testid": "calc-undo", onclick: undo }, t("calc.undo")));
    entryBox.append(row);
  }

  /** The tricks typed in the open round's boxes (its calls saved), as the draft keeps them; or null. */
  function typedTricks() {
    const was = load(DRAFT_KEY, null);
    return was && was.round === sheet.rounds.length && was.calling === false ? was.values : null;
  }

  /** The open round's boxes as typed, kept (`DRAFT_KEY`) until they are saved or set aside;
   * ``later``: the tricks typed for the round, for its boxes once its calls are saved (kept as
   * the calls are typed). */
  function keepDraft(later) {
    const n = sheet.rounds.length, calling = !sheet.pending;
    if (later === undefined) {
      const was = load(DRAFT_KEY, null);
      later = was && was.round === n && was.calling && calling && Array.isArray(was.later) ? was.later : null;
    }
    save(DRAFT_KEY, { round: n, calling, values: inputs.map((inp) => inp.value), later });
  }
  const dropDraft = () => save(DRAFT_KEY, null);

  /** Mark the open round's boxes out of range (``bad``: the round is refused); the first one's index, or -1. */
  function submitMarks(bad) {
    const calling = !sheet.pending;
    const lo = calling ? sheet.rules.min_call : 0, hi = calling ? sheet.rules.max_call : 13;
    const wrong = inputs.map((inp) => !isInt(toNumber(inp.value), lo, hi));
    inputs.forEach((inp, i) => {
      if (bad && wrong[i]) { inp.setAttribute("aria-invalid", "true"); inp.setAttribute("aria-describedby", "calc-error"); }
      else { inp.removeAttribute("aria-invalid"); inp.removeAttribute("aria-describedby"); }
    });
    return wrong.indexOf(true);
  }

  function submit(calling) {
    const vals = inputs.map((inp) => toNumber(inp.value));
    const bad = calling ? validRound(sheet.rules, vals) : validRound(sheet.rules, sheet.pending.calls, vals);
    // the boxes out of range are marked, the error names the first one's player (found by a newcomer:
    // a call of 0 was refused with no word of whose)
    const k = submitMarks(!!bad);
    if (bad) {
      const text = k >= 0 ? `${sheet.names[k]}: ${bad}` : bad.charAt(0).toUpperCase() + bad.slice(1);
      fail(t("calc.sentence", { text }));
      inputs[k >= 0 ? k : 0].focus();
      return;
    }
    fail("");
    const was = load(DRAFT_KEY, null);
    if (calling) {
      sheet.pending = { calls: vals };
    } else {
      sheet.rounds.push({ calls: sheet.pending.calls, tricks: vals });
      sheet.pending = null;
    }
    if (calling && was && was.round === sheet.rounds.length && Array.isArray(was.later)) {
      save(DRAFT_KEY, { round: sheet.rounds.length, calling: false, values: was.later, later: null });
    } else {
      dropDraft();
    }
    persist();
    drawAll();
    inputs[0]?.focus();
  }

  /** Back from the tricks to the round's calls, as they were saved (only the wrong one to mend). */
  function changeCalls() {
    const calls = sheet.pending.calls;
    const typed = typedTricks();  // (back once the calls are saved again: a review's find, dropped)
    sheet.pending = null;
    persist();
    fail("");
    drawAll();
    inputs.forEach((inp, i) => { inp.value = String(calls[i]); });
    keepDraft(typed);
    inputs[0]?.focus();
  }

  function undo() {
    const last = sheet.rounds.pop();
    if (!last) return;
    sheet.pending = { calls: last.calls };
    if (sheet.ended_after !== null && sheet.ended_after > sheet.rounds.length) sheet.ended_after = null;
    persist();
    fail("");
    drawAll();
    inputs.forEach((inp, i) => { inp.value = String(last.tricks[i]); });
    keepDraft();
    inputs[0]?.focus();   // (the Undo button is gone with the round: the focus fell to the page's start)
  }

  function drawAll() {
    const st = drawTable();
    drawEntry(st);
  }

  // ---- export / import ----------------------------------------------------------
  const fileInput = h("input", {
    type: "file", accept: "application/json,.json", class: "sr-only", id: "calc-import", "data-testid": "calc-import",
    onchange: async () => {
      const f = fileInput.files && fileInput.files[0];
      if (!f) return;
      try {
        sheet = checkSheet(JSON.parse(await f.text()), true);
        dropDraft();
        persist();
        drawNames(); drawRules(); drawAll(); fail("");
        toast(t("calc.loaded"));
      } catch (e) {
        fail(t("calc.load_failed", { why: e.message }));
      }
      fileInput.value = "";
    },
  });
  const exportText = () => JSON.stringify(exportSheet(sheet), null, 2);
  const namesOk = () => {
    if (new Set(sheet.names.map((n) => n.trim())).size === 4) return true;
    fail(t("calc.different_names"));
    return false;
  };
  const tools = h("div", { class: "row wrap" },
    h("button", { class: "btn", type: "button", "data-testid": "calc-download", onclick: () => { if (namesOk()) download("callbreak-score-sheet.json", exportText()); } }, t("calc.download")),
    typeof navigator.share === "function"
      ? h("button", { class: "btn", type: "button", "data-testid": "calc-share",
          onclick: () => { if (namesOk()) navigator.share({ title: t("home.title"), text: sheetText(sheet) }).catch(() => {}); } }, t("calc.share"))
      : null,
    h("button", { class: "btn", type: "button", "data-testid": "calc-copy", onclick: () => { if (namesOk()) copyText(sheetText(sheet)); } }, t("calc.copy")),
    h("label", { class: "btn", for: "calc-import" }, t("calc.load")), fileInput,
    h("button", {
      class: "btn danger", type: "button", "data-testid": "calc-new",
      onclick: () => {
        if (sheet.rounds.length && !confirm(t("calc.confirm_new"))) return;
        const names = sheet.names;
        sheet = fresh(); sheet.names = names; dropDraft(); persist(); drawNames(); drawRules(); drawAll(); fail("");
      },
    }, t("calc.new")));

  fill(root, h("div", { class: "page calc" },
    h("h1", null, t("calc.title")),
    h("p", { class: "lead" }, t("calc.lead")),
    h("section", { class: "panel", "aria-labelledby": "calc-players" }, h("h2", { id: "calc-players" }, t("calc.players")), namesBox),
    h("section", { class: "panel", "aria-labelledby": "calc-rules" }, h("h2", { id: "calc-rules" }, t("nav.rules")), rulesBox),
    h("section", { class: "panel", "aria-labelledby": "calc-sheet-h" }, h("h2", { id: "calc-sheet-h" }, t("sheet.title")), status,
      h("p", { class: "hint" }, t("calc.cell_hint")), tableBox, error, entryBox),
    h("section", { class: "panel", "aria-labelledby": "calc-export" }, h("h2", { id: "calc-export" }, t("calc.keep")), tools)));
  drawNames();
  drawRules();
  drawAll();
  return () => {};
}
