import { t, has, num } from "./i18n.js";

// Small DOM and data helpers shared by every page.  Text is always inserted as
// text (textContent), never parsed as HTML: player names are untrusted.

/** Build an element: h("div", {class: "x", onclick: f, dataset: {a: 1}}, "text", child...). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
      else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = v;
      else if (v === true) el.setAttribute(k, "");
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Replace an element's children (null/false children are skipped). */
export function fill(el, ...children) {
  // a page's heading given the focus (app.js), drawn again once its data came (the join page, a
  // replay): the new heading takes it, not the page's start
  const heading = document.activeElement && document.activeElement.tagName === "H1" && el.contains(document.activeElement);
  clear(el);
  append(el, children);
  const again = heading ? el.querySelector("h1") : null;
  if (again) { again.tabIndex = -1; again.focus({ preventScroll: true }); }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// --- keyboard focus across a redraw -------------------------------------------
/** What control `el` is, to find it again once drawn afresh: its call, card or test id, else its text. */
function controlKey(el) {
  const d = el.dataset || {};
  if (d.call !== undefined) return `call:${d.call}`;
  if (d.card !== undefined) return `card:${d.card}`;
  if (d.testid) return `id:${d.testid}`;
  return `text:${el.tagName}:${el.textContent}`;
}

/**
 * Run `draw`, which may draw `region` afresh, keeping the keyboard focus: when a control inside
 * `region` had it and was replaced, the new control for the same call, card, test id (else text)
 * gets it back, without scrolling.  Focus outside `region` (a text field, a menu) is never taken,
 * nor focus that `draw` itself moved on purpose.
 */
export function keepFocus(region, draw) {
  const was = document.activeElement;
  const key = was && was !== region && region.contains(was) ? controlKey(was) : null;
  draw();
  if (key === null || (was.isConnected && document.activeElement === was)) return;
  const now = document.activeElement;
  if (now && now !== document.body && now !== was) return;
  const again = [...region.querySelectorAll("button, a[href], input, select, textarea, [tabindex]")]
    .find((e) => controlKey(e) === key);
  if (again) again.focus({ preventScroll: true });
}

/**
 * Draw `region` afresh with `draw(box)` (which fills the box it is given), only where that changes
 * what it shows: a region drawn the same keeps its elements, so a screen reader does not read its
 * focused control or its dialog again at every message (a keyboard player's try: "dialog Last
 * trick, Close button" nine times in three seconds, over the play-by-play). Else as `keepFocus`.
 * `same(html)` may leave out of the comparison what changes by itself (a countdown).
 */
export function redraw(region, draw, same = (html) => html) {
  const fresh = document.createElement("div");
  draw(fresh);
  if (same(fresh.innerHTML) === same(region.innerHTML)) return false;
  keepFocus(region, () => region.replaceChildren(...fresh.childNodes));
  return true;
}

/** The longest name a player may type (the server's `callbreak.server.table.NAME_MAX`: a test holds it to it). */
export const NAME_MAX = 32;

// --- cards ------------------------------------------------------------------
export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
/** The suits' names in the reader's language ("spades"). */
export const SUIT_NAME = Object.fromEntries(SUITS.map((s) => [s, t(`suit.${s}`)]));
export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
const RANK_SHOW = { T: "10" };

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];
export const rankIndex = (card) => RANKS.indexOf(card[0]);

/** A card as its face shows it, "10♥" (a copy of `Card.symbol`, held to it by a test). */
export const cardSymbol = (card) => (RANK_SHOW[card[0]] || card[0]) + SUIT_SYMBOL[card[1]];

/** "QH" -> "queen of hearts" (for screen readers and messages), in the reader's language. */
export function cardName(card) {
  // (a queen has a template of its own: in Hindi the words around her agree with her)
  return t(card[0] === "Q" ? "card.name_queen" : "card.name", { rank: t(`rank.${card[0]}`), suit: SUIT_NAME[card[1]] });
}

