// The rules page: the game, the strict play rules with drawn examples, scoring
// with the worked examples (computed by the same code as the calculator), every
// variant and preset.
import { h, fill, cardEl, presetRules } from "./util.js";
import { fmt, scoreTenths } from "./scoring.js";
import { t, num } from "./i18n.js";

const who = ["left", "across", "right", "you"].map((w) => t(`rules.who_${w}`));

/** A card's spoken name says what the ring shows ("legal", "not allowed", "wins"). */
function marked(el, what) {
  if (what) el.setAttribute("aria-label", t("rules.marked", { card: el.getAttribute("aria-label"), what }));
  return el;
}

/** A trick so far and your hand, with the legal cards marked. */
function example(title, trick, hand, legal, note, winner = -1) {
  return h("div", { class: "panel example-box", "data-testid": "rule-example" },
    h("h3", null, title),
    h("div", { class: "example" },
      trick.length ? h("div", null, h("div", { class: "hint" }, winner >= 0 ? t("rules.trick_winner") : t("rules.on_table")),
        h("div", { class: "example" }, ...trick.map((c, k) => h("figure", null, marked(cardEl(c, { small: true, cls: k === winner ? "win" : "" }), k === winner ? t("rules.wins") : ""), h("figcaption", null, who[k]))))) : null,
      hand.length ? h("div", null, h("div", { class: "hint" }, t("rules.your_hand")),
        h("div", { class: "example" }, ...hand.map((c) => marked(cardEl(c, { small: true, cls: legal.includes(c) ? "legal" : "illegal" }), legal.includes(c) ? t("rules.legal") : t("rules.not_allowed"))))) : null),
    h("p", null, note));
}

function scoreRow(preset, call, tricks) {
  const pts = scoreTenths(call, tricks, presetRules(preset));
  return h("tr", { "data-testid": "score-example", dataset: { preset, call, tricks } },
    h("td", null, t(`preset.short.${preset}`)), h("td", null, num(call)), h("td", null, num(tricks)),
    h("td", { class: pts < 0 ? "neg" : "" }, num(fmt(pts))));
}

// [the field as the rules' JSON names it, its explanation's key, its name in the player's language]
const FIELDS = [
  ["min_call", "min_call", "rule.min_call"],
  ["max_call", "max_call", "rule.max_call"],
  ["overtrick_points", "overtrick_points", "rule.overtrick_points"],
  ["max_overtricks", "max_overtricks", "rule.max_overtricks"],
  ["missed_penalty", "missed_penalty", "rule.missed_call"],
  ["bonus_call", "bonus_call", "rule.bonus_call"],
  ["bonus_points", "bonus_points", "calc.bonus_scores"],
  ["rounds", "rounds", "home.rounds"],
  ["tie_break", "tie_break", "rule.tie_break"],
  ["must_head", "must_head", "rule.must_head"],
  ["head_after_cut", "head_after_cut", "rule.head_after_cut"],
  ["trump", "trump", "rule.trump"],
  ["trump_lead", "trump_lead", "rule.trump_lead"],
  ["must_undertrump", "must_undertrump", "rule.must_undertrump"],
  ["redeal_without_trump", "redeal_without_trump", "rule.redeal_without_trump"],
  ["redeal_without_face_card", "redeal_without_face_card", "rule.redeal_without_face_card"],
  ["min_total_calls", "min_total_calls", "rule.min_total_calls"],
  ["direction", "direction", "rule.direction"],
  ["card_seconds / call_seconds", "card_seconds", "rule.timers"],
  ["autoplay_forced", "autoplay_forced", "rule.autoplay_forced"],
];

