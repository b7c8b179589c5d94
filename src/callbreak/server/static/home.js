// Home (play now, play with friends, join) and the join page.
import { h, fill, api, load, save, toast, navigate, presetRules, rulesSummary, PRESET_LIST, fieldClass, NAME_MAX } from "./util.js";
import { rememberSeat, tokenFor, myName, setMyName, resumeBanner } from "./seats.js";
import { botLabel, botNameIn } from "./avatars.js";
import { t, num, lang } from "./i18n.js";

const PREFS = "callbreak.prefs";
const LEVELS = ["easy", "medium", "hard", "random"].map((l) => [l, t(`home.level_${l}`)]);

/**
 * A join's own random text, sent with every try of it (bodies.JoinTable.attempt): a try whose
 * answer was lost on the way (a phone's network, a proxy's 504) and is tapped again gets the seat
 * the first one took, not a second seat. Kept in the tab per invite until the join is answered,
 * so that the join page reloaded after a lost answer is the same join.
 */
export function joinAttempt(code, { done = false, kept: keptOnly = false } = {}) {
  const key = `callbreak.join.${code}`;
  try {
    if (done) { sessionStorage.removeItem(key); return null; }
    const kept = sessionStorage.getItem(key);
    if (kept || keptOnly) return kept;
  } catch { /* storage disabled: one per page */ }
  if (keptOnly) return null;
  const made = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  try { sessionStorage.setItem(key, made); } catch { /* storage disabled */ }
  return made;
}

function prefs() {
  return { bots: "medium", preset: "standard", ...load(PREFS, {}) };
}

function select(id, options, value, attrs = {}) {
  return h("select", { id, "data-testid": id, ...attrs },
    ...options.map(([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label)));
}

function labelled(id, text, control) {
  return h("label", { class: fieldClass(control), for: id }, h("span", null, text), control);
}

/** Create a table and go to it. */
async function createTable(body, btn) {
  btn.disabled = true;
  try {
    // (the page's language: the table's bots are named in its script, "मीना" not "Meena"; not
    // said in English, the server's own, and asked again without it of a server of before, which
    // refuses a field it does not know: a process not yet upgraded, in a rolling upgrade)
    let res;
    try {
      res = await api("POST", "/api/tables", lang === "en" ? body : { ...body, lang });
    } catch (e) {
      if (lang === "en" || e.code !== "bad_message") throw e;
      res = await api("POST", "/api/tables", body);
    }
    rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: res.invite, host: true, name: body.name });
    navigate(`/t/${res.table}`);
  } catch (e) {
    toast(e.message);
    btn.disabled = false;
  }
}

// Rules a host can change (beyond the preset), drawn as simple controls; the terminal words a
// table's changed rules the same (`callbreak.tui.render.rule_words`, held to these by a test).
const ro = (lo, hi) => Array.from({ length: hi - lo + 1 }, (_, k) => [lo + k, num(lo + k)]);
const YN = [["true", t("rule.yes")], ["false", t("rule.no")]];
export const CUSTOM = [
  ["min_call", t("rule.min_call"), ro(1, 2)],
  ["max_call", t("rule.max_call"), ro(1, 13)],
  ["overtrick_points", t("rule.overtrick_points"), [["0.1", num("+0.1")], ["0", num(0)]]],
  ["max_overtricks", t("rule.max_overtricks"), [["none", t("rule.no_limit")], ...ro(0, 12)]],
  ["missed_penalty", t("rule.missed_call"), [["call", t("rule.minus_call")], ["shortfall", t("rule.minus_shortfall")], ["zero", num(0)]]],
  ["bonus_call", t("rule.bonus_call"), [["none", t("rule.no_bonus")], ...ro(1, 13)]],
  ["tie_break", t("rule.tie_break"), [["sudden_death", t("rule.sudden_death")], ["share", t("rule.share")]]],
  ["must_head", t("rule.must_head"), YN],
  ["head_after_cut", t("rule.head_after_cut"), YN],
  ["trump", t("rule.trump"), ["S", "H", "D", "C"].map((s) => [s, t(`rule.trump_${s}`)])],
  ["trump_lead", t("rule.trump_lead"), [["any", t("rule.lead_any")], ["not_first_trick", t("rule.lead_not_first")], ["after_broken", t("rule.lead_after_broken")]]],
  ["must_undertrump", t("rule.must_undertrump"), YN],
  ["redeal_without_trump", t("rule.redeal_without_trump"), YN],
  ["redeal_without_face_card", t("rule.redeal_without_face_card"), YN],
  ["min_total_calls", t("rule.min_total_calls"), ro(0, 13)],
  ["direction", t("rule.direction"), [["clockwise", t("rule.clockwise")], ["counterclockwise", t("rule.counterclockwise")]]],
  ["autoplay_forced", t("rule.autoplay_forced"), YN],
];