/** A card face drawn in HTML: rank and suit symbol, red or black. */
export function cardEl(card, opts = {}) {
  const r = card[0], s = card[1];
  const tag = opts.button ? "button" : "span";
  const el = h(tag, {
    class: `card suit-${s}${opts.small ? " small" : ""}${opts.cls ? " " + opts.cls : ""}`,
    dataset: { card },
    "aria-label": cardName(card),
    role: opts.button ? undefined : "img",
    type: opts.button ? "button" : undefined,
  },
    h("span", { class: "corner", "aria-hidden": "true" },
      h("span", { class: "rank" }, RANK_SHOW[r] || r),
      h("span", { class: "pip" }, SUIT_SYMBOL[s])),
    h("span", { class: "center", "aria-hidden": "true" }, SUIT_SYMBOL[s]),
  );
  return el;
}

export function cardBack(opts = {}) {
  return h("span", { class: `card back${opts.small ? " small" : ""}`, "aria-hidden": "true" });
}

/** Sort a hand by suit (trump first, colours alternating) then rank, high first. */
export function sortHand(cards, trump = "S") {
  const order = { S: ["S", "H", "C", "D"], H: ["H", "S", "D", "C"], D: ["D", "S", "H", "C"], C: ["C", "H", "S", "D"] }[trump];
  return [...cards].sort((a, b) => {
    const sa = order.indexOf(a[1]), sb = order.indexOf(b[1]);
    return sa !== sb ? sa - sb : rankIndex(b) - rankIndex(a);
  });
}

/** "field wide" for a menu whose longest choice would not fit half a phone's width (it spans the grid). */
export function fieldClass(control) {
  const long = control && control.tagName === "SELECT" && [...control.options].some((o) => o.text.length > 13);
  return long ? "field wide" : "field";
}

// --- storage ----------------------------------------------------------------
export function load(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

export function save(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* full or disabled */ }
}

// --- network ----------------------------------------------------------------
export class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

const GATEWAY = [502, 503, 504];

export async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, "network", t("error.network"));
  }
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    // a proxy's own answer (no error of ours in it): no server process answered in time
    const code = (data && data.error) || (GATEWAY.includes(res.status) ? "gateway" : "http");
    throw new ApiError(res.status, code, errorText(code, res.status));
  }
  return data;
}

/**
 * A refusal from the server, worded here from its code (the server's own message is English and
 * for the logs; protocol.ErrorCode lists the codes, and a test holds the catalogue to them).
 */
export function errorText(code, status) {
  return has(`error.${code}`) ? t(`error.${code}`) : t("error.http", { status: status || 0 });
}

// --- feedback ---------------------------------------------------------------
// A toast is a short message that covers no control: it lets taps through (pointer-events: none,
// but for its own close button).  Its place is the first of these that covers no visible button,
// link or field, nor anything marked data-toast-avoid (the cards on the table, the seats): over an
// element marked data-toast-anchor="center" (the table's turn line: a toast is the news of the
// moment), at the bottom of one marked "bottom" (the felt), the bottom of the screen, under the top
// bar, the middle, then any height from the top down; failing that (a small screen full of the
// table), the one that covers no control and the least of what it should avoid; failing that, the first.
let toastTimer = 0;
const CONTROLS = "button, a[href], input, select, textarea, [role=button], [tabindex='0']";

function toastParts(el) {
  let text = el.querySelector(".toast-text");
  if (!text) {
    text = h("span", { class: "toast-text" });
    const close = h("button", { class: "toast-close", type: "button", "aria-label": t("toast.dismiss"), "data-testid": "toast-close" }, "×");
    close.addEventListener("click", () => { clearTimeout(toastTimer); el.classList.remove("show"); });
    fill(el, text, close);
  }
  return text;
}

