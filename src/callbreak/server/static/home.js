// Home (play now, play with friends, join) and the join page.
import { h, fill, api, load, save, toast, navigate, presetRules, rulesSummary, PRESET_LIST, fieldClass } from "./util.js";
import { rememberSeat, tokenFor, myName, setMyName } from "./seats.js";
import { botLabel } from "./avatars.js";

const PREFS = "callbreak.prefs";
const LEVELS = [["easy", "Easy"], ["medium", "Medium"], ["hard", "Hard"], ["random", "Random (beginner)"]];

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
    const res = await api("POST", "/api/tables", body);
    rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: res.invite, host: true, name: body.name });
    navigate(`/t/${res.table}`);
  } catch (e) {
    toast(e.message);
    btn.disabled = false;
  }
}

// Rules a host can change (beyond the preset), drawn as simple controls.
const ro = (lo, hi) => Array.from({ length: hi - lo + 1 }, (_, k) => [lo + k, String(lo + k)]);
const YN = [["true", "yes"], ["false", "no"]];
const CUSTOM = [
  ["min_call", "Lowest call", ro(1, 2)],
  ["max_call", "Highest call", ro(1, 13)],
  ["overtrick_points", "Each overtrick", [["0.1", "+0.1"], ["0", "0"]]],
  ["max_overtricks", "Most overtricks", [["none", "no limit"], ...ro(0, 12)]],
  ["missed_penalty", "Missed call", [["call", "−call"], ["shortfall", "−(call − tricks)"], ["zero", "0"]]],
  ["bonus_call", "Bonus call from", [["none", "no bonus"], ...ro(1, 13)]],
  ["tie_break", "Tie at the top", [["sudden_death", "sudden death"], ["share", "share"]]],
  ["must_head", "Must head", YN],
  ["head_after_cut", "Head after a cut", YN],
  ["trump", "Trump", [["S", "♠ spades"], ["H", "♥ hearts"], ["D", "♦ diamonds"], ["C", "♣ clubs"]]],
  ["trump_lead", "Trump lead", [["any", "any time"], ["not_first_trick", "not to trick one"], ["after_broken", "after broken"]]],
  ["must_undertrump", "Must undertrump", YN],
  ["redeal_without_trump", "Redeal: no trump", YN],
  ["redeal_without_face_card", "Redeal: no face card", YN],
  ["min_total_calls", "Calls must total", ro(0, 13)],
  ["direction", "Direction", [["clockwise", "clockwise"], ["counterclockwise", "counterclockwise"]]],
  ["autoplay_forced", "Auto-play forced cards", YN],
];

function parseField(name, v) {
  if (v === "none") return null;
  if (v === "true") return true;
  if (v === "false") return false;
  if (["min_call", "max_call", "max_overtricks", "bonus_call", "min_total_calls", "rounds"].includes(name)) return Number(v);
  return v;
}