export function parseField(name, v) {
  if (v === "none") return null;
  if (v === "true") return true;
  if (v === "false") return false;
  if (["min_call", "max_call", "max_overtricks", "bonus_call", "min_total_calls", "rounds"].includes(name)) return Number(v);
  return v;
}

export function renderHome(root) {
  const p = prefs();
  const nameInput = h("input", { id: "my-name", "data-testid": "my-name", maxlength: NAME_MAX, value: myName(), placeholder: t("home.your_name"), autocomplete: "nickname" });
  nameInput.addEventListener("change", () => setMyName(nameInput.value.trim()));
  // no name typed: alone against bots, "You"; at a table for friends "Player 1" in the host's
  // language (the server's default was English: "Player 1 (আপনি)" in a newcomer's try), never
  // the word "You", which the others would read as the host's name
  const name = (friends) => nameInput.value.trim() || (friends ? t("calc.player", { n: num(1) }) : t("seat.you"));

  // ---- play now ----
  const botsNow = select("now-bots", LEVELS, p.bots);
  const presetNow = select("now-preset", PRESET_LIST, p.preset);
  const keep = () => save(PREFS, { ...prefs(), bots: botsNow.value, preset: presetNow.value });
  botsNow.addEventListener("change", keep);
  presetNow.addEventListener("change", keep);
  const playNow = h("button", { class: "btn primary big", type: "button", "data-testid": "play-now" }, t("home.play_now"));
  playNow.addEventListener("click", () => {
    setMyName(nameInput.value.trim());
    // alone against bots, no turn timers: no one waits, and nothing is played that the player did
    // not choose (a newcomer reading the rules lost the call, a card, then the seat to a bot)
    const rules = { preset: presetNow.value, card_seconds: null, call_seconds: null };
    createTable({ rules, bots: botsNow.value, name: name(false), play_now: true }, playNow);
  });

  // ---- play with friends ----
  const fPreset = select("f-preset", PRESET_LIST, p.preset);
  const fRounds = select("f-rounds", [["preset", t("home.as_preset")], ...ro(1, 20), ["none", t("summary.no_end")]], "preset");
  const timer = (id, v) => select(id, [["preset", t("home.as_preset")], ...[10, 15, 20, 30, 60].map((n) => [String(n), t("home.seconds", { n })]), ["none", t("home.no_timer")]], v);
  const fCard = timer("f-card-seconds", "preset");
  const fCall = timer("f-call-seconds", "preset");
  const fBots = select("f-bots", LEVELS, p.bots);
  const customControls = {};
  const fillCustom = () => {
    const r = presetRules(fPreset.value);
    for (const [f, , opts] of CUSTOM) {
      const cur = r[f] === null ? "none" : String(r[f]);
      customControls[f].value = opts.some(([v]) => String(v) === cur) ? cur : String(opts[0][0]);
    }
  };
  const custom = h("details", { class: "rules-fields" }, h("summary", null, t("home.more_rules")),
    h("div", { class: "fields-grid" }, ...CUSTOM.map(([f, label, opts]) => {
      customControls[f] = select(`f-${f}`, opts, "");
      return labelled(`f-${f}`, label, customControls[f]);
    })));
  fPreset.addEventListener("change", fillCustom);
  // the host's name, in this form too (a newcomer's try: it was only in the card above, and
  // friends saw "Player 1"): one name, kept the same in both fields
  const fName = h("input", { id: "f-name", "data-testid": "f-name", maxlength: NAME_MAX, value: myName(), placeholder: t("home.your_name"), autocomplete: "nickname" });
  nameInput.addEventListener("input", () => { fName.value = nameInput.value; });
  fName.addEventListener("input", () => { nameInput.value = fName.value; });
  fName.addEventListener("change", () => setMyName(fName.value.trim()));
  const createBtn = h("button", { class: "btn primary", type: "submit", "data-testid": "create-table" }, t("home.create_table"));
  const friends = h("form", {
    class: "panel", "aria-labelledby": "friends-h",
    onsubmit: (e) => {
      e.preventDefault();
      setMyName(nameInput.value.trim());
      const base = presetRules(fPreset.value);
      const rules = { preset: fPreset.value };
      for (const [f] of CUSTOM) {
        const v = parseField(f, customControls[f].value);
        if (String(v) !== String(base[f])) rules[f] = v;
      }
      if (fRounds.value !== "preset") rules.rounds = parseField("rounds", fRounds.value);
      if (fCard.value !== "preset") rules.card_seconds = fCard.value === "none" ? null : Number(fCard.value);
      if (fCall.value !== "preset") rules.call_seconds = fCall.value === "none" ? null : Number(fCall.value);
      createTable({ rules, bots: fBots.value, name: name(true), play_now: false }, createBtn);
    },
  },
    h("h2", { id: "friends-h" }, t("home.friends")),
    h("p", { class: "hint" }, t("home.friends_hint")),
    labelled("f-name", t("home.your_name"), fName),
    h("div", { class: "fields-grid" },
      labelled("f-preset", t("nav.rules"), fPreset), labelled("f-rounds", t("home.rounds"), fRounds),
      labelled("f-card-seconds", t("home.card_timer"), fCard), labelled("f-call-seconds", t("home.call_timer"), fCall),
      labelled("f-bots", t("home.bots"), fBots)),
    custom,
    h("div", { class: "row" }, createBtn));

  // ---- join ----
  const joinInput = h("input", { id: "join-code", "data-testid": "join-code", placeholder: t("home.invite_or_code"), autocomplete: "off" });
  const join = h("form", {
    class: "panel", "aria-labelledby": "join-h",
    onsubmit: (e) => {
      e.preventDefault();
      const raw = joinInput.value.trim();
      // A seat link (/t/ID#TOKEN, to take your seat on another device) or a watch link also works here.
      const other = /\/(t|watch)\/([\w-]+)(#[\w-]+)?[^\w#\/-]*$/.exec(raw);  // (a chat's ")" or "." after it)
      if (other) { navigate(`/${other[1]}/${other[2]}${other[1] === "t" && other[3] ? other[3] : ""}`); return; }
      const m = /\/join\/([\w-]+(?:\.[\w-]+)?)/.exec(raw) || /^([\w-]+(?:\.[\w-]+)?)\.?$/.exec(raw);
      if (!m) { toast(t("home.paste_invite")); joinInput.focus(); return; }
      navigate(`/join/${m[1]}`);
    },
  }, h("h2", { id: "join-h" }, t("join.title")),
    h("p", { class: "hint" }, t("home.join_hint")),
    h("div", { class: "share-box" }, h("label", { class: "sr-only", for: "join-code" }, t("home.invite_or_code")), joinInput,
      h("button", { class: "btn", type: "submit" }, t("home.join"))));

  fill(root, h("div", { class: "page home" },
    resumeBanner(),
    h("div", { class: "hero" },
      h("div", { class: "suits", "aria-hidden": "true" }, "♠", h("span", { class: "r" }, "♥"), "♣", h("span", { class: "r" }, "♦")),
      h("h1", null, t("home.title")),
      h("p", { class: "lead" }, t("home.lead"))),
    h("section", { class: "panel", "aria-labelledby": "now-h" },
      h("h2", { id: "now-h", class: "sr-only" }, t("home.vs_bots")),
      labelled("my-name", t("home.your_name"), nameInput),
      h("div", { class: "choices", style: { marginTop: "10px" } }, labelled("now-bots", t("home.bots"), botsNow), labelled("now-preset", t("nav.rules"), presetNow)),
      h("div", { class: "row" }, playNow)),
    friends,
    join,
    h("nav", { class: "links", "aria-label": t("home.more") },
      h("a", { class: "btn", href: "/rules", "data-link": true }, t("nav.rules")),
      h("a", { class: "btn", href: "/calculator", "data-link": true }, t("nav.calculator")),
      h("a", { class: "btn", href: "/matches", "data-link": true }, t("matches.title")))));
  fillCustom();
  return () => {};
}

export function renderJoin(root, code) {
  const box = h("div", { class: "page join" }, h("h1", null, t("join.title")), h("p", { class: "loading" }, t("join.looking")));
  fill(root, box);
  let alive = true;
  (async () => {
    let info;
    try {
      info = await api("GET", `/api/join/${encodeURIComponent(code)}`);
    } catch (e) {
      if (!alive) return;
      fill(box, h("h1", null, t("join.title")), h("p", { class: "error", role: "alert" }, e.message),
        h("p", null, h("a", { href: "/", "data-link": true }, t("page.back_home"))));
      return;
    }
    if (!alive) return;
    const mine = tokenFor(info.table);
    if (mine && info.status !== "expired") {
      // This browser holds a seat here: back to it, not a form that seats the player twice (found
      // in a newcomer's try) nor "watch the game"; after a match, to the rematch it sits at (the
      // invite is the one link friends have), following rematches of rematches, but not into one
      // that expired or was abandoned unplayed (the match's results are the better page then).
      const ENDED = new Set(["over", "abandoned"]);
      let target = info.table, status = info.status;
      for (let hop = 0; hop < 20 && ENDED.has(status); hop++) {
        let next = null;
        try {
          const ti = (await api("GET", `/api/tables/${encodeURIComponent(target)}`)).table;
          if (ti.rematch && tokenFor(ti.rematch)) {
            const ri = (await api("GET", `/api/tables/${encodeURIComponent(ti.rematch)}`)).table;
            if (ri.status !== "expired" && ri.status !== "abandoned") next = ri;
          }
        } catch { /* the table as it is: its page says what became of it */ }
        if (!next) break;
        target = next.id;
        status = next.status;
      }
      if (alive) navigate(`/t/${target}`, { replace: true });
      return;
    }
    const started = Boolean(info.status && info.status !== "lobby");
    // A join of this tab whose answer was lost, the table started since: its seat, asked again
    // (a reviewer's read: the reloaded page offered only "Watch", the seat unreachable)
    const lost = started && info.status !== "expired" ? joinAttempt(code, { kept: true }) : null;
    if (lost) {
      try {
        const res = await api("POST", `/api/join/${encodeURIComponent(code)}`, { name: myName() || undefined, attempt: lost });
        rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: code, host: false, name: myName() });
        joinAttempt(code, { done: true });
        if (alive) navigate(`/t/${res.table}`, { replace: true });
        return;
      } catch { /* not this tab's seat after all (the first try never reached the server): the page as it is */ }
      if (!alive) return;
    }
    const seats = info.seats || [];
    const free = seats.map((s, i) => [s, i]).filter(([s]) => !s || s.kind === "empty" || (!s.name && s.kind !== "bot"));
    const nameInput = h("input", { id: "join-name", "data-testid": "join-name", maxlength: NAME_MAX, value: myName(), "aria-required": "true", autocomplete: "nickname" });
    const seatSel = free.length > 1 ? select("join-seat", [["any", t("join.any_seat")], ...free.map(([, i]) => [i, t("seat.n", { n: i + 1 })])], "any") : null;
    const btn = h("button", { class: "btn primary big", type: "submit", "data-testid": "join-submit" }, t("join.take_seat"));
    const attempt = started ? null : joinAttempt(code);
    const err = h("p", { class: "error", role: "alert", "aria-live": "assertive" });
    // (no `required`: the browser's own "Please fill out this field." was in its language, not
    // the page's; the page says it, a Hindi player's try)
    const form = h("form", {
      class: "panel", novalidate: true,
      onsubmit: async (e) => {
        e.preventDefault();
        const name = nameInput.value.trim();
        if (!name) { err.textContent = t("join.type_name"); nameInput.focus(); return; }
        setMyName(name);
        btn.disabled = true;
        try {
          const body = { name };
          if (seatSel && seatSel.value !== "any") body.seat = Number(seatSel.value);
          const path = `/api/join/${encodeURIComponent(code)}`;
          let res;
          try {
            res = await api("POST", path, { ...body, attempt });
          } catch (e3) {
            // a server of before refuses the field it does not know (a process not yet upgraded, in
            // a rolling upgrade: a reviewer's read): asked again without it
            if (e3.code !== "bad_message") throw e3;
            res = await api("POST", path, body);
          }
          rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: code, host: false, name });
          joinAttempt(code, { done: true });
          navigate(`/t/${res.table}`);
        } catch (e2) {
          err.textContent = e2.message;
          btn.disabled = false;
        }
      },
    },
      h("h2", null, t("join.who")),
      info.rules ? h("p", { class: "hint", "data-testid": "join-rules" }, rulesSummary(info.rules), " · ", h("a", { href: "/rules", "data-link": true }, t("lobby.how_to_play"))) : null,
      h("ol", { class: "seat-list" }, ...seats.map((s) => h("li", null, s && s.kind !== "empty" && s.name ? (s.kind === "bot" ? t("seat.with_bot", { name: botNameIn(s.name), bot: botLabel(s, info.bots) }) : s.name) : t("join.empty_seat")))),
      ...(started ? [
        h("p", { "data-testid": "join-closed" }, info.status === "over" ? t("join.over") : info.status === "expired" ? t("table.expired") : t("join.started")),
        // (an expired invite says what to do next, with a way on: it was a dead end, a Hindi friend's try)
        info.status === "expired" ? h("p", { "data-testid": "join-next" }, t("join.expired_next")) : null,
        info.status === "expired"
          ? h("div", { class: "row" }, h("a", { class: "btn primary big", href: "/", "data-link": true, "data-testid": "join-home" }, t("page.back_home")))
          : h("div", { class: "row" }, h("a", { class: "btn primary big", href: `/watch/${info.table}`, "data-link": true }, info.status === "over" ? t("join.see_result") : t("join.watch_game"))),
      ] : [
        labelled("join-name", t("home.your_name"), nameInput),
        seatSel ? labelled("join-seat", t("join.seat"), seatSel) : null,
        err,
        h("div", { class: "row" }, btn)]));
    fill(box, h("h1", null, t("join.title")),
      form,
      started ? null : h("p", null, h("a", { href: `/watch/${info.table}`, "data-link": true }, t("join.watch_instead"))));
  })();
  return () => { alive = false; };
}
