// The rules page: the game, the strict play rules with drawn examples, scoring
// with the worked examples (computed by the same code as the calculator), every
// variant and preset.
import { h, fill, cardEl, presetRules, SUIT_SYMBOL } from "./util.js";
import { fmt, scoreTenths } from "./scoring.js";

const who = ["Left", "Across", "Right", "You"];

/** A card's spoken name says what the ring shows ("legal", "not allowed", "wins"). */
function marked(el, what) {
  if (what) el.setAttribute("aria-label", `${el.getAttribute("aria-label")} (${what})`);
  return el;
}

/** A trick so far and your hand, with the legal cards marked. */
function example(title, trick, hand, legal, note, winner = -1) {
  return h("div", { class: "panel example-box", "data-testid": "rule-example" },
    h("h3", null, title),
    h("div", { class: "example" },
      trick.length ? h("div", null, h("div", { class: "hint" }, winner >= 0 ? "The trick (winner ringed)" : "On the table"),
        h("div", { class: "example" }, ...trick.map((c, k) => h("figure", null, marked(cardEl(c, { small: true, cls: k === winner ? "win" : "" }), k === winner ? "wins" : ""), h("figcaption", null, who[k]))))) : null,
      hand.length ? h("div", null, h("div", { class: "hint" }, "Your hand (legal cards ringed)"),
        h("div", { class: "example" }, ...hand.map((c) => marked(cardEl(c, { small: true, cls: legal.includes(c) ? "legal" : "illegal" }), legal.includes(c) ? "legal" : "not allowed")))) : null),
    h("p", null, note));
}

function scoreRow(preset, call, tricks) {
  const t = scoreTenths(call, tricks, presetRules(preset));
  return h("tr", { "data-testid": "score-example", dataset: { preset, call, tricks } },
    h("td", null, preset), h("td", null, String(call)), h("td", null, String(tricks)),
    h("td", { class: t < 0 ? "neg" : "" }, fmt(t)));
}

const FIELDS = [
  ["min_call", "1", "1 or 2", "The lowest call. There is never a zero call; pagat's Call Bridge starts at 2."],
  ["max_call", "13", "1 to 13", "The highest call (pagat: 12 is the sensible most; the Bhoos AI tournament: 8)."],
  ["overtrick_points", "0.1", "0.1 or 0", "What each trick above a made call adds."],
  ["max_overtricks", "none", "none or 0 to 12", "Taking more than call + this many tricks breaks the call (pagat: 1)."],
  ["missed_penalty", "call", "call, shortfall, zero", "A missed call scores −call; or −(call − tricks) when short (overshooting past the limit still scores −call); or 0."],
  ["bonus_call", "none", "none or 1 to 13", "A made call of at least this scores the bonus points instead of the call (pagat: 8 scores 13)."],
  ["bonus_points", "13", "a whole number", "What a made bonus call scores (overtrick points still added)."],
  ["rounds", "5", "1 to 20, or no fixed end", "Rounds in a match (quick: 3; pagat: as long as the table likes)."],
  ["tie_break", "sudden death", "sudden death, share", "A tie at the top after the last round: extra whole rounds until one leader stands alone, or the leaders share first place."],
  ["must_head", "yes", "yes / no", "Following suit, you must beat the highest card of the led suit if you can."],
  ["head_after_cut", "yes", "yes / no", "With must-head, the duty stays once a trump is on the trick (Bhoos drops it)."],
  ["trump", "♠ spades", "♠ ♥ ♦ ♣", "The permanent trump suit."],
  ["trump_lead", "any", "any, not to trick one, after broken", "When a trump may be led. A hand of only trumps may always lead one."],
  ["must_undertrump", "no", "yes / no", "Void in the led suit, holding only trumps lower than one on the trick: yes, you must still play a trump; no, any card."],
  ["redeal_without_trump", "no", "yes / no", "A hand with no trump: the same dealer deals again."],
  ["redeal_without_face_card", "no", "yes / no", "A hand with no J, Q, K or A: the same dealer deals again."],
  ["min_total_calls", "0", "0 to 13", "If the four calls total less, the same dealer deals again (some tables: 10)."],
  ["direction", "clockwise", "clockwise, counterclockwise", "How the table is drawn; the play is the same."],
  ["card_seconds / call_seconds", "15 / 30", "seconds, or no timer", "Online turn timers. On expiry the lowest legal card is played, or the lowest legal call made."],
  ["autoplay_forced", "yes", "yes / no", "A seat with only one legal card plays it after a brief highlight."],
];