export function renderHome(root) {
  const p = prefs();
  const nameInput = h("input", { id: "my-name", "data-testid": "my-name", maxlength: 24, value: myName(), placeholder: "Your name", autocomplete: "nickname" });
  nameInput.addEventListener("change", () => setMyName(nameInput.value.trim()));
  const name = () => nameInput.value.trim() || "You";

  // ---- play now ----
  const botsNow = select("now-bots", LEVELS, p.bots);
  const presetNow = select("now-preset", PRESET_LIST, p.preset);
  const keep = () => save(PREFS, { ...prefs(), bots: botsNow.value, preset: presetNow.value });
  botsNow.addEventListener("change", keep);
  presetNow.addEventListener("change", keep);
  const playNow = h("button", { class: "btn primary big", type: "button", "data-testid": "play-now" }, "Play now");
  playNow.addEventListener("click", () => {
    setMyName(nameInput.value.trim());
    createTable({ rules: { preset: presetNow.value }, bots: botsNow.value, name: name(), play_now: true }, playNow);
  });

  // ---- play with friends ----
  const fPreset = select("f-preset", PRESET_LIST, p.preset);
  const fRounds = select("f-rounds", [["preset", "as the preset"], ...ro(1, 20), ["none", "no fixed end"]], "preset");
  const timer = (id, v) => select(id, [["preset", "as the preset"], ["10", "10 s"], ["15", "15 s"], ["20", "20 s"], ["30", "30 s"], ["60", "60 s"], ["none", "no timer"]], v);
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
  const custom = h("details", { class: "rules-fields" }, h("summary", null, "More rules"),
    h("div", { class: "fields-grid" }, ...CUSTOM.map(([f, label, opts]) => {
      customControls[f] = select(`f-${f}`, opts, "");
      return labelled(`f-${f}`, label, customControls[f]);
    })));
  fPreset.addEventListener("change", fillCustom);
  const createBtn = h("button", { class: "btn primary", type: "submit", "data-testid": "create-table" }, "Create table");
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
      createTable({ rules, bots: fBots.value, name: name(), play_now: false }, createBtn);
    },
  },
    h("h2", { id: "friends-h" }, "Play with friends"),
    h("p", { class: "hint" }, "Create a table, then send the link. Friends type a name and sit down; empty seats get bots when you start."),
    h("div", { class: "fields-grid" },
      labelled("f-preset", "Rules", fPreset), labelled("f-rounds", "Rounds", fRounds),
      labelled("f-card-seconds", "Card timer", fCard), labelled("f-call-seconds", "Call timer", fCall),
      labelled("f-bots", "Bots", fBots)),
    custom,
    h("div", { class: "row" }, createBtn));

  // ---- join ----
  const joinInput = h("input", { id: "join-code", "data-testid": "join-code", placeholder: "Invite link or code", autocomplete: "off" });
  const join = h("form", {
    class: "panel", "aria-labelledby": "join-h",
    onsubmit: (e) => {
      e.preventDefault();
      const raw = joinInput.value.trim();
      // A seat link (/t/ID#TOKEN, to take your seat on another device) or a watch link also works here.
      const other = /\/(t|watch)\/([\w-]+)(#[\w-]+)?\s*$/.exec(raw);
      if (other) { navigate(`/${other[1]}/${other[2]}${other[1] === "t" && other[3] ? other[3] : ""}`); return; }
      const m = /\/join\/([\w-]+)/.exec(raw) || /^([\w-]+)$/.exec(raw);
      if (!m) { toast("Paste the invite link, or type its code."); joinInput.focus(); return; }
      navigate(`/join/${m[1]}`);
    },
  }, h("h2", { id: "join-h" }, "Join a table"),
    h("p", { class: "hint" }, "An invite link or code; your own seat link (to carry on from another device) works too."),
    h("div", { class: "share-box" }, h("label", { class: "sr-only", for: "join-code" }, "Invite link or code"), joinInput,
      h("button", { class: "btn", type: "submit" }, "Join")));

  fill(root, h("div", { class: "page home" },
    h("div", { class: "hero" },
      h("div", { class: "suits", "aria-hidden": "true" }, "♠", h("span", { class: "r" }, "♥"), "♣", h("span", { class: "r" }, "♦")),
      h("h1", null, "Callbreak"),
      h("p", { class: "lead" }, "Call your tricks, then make them. Spades are always trump. Free, no download, no signup.")),
    h("section", { class: "panel", "aria-labelledby": "now-h" },
      h("h2", { id: "now-h", class: "sr-only" }, "Play against bots"),
      labelled("my-name", "Your name", nameInput),
      h("div", { class: "choices", style: { marginTop: "10px" } }, labelled("now-bots", "Bots", botsNow), labelled("now-preset", "Rules", presetNow)),
      h("div", { class: "row" }, playNow)),
    friends,
    join,
    h("nav", { class: "links", "aria-label": "More" },
      h("a", { class: "btn", href: "/rules", "data-link": true }, "Rules"),
      h("a", { class: "btn", href: "/calculator", "data-link": true }, "Calculator"),
      h("a", { class: "btn", href: "/matches", "data-link": true }, "Past matches"))));
  fillCustom();
  return () => {};
}