function overlaps(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

const boxesOf = (selector, vh) => [...document.querySelectorAll(selector)]
  .filter((c) => !c.closest("#toast"))
  .map((c) => c.getBoundingClientRect())
  .filter((r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < vh);

/** The top (px, viewport) for a toast of `height` × `width`. */
export function toastTop(height, width) {
  const vh = window.innerHeight, vw = window.innerWidth;
  const left = (vw - width) / 2, right = left + width;
  const tops = [];
  for (const anchor of document.querySelectorAll("[data-toast-anchor]")) {
    const r = anchor.getBoundingClientRect();
    if (r.height <= 0 || r.bottom <= 0 || r.top >= vh) continue;
    tops.push(anchor.dataset.toastAnchor === "bottom" ? r.bottom - height - 14 : r.top + (r.height - height) / 2);
  }
  tops.push(vh - height - 16, 52, (vh - height) / 2);
  for (let top = 4; top + height <= vh - 4; top += 4) tops.push(top);
  const controls = boxesOf(CONTROLS, vh);
  const marked = boxesOf("[data-toast-avoid]", vh);
  const boxAt = (top) => ({ left, right, top, bottom: top + height });
  const clear = tops.filter((top) => !controls.some((r) => overlaps(boxAt(top), r)));
  const free = clear.find((top) => !marked.some((r) => overlaps(boxAt(top), r)));
  if (free !== undefined) return Math.round(free);
  const covered = (top) => marked.reduce((sum, r) => {
    const b = boxAt(top);
    const w = Math.min(b.right, r.right) - Math.max(b.left, r.left), hh = Math.min(b.bottom, r.bottom) - Math.max(b.top, r.top);
    return sum + (w > 0 && hh > 0 ? w * hh : 0);
  }, 0);
  let best = clear.length ? clear[0] : tops[0];
  for (const top of clear) if (covered(top) < covered(best)) best = top;
  return Math.round(best);
}

/** Place the toast again (the page calls it after it redraws: what it covers may have moved). */
export function placeToast() {
  const el = document.getElementById("toast");
  if (el && el.querySelector(".toast-text")) el.style.top = `${toastTop(el.offsetHeight, el.offsetWidth)}px`;
}

export function toast(message, ms = 3500, kind = "", { quiet = false } = {}) {
  const el = document.getElementById("toast");
  if (!el) return;
  el.dataset.kind = kind;  // (what `hideToast` may take away)
  toastParts(el).textContent = message;
  // read out from a region always in the page (a toast that appears with its text, from hidden,
  // may go unread in a polite region; an alert cut the play-by-play off: a keyboard player's try)
  const said = document.getElementById("toast-said");
  // (`quiet`: shown, not read, where the log says it already)
  if (said && !quiet) said.replaceChildren(h("p", null, message));
  placeToast();
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), ms);
}

/** Take the toast away now if it is of `kind` (a refusal the player has acted past: it may cover
 * what the page says next, as "tap again to play" under the refusal of the card tapped before);
 * a toast of another kind (a card played for the player, the connection) stays its time. */
export function hideToast(kind) {
  const el = document.getElementById("toast");
  if (!el || el.dataset.kind !== kind) return;
  clearTimeout(toastTimer);
  el.classList.remove("show");
}

/** What was done for the seat while its player was away (by a bot or the timer) (the `while_away` message), in words:
 *  a copy of the terminal's `callbreak.tui.online.away_text`, held to it by a test. */
export function awayText(call, cards) {
  if (call !== null && cards) return t("table.away_both", { call, count: cards });
  if (call !== null) return t("table.away_called", { call });
  return t("table.away_played", { count: cards });
}

/** Why a hint suggests its call or card (the `hint` message's `why`, with `mean`, `than` and
 *  `quick`), in words, the cards named by `name` (as on their faces: "10♥"): a copy of
 *  `callbreak.bots.base.Hint.say`, held to it by a test; "" for a hint without a reason, or with
 *  one this page has no words for (a newer server's, while an older page is cached). */
export function hintReason(hint, name = cardSymbol) {
  if (!hint || !hint.why || !has(`hint.why.${hint.why}`)) return "";
  let text;
  if (hint.why === "call" || hint.why === "call_first") {
    const percent = Math.floor((hint.chance || 0) * 100 + 0.5);
    text = t(`hint.why.${hint.why}`, { mean: num((hint.mean || 0).toFixed(1)), percent, call: hint.call || 0 });
  } else if (hint.why === "search") {
    text = t("hint.why.search", { card: name(hint.card), than: name(hint.than) });
  } else {
    text = t(`hint.why.${hint.why}`);
  }
  return hint.quick ? t("hint.why.quick", { why: text }) : text;
}

