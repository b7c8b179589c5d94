// The player's hand: one row of overlapping cards sized to the screen, and a play gesture that
// cannot hit the wrong card.
//
// - Cards overlap left over right: each card shows a strip of at least SPREAD of its width, more
//   than half, so the centre of a card's face is always inside its own strip.  The hit area of a
//   card is what the player sees: the card drawn on top at a point is the one a tap there reaches.
// - The size depends only on the hand's width (room for 13 cards), never on how many cards are
//   left: the hand keeps its height for the whole round and no card ever changes row.
// - Touch: a tap lifts a legal card ("tap again to play"), a second tap on it plays it; a tap on
//   another card moves the lift; an illegal card is never played (a toast says why).  A second
//   touch where the lifting one was (within TAP_SLOP) and where the card lay before it was lifted
//   (its visible strip) is on the lifted card, whatever the lift uncovered there (a Bengali player's
//   try: a thumb low on a card lifted it, then the card beneath at that spot, back and forth, and
//   none was played); anywhere else, the card drawn there (a Nepali player's try: a tap on the
//   card beside the lifted one, 14 px from the lifting touch, played the lifted card).  With the
//   per-device setting `oneTap` (settings.js) one tap plays.  A card dragged
//   up by more than DRAG_PLAY px and let go is played (lifted first or not); a shorter drag up is a
//   tap, and a slide sideways or back down puts the card back.  A touch is read from pointer
//   events (the hand has `touch-action: none`), and the click it makes afterwards is ignored.
//   A mouse click and Enter/Space on a focused card play at once.
import { clear, cardEl, cardName, sortHand, toast, SUIT_NAME } from "./util.js";
import { getSettings } from "./settings.js";
import { t } from "./i18n.js";

const MAX_CARDS = 13;
const SPREAD = 0.55;   // the visible strip of a card, as a share of its width (> 0.5)
const GAP = 4;         // between cards when they need not overlap (wide screens, few cards)
const RATIO = 1.43;    // card height / width
const DRAG_PLAY = 40;  // px up: a card dragged further than this and let go is played
const TAP_SLOP = 16;   // px sideways (or down) that a touch may move and still be a tap
const OWN_CLICK_MS = 1500;  // the click that follows a touch handled here comes within this

/** Card width and height for a hand `width` px wide, no wider than `maxW`. */
export function cardSize(width, maxW) {
  const cw = Math.max(24, Math.min(maxW, Math.floor(width / (1 + (MAX_CARDS - 1) * SPREAD))));
  return { cw, ch: Math.round(cw * RATIO) };
}

/** Why `card` may not be played now, for a toast. */
export function reasonFor(view) {
  const led = view.trick && view.trick.length ? view.trick[0][1][1] : null;
  if (!led) return t("hand.lead_not_allowed");
  if (view.cards.some((c) => c[1] === led)) return t(view.mustHead ? "hand.follow_head" : "hand.follow", { suit: SUIT_NAME[led] });
  return t("hand.trump");
}

const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * The hand in `box`.  `send(card)` plays a card and returns whether it is on its way (sent, or kept to send once the socket is back); `announce(text)`
 * speaks to screen readers; `onCue()` is called when the lifted card changes (see `cue()`), and
 * `onLift(card)` when the player lifts one.
 * `render(view)` draws it: view = null (no hand) or {cards, trump, playing, calling (the seat to call), pending,
 * sending (the card played, on its way), legal, hint,
 * forced, round, trick, mustHead}.
 */
