// The table: a seat's (or a spectator's) live view over one WebSocket.
import { h, clear, fill, keepFocus, redraw, cardEl, cardName, toast, placeToast, errorText, api, hideToast, awayText, hintReason, SUIT_SYMBOL, SUIT_NAME, RANKS } from "./util.js";
import { t as tr, num } from "./i18n.js";
import { tokenFor, seatRecord, rememberSeat, updateRecord, forgetToken } from "./seats.js";
import { createHand } from "./hand.js";
import { behindSummary, drawDialogs } from "./dialogs.js";
import { renderLobby } from "./lobby.js";
import { avatarOf, seatBadges, botLabel, readableSeats, dealerIcon } from "./avatars.js";
import { tableFeedback } from "./feedback.js";
import { sheetOf, addRound } from "./sheet.js";


const ENDED = new Set(["over", "expired", "abandoned"]);  // statuses of a table with nothing left to play
const LIFT = "lift";      // the ref of a "select" message (a lifted card): its refusals are not shown
const RESEND = "resend";  // the ref of a call or card sent again after a socket given up: its refusals are not shown
const ACT = "act-";       // the refs of the calls and cards the player makes ("act-1", ...): see `settled`
const GUARD_MS = 500;     // the winner of a trick may lead once it has been on the table this long
const HOLD_MS = 900;      // a finished trick stays in the middle this long
const COLLECT_MS = 350;   // then flies to its winner
// the error codes after which this page cannot go on (protocol.FATAL: a test holds them equal)
const FATAL = new Set(["bad_token", "no_table"]);
// the refusals of a call or card that came after its turn went on
const LATE = new Set(["not_your_turn", "illegal", "wrong_status"]);

/** One WebSocket with silent reconnection (exponential backoff with jitter). */
// A socket that hears nothing is dead, whether or not the browser knows it yet (a phone in a dead
// zone, Wi-Fi without internet: the socket stays open and nothing arrives). After QUIET_MS of
// silence the page pings; a message sent (a ping, a play, ...) with nothing at all heard since for
// PROBE_MS sends a ping too (an answer may be slow to come: a hint waits its turn), and with
// nothing heard for STALL_MS the socket is given up: the page says it is reconnecting and opens
// another. A socket still connecting after CONNECT_MS is given up too. The browser's "offline"
// gives it up at once, and "online" opens another at once. A try that got no answer at all (still
// connecting, or stalled) makes the next one ask another process (?via=N, a key of its own for the
// load balancer: deploy/nginx/callbreak.conf): a process that hangs still accepts connections, and
// its tables' sockets would wait on it, while any other takes a table over once its lease lapses.
const QUIET_MS = 8000;
const PROBE_MS = 3000;
const STALL_MS = 6000;
const CONNECT_MS = 8000;
const UNANSWERED = new Set(["select"]);  // client messages the server answers with nothing

class Connection {
  constructor(url, { onMessage, onStatus, since, protocols }) {
    this.url = url; this.onMessage = onMessage; this.onStatus = onStatus; this.since = since; this.protocols = protocols;
    this.attempts = 0; this.stopped = false; this.ws = null; this.timer = 0;
    this.silent = 0;  // tries in a row that got no answer (the next asks ?via=N)
    this.heard = 0;   // when the socket last brought a message (or opened)
    this.asked = 0;   // when the oldest message still unanswered was sent (0: none)
    this.probed = false;  // whether a ping has followed it
    this.opened = 0;  // when the socket now connecting was made
    this.watch = setInterval(() => this.check(), 1000);
    this.onOffline = () => this.drop();
    this.onOnline = () => { this.attempts = 0; this.drop(); };
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    this.open();
  }
  open() {
    if (this.stopped) return;
    let ws;
    const url = this.silent ? `${this.url}?via=${this.silent}` : this.url;
    try { ws = new WebSocket(url, this.protocols); } catch { this.retry(); return; }
    this.ws = ws;
    this.opened = Date.now();
    ws.onopen = () => {
      this.attempts = 0;
      this.heard = Date.now(); this.asked = 0; this.probed = false;
      this.send({ type: "hello", since: this.since() });
      this.onStatus(true);
    };
    ws.onmessage = (e) => {
      this.heard = Date.now(); this.asked = 0; this.probed = false; this.silent = 0;
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      this.onStatus(false);
      this.retry();
    };
  }
  check() {
    const ws = this.ws;
    const now = Date.now();
    if (ws && ws.readyState === WebSocket.CONNECTING && now - this.opened > CONNECT_MS) { this.silent += 1; this.drop(); return; }
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (this.asked && now - this.asked > STALL_MS) { this.silent += 1; this.drop(); }  // (nothing at all heard since: any message clears it)
    else if (this.asked && !this.probed && now - this.asked > PROBE_MS) { this.probed = true; this.send({ type: "ping" }); }
    else if (!this.asked && now - this.heard > QUIET_MS) this.send({ type: "ping" });
  }
  /** Give this socket up and open another: after the usual wait, at once once back online. */
  drop() {
    if (this.stopped) return;
    const ws = this.ws;
    this.ws = null; this.asked = 0; this.probed = false;
    if (ws) {
      ws.onclose = null; ws.onmessage = null;
      try { ws.close(); } catch { /* (a socket the browser already closed) */ }
      this.onStatus(false);
    }
    clearTimeout(this.timer);
    if (navigator.onLine === false) return;  // "online" opens the next one
    if (ws) this.retry(); else this.open();
  }
  retry() {
    const delay = Math.min(8000, 400 * 2 ** this.attempts) * (0.75 + Math.random() * 0.5);
    this.attempts += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }
  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      if (!this.asked && !UNANSWERED.has(obj.type)) this.asked = Date.now();
      return true;
    }
    return false;
  }
  resync() { this.send({ type: "hello", since: this.since() }); }
  close() {
    this.stopped = true;
    clearTimeout(this.timer); clearInterval(this.watch);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    if (this.ws) { const ws = this.ws; this.ws = null; ws.close(); }
  }
}

/** A seat token as the server makes them (URL-safe base64): what may go in the handshake. */
const SEAT_TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