export async function copyText(text) {
  try {
    // (no navigator.clipboard on plain http at a network address: a server for friends at home)
    if (!navigator.clipboard) throw new Error("no clipboard here");
    await navigator.clipboard.writeText(text);
  } catch {
    if (!copyBySelection(text)) {
      toast(t("toast.copy_failed"));
      return false;
    }
  }
  toast(t("toast.copied"));
  return true;
}

/** The older way to copy, which needs no secure page: a hidden text, selected and copied. */
function copyBySelection(text) {
  const area = h("textarea", { readonly: true, "aria-hidden": "true", style: { position: "fixed", top: "0", left: "0", opacity: "0" } });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch { ok = false; }
  area.remove();
  return ok;
}

export function download(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: filename });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function navigate(path, { replace = false } = {}) {
  // (replace: the page left is one the back button should not come back to, e.g. an invite of a seat held)
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  // a new page starts at its top (the home page's scroll carried to the table left its header cut
  // and the top bar out of view, on a short screen: an older player's try, his text set large)
  window.scrollTo(0, 0);
  window.dispatchEvent(new Event("popstate"));
}

export const PRESETS = {
  standard: {},
  quick: { rounds: 3 },
  pagat: {
    min_call: 2, max_call: 12, overtrick_points: "0", max_overtricks: 1, bonus_call: 8,
    must_head: false, rounds: null, tie_break: "share", direction: "counterclockwise",
  },
  bhoos: { max_call: 8, head_after_cut: false },
};

export const DEFAULT_RULES = {
  min_call: 1, max_call: 13, overtrick_points: "0.1", max_overtricks: null, missed_penalty: "call",
  bonus_call: null, bonus_points: 13, rounds: 5, tie_break: "sudden_death", must_head: true,
  head_after_cut: true, trump: "S", trump_lead: "any", must_undertrump: false,
  redeal_without_trump: false, redeal_without_face_card: false, min_total_calls: 0,
  direction: "clockwise", card_seconds: 15, call_seconds: 30, autoplay_forced: true,
};

/** The presets as people read them (home page, calculator). */
export const PRESET_LIST = ["standard", "quick", "pagat", "bhoos"].map((p) => [p, t(`preset.${p}`)]);

export function presetRules(name) {
  return { ...DEFAULT_RULES, ...(PRESETS[name] || {}) };
}

/** The preset a full rules object equals, or "custom". */
export function presetName(rules, fields = Object.keys(DEFAULT_RULES)) {
  for (const name of Object.keys(PRESETS)) {
    const p = presetRules(name);
    if (fields.every((f) => String(p[f]) === String(rules[f]))) return name;
  }
  return "custom";
}

/** A table's rules in one line for the people about to sit down: "Pagat rules · no fixed end · 15 s a card · 30 s a call"
 *  (without the turn's time where ``timers`` is false: a past match in the list of matches). */
export function rulesSummary(r, { timers: withTimers = true } = {}) {
  // The preset these rules are, rounds included (quick = standard in 3 rounds), else the one they
  // are with another number of rounds; the timers are said apart.
  const timers = new Set(["card_seconds", "call_seconds"]);
  const exact = presetName(r, Object.keys(DEFAULT_RULES).filter((f) => !timers.has(f)));
  const name = exact !== "custom" ? exact : presetName(r, Object.keys(DEFAULT_RULES).filter((f) => !timers.has(f) && f !== "rounds"));
  const parts = [t(`summary.${name}`)];
  parts.push(r.rounds === null || r.rounds === undefined ? t("summary.no_end") : t("summary.rounds", { count: r.rounds }));
  if (withTimers) {
    const card = r.card_seconds ?? null, call = r.call_seconds ?? null;
    if (card === null && call === null) parts.push(t("summary.no_timer"));
    // (both: a Hindi player's try found the calls' 30 s said nowhere before the match)
    if (card !== null) parts.push(t("summary.card_seconds", { count: card }));
    if (call !== null) parts.push(t("summary.call_seconds", { count: call }));
  }
  if (r.trump && r.trump !== "S") parts.push(t("summary.trump", { suit: SUIT_NAME[r.trump] }));
  return parts.join(" · ");
}