export function createHand(box, { send, announce, onCue, onLift = () => {} }) {
  let view = null;
  let selected = null;     // the lifted card (touch), or null
  let kept = null;         // {card, n}: the lift the server kept for a page drawn afresh (`adopt`)
  let key = "";            // the selection lives while this stays the same
  let lastPointer = "";
  let launched = null;     // {card, rect, at}: where the last card played left the hand
  let drag = null;         // the touch on a card now: {id, card, x0, y0, dx, dy}
  let touchAt = -Infinity; // when the last touch on a card began or ended (its click is ignored)
  let drawn = "";          // what the cards now in `box` show (they are drawn again only when it changes)
  let liftedAt = null;     // {card, x, y, strip}: where the touch that lifted the card was, and the
                           // card's visible strip before the lift (cards not moved since)

  const onPointer = (e) => { lastPointer = e.pointerType || ""; if (lastPointer === "mouse") touchAt = -Infinity; };
  box.addEventListener("pointerdown", onPointer, true);
  box.addEventListener("pointerdown", onDown);
  box.addEventListener("click", onClick);
  box.addEventListener("keydown", onKey);
  const onResize = () => render(view);
  window.addEventListener("resize", onResize);

  function pointerKind(e) {
    let t = typeof e.pointerType === "string" && e.pointerType ? e.pointerType : "";
    if (!t) t = e.detail === 0 ? "keyboard" : lastPointer;
    if (t === "touch" || t === "pen") return "touch";
    if (t === "mouse" || t === "keyboard") return t;
    return window.matchMedia && window.matchMedia("(pointer: coarse)").matches ? "touch" : "mouse";
  }

  function onClick(e) {
    const el = e.target instanceof Element ? e.target.closest(".card[data-card]") : null;
    if (!el || !box.contains(el)) return;
    const kind = pointerKind(e);
    if (kind === "touch" && (drag || Date.now() - touchAt < OWN_CLICK_MS)) return;  // onUp did it
    if (kind !== "touch") { play(el.dataset.card); return; }
    tap(el.dataset.card);
  }

  /** A tap on `c`: lift first, play on a second tap of the same card (one tap with `oneTap`). */
  function tap(c) {
    if (getSettings().oneTap) { play(c); return; }
    if (!view || !view.playing || view.pending || !view.legal.includes(c) || selected === c) { play(c); return; }
    select(c);
  }

  // ---- touch: tap, or drag up to play ----
  function onDown(e) {
    if ((e.pointerType !== "touch" && e.pointerType !== "pen") || !e.isPrimary || drag) return;
    const el = e.target instanceof Element ? e.target.closest(".card[data-card]") : null;
    const again = selected && liftedAt && liftedAt.card === selected
      && Math.abs(e.clientX - liftedAt.x) <= TAP_SLOP && Math.abs(e.clientY - liftedAt.y) <= TAP_SLOP
      && within(liftedAt.strip, e.clientX, e.clientY);
    if (!again && (!el || !box.contains(el))) return;
    touchAt = Date.now();
    drag = {
      id: e.pointerId, card: again ? selected : el.dataset.card, x0: e.clientX, y0: e.clientY, dx: 0, dy: 0,
      strip: again ? liftedAt.strip : stripOf(el),
    };
    // On the window: the card under the finger may be redrawn (a new element) while it moves.
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp);
    window.addEventListener("pointercancel", onUp);
  }

  /** The part of card element `el` a tap reaches, as the cards lie now: its box, less the box of
   *  the card drawn over it (the next: cards step at least SPREAD of a width, so no other one
   *  overlaps it), wherever that one is (lifted, it uncovers a band of this one). */
  function stripOf(el) {
    const rect = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
    const next = el.nextElementSibling;
    return { card: rect(el), over: next ? rect(next) : null };
  }

  const inside = (r, x, y) => r.left <= x && x < r.right && r.top <= y && y <= r.bottom;
  const within = (strip, x, y) => inside(strip.card, x, y) && !(strip.over && inside(strip.over, x, y));

  function onMove(e) {
    if (!drag || e.pointerId !== drag.id) return;
    drag.dx = e.clientX - drag.x0;
    drag.dy = e.clientY - drag.y0;
    showDrag();
  }

  /** Draw the dragged card where the finger has taken it (never below its place). */
  function showDrag() {
    const el = drag ? box.querySelector(`.card[data-card="${drag.card}"]`) : null;
    if (!el) return;
    const moved = Math.abs(drag.dx) > TAP_SLOP || drag.dy < -TAP_SLOP;
    el.classList.toggle("dragging", moved);
    el.classList.toggle("armed", -drag.dy > DRAG_PLAY);
    el.style.translate = moved ? `${drag.dx}px ${Math.min(0, drag.dy)}px` : "";
  }

  function endDrag() {
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointerup", onUp);
    window.removeEventListener("pointercancel", onUp);
    touchAt = Date.now();
    const d = drag;
    drag = null;
    const el = d ? box.querySelector(`.card[data-card="${d.card}"]`) : null;
    if (el) { el.classList.remove("dragging", "armed"); el.style.translate = ""; }
    return d;
  }

  function onUp(e) {
    if (!drag || e.pointerId !== drag.id) return;
    if (e.type === "pointercancel") { endDrag(); return; }
    drag.dx = e.clientX - drag.x0;
    drag.dy = e.clientY - drag.y0;
    if (-drag.dy > DRAG_PLAY) {
      const c = drag.card;
      play(c);   // (from where it was let go: the card flies on from there)
      endDrag();
      return;
    }
    const d = endDrag();
    if (Math.abs(d.dx) <= TAP_SLOP && d.dy <= TAP_SLOP) {
      tap(d.card);
      if (selected === d.card) liftedAt = { card: d.card, x: d.x0, y: d.y0, strip: d.strip };  // (the touch that lifted it)
    }
  }

  function select(c) {
    selected = c;
    liftedAt = null;  // (a touch that lifted it says where, after this: onUp)
    kept = null;  // (the player's own lift: the one the server kept is no longer theirs)
    onLift(c);  // (the server plays the lifted card if the turn runs out)
    showLifted();
    if (c) announce(t("hand.lifted", { card: cardName(c) }));
    onCue();
  }

  function showLifted() {
    for (const el of box.querySelectorAll(".card[data-card]")) {
      const on = el.dataset.card === selected;
      el.classList.toggle("lifted", on);
      if (on) el.dataset.selected = "true"; else delete el.dataset.selected;
    }
    box.classList.toggle("has-lifted", !!selected);
  }

  /** Play `c` if it may be played now; otherwise say why. */
  function play(c) {
    if (view && view.settling) return;  // the trick just won is a moment on the table: your lead comes after it
    if (view && view.forced) { toast(t("turn.forced"), 3500, "refusal"); return; }  // the server plays it by itself
    // (the seat's call first: "not your turn" sat over "Your turn: make your call", a newcomer's try)
    if (!view || !view.playing) { toast(t(view && view.calling ? "hand.call_first" : "error.not_your_turn"), 3500, "refusal"); return; }
    if (view.pending) return;
    if (!view.legal.includes(c)) {
      // (the toast is read out: a line of the log saying it again was heard twice, a keyboard player's try)
      toast(t("hand.cannot_play", { card: cardName(c), reason: reasonFor(view) }), 3500, "refusal");
      return;
    }
    const el = box.querySelector(`.card[data-card="${c}"]`);
    const rect = el ? el.getBoundingClientRect() : null;
    if (send(c)) launched = rect ? { card: c, rect, at: Date.now() } : null;
  }

  /** The text of the "tap again" cue while a card is lifted, else "". */
  function cue() {
    return selected && view && view.playing && !view.pending ? t("hand.tap_again", { card: cardName(selected) }) : "";
  }

  /** Fly a card just put on the trick (`el`) from where it left the hand. */
  function launch(el) {
    const card = el.querySelector("[data-card]");
    if (!launched || !card || card.dataset.card !== launched.card || Date.now() - launched.at > 3000) return;
    const from = launched.rect;
    launched = null;
    if (reducedMotion() || typeof el.animate !== "function") return;
    const to = el.getBoundingClientRect();
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    el.animate([{ translate: `${dx}px ${dy}px` }, { translate: "0 0" }], { duration: 260, easing: "ease-out" });
  }

  function size() {
    const cs = getComputedStyle(box);
    const width = box.clientWidth - parseFloat(cs.paddingLeft || "0") - parseFloat(cs.paddingRight || "0");
    const maxW = parseFloat(cs.getPropertyValue("--card-w")) || 56;
    return { width: width > 0 ? width : 360, ...cardSize(width > 0 ? width : 360, maxW) };
  }

  function render(v) {
    const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.dataset.card : null;
    view = v;
    const k = v ? `${v.round}:${v.cards.length}:${v.playing}:${v.pending}` : "";
    if (k !== key) { key = k; selected = null; }
    if (selected && !(v && v.playing && !v.pending && v.legal.includes(selected))) selected = null;
    if (kept && selected) kept = null;  // the page's own lift, still good for this turn, wins for good
    if (kept && v) {
      // shown once the turn may be played (after a trick just won settles), while the hand is the
      // one it was kept for; never sent back (the server has it)
      if (kept.n < 0) kept.n = v.cards.length;
      if (v.cards.length !== kept.n || !v.cards.includes(kept.card)) kept = null;
      else if (!selected && v.playing && !v.pending && v.legal.includes(kept.card)) { selected = kept.card; kept = null; }
    }
    const { width, cw, ch } = size();
    box.style.setProperty("--hand-cw", `${cw}px`);
    box.style.setProperty("--hand-ch", `${ch}px`);
    box.classList.toggle("my-turn", !!(v && v.playing && !v.pending));
    if (!v) { clear(box); drawn = ""; showLifted(); if (drag) endDrag(); onCue(); return; }
    const hand = sortHand(v.cards, v.trump);
    const legal = new Set(v.playing ? v.legal : []);
    const pad = parseFloat(getComputedStyle(box).paddingLeft || "0");
    // The cards are drawn again only when what they show changes (not on every message the table
    // gets): the card you focused, or are pressing, stays the same element.
    const look = JSON.stringify([hand.map((c) => (legal.has(c) ? `${c}+` : c)), v.playing, v.forced, v.hint, v.sending, width, cw, pad]);
    if (look !== drawn || !box.firstChild) { drawn = look; liftedAt = null; draw(v, hand, legal, width, cw, pad, focused); }
    showLifted();
    if (drag && !hand.includes(drag.card)) endDrag();   // played for you meanwhile
    else if (drag) showDrag();
    onCue();
  }

  function draw(v, hand, legal, width, cw, pad, focused) {
    clear(box);
    const n = hand.length;
    const step = n > 1 ? Math.min(cw + GAP, (width - cw) / (n - 1)) : 0;
    const x0 = Math.max(0, (width - (cw + step * (n - 1))) / 2);
    hand.forEach((c, i) => {
      const isLegal = legal.has(c);
      // (the card played and on its way stands out: on a silent link it sat in the hand like any
      // other, and a newcomer took the tap for lost)
      const cls = [c === v.forced ? "forced" : "", c === v.hint ? "hinted" : "", c === v.sending ? "sending" : ""].filter(Boolean).join(" ");
      const el = cardEl(c, { button: true, cls });
      el.dataset.legal = String(isLegal);
      el.tabIndex = -1;
      el.style.left = `${pad + x0 + i * step}px`;
      // (the hinted card says so: its dashed ring alone was not read, a keyboard player's try)
      el.setAttribute("aria-label", c === v.sending ? t("hand.card_sending", { card: cardName(c) })
        : v.playing && !isLegal ? t("hand.card_not_playable", { card: cardName(c) })
        : c === v.hint ? t("hand.card_suggested", { card: cardName(c) }) : cardName(c));
      if (v.playing && !isLegal) el.setAttribute("aria-disabled", "true");   // (while calling, the cards are to be read, not "unavailable")
      box.append(el);
    });
    const cards = [...box.querySelectorAll(".card")];
    if (cards.length) {
      let idx = focused ? cards.findIndex((e) => e.dataset.card === focused) : -1;
      if (idx < 0) idx = Math.max(0, cards.findIndex((e) => e.dataset.legal === "true"));
      cards[idx].tabIndex = 0;
      if (focused) cards[idx].focus({ preventScroll: true });
    }
  }

  function onKey(e) {
    touchAt = -Infinity;
    const cards = [...box.querySelectorAll(".card")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    let j = -1;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") j = Math.min(cards.length - 1, i + 1);
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = Math.max(0, i - 1);
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = cards.length - 1;
    if (j >= 0) {
      e.preventDefault();
      cards.forEach((c) => { c.tabIndex = -1; });
      cards[j].tabIndex = 0;
      cards[j].focus();
    }
  }

  function destroy() {
    if (drag) endDrag();
    window.removeEventListener("resize", onResize);
  }

  /** The card the server kept lifted for this seat's turn now (a snapshot's `lifted`, null: none):
   *  shown lifted when the hand is next drawn for that turn, unless the page has lifted one itself. */
  function adopt(c) { kept = c ? { card: c, n: -1 } : null; }

  return { render, play, cue, launch, destroy, adopt, selected: () => selected };
}
