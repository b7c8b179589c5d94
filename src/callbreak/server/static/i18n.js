// The words on screen, in the reader's language.  The catalogues are JSON files shared with the
// Python side (src/callbreak/i18n/*.json, served at /static/i18n/), one flat object per language:
//   "key": "text with {name} placeholders"
//   "key": {"one": "…", "other": "…"}      plural forms by Intl.PluralRules, chosen by {count}
// The language is the one chosen on this device (localStorage "callbreak.lang"), else the first
// of the browser's languages we have, else English.  A key missing from a catalogue falls back to
// the key itself (a test holds every catalogue complete).  Numbers are written with the language's own
// digits (Intl.NumberFormat: Devanagari in Nepali, Bengali in Bengali, Western in Hindi, as
// callbreak.i18n.digits; a browser test holds the two equal).
// This module loads the catalogues with a top-level await: every module that imports it runs
// once they are in.  index.html runs it as a script of its own as well, so the catalogues are asked
// for as soon as this file is in, not once the app's code is (on a slow phone's link the words came
// 0.7 s later: benchmarks/first_visit.py), and it words the static page (the top bar) itself.

/** The languages offered, each named in itself. */
export const LANGUAGES = [["en", "English"], ["ne", "नेपाली"], ["hi", "हिन्दी"], ["bn", "বাংলা"]];
export const LANG_KEY = "callbreak.lang";
const CODES = LANGUAGES.map(([code]) => code);

/** The language for a stored choice and the browser's list (["hi-IN", "en"] -> "hi"). */
export function chooseLanguage(stored, preferred) {
  if (CODES.includes(stored)) return stored;
  for (const tag of preferred || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (CODES.includes(base)) return base;
  }
  return "en";
}

function storedLanguage() {
  try { return JSON.parse(localStorage.getItem(LANG_KEY)); } catch { return null; }
}

/** The language chosen on this device, kept for the server too (the `callbreak_lang` cookie): it
 * words the app's page in it before any script runs (pwa.page_language; a reader who chose English
 * on a Nepali phone had a Nepali first paint). */
function keepForServer(code) {
  document.cookie = `callbreak_lang=${code}; path=/; max-age=31536000; samesite=lax`;
}

async function fetchCatalogue(code) {
  try {
    const res = await fetch(`/static/i18n/${code}.json`);
    if (res.ok) return await res.json();
  } catch { /* offline without a cached copy: English below */ }
  return null;
}

export const lang = chooseLanguage(storedLanguage(), navigator.languages || [navigator.language]);
if (CODES.includes(storedLanguage())) keepForServer(lang);  // (a choice made before the cookie was)
// The reader's catalogue alone: a test holds every catalogue complete, so English is asked for only
// where the reader's cannot be had (on a slow phone's link its 14 KB came before any word).
const ownGot = lang === "en" ? null : await fetchCatalogue(lang);
const english = (lang === "en" || !ownGot ? await fetchCatalogue("en") : null) || {};
const catalogue = ownGot || english;
document.documentElement.lang = lang;

// The digits each language is read in (a choice: CLDR's default for Nepali is Western digits,
// but Nepali print and apps use Devanagari ones; Hindi apps use Western digits; Bengali, its own).
const NUMBERING = { en: "latn", ne: "deva", hi: "latn", bn: "beng" };
// (As an option, not a "-u-nu-" tag: a browser whose ICU lacks Nepali drops the tag with the locale.)
const numbers = new Intl.NumberFormat(lang, { numberingSystem: NUMBERING[lang], useGrouping: false });
const plurals = new Intl.PluralRules(lang);
const DIGITS = Array.from({ length: 10 }, (_, d) => numbers.format(d));

/** A number (or a number's text, "-4.2", "3/4") with this language's digits. */
export function num(value) {
  return String(value).replace(/[0-9]/g, (d) => DIGITS[Number(d)]);
}

/** A moment (a Date's value: ms, or an ISO text) as this language writes it, in its digits (a
 *  browser writes a Nepali date in Western digits: "2026-12-05 15:13:19" on a Nepali page), on a
 *  24-hour clock (Bengali's is "৩:৫০ PM", in Latin letters). */
export function when(value) {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return "";
  // the reader's own tags of this language first ("en-IN" writes 5/12/2026, "en" the American 12/5)
  const tags = [...(navigator.languages || []).filter((tag) => String(tag).toLowerCase().split("-")[0] === lang), lang];
  const fmt = new Intl.DateTimeFormat(tags, { year: "numeric", month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  if (fmt.resolvedOptions().locale.split("-")[0] === lang) return num(fmt.format(d));
  // a browser without the language's dates (Chromium's Nepali: American "12/5/2026", or "M12"
  // for a month's name): year, month and day in that order, which reads one way only
  const two = (n) => String(n).padStart(2, "0");
  return num(`${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`);
}

/** Text typed with Devanagari or Bengali digits (or Western ones), with Western digits: "৪" → "4". */
export function westernDigits(text) {
  return String(text).replace(/[\u0966-\u096F\u09E6-\u09EF]/g, (d) => {
    const c = d.charCodeAt(0);
    return String(c - (c >= 0x09e6 ? 0x09e6 : 0x0966));
  });
}

function lookup(key) {
  if (key in catalogue) return catalogue[key];
  if (key in english) return english[key];
  console.warn(`i18n: no text for "${key}"`);
  return key;
}

/**
 * The text of `key` with its {placeholders} filled from `params`; numbers are written in this
 * language's digits.  A plural entry picks its form by `params.count`.
 */
export function t(key, params = {}) {
  let text = lookup(key);
  if (text && typeof text === "object") {
    const form = plurals.select(Number(params.count));
    text = text[form] !== undefined ? text[form] : text.other;
  }
  return String(text).replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const v = params[name];
    return typeof v === "number" ? num(v) : String(v);
  });
}

/** Whether the catalogue has `key` (for the optional texts: an error code's wording). */
export const has = (key) => key in catalogue || key in english;

/** Choose a language on this device and show every page in it (the page is loaded again). */
export function setLanguage(code) {
  if (!CODES.includes(code)) throw new Error(`no language "${code}"`);
  try { localStorage.setItem(LANG_KEY, JSON.stringify(code)); } catch { /* storage disabled */ }
  keepForServer(code);
  location.reload();
}

/** Word the static page (index.html): textContent from data-i18n, attributes from data-i18n-ATTR. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const attr of ["aria-label", "title", "content"]) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) el.setAttribute(attr, t(el.getAttribute(`data-i18n-${attr}`)));
  }
}

translatePage();