export function renderTable(root, id) {
  // A token in the URL fragment (/t/ID#TOKEN) is saved, then removed from the address bar.
  // A link pasted with something after it (a chat's ")" or "."): the token is its URL-safe part.
  if (location.hash.length > 10) {
    let token = "";
    try { token = decodeURIComponent(location.hash.slice(1)); } catch { /* not a token */ }
    token = token.replace(/[^A-Za-z0-9_-]+$/, "");
    if (!tokenFor(id) && SEAT_TOKEN.test(token)) rememberSeat({ table: id, token, seat: null });
    history.replaceState(null, "", location.pathname);
  }
  // (a token that is not one cannot go in the handshake: the page has no seat, and says so)
  const token = SEAT_TOKEN.test(tokenFor(id) || "") ? tokenFor(id) : null;
  if (!token) {
    const page = h("div", { class: "page", "data-testid": "no-seat" }, h("h1", null, tr("table.no_seat")),
      h("p", null, tr("table.no_seat_text")),
      h("p", null, h("a", { class: "btn", href: `/watch/${id}`, "data-link": true }, tr("table.watch")), " ",
        h("a", { class: "btn", href: "/", "data-link": true }, tr("nav.home"))));
    fill(root, page);
    // a link to no table at all (mistyped, or cut short) says so, not "ask for an invite"
    api("GET", `/api/tables/${encodeURIComponent(id)}`).catch((e) => {
      if (e.code !== "no_table" || !page.isConnected) return;
      fill(page, h("h1", null, tr("error.no_table")),
        h("p", null, h("a", { class: "btn", href: "/", "data-link": true }, tr("nav.home"))));
    });
    return () => {};
  }
  return mountTable(root, id, token);
}

export function renderWatch(root, id) {
  return mountTable(root, id, null);
}