export function renderJoin(root, code) {
  const box = h("div", { class: "page join" }, h("h1", null, "Join a table"), h("p", { class: "loading" }, "Looking up the table…"));
  fill(root, box);
  let alive = true;
  (async () => {
    let info;
    try {
      info = await api("GET", `/api/join/${encodeURIComponent(code)}`);
    } catch (e) {
      if (!alive) return;
      fill(box, h("h1", null, "Join a table"), h("p", { class: "error", role: "alert" }, e.message),
        h("p", null, h("a", { href: "/", "data-link": true }, "Back to the start")));
      return;
    }
    if (!alive) return;
    const mine = tokenFor(info.table);
    const started = Boolean(info.status && info.status !== "lobby");
    const seats = info.seats || [];
    const free = seats.map((s, i) => [s, i]).filter(([s]) => !s || s.kind === "empty" || (!s.name && s.kind !== "bot"));
    const nameInput = h("input", { id: "join-name", "data-testid": "join-name", maxlength: 24, value: myName(), required: true, autocomplete: "nickname" });
    const seatSel = free.length > 1 ? select("join-seat", [["any", "any free seat"], ...free.map(([, i]) => [i, `Seat ${i + 1}`])], "any") : null;
    const btn = h("button", { class: "btn primary big", type: "submit", "data-testid": "join-submit" }, "Take a seat");
    const err = h("p", { class: "error", role: "alert", "aria-live": "assertive" });
    const form = h("form", {
      class: "panel",
      onsubmit: async (e) => {
        e.preventDefault();
        const name = nameInput.value.trim();
        if (!name) { err.textContent = "Type a name first."; nameInput.focus(); return; }
        setMyName(name);
        btn.disabled = true;
        try {
          const body = { name };
          if (seatSel && seatSel.value !== "any") body.seat = Number(seatSel.value);
          const res = await api("POST", `/api/join/${encodeURIComponent(code)}`, body);
          rememberSeat({ table: res.table, seat: res.seat, token: res.token, invite: code, host: false, name });
          navigate(`/t/${res.table}`);
        } catch (e2) {
          err.textContent = e2.message;
          btn.disabled = false;
        }
      },
    },
      h("h2", null, "Who is at the table"),
      info.rules ? h("p", { class: "hint", "data-testid": "join-rules" }, rulesSummary(info.rules), " · ", h("a", { href: "/rules", "data-link": true }, "how to play")) : null,
      h("ol", { class: "seat-list" }, ...seats.map((s) => h("li", null, s && s.kind !== "empty" && s.name ? `${s.name}${s.kind === "bot" ? ` (${botLabel(s, info.bots)})` : ""}` : "empty seat"))),
      ...(started ? [
        h("p", { "data-testid": "join-closed" }, info.status === "over" ? "This match is over." : info.status === "expired" ? "This table expired before it started." : "This table has already started: its seats are taken."),
        info.status === "expired" ? null : h("div", { class: "row" }, h("a", { class: "btn primary big", href: `/watch/${info.table}`, "data-link": true }, info.status === "over" ? "See the result" : "Watch the game")),
      ] : [
        labelled("join-name", "Your name", nameInput),
        seatSel ? labelled("join-seat", "Seat", seatSel) : null,
        err,
        h("div", { class: "row" }, btn)]));
    fill(box, h("h1", null, "Join a table"),
      mine ? h("p", { class: "panel" }, "You already have a seat here. ", h("a", { href: `/t/${info.table}`, "data-link": true, "data-testid": "back-to-seat" }, "Back to your seat")) : null,
      form,
      started ? null : h("p", null, h("a", { href: `/watch/${info.table}`, "data-link": true }, "Watch instead")));
  })();
  return () => { alive = false; };
}