export function renderRules(root) {
  fill(root, h("article", { class: "page rules-page" },
    h("h1", null, t("rules.p01")),
    h("p", { class: "lead" }, t("rules.p02")),
    h("nav", { "aria-label": t("rules.p03") }, h("ul", { class: "toc" },
      ...[["game", t("rules.p04")], ["play", t("rules.p05")], ["scoring", t("rules.p06")], ["match", t("rules.p07")], ["variants", t("rules.p08")], ["presets", t("rules.p09")]]
        .map(([id, title]) => h("li", null, h("a", { href: `#${id}` }, title))))),

    h("section", { id: "game" }, h("h2", null, t("rules.p10")),
      h("ul", null,
        h("li", null, t("rules.p11")),
        h("li", null, t("rules.p12")),
        h("li", null, t("rules.p13")),
        h("li", null, t("rules.p14")),
        h("li", null, t("rules.p15")))),

    h("section", { id: "play" }, h("h2", null, t("rules.p16")),
      h("p", null, t("rules.p17")),
      h("ol", null,
        h("li", null, h("strong", null, t("rules.p18")), t("rules.p19"), h("strong", null, t("rules.p20")), t("rules.p21")),
        h("li", null, h("strong", null, t("rules.p22")), t("rules.p23"), h("strong", null, t("rules.p24")), t("rules.p25"), h("strong", null, t("rules.p26")), t("rules.p27")),
        h("li", null, t("rules.p28")),
        h("li", null, t("rules.p29"))),
      example(t("rules.p30"), ["9H", "QH"], ["KH", "5H", "3C", "AS"], ["KH"],
        t("rules.p31")),
      example(t("rules.p32"), ["KH", "AH"], ["QH", "5H", "3C", "AS"], ["QH", "5H"],
        t("rules.p33")),
      example(t("rules.p34"), ["7D", "JD"], ["4S", "JC", "8H"], ["4S"],
        t("rules.p35")),
      example(t("rules.p36"), ["7D", "9S"], ["QS", "3S", "5C"], ["QS"],
        t("rules.p37")),
      example(t("rules.p38"), ["7D", "QS"], ["3S", "5C", "9H"], ["3S", "5C", "9H"],
        t("rules.p39")),
      example(t("rules.p40"), ["7D", "9S"], ["8D", "2D", "AS"], ["8D"],
        t("rules.p41")),
      example(t("rules.p42"), ["TH", "AH", "2S", "KH"], [], [],
        t("rules.p43"), 2)),

    h("section", { id: "scoring" }, h("h2", null, t("rules.p44")),
      h("ul", null,
        h("li", null, h("strong", null, t("rules.p45")), t("rules.p46")),
        h("li", null, h("strong", null, t("rules.p47")), t("rules.p48")),
        h("li", null, t("rules.p49"))),
      h("table", null,
        h("caption", { class: "sr-only" }, t("rules.p50")),
        h("thead", null, h("tr", null, ...[t("rules.p51"), t("rules.p52"), t("rules.p53"), t("rules.p54")].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", null,
          ...[[4, 4], [4, 6], [3, 6], [2, 8], [8, 8], [4, 3], [5, 4]].map(([c, n]) => scoreRow("standard", c, n)),
          ...[[4, 4], [4, 5], [4, 3], [4, 6], [9, 9], [9, 10], [9, 11], [9, 8]].map(([c, n]) => scoreRow("pagat", c, n)))),
      h("p", { class: "hint" }, t("rules.p55"))),

    h("section", { id: "match" }, h("h2", null, t("rules.p56")),
      h("p", null, t("rules.p57")),
      h("p", null, t("rules.p58"))),

    h("section", { id: "variants" }, h("h2", null, t("rules.p59")),
      h("p", null, t("rules.p60")),
      h("dl", { class: "variants" }, ...FIELDS.flatMap(([, k, name]) => [
        h("dt", null, h("strong", null, t(name))),
        h("dd", null, t(`rules.f.${k}.what`), h("br"), h("small", null, t("rules.ours", { ours: t(`rules.f.${k}.ours`), choices: t(`rules.f.${k}.choices`) })))])),
      // the settings' names, for the command line and the API, apart and folded: a line of code under
      // each rule was programmers' text to a family (a Nepali reader's try; beside the rule's name it
      // had read as part of it, "Lowest call min_call")
      h("details", { class: "field-names", "data-testid": "field-names" },
        h("summary", null, t("rules.setting_names")),
        h("dl", null, ...FIELDS.flatMap(([f, , name]) => [h("dt", null, t(name)), h("dd", null, h("code", null, f))])))),

    h("section", { id: "presets" }, h("h2", null, t("rules.p61")),
      h("dl", null,
        h("dt", null, h("strong", null, t("preset.short.standard"))), h("dd", null, t("rules.p62")),
        h("dt", null, h("strong", null, t("preset.short.quick"))), h("dd", null, t("rules.p63")),
        h("dt", null, h("strong", null, t("preset.short.pagat"))), h("dd", null, t("rules.p64")),
        h("dt", null, h("strong", null, t("preset.short.bhoos"))), h("dd", null, t("rules.p65")))),
    h("p", null, h("a", { href: "/calculator", "data-link": true }, t("rules.p66")), " · ", h("a", { href: "/", "data-link": true }, t("rules.p67")))));
  return () => {};
}