function mountTable(root, id, token) {
  const S = {
    table: null, state: null, v: 0, offset: 0, held: null, hint: null, hintFor: null, pending: null, missed: null, unseen: [],
    connected: false, fatal: null, rematch: null, showFinal: true, dialog: null, ringTotals: {}, keyBuf: "",
    lastAnnounced: "", autos: new Set(), sheet: [], unsent: null,
  };
  const spectator = token === null;
  const record = spectator ? null : seatRecord(id);

  // ---- static skeleton ----
  // A log: each announcement a line of its own, read in turn ("Arjun played the ace of diamonds."
  // then "Your turn: play a card.", in one task; replacing one text with the next, a screen reader
  // read only the last), the oldest dropped (removals are not read).
  const live = h("div", { class: "sr-only", role: "log", "aria-live": "polite", "aria-relevant": "additions", "data-testid": "announce" });
  const banner = h("div", { class: "banner", role: "status", "data-testid": "disconnected", hidden: true }, tr("table.disconnected"));
  const top = h("div", { class: "table-top" });
  const felt = h("div", { class: "felt", "data-testid": "felt" });
  const turnLine = h("p", { class: "turn-line", "data-testid": "turn-line", tabindex: "-1" });
  const picker = h("div", { class: "picker-slot" });   // laid over the felt (renderFelt puts it there)
  // (the keys said to a screen reader: they were in the README alone, a keyboard player's try)
  const handKeys = h("p", { class: "sr-only", id: "hand-keys" }, tr("hand.keys"));
  const handBox = h("div", { class: "hand", "data-testid": "hand", role: "group", "aria-label": tr("table.your_hand"), "aria-describedby": "hand-keys" });
  const dialogs = h("div");
  const page = h("div", { class: "table-page", "data-testid": spectator ? "spectator" : "table" },
    top, felt, turnLine, spectator ? null : handBox, spectator ? null : handKeys, dialogs, live, banner);
  fill(root, page);
  const hand = createHand(handBox, {
    send: (c) => {
      choose({ type: "play", card: c }, { card: c });
      S.hint = null; renderHand(); renderTurnLine();
      return true;
    },
    announce: (text) => announce(text),
    onCue: () => { if (S.table) renderTurnLine(); },
    onLift: (c) => {
      // a card touched on the seat's turn while a bot plays it takes the seat back, before the bot
      // plays (a Bengali player's try: the lift was the bot's to ignore, it played another card, and
      // the second tap was told "not your turn")
      const seat = S.table && me() >= 0 ? S.table.seats[me()] : null;
      if (c && seat && seat.autoplay) conn.send({ type: "back" });
      conn.send({ type: "select", card: c, ref: LIFT });  // (the socket down: told again on the next `synced`)
      if (c) hideToast("refusal");  // ("tap again to play" shows: a refusal's toast lay over it)
    },
  });
  document.addEventListener("keydown", onGlobalKey);
  // What the timer did for the seat while the page was out of sight (another app in front: the
  // socket stays up, so no `while_away` comes), said again when it is back in view (a Hindi
  // player's try: the timer played his 2♣, and its toast had gone before he looked)
  const onVisible = () => {
    if (document.hidden || !S.unseen.length) return;
    const text = S.unseen.join(" ");
    S.unseen = [];
    toast(text, 8000);
  };
  document.addEventListener("visibilitychange", onVisible);
  /** A toast of something done for the player's seat: kept, too, for the page's return into view. */
  const toastForSeat = (text, ms = 3500) => {
    toast(text, ms);
    if (document.hidden) S.unseen = [...S.unseen.slice(-2), text];
  };
  // the control that last had the keyboard's focus inside the table: when a redraw takes it away
  // (removed or disabled), render puts the focus back near; not when the player moved it away
  let lastFocused = null;
  page.addEventListener("focusin", (e) => { lastFocused = e.target; });
  // the player moved it away themselves (a tap on the bare felt: the control is still there and
  // usable): nothing is put back. Read once the task that lost the focus is done: a redraw's
  // removal fires a focusout too, with the control still in the page at that moment (a keyboard
  // player's try: after "Start" or "Next round", the focus fell to the page's start, 8 Tabs from
  // the call picker)
  page.addEventListener("focusout", (e) => {
    const el = e.target;
    setTimeout(() => {
      if (el === lastFocused && el.isConnected && !el.disabled && document.activeElement !== el) lastFocused = null;
    }, 0);
  });
  // (a button disabled while it has the focus keeps it in Chromium a moment: nowhere to go on from)
  const nowhere = () => !document.activeElement || document.activeElement === document.body || document.activeElement.disabled;

  // the seat's token goes in the handshake (Sec-WebSocket-Protocol), never in the URL, which proxies log
  const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${encodeURIComponent(id)}`;
  let bannerTimer = 0;
  const conn = new Connection(wsUrl, {
    protocols: token ? ["callbreak", `token.${token}`] : ["callbreak"],
    since: () => S.v,
    onStatus: (up) => {
      S.connected = up;
      clearTimeout(bannerTimer);
      if (up) banner.hidden = true;
      else bannerTimer = setTimeout(() => { if (!S.connected && !S.fatal) banner.hidden = false; }, 700);
      // a call or card sent on a socket given up may never have arrived (a Hindi player's try: a
      // call tapped as the signal went was lost, the picker came back with no word, and the timer
      // called 1): it is sent again once the next socket is up to date, if the catch-up shows the
      // same turn still waiting for it (`resendUnsent`); a hint asked for on it is asked again
      if (!up) S.hintFor = null;
      if (!up && S.pending) S.unsent = S.pending;
    },
    onMessage,
  });
  const ticker = setInterval(tickRings, 100);
  let heldTimer = 0;

  // ---- helpers ----
  const me = () => (S.table && S.table.you >= 0 ? S.table.you : -1);
  const seatName = (s) => {
    const seat = S.table && S.table.seats[s];
    const n = seat && seat.name ? seat.name : tr("seat.n", { n: s + 1 });
    // (alone against bots with no name typed, the name is "You" itself: not "You (you)")
    return s === me() && n !== tr("seat.you") ? tr("seat.name_you", { name: n }) : n;
  };
  const shortName = (s) => (s === me() ? tr("seat.you") : (S.table && S.table.seats[s] && S.table.seats[s].name) || tr("seat.n", { n: s + 1 }));
  const serverNow = () => Date.now() + S.offset;
  function position(seat) {
    const base = me() >= 0 ? me() : 0;
    const k = (seat - base + 4) % 4;
    const cw = !S.table || S.table.rules.direction !== "counterclockwise";
    return ["bottom", cw ? "left" : "right", "top", cw ? "right" : "left"][k];
  }
  function announce(text) {
    if (!text || text === S.lastAnnounced) return;
    S.lastAnnounced = text;
    live.append(h("p", null, text));
    while (live.childElementCount > 6) live.firstElementChild.remove();
  }
  /** Where the round is (a call or card sent belongs to this turn and no other): the hand held
   *  tells a deal from the one dealt again (a redeal keeps the round, the phase and the seat). */
  const turnKey = () => {
    const st = S.state;
    return st ? `${st.round_number}:${st.phase}:${st.tricks.length}:${st.trick.length}:${st.to_act}:${(st.hand || []).join(",")}` : "";
  };
  /** After a catch-up: the call or card sent on a socket given up, sent again if its turn is
   *  still waiting (else the catch-up showed it made, or the timer's). */
  function resendUnsent() {
    const u = S.unsent;
    S.unsent = null;
    if (!u || spectator) return;
    const st = S.state;
    const due = st && st.to_act === me() && turnKey() === u.turn
      && ("card" in u ? st.legal_cards.includes(u.card) : st.legal_calls.includes(u.call));
    if (due && conn.send("card" in u ? { type: "play", card: u.card, ref: RESEND, at: u.at } : { type: "call", call: u.call, ref: RESEND })) {
      S.pending = u;
      render();
      return;
    }
    if (S.pending === u) S.pending = null;
    // The turn went on without it (a catch-up too long for events: the snapshot shows the card
    // still in the hand, or another call made)
    // (of this round only: a snapshot of a later round holds another hand and other calls)
    const calls = st && st.calls, made = calls ? calls[me()] : null;
    const sameRound = !!st && u.turn.split(":")[0] === String(st.round_number);
    if (sameRound && ("card" in u ? !!(st.hand && st.hand.includes(u.card)) : made !== null && made !== undefined && made !== u.call)) {
      tellMissed(u, null);
    }
    render();
  }
  /** A call or card the player chose offline that the turn went on without (the timer's, or a
   *  bot's; ``done``: what was made for the seat instead, where the events tell): said, and kept a
   *  moment for the `while_away` that may follow in the same catch-up. A Hindi player's try: a
   *  card tapped offline ("your card goes as soon as the connection is back") was back in the hand
   *  with only "1 card was played for you" to tell why. */
  function tellMissed(u, done) {
    const text = "card" in u
      ? tr(done === null ? "table.missed_card" : "table.missed_card_played", { card: cardName(u.card), played: done === null ? "" : cardName(done) })
      : tr(done === null ? "table.missed_call" : "table.missed_call_made", { call: u.call, made: done === null ? "" : done });
    S.missed = { text, told: done !== null, call: !("card" in u), at: Date.now() };
    toastForSeat(text, 8000);
    announce(text);
  }
  let actions = 0;          // the calls and cards this page has sent (their refs)
  const settled = [];       // the refs of those whose turn an event of this seat settled (the last few)
  /** The call or card `waiting` for, its turn settled by an event of this seat (its own, or the
   *  timer's): a refusal of it later (it came late) says nothing more. */
  function settle(waiting) {
    if (!waiting || !waiting.ref) return;
    settled.push(waiting.ref);
    if (settled.length > 8) settled.shift();
  }
  /** The player's call or card: sent; with no socket up (offline, or reconnecting) kept, and sent
   *  once the next socket has caught up if its turn still waits for it (`resendUnsent`). A Bengali
   *  player's try: a call tapped with the phone offline was lost ("try again in a moment"), the
   *  suggested call still lit as if chosen, and the timer called 1. */
  function choose(msg, what) {
    // each its own ref (refused after its turn went on: said by the event, `settled`); a card, the
    // cards played when it was chosen (protocol.Play.at: the server plays it on no later turn)
    actions += 1;
    msg.ref = `${ACT}${actions}`;
    if ("card" in what && S.state) msg.at = S.state.tricks.length * 4 + S.state.trick.length;
    S.pending = { ...what, turn: turnKey(), ref: msg.ref, at: msg.at };
    // (a card's wait is said on the line under the table: a toast beside it said it twice, a
    // Bengali player's try; a call's line says only "your call")
    if (!conn.send(msg)) { S.unsent = S.pending; if (!("card" in what)) toast(tr("table.sent_when_back")); }
  }
  const send = (obj) => {
    if (!conn.send(obj)) { toast(tr("table.not_connected")); return false; }
    return true;
  };
  const dialogCtx = { S, id, token, spectator, me, shortName, send, closeDialog: (opener) => closeDialog(opener) };
  const lobbyCtx = { S, id, spectator, record, send };

  // ---- messages ----
  // Every table the server sends is taken here: its bots' names in the reader's script, and the
  // state behind a round's summary agreeing with it
  function takeTable(table, state) {
    S.table = readableSeats(table); S.state = behindSummary(table, state);
  }
  function onMessage(msg) {
    if (typeof msg.server_time === "number") S.offset = msg.server_time - Date.now();
    switch (msg.type) {
      case "snapshot":
        S.v = msg.v; takeTable(msg.table, msg.state); S.held = null; S.pending = null; S.autos = new Set();
        S.sheet = sheetOf(msg);
        // The server keeps for the turn's end the card this page shows lifted: a page drawn afresh
        // (a reload) shows the one the server kept; a page that lifted one tells it again (a
        // server that took the table over kept none)
        if (!spectator) hand.adopt(typeof msg.lifted === "string" ? msg.lifted : null);  // (a number: a call the terminal chose)
        // the seat, for a record kept without it (a seat link, a rematch): the analysis lists its
        // player's own slips by it
        if (!spectator && me() >= 0) { const rec = seatRecord(id); if (rec && !Number.isInteger(rec.seat)) updateRecord(id, { seat: me() }); }
        render();
        if (!spectator && hand.selected() && hand.selected() !== msg.lifted) conn.send({ type: "select", card: hand.selected(), ref: LIFT });
        resendUnsent();  // (a catch-up too long for events ends with the snapshot: no `synced` follows)
        break;
      case "event": {
        if (msg.v <= S.v) return;
        if (msg.v > S.v + 1) { conn.resync(); return; }
        S.v = msg.v;
        const prevState = S.state, prevTable = S.table;
        takeTable(msg.table, msg.state);
        if (msg.event && msg.event.kind === "round_over") S.sheet = addRound(S.sheet, msg.event);
        onEvent(msg.event || {}, prevState, prevTable);
        render();
        break;
      }
      case "synced":
        // the lift told again (as after a snapshot: a server that took the table over kept none);
        // never "no lift": a page puts no lift down but by playing it, and the same seat open in
        // the terminal may have chosen a call or a card that "none" would clear
        if (!spectator && hand.selected()) conn.send({ type: "select", card: hand.selected(), ref: LIFT });
        if (msg.table) { takeTable(msg.table, S.state); render(); }
        resendUnsent();  // (on the table as caught up)
        break;
      case "table":
        if (msg.table) { takeTable(msg.table, S.state); render(); }
        break;
      case "hint":
        if (typeof msg.v === "number" && msg.v !== S.v) break; // stale: the game moved on
        S.hint = msg; render();
        break;
      case "error":
        if (msg.ref === LIFT) break;  // a lift the turn outran: nothing to tell (the timer plays the lowest card)
        S.pending = null;
        // (a call or card sent again refused: it had arrived after all, or the turn moved on; the
        // events tell. Not a refusal that ends the page's seat: that is said as any other)
        if (msg.ref === RESEND && !FATAL.has(msg.code)) { render(); break; }
        // (a call or card that reached the server after its turn's timer had acted: the event before
        // this refusal said so, "Your call of 3 did not reach the table in time: 1 was called for
        // you", or "Time ran out: the 5♣ was played for you"; "It is not your turn now" over it read
        // as a tap ignored, a Bengali player's try on a slow link)
        if (typeof msg.ref === "string" && settled.includes(msg.ref) && LATE.has(msg.code)) { render(); break; }
        if (FATAL.has(msg.code)) {
          S.fatal = errorText(msg.code); conn.close(); banner.hidden = true;
          if (!spectator) updateRecord(id, { over: true });  // (no way back to it from the home page)
          if (!spectator && msg.code === "bad_token") forgetToken(id);  // (its invite seats this browser again)
        }
        toast(errorText(msg.code));
        announce(errorText(msg.code));
        render();
        break;
      case "while_away": {
        // the player back: what was done for the seat meanwhile (by a bot or the timer) (found in a newcomer's try: a player
        // back after a minute found a call of 3 pinned on them, and no word of it)
        // (after the move the player made offline that did not go, in the same catch-up: both said,
        // unless that one move, named with what was made instead, is all there is to tell)
        const lost = S.missed && Date.now() - S.missed.at < 5000 ? S.missed : null;
        S.missed = null;
        const away = awayText(msg.call, msg.cards);
        const only = lost && lost.told && (lost.call ? !msg.cards : msg.call === null && msg.cards <= 1);
        const text = !lost ? away : only ? lost.text : `${lost.text} ${away}`;
        toastForSeat(text, 8000);  // (come while out of sight, said again back in view)
        announce(text);
        break;
      }
      case "rematch":
        S.rematch = { table: msg.table, token: msg.token };
        if (msg.token) rememberSeat({ table: msg.table, token: msg.token, seat: msg.seat ?? null, invite: null, host: false });
        render();
        break;
      default:
        break;
    }
  }

  function onEvent(ev, prevState, prevTable) {
    const mine = me();
    let missed = null;  // (a card the player chose offline that the turn went on without)
    tableFeedback(ev, prevState, S.state, S.table);
    switch (ev.kind) {
      case "play":
        // a card of this seat, the player's or one played for it (a bot on autoplay): its hint is spent
        if (ev.seat === mine) {
          const waiting = S.unsent || S.pending;
          settle(waiting);
          if (waiting && "card" in waiting && waiting.card !== ev.card) missed = waiting;
          S.pending = null; S.hint = null; S.unsent = null;
        }
        // The next trick has begun: stop holding the last one (collect it now), so that
        // the new lead is on the table when you are asked to answer it.
        if (S.held && S.held.phase === "hold") {
          clearTimeout(heldTimer);
          S.held.phase = "collect";
          heldTimer = setTimeout(() => { S.held = null; render(); }, COLLECT_MS);
        }
        if (ev.auto) S.autos.add(ev.card);
        S.fresh = { card: ev.card, at: Date.now() };
        // The fourth card: the trick is held from now, not from its own event a message later, so
        // that its winner's hand is never playable with the finished trick not yet on the table.
        if (prevState && prevState.trick && prevState.trick.length === 3 && S.state && typeof S.state.to_act === "number"
            && S.state.phase === "playing") {
          holdTrick([...prevState.trick, [ev.seat, ev.card]], S.state.to_act, true);
        }
        if (missed) {
          tellMissed(missed, ev.card);
        } else if (ev.seat === mine && ev.auto && ev.reason !== "autoplay") {
          toastForSeat(tr(ev.reason === "timeout" ? "table.timeout_played" : "table.played_for_you", { card: cardName(ev.card) }));
        } else if (ev.seat === mine && !ev.auto && onlyCard(prevState) === ev.card && prevState.hand && prevState.hand.length > 1) {
          // (told to everyone as a card played: the server plays the only legal card by itself; not
          // said of a hand's last card, which has no choice: it lay over the round's sheet)
          // (shown, not read: the log says the card played, and the turn said it would be played)
          toast(tr("table.only_legal", { card: cardName(ev.card) }), 1800, "", { quiet: true });
        }
        announce(tr(ev.seat === mine ? "announce.played_you" : "announce.played", { name: shortName(ev.seat), card: cardName(ev.card) }));  // (the polite form of "you": "खेल्नुभयो")
        break;
      case "call":
        if (ev.seat === mine) {
          const waiting = S.unsent || S.pending;
          settle(waiting);
          S.pending = null; S.unsent = null;
          if (waiting && "call" in waiting && waiting.call !== ev.call) tellMissed(waiting, ev.call);
          else if (ev.reason === "timeout") toastForSeat(tr("table.timeout_called", { call: ev.call }));  // (a bot's call: the autoplay note says so)
        }
        announce(tr(ev.seat === mine ? "announce.called_you" : "announce.called", { name: shortName(ev.seat), call: ev.call }));
        break;
      case "trick":
        if (!(S.held && S.held.early)) holdTrick(ev.cards, ev.winner, false);  // (else held at its fourth card)
        else S.held.early = false;
        announce(tr(ev.winner === mine ? "announce.trick_you" : "announce.trick", { name: shortName(ev.winner) }));
        break;
      case "deal":
        // (a held trick is the last round's last one: it stays on the table until collected)
        S.hint = null; S.hintFor = null; S.unsent = null;  // (a call or card of the deal before is not this one's)
        announce(tr(ev.sudden_death ? "announce.deal_sudden" : "announce.deal", { round: ev.round }));
        break;
      case "redeal":
        S.unsent = null;
        toast(tr("table.redeal"));
        break;
      case "round_over":
        announce(tr("announce.round_over", { round: ev.round }));
        break;
      case "match_over":
        S.showFinal = true;
        announce(tr("table.match_over"));
        if (!spectator) updateRecord(id, { over: true, places: ev.places, totals: ev.totals });
        break;
      case "seated":  // (the lobby: a screen reader heard nothing of a friend sitting down)
        if (ev.seat !== mine) announce(tr("announce.seated", { name: ev.name }));
        break;
      case "left":
        if (ev.seat !== mine) announce(tr("announce.left", { name: (prevTable && prevTable.seats[ev.seat] && prevTable.seats[ev.seat].name) || tr("seat.n", { n: ev.seat + 1 }) }));
        break;
      case "rematch":
        break;
      default:
        break;
    }
  }

  // ---- rendering ----
  let recordClosed = false;
  function render() {
    if (S.fatal) {
      fill(page, h("div", { class: "lobby" }, h("h1", null, tr("table.unavailable")), h("p", null, S.fatal),
        h("a", { class: "btn", href: "/", "data-link": true }, tr("nav.home"))));
      return;
    }
    if (!S.table) { fill(felt, h("div", { class: "center-msg" }, tr("table.connecting"))); return; }
    if (!spectator && !recordClosed && ENDED.has(S.table.status)) {
      recordClosed = true;
      updateRecord(id, { over: true });  // (the home page offers no way back to it)
    }
    // toasts: over the turn line, else at the bottom of the felt (util.js toastTop)
    if (S.table.status !== "lobby") { turnLine.dataset.toastAnchor = "center"; felt.dataset.toastAnchor = "bottom"; }
    else { delete turnLine.dataset.toastAnchor; delete felt.dataset.toastAnchor; }
    renderTop();
    renderFelt();
    renderPicker();
    renderHand();
    renderTurnLine();
    renderDialogs();
    placeToast();
    maybeAskHint();
    if (lastFocused && nowhere() && (!lastFocused.isConnected || lastFocused.disabled)) {
      // what the keyboard was on went away with a redraw (the call picker after a call, the round's
      // dialog after "Next round"): the hand takes it, else the turn line, not the page's start
      const card = handBox.querySelector(".card[tabindex='0']");
      (card || turnLine).focus({ preventScroll: true });
    }
  }

  function renderTop() {
    const st = S.state, t = S.table;
    const trump = (t.rules && t.rules.trump) || "S";
    const info = h("span", { class: "round-info", "data-testid": "round-info" });
    if (t.status === "lobby") info.append(tr("table.waiting_start"));
    else if (st) {
      // (a position played again says the match's round it is in: "Round 1 of 1" read as a new match)
      info.append(t.practice ? tr("table.practice_round", { round: t.practice.round })
        : st.rounds ? tr("table.round_of", { round: st.round_number, rounds: st.rounds }) : tr("table.round", { round: st.round_number }));
      if (st.sudden_death) info.append(h("span", { class: "sd", "data-testid": "sudden-death" }, tr("table.sudden_death")));
    }
    // One line of fixed height: the buttons are always there (disabled until they can be used), so
    // the table below never moves when one becomes usable.
    const buttons = h("span", { class: "top-buttons" });
    if (st) {
      buttons.append(h("button", { class: "btn", type: "button", "data-testid": "last-trick-btn", disabled: !(st.tricks && st.tricks.length), onclick: () => { S.dialog = "last"; renderDialogs(); } }, tr("table.last_trick")));
      buttons.append(h("button", { class: "btn", type: "button", "data-testid": "scores-btn", onclick: () => { S.dialog = "scores"; renderDialogs(); } }, tr("table.scores")));
    }
    // watching a table this browser holds a seat at: the way to it (a newcomer's try found none)
    if (spectator && tokenFor(id) && t.status !== "over") buttons.append(h("a", { class: "btn", href: `/t/${id}`, "data-link": true, "data-testid": "your-seat-btn" }, tr("table.your_seat")));
    if (t.status === "over") buttons.append(h("button", { class: "btn", type: "button", "data-testid": "results-btn", onclick: () => { S.showFinal = true; renderDialogs(); } }, tr("table.results")));
    else if (!spectator && st) {
      const can = st.phase === "playing" && st.to_act === me() && t.status === "playing" && !forcedCard();
      buttons.append(h("button", { class: "btn", type: "button", "data-testid": "hint-btn", disabled: !can, onclick: () => send({ type: "hint" }) }, tr("table.hint")));
    }
    // The bar is drawn afresh on every change: a button that had the focus gets it back.
    redraw(top, (box) => fill(box,
      // (a spectator's "watching" on the trump's line: on a line of its own it fell below the bar)
      h("span", { class: "top-info" }, info, " ", h("span", null,
        h("span", { title: tr("table.trump_title"), "data-testid": "trump" }, h("span", { "aria-hidden": "true" }, tr("table.trump", { symbol: SUIT_SYMBOL[trump] })), h("span", { class: "sr-only" }, tr("table.trump_label", { suit: SUIT_NAME[trump] }))),
        spectator ? h("span", { "data-testid": "watching" }, " · ", tr("table.watching")) : null)),
      buttons));
  }

  function ring(seat) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "ring");
    svg.setAttribute("viewBox", "0 0 36 36");
    svg.setAttribute("aria-hidden", "true");
    svg.dataset.seat = String(seat);
    for (const cls of ["track", "bar"]) {
      const c = document.createElementNS("http://www.w3.org/2000/svg", "circle");
      c.setAttribute("cx", "18"); c.setAttribute("cy", "18"); c.setAttribute("r", "16");
      c.setAttribute("class", cls);
      if (cls === "bar") { c.setAttribute("stroke-dasharray", "100.53"); c.setAttribute("pathLength", "100.53"); }
      svg.appendChild(c);
    }
    return svg;
  }

  function tickRings() {
    const t = S.table;
    const next = dialogs.querySelector(".next-secs");
    if (next && t && t.deadline) next.textContent = num(Math.max(0, Math.ceil((t.deadline - serverNow()) / 1000)));
    const bar = felt.querySelector("svg.ring .bar");
    if (!t || !bar) return;
    if (!t.deadline) { bar.setAttribute("stroke-dashoffset", "0"); return; }
    const left = t.deadline - serverNow();
    if (!(t.deadline in S.ringTotals)) S.ringTotals = { [t.deadline]: Math.max(left, 1) };
    const total = S.ringTotals[t.deadline];
    const frac = Math.max(0, Math.min(1, left / total));
    bar.setAttribute("stroke-dashoffset", String(100.53 * (1 - frac)));
    bar.classList.toggle("low", left < 5000);
    // the seat's own turn running out is said once, at 5 s (the ring and the seconds are not read)
    if (left < 5000 && left > 0 && S.warned !== t.deadline && S.state && S.state.to_act === me() && !spectator && !S.pending
        && !(t.seats[me()] && t.seats[me()].autoplay)) {
      S.warned = t.deadline;
      announce(tr("announce.time_left", { n: Math.ceil(left / 1000) }));
    }
    const secs = tr("table.secs", { secs: Math.max(0, Math.ceil(left / 1000)) });
    const label = felt.querySelector(".seat.acting .secs");
    if (label) label.textContent = secs;  // (after " · ", or under a side seat's words: style.css)
    // While the call picker covers your seat, its heading shows your time.
    const yours = felt.querySelector(".call-picker .secs");
    if (yours) { yours.textContent = secs; yours.classList.toggle("low", left < 5000); }
  }

  function renderFelt() {
    keepFocus(felt, drawFelt);   // (a lobby's buttons)
    if (!felt.contains(picker)) return;   // (not a game on the felt)
    const mine = spectator ? null : felt.querySelector(`.played.fresh[data-seat="${me()}"]`);
    if (mine) hand.launch(mine);   // your card flies from the hand into the trick
    tickRings();
  }

  // The felt is drawn afresh on every change, all but the call picker: a node moved or taken out
  // of the page loses the keyboard focus (and a press on it its click), so the picker stays in
  // place and renderPicker draws it again only when its calls change.
  function drawFelt() {
    const t = S.table, st = S.state;
    for (const node of [...felt.childNodes]) if (node !== picker) node.remove();
    const game = !(t.status === "expired" || t.status === "abandoned" || t.status === "lobby" || !st);
    if (!game) picker.remove();   // (empty: nobody calls here)
    if (t.status === "expired") {
      felt.append(h("div", { class: "center-msg", "data-testid": "expired" }, tr("table.expired"), " ",
        h("a", { href: "/", "data-link": true, style: { color: "#ffd27a" } }, tr("table.start_new"))));
      return;
    }
    if (t.status === "abandoned") {
      felt.append(h("div", { class: "center-msg", "data-testid": "abandoned" }, tr("table.abandoned"), " ",
        h("a", { href: "/", "data-link": true, style: { color: "#ffd27a" } }, tr("table.start_new"))));
      return;
    }
    if (!game) { felt.append(renderLobby(lobbyCtx)); return; }
    const put = (node) => felt.insertBefore(node, picker.parentNode === felt ? picker : null);
    for (let s = 0; s < 4; s++) put(renderSeat(s));
    put(renderTrick());
    if (picker.parentNode !== felt) felt.append(picker);   // over the lower part of the felt: the trick is empty while calling
  }

  function renderSeat(s) {
    const t = S.table, st = S.state;
    const pos = position(s);
    const seat = t.seats[s] || {};
    const acting = t.to_act === s && t.status === "playing";
    const call = st.calls ? st.calls[s] : null;
    const won = st.tricks_won ? st.tricks_won[s] : 0;
    const meta = call === null || call === undefined ? (st.phase === "calling" ? (acting ? tr("seat.calling") : "—") : "—")
      : tr("seat.meta", { call, won, sep: pos === "left" || pos === "right" ? "\n" : ", " });
    const avatar = avatarOf(seat, s, acting && t.deadline ? ring(s) : null,
      st.dealer === s ? h("span", { class: "dealer", title: tr("seat.dealer"), "aria-hidden": "true" }, dealerIcon()) : null);
    const badges = seatBadges(seat, s, t.bots, t.status === "over");
    let who = seat.kind === "bot" ? tr("seat.with_bot", { name: seatName(s), bot: botLabel(seat, t.bots) }) : seatName(s);
    // the dealer is said in the seat's label (a label on the chip, a plain span, was not read: "D")
    if (st.dealer === s) who = `${who}, ${tr("seat.dealer")}`;
    const said = call === null || call === undefined ? tr("seat.no_call") : tr("seat.called_won", { call, won });
    const label = tr(acting ? "seat.label_acting" : "seat.label", { who, said });
    return h("div", { class: `seat seat-${pos}${acting ? " acting" : ""}`, "data-testid": `seat-${pos}`, "data-toast-avoid": true, dataset: { seat: s }, "aria-label": label, role: "group" },
      avatar,
      h("div", { class: "words" },
        h("div", { class: "name" }, pos === "bottom" && !spectator ? tr("seat.you") : (seat.name || tr("seat.n", { n: s + 1 }))),
        h("div", { class: "meta", "data-testid": `seat-meta-${s}` }, meta, acting && t.deadline ? h("span", { class: "secs", "aria-hidden": "true" }, "") : null),
        badges.length ? h("div", null, ...badges) : null));
  }

  /** Keep a finished trick in the middle (HOLD_MS), then fly it to its winner (COLLECT_MS). */
  function holdTrick(cards, winner, early) {
    S.held = { cards, winner, phase: "hold", autos: S.autos, at: performance.now(), early };
    S.autos = new Set();
    setTimeout(render, GUARD_MS + 10);  // (the winner's hand comes alive then)
    clearTimeout(heldTimer);
    heldTimer = setTimeout(() => {
      if (!S.held) return;
      S.held.phase = "collect"; render();
      heldTimer = setTimeout(() => { S.held = null; render(); }, COLLECT_MS);
    }, HOLD_MS);
  }

  /** Whether the trick this seat just won is in its first moment on the table (its hand waits). */
  function settling() {
    return !!S.held && S.held.phase === "hold" && performance.now() - S.held.at < GUARD_MS;
  }

  function renderTrick() {
    const st = S.state;
    const held = S.held;
    const collecting = !!held && held.phase === "collect";
    // a finished trick flying to its winner, and under it the next trick's cards already played:
    // the lead you answer is on the table from the moment it is played
    const cards = held ? [...held.cards.map((c) => [...c, true]), ...(collecting ? (st.trick || []) : [])] : (st.trick || []);
    const area = h("div", { class: `trick-area${collecting ? ` collect-${position(held.winner)}` : ""}`, "data-testid": "trick", role: "group", "aria-label": tr("table.cards_on_table") });
    for (const [seat, card, old] of cards) {
      const fresh = S.fresh && S.fresh.card === card && Date.now() - S.fresh.at < 200;
      area.append(h("div", { class: `played pos-${position(seat)}${old ? " old" : ""}${old && held.winner === seat ? " winner" : ""}${fresh ? " fresh" : ""}`, "data-toast-avoid": true, dataset: { seat } },
        autoMark(cardEl(card, { small: true, cls: (old ? held.autos : S.autos).has(card) ? "auto" : "" })),
        h("span", { class: "who" }, shortName(seat))));
    }
    if (held) {
      area.dataset.winner = String(held.winner);
      area.dataset.heldAt = String(held.at);  // (when it was held, performance.now(): the winner's hand waits GUARD_MS from it)
    }
    return area;
  }

  // A card played for a seat (timer, forced, away) is marked, at full contrast, and says so.
  function autoMark(el) {
    if (el.classList.contains("auto")) {
      el.setAttribute("aria-label", tr("table.auto_card", { card: el.getAttribute("aria-label") }));
      el.dataset.auto = tr("seat.auto");  // the badge's word (style.css), in the player's language
    }
    return el;
  }

  function myTurn(phase) {
    const st = S.state, t = S.table;
    return !spectator && st && t.status === "playing" && st.phase === phase && st.to_act === me() && t.to_act === me();
  }

  /** The one legal card of this seat's turn to play in `st` (a state), if the server plays it by itself. */
  function onlyCard(st) {
    const t = S.table;
    return !spectator && st && t && t.rules.autoplay_forced && st.phase === "playing" && st.to_act === me()
      && st.legal_cards && st.legal_cards.length === 1 ? st.legal_cards[0] : null;
  }

  // The one legal card the server plays for this seat by itself (rule autoplay_forced): shown
  // lifted while it waits, but nothing to tap and nothing to hint.
  function forcedCard() {
    return myTurn("playing") ? onlyCard(S.state) : null;
  }

  function maybeAskHint() {
    if (!myTurn("calling")) return;
    const key = `${S.state.round_number}:${S.v}`;
    if (S.hintFor && S.hintFor.startsWith(`${S.state.round_number}:`) && S.hint) return;
    if (S.hintFor === key) return;
    S.hintFor = key;
    conn.send({ type: "hint" });
  }

  // The call picker's buttons are drawn once for a turn's calls; what changes while you think
  // (the suggestion, a call on its way) is set on them in place, so that the button you focused
  // or are pressing stays the same button whatever the table sends meanwhile.
  let pickerFor = "";   // the calls (and timer) the picker was drawn for; "" when hidden
  function renderPicker() {
    if (!myTurn("calling")) { clear(picker); pickerFor = ""; return; }
    const st = S.state;
    const drawFor = `${st.legal_calls.join(",")}${S.table.deadline ? "|timed" : ""}`;
    if (drawFor !== pickerFor || !picker.firstChild) {
      pickerFor = drawFor;
      const grid = h("div", { class: "call-grid" }, ...st.legal_calls.map((n) =>
        h("button", {
          type: "button", dataset: { call: n },
          onclick: () => { if (!S.pending) { choose({ type: "call", call: n }, { call: n }); render(); } },
        }, num(n))));
      // arrows move between the calls (13 Tab stops alone, a keyboard player's try): ←/→ one, ↑/↓ a row
      grid.addEventListener("keydown", (e) => {
        const buttons = [...grid.querySelectorAll("[data-call]")];
        const row = buttons.filter((b) => b.offsetTop === buttons[0].offsetTop).length;  // (as laid out)
        const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -row, ArrowDown: row }[e.key];
        const at = buttons.indexOf(document.activeElement);
        if (!step || at < 0) return;
        e.preventDefault();
        buttons[Math.max(0, Math.min(buttons.length - 1, at + step))].focus();
      });
      // (a last row of five with two places free, where the turn's time may lie on a phone zoomed in)
      const room = [1, 2, 3].includes(st.legal_calls.length % 5);
      keepFocus(picker, () => fill(picker, h("section", { class: `call-picker${room ? " time-room" : ""}`, "data-testid": "call-picker", "aria-labelledby": "call-h" },
        h("h2", { id: "call-h" }, h("span", { class: "question" }, tr("picker.question")),
          S.table.deadline ? h("span", { class: "secs", "aria-hidden": "true" }, "") : null),
        grid, h("p", { class: "hint-line", "data-testid": "hint-line" }))));
    }
    const hint = S.hint && typeof S.hint.call === "number" ? S.hint : null;
    for (const b of picker.querySelectorAll("[data-call]")) {
      const n = Number(b.dataset.call), suggested = !!hint && hint.call === n;
      // the call on its way marked as the player's own, unlike a suggestion (both were lit alike)
      const chosen = !!S.pending && S.pending.call === n;
      b.classList.toggle("suggested", suggested);
      b.classList.toggle("chosen", chosen);
      b.setAttribute("aria-label", tr(chosen ? "picker.call_chosen" : suggested ? "picker.call_suggested" : "picker.call", { n }));
      b.disabled = !!S.pending;
    }
    const hl = picker.querySelector("[data-testid=hint-line]");
    let line = tr("picker.thinking");
    if (hint) {
      line = tr(hint.quick ? "picker.quick_suggested" : "picker.suggested", { n: hint.call });  // (the model's, while the kernel warms up)
      // (a call less likely made than not is the search's aim at first place: said, or "Suggested: 4 ·
      // 15% chance to make it" read as a mistake, a Hindi friend's try)
      if (typeof hint.chance === "number") line += ` · ${tr(hint.why === "call_first" ? "picker.chance_first" : "picker.chance", { percent: Math.round(hint.chance * 100) })}`;
    }
    if (hl.textContent !== line) hl.textContent = line;
    if (hint) hl.title = hintReason(hint); else hl.removeAttribute("title");
    tickRings();
  }

  function renderHand() {
    if (spectator) return;
    const st = S.state, t = S.table;
    if (!st || t.status === "lobby") { hand.render(null); return; }
    // The trick you just won stays still a moment before you may lead: the second tap of a double
    // tap (the cards closed up under the finger) lands on a hand that plays nothing.
    const waiting = myTurn("playing") && settling();
    const forced = forcedCard(), playing = myTurn("playing") && !forced && !waiting;
    hand.render({
      cards: st.hand || [], trump: (t.rules && t.rules.trump) || "S", playing, calling: myTurn("calling"), settling: waiting, pending: !!S.pending,
      sending: S.pending && S.pending.card ? S.pending.card : null,
      legal: playing ? st.legal_cards : [], hint: S.hint && S.hint.card && playing ? S.hint.card : null,
      forced,
      round: st.round_number, trick: st.trick, mustHead: !!t.rules.must_head,
    });
  }

  // Type a card to play it: "qs", "10h" / "th", "1s" (Bhoos ace).
  function onGlobalKey(e) {
    if (spectator || e.ctrlKey || e.metaKey || e.altKey) return;
    // (not behind a dialog: "6c" typed with the scores open played the 6 of clubs, a keyboard player's try)
    if (document.querySelector("dialog[open], [aria-modal=true]")) { S.keyBuf = ""; return; }
    const tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const k = e.key.length === 1 ? e.key.toUpperCase() : "";
    if (!k) return;
    if ("SHDC".includes(k) && S.keyBuf) {
      let r = S.keyBuf;
      if (r === "10") r = "T"; else if (r === "1") r = "A";
      S.keyBuf = "";
      const card = r + k;
      if (!RANKS.includes(r)) return;
      if (!(S.state && S.state.hand && S.state.hand.includes(card))) { toast(tr("table.not_in_hand", { card: cardName(card) })); return; }
      hand.play(card);
      return;
    }
    if ("23456789TJQKA1".includes(k)) { S.keyBuf = k; return; }
    if (k === "0" && S.keyBuf === "1") { S.keyBuf = "10"; return; }
    if (myTurn("playing") && !forcedCard() && k === "?") send({ type: "hint" });
    S.keyBuf = "";
  }

  function renderTurnLine() {
    const t = S.table, st = S.state;
    let text = "", mine = false;
    const seat = me() >= 0 ? t.seats[me()] : null;
    if (seat && seat.autoplay && t.status !== "over") {
      // Drawn once while it lasts: a bot plays for this seat, so messages come fast, and a button
      // drawn afresh on each of them could lose the tap meant for it.
      if (!turnLine.querySelector("[data-testid=back-btn]")) {
        const back = h("button", { class: "btn", type: "button", "data-testid": "back-btn", onclick: () => send({ type: "back" }) }, tr("table.im_back"));
        fill(turnLine, h("span", { "data-testid": "autoplay-note" }, tr("table.autoplay_note"), " "), back);
        announce(`${tr("table.autoplay_note")} ${tr("table.im_back")}`);   // (a screen reader heard nothing of it)
        if (nowhere()) back.focus({ preventScroll: true });
      }
      turnLine.classList.add("mine");
      return;
    }
    if (t.status === "lobby") text = "";
    else if (t.status === "between_rounds") text = tr("turn.round_over");
    else if (t.status === "over") text = tr("table.match_over");
    else if (st && st.to_act !== null && st.to_act !== undefined) {
      if (st.to_act === me() && st.phase === "playing" && settling()) {
        text = tr(S.held.winner === me() ? "announce.trick_you" : "announce.trick", { name: shortName(S.held.winner) });  // your turn comes with the next trick
      } else if (st.to_act === me()) {
        mine = true;
        // (a card kept while no socket is up says so for as long as it waits: the toast goes in 3.5 s)
        text = tr(st.phase === "calling" ? "turn.your_call" : S.pending ? (S.unsent ? "turn.playing_when_back" : "turn.playing") : "turn.your_play");
        if (st.phase === "playing" && st.legal_cards.length === 1 && t.rules.autoplay_forced) text = tr("turn.forced");
      } else {
        text = tr(st.phase === "calling" ? "turn.other_calling" : "turn.other_playing", { name: shortName(st.to_act) });
      }
    }
    // While it is your turn to play: a hint asked for, else the "tap again" cue of a lifted card
    // (in this line of fixed height, so that nothing below it moves). A hint of the card that is
    // lifted keeps the cue on its first line; of another card, it is shown whole (a Bengali
    // player's try: the cue hid a hint asked for with a card lifted, and two cards wore one ring).
    const cue = mine && st.phase === "playing" && !S.pending ? (spectator ? "" : hand.cue()) : "";
    const hinted = mine && st.phase === "playing" && !S.pending && S.hint && S.hint.card ? S.hint : null;
    if (cue && !hinted) text = cue;
    else if (hinted) {
      // The card on the first line; the reason on one line below it (cut short with an ellipsis
      // when long: the whole of it is in the title and is read out).
      // (a quick hint says so on the card's line: before the reason, it left no room for it)
      const what = cue && hand.selected() === hinted.card
        ? cue : tr(hinted.quick ? "turn.quick_hint" : "turn.hint", { card: cardName(hinted.card) });
      const why = hintReason({ ...hinted, quick: false }), whole = hintReason(hinted);
      fill(turnLine, h("span", { class: "card-hint", "data-testid": "card-hint" },
        h("span", { class: "what" }, what), why ? h("span", { class: "why" }, why) : null));
      turnLine.title = whole ? `${what} ${whole}` : what;
      turnLine.classList.add("mine");
      // (read with the cards' names: "A♦" was read as "A black diamond suit"; no full stop of
      // its own: a Nepali sentence ends in "।")
      announce(whole ? `${what} ${hintReason(hinted, cardName)}` : what);
      return;
    }
    turnLine.textContent = text;
    turnLine.title = text;
    turnLine.classList.toggle("mine", mine);
    if (mine && !S.pending) announce(text);  // ("Playing…" after each card: the card's own line follows)
  }

  // ---- dialogs: round summary, final places, last trick, scores ----
  // Dialogs are drawn afresh on every message; keep the keyboard focus on the same control.
  function renderDialogs() {
    // A dialog drawn again (a message came: a rematch offered, a player back) keeps where it was
    // scrolled to: what the player is reading never jumps away under their finger.
    const before = dialogs.querySelector(".dialog");
    const kept = before ? { id: before.dataset.testid, top: before.scrollTop } : null;
    // (the round's countdown ticks by itself: not a change to draw again for)
    if (!redraw(dialogs, (box) => drawDialogs(box, dialogCtx), (html) => html.replace(/(class="next-secs">)[^<]*/g, "$1"))) return;
    const after = dialogs.querySelector(".dialog");
    if (kept && after && after !== before && after.dataset.testid === kept.id) after.scrollTop = kept.top;
  }

  function closeDialog(opener) {
    S.dialog = null;
    renderDialogs();
    const b = top.querySelector(`[data-testid=${opener}]`);
    if (b) b.focus();
  }

  // "Connecting…" until the table's first word (the felt stood empty for seconds on a slow link,
  // with no word: a newcomer's try)
  if (!S.table) render();

  return () => {
    conn.close();
    clearInterval(ticker);
    clearTimeout(heldTimer);
    clearTimeout(bannerTimer);
    document.removeEventListener("keydown", onGlobalKey);
    document.removeEventListener("visibilitychange", onVisible);
    hand.destroy();
  };
}
