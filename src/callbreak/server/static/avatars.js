// Who sits in a seat, at a glance: a person's initial, or a bot's robot face on its own colour,
// with the bot's level ("medium bot") under its name.
import { h } from "./util.js";
import { t, lang } from "./i18n.js";

/** How a bot level reads on screen (callbreak.bots.names.LEVEL_NAMES). */
export const LEVEL_NAMES = { random: "beginner", easy: "easy", medium: "medium", hard: "hard" };

/** Bots' names as written in Devanagari (Nepali, Hindi) and in Bengali (callbreak.bots.names.WRITTEN,
 *  held to it by a test). */
export const BOT_NAMES = {
  Aarav: ["आरव", "আরভ"], Anika: ["अनिका", "আনিকা"], Arjun: ["अर्जुन", "অর্জুন"], Bina: ["बीना", "বীণা"],
  Chandra: ["चन्द्र", "চন্দ্র"], Dipak: ["दीपक", "দীপক"], Farhan: ["फरहान", "ফারহান"], Gita: ["गीता", "গীতা"],
  Hari: ["हरि", "হরি"], Ishaan: ["ईशान", "ঈশান"], Kabir: ["कबीर", "কবীর"], Laxmi: ["लक्ष्मी", "লক্ষ্মী"],
  Maya: ["माया", "মায়া"], Meena: ["मीना", "মীনা"], Nabin: ["नवीन", "নবীন"], Nusrat: ["नुसरत", "নুসরাত"],
  Pooja: ["पूजा", "পূজা"], Priya: ["प्रिया", "প্রিয়া"], Rahul: ["राहुल", "রাহুল"], Rina: ["रीना", "রিনা"],
  Ritu: ["रितु", "ঋতু"], Sagar: ["सागर", "সাগর"], Sita: ["सीता", "সীতা"], Suman: ["सुमन", "সুমন"],
  Tanvir: ["तनवीर", "তানভীর"], Usha: ["उषा", "ঊষা"],
};
const SCRIPT = { ne: 0, hi: 0, bn: 1 };

/** A bot's name as a reader of ``language`` reads it: one of the bots' names, in any of its scripts,
 *  in the reader's (`callbreak.bots.names.in_script`); any other name as it is. A Hindi player at a
 *  Bengali host's table read "দীপক" (a table's bots are named in its maker's script). */
export function botNameIn(name, language = lang) {
  for (const [key, forms] of Object.entries(BOT_NAMES)) {
    if (name === key || forms.includes(name)) return language in SCRIPT ? forms[SCRIPT[language]] : key;
  }
  return name;
}

/** ``table`` (a TABLE message's) with its bots' names in the reader's script; the people's as they wrote them. */
export function readableSeats(table) {
  if (!table || !table.seats) return table;
  return { ...table, seats: table.seats.map((s) => (s && s.kind === "bot" && s.name ? { ...s, name: botNameIn(s.name) } : s)) };
}

/** A level's name in the reader's language ("medium"). */
export function levelName(level) {
  return level in LEVEL_NAMES ? t(`level.${level}`) : String(level || "");
}

/** "medium bot" for a bot seat (its own level, else the table's), "" for anyone else. */
export function botLabel(seat, tableBots) {
  if (!seat || seat.kind !== "bot") return "";
  const level = seat.level || tableBots;
  return level ? t("bot.level", { level: levelName(level) }) : t("bot.bot");
}

const BOT_COLOURS = ["#3b5bdb", "#9c36b5", "#c2410c", "#0b7285"];
const SVG = "http://www.w3.org/2000/svg";

function robot() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "robot");
  svg.setAttribute("aria-hidden", "true");
  const parts = [
    ["line", { x1: 12, y1: 2.5, x2: 12, y2: 6, stroke: "currentColor", "stroke-width": 1.6 }],
    ["circle", { cx: 12, cy: 2.5, r: 1.4, fill: "currentColor" }],
    ["rect", { x: 4.5, y: 6, width: 15, height: 12, rx: 3.5, fill: "currentColor" }],
    ["circle", { cx: 9, cy: 11.5, r: 1.8, class: "eye" }],
    ["circle", { cx: 15, cy: 11.5, r: 1.8, class: "eye" }],
    ["rect", { x: 8.5, y: 14.6, width: 7, height: 1.4, rx: 0.7, class: "eye" }],
    ["rect", { x: 2.2, y: 10, width: 2.3, height: 4, rx: 1, fill: "currentColor" }],
    ["rect", { x: 19.5, y: 10, width: 2.3, height: 4, rx: 1, fill: "currentColor" }],
  ];
  for (const [tag, attrs] of parts) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.appendChild(el);
  }
  return svg;
}

/** The dealer's chip: two cards, one over the other (its letter was English's "D", read as "डि"
 *  or "ডি" in Nepali and Bengali; a first syllable of their word for the dealer, "बाँ", "বাঁ",
 *  read as "left": a Nepali player's try, then a reviewer's read). */
export function dealerIcon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "dealer-icon");
  svg.setAttribute("aria-hidden", "true");
  const parts = [
    ["rect", { x: 3.5, y: 5, width: 10.5, height: 15, rx: 1.8, fill: "none", stroke: "currentColor", "stroke-width": 2.2, transform: "rotate(-14 8.75 12.5)" }],
    ["rect", { x: 10, y: 3.5, width: 10.5, height: 15, rx: 1.8, fill: "currentColor", transform: "rotate(12 15.25 11)" }],
  ];
  for (const [tag, attrs] of parts) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.appendChild(el);
  }
  return svg;
}

// (a browser without Intl.Segmenter, as Firefox before 125: the first code point)
const GRAPHEMES = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

/** The seat's avatar: a bot's robot on a coloured disc, a person's initial. `extra`: ring, dealer chip. */
export function avatarOf(seat, index, ...extra) {
  if (seat && seat.kind === "bot") {
    return h("div", { class: "avatar bot", "data-testid": `avatar-${index}`, style: { background: BOT_COLOURS[index % 4] } }, robot(), ...extra);
  }
  // the first letter as a reader sees it (a grapheme: "क्ष" of "क्षितिज", not "क"; an emoji whole)
  const name = ((seat && seat.name) || "?").trim();
  const first = !name ? "?" : GRAPHEMES ? GRAPHEMES.segment(name)[Symbol.iterator]().next().value.segment : Array.from(name)[0];
  const initial = first.toUpperCase();
  return h("div", { class: "avatar", "data-testid": `avatar-${index}` }, initial, ...extra);
}

/** The small labels under a seat's name: a bot's level, offline (not once the match is `over`:
 *  a player gone to the rematch, or home, was marked "offline" to those still there, a Bengali
 *  player's try), auto. */
export function seatBadges(seat, index, tableBots, over = false) {
  const badges = [];
  if (seat.kind === "bot") badges.push(h("span", { class: "badge level", "data-testid": `seat-level-${index}` }, botLabel(seat, tableBots)));
  if (seat.kind === "human" && seat.connected === false && !over) badges.push(h("span", { class: "badge off" }, t("seat.offline")));
  if (seat.autoplay) badges.push(h("span", { class: "badge" }, t("seat.auto")));
  return badges;
}