export function renderRules(root) {
  const S = SUIT_SYMBOL;
  fill(root, h("article", { class: "page rules-page" },
    h("h1", null, "How to play Callbreak"),
    h("p", { class: "lead" }, "Also called Call Break, Call Bridge, Lakdi, Lakadi and Ghochi: the four-player trick-taking game of Nepal, India and Bangladesh. Every player for themselves, spades always trump, and every call a promise."),
    h("nav", { "aria-label": "On this page" }, h("ul", { class: "toc" },
      ...[["game", "The game"], ["play", "Playing a trick"], ["scoring", "Scoring"], ["match", "The match"], ["variants", "Variants"], ["presets", "Presets"]]
        .map(([id, t]) => h("li", null, h("a", { href: `#${id}` }, t))))),

    h("section", { id: "game" }, h("h2", null, "The game"),
      h("ul", null,
        h("li", null, "Four players, no partners, a standard 52-card pack; aces high, 2 low. Each player gets 13 cards."),
        h("li", null, `Spades (${S.S}) are always trump: any spade beats any card of another suit.`),
        h("li", null, "The player after the dealer calls first and leads the first trick; the dealer calls last. The deal moves on one seat each round."),
        h("li", null, "Each player calls how many of the 13 tricks they will win: at least 1 (there is no zero call), at most 13. Calls are made in turn and everybody sees them."),
        h("li", null, "The 13 tricks are played out; the winner of each trick leads the next. Then the round is scored."))),

    h("section", { id: "play" }, h("h2", null, "Playing a trick: the strict rules"),
      h("p", null, "Any card may be led, spades included. Then, in order:"),
      h("ol", null,
        h("li", null, h("strong", null, "Follow suit"), " if you can, and ", h("strong", null, "head"), " the trick if you can: play higher than the highest card of the led suit on the table. This duty stays after someone has cut with a spade."),
        h("li", null, h("strong", null, "Void in the led suit?"), " You must ", h("strong", null, "cut"), " with a spade; if a spade is already on the trick, you must ", h("strong", null, "overtrump"), " it if you can."),
        h("li", null, "Holding only lower spades, or no spade at all: play any card."),
        h("li", null, "The highest spade wins the trick; with no spade, the highest card of the led suit. Off-suit cards never win.")),
      example("Follow and head", ["9H", "QH"], ["KH", "5H", "3C", "AS"], ["KH"],
        `Hearts were led and the Q${S.H} is the highest heart. You hold the K${S.H}, so you must play it.`),
      example("Follow when you cannot head", ["KH", "AH"], ["QH", "5H", "3C", "AS"], ["QH", "5H"],
        `You cannot beat the A${S.H}, but you still have to follow with a heart: either one.`),
      example("Void: cut with a spade", ["7D", "JD"], ["4S", "JC", "8H"], ["4S"],
        `No diamonds in your hand: you must play a spade, even the 4${S.S}, and it wins the trick for now.`),
      example("Overtrump", ["7D", "9S"], ["QS", "3S", "5C"], ["QS"],
        `A spade is already on the trick. You must beat the 9${S.S} with the Q${S.S}; the 3${S.S} is not allowed while you can overtrump.`),
      example("Only lower spades: free", ["7D", "QS"], ["3S", "5C", "9H"], ["3S", "5C", "9H"],
        `You cannot beat the Q${S.S}, so any card may go (unless the table plays "must undertrump").`),
      example("Heading after a cut", ["7D", "9S"], ["8D", "2D", "AS"], ["8D"],
        `Someone cut, but you hold diamonds: you must follow and still head the 7${S.D} with the 8${S.D}. At Bhoos tables (no heading after a cut) either diamond is fine.`),
      example("Who wins", ["TH", "AH", "2S", "KH"], [], [],
        `The 2${S.S} wins: the only spade beats even the A${S.H}.`, 2)),

    h("section", { id: "scoring" }, h("h2", null, "Scoring"),
      h("ul", null,
        h("li", null, h("strong", null, "Made"), " (at least your call): the call, plus 0.1 for every trick above it. Call 4 and win 6: 4.2."),
        h("li", null, h("strong", null, "Broken"), " (fewer than your call): minus the call. Call 4 and win 3: −4."),
        h("li", null, "Points are exact tenths: a big call is worth far more than the same tricks as overtricks (8 tricks on a call of 8: 8.0; on a call of 2: 2.6).")),
      h("table", null,
        h("caption", { class: "sr-only" }, "Worked examples"),
        h("thead", null, h("tr", null, ...["Rules", "Call", "Tricks", "Points"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", null,
          ...[[4, 4], [4, 6], [3, 6], [2, 8], [8, 8], [4, 3], [5, 4]].map(([c, t]) => scoreRow("standard", c, t)),
          ...[[4, 4], [4, 5], [4, 3], [4, 6], [9, 9], [9, 10], [9, 11], [9, 8]].map(([c, t]) => scoreRow("pagat", c, t)))),
      h("p", { class: "hint" }, "In pagat's Call Bridge a call is made only with exactly the call or one more trick, extra tricks are worth nothing, and a made call of 8 or more scores 13.")),

    h("section", { id: "match" }, h("h2", null, "The match"),
      h("p", null, "A match is 5 rounds (3 in the quick game). Totals are shown after every round; the highest total wins and the others are ranked 2nd to 4th. If the leaders are tied after the last round, whole sudden-death rounds are played until one leader stands alone (or, at tables that choose it, they share first place)."),
      h("p", null, "Online, each card has a 15-second timer and each call 30 seconds: when it runs out the lowest legal card is played (or the lowest call made) for you. When only one card is legal it is played for you after a short highlight.")),

    h("section", { id: "variants" }, h("h2", null, "Variants"),
      h("p", null, "Tables differ. Each difference is one named rule, which you can set when you create a table or in the score calculator:"),
      h("dl", { class: "variants" }, ...FIELDS.flatMap(([f, d, v, what]) => [
        h("dt", null, h("code", null, f)),
        h("dd", null, what, h("br"), h("small", null, `Ours: ${d}. Choices: ${v}.`))]))),

    h("section", { id: "presets" }, h("h2", null, "Presets"),
      h("dl", null,
        h("dt", null, h("strong", null, "standard")), h("dd", null, "Our tables: calls 1 to 13, +0.1 per overtrick, −call when broken, strict heading (also after a cut), 5 rounds, sudden death on a tie."),
        h("dt", null, h("strong", null, "quick")), h("dd", null, "Standard, in 3 rounds."),
        h("dt", null, h("strong", null, "pagat")), h("dd", null, "pagat.com's Call Bridge: calls 2 to 12, no overtrick points, a call is broken by 2 or more overtricks, calls of 8+ score 13, no duty to head, no fixed end, tied leaders share, drawn counterclockwise."),
        h("dt", null, h("strong", null, "bhoos")), h("dd", null, "As the Bhoos app and its AI tournament play: standard with calls up to 8, and no duty to head once someone has cut."))),
    h("p", null, h("a", { href: "/calculator", "data-link": true }, "Open the score calculator"), " · ", h("a", { href: "/", "data-link": true }, "Play a match"))));
  return () => {};
}
