// Settings kept on this device (localStorage "callbreak.settings", a JSON object) and the
// dialog behind the top bar's gear button, on every page.
//   oneTap   play a card with one tap (the hand reads it); default off
//   sound    a short tone on your turn and on a trick you win; default off
//   vibrate  a short vibration at the same moments; default on where the device can vibrate
//            (navigator.vibrate exists), else off and not offered
import { h, load, save } from "./util.js";
import { t, lang, LANGUAGES, setLanguage } from "./i18n.js";

export const SETTINGS_KEY = "callbreak.settings";
export const SETTINGS_EVENT = "callbreak:settings";

/** Whether this browser can vibrate the device. */
export const canVibrate = () => typeof navigator.vibrate === "function";

function defaults() {
  return { oneTap: false, sound: false, vibrate: canVibrate() };
}

/** Every setting, the stored value where there is a valid one, else its default. */
export function getSettings() {
  const stored = load(SETTINGS_KEY, {});
  const out = defaults();
  if (stored && typeof stored === "object") {
    for (const k of Object.keys(out)) if (typeof stored[k] === "boolean") out[k] = stored[k];
  }
  if (!canVibrate()) out.vibrate = false;
  return out;
}

/** Store one setting (a boolean) and tell the page (a "callbreak:settings" event on window). */
export function setSetting(name, value) {
  if (!(name in defaults())) throw new Error(`there is no setting "${name}"`);
  if (typeof value !== "boolean") throw new TypeError(`the setting "${name}" is true or false`);
  const next = { ...getSettings(), [name]: value };
  save(SETTINGS_KEY, next);
  window.dispatchEvent(new CustomEvent(SETTINGS_EVENT, { detail: next }));
  return next;
}

const ROWS = ["oneTap", "sound", "vibrate"].map((name) => ({
  name, label: t(`settings.${name}`), help: t(`settings.${name}_help`), off: name === "vibrate" ? t("settings.vibrate_off") : "",
}));

// set while the page reloads in the language just chosen: the settings open again after it
const REOPEN_KEY = "callbreak.settings-open";

/** The language menu: each language named in itself; a choice reloads the page in it, with the
 *  settings open again (found in a newcomer's try: they vanished, mid-way through them).
 *  With a finger or a mouse the menu's choice is made at once. With the keyboard an arrow already
 *  changes the value (and reloaded the page, in the first language passed on the way): the choice
 *  is made with Enter, or with the dialog's Done; Escape leaves the language as it was.
 *  Returns the row and what the menu holds that is not the page's language (null: nothing). */
function languageRow() {
  const choose = (code) => {
    try { sessionStorage.setItem(REOPEN_KEY, "1"); } catch { /* storage disabled: they stay closed */ }
    setLanguage(code);
  };
  // keys that change a closed menu's value where they are pressed (type-ahead letters too)
  const MOVES = new Set(["ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);
  let byKey = false;
  const select = h("select", {
    id: "set-lang", "data-testid": "setting-lang",
    onkeydown: (e) => {
      if (e.key === "Enter") { e.preventDefault(); byKey = false; if (select.value !== lang) choose(select.value); }
      else if (MOVES.has(e.key) || e.key.length === 1) byKey = true;
    },
    onchange: () => { if (!byKey && select.value !== lang) choose(select.value); },
  }, ...LANGUAGES.map(([code, name]) => h("option", { value: code, selected: code === lang, lang: code }, name)));
  const row = h("label", { class: "field", for: "set-lang" }, h("span", null, t("settings.language")), select);
  return { row, pending: () => (select.value !== lang ? select.value : null) };
}

let dialog = null;

/** Open the settings dialog (drawn afresh from the stored settings). */
export function openSettings(opener) {
  if (dialog) dialog.remove();
  const now = getSettings();
  const rows = ROWS.map((r) => {
    const unavailable = r.name === "vibrate" && !canVibrate();
    const input = h("input", {
      type: "checkbox", role: "switch", id: `set-${r.name}`, "data-testid": `setting-${r.name}`,
      checked: now[r.name], disabled: unavailable,
      onchange: (e) => {
        setSetting(r.name, e.target.checked);
        if (e.target.checked) preview(r.name);
      },
    });
    return h("div", { class: `setting${unavailable ? " unavailable" : ""}` },
      input,
      h("label", { for: `set-${r.name}` }, h("span", null, r.label), h("small", null, unavailable ? r.off : r.help)));
  });
  const language = languageRow();
  // (Done takes a language chosen with the keyboard and not yet entered)
  const done = h("button", { class: "btn primary", type: "button", "data-testid": "settings-close",
    onclick: () => { const code = language.pending(); if (code) setLanguage(code); else dialog.close(); } }, t("settings.done"));
  dialog = h("dialog", { class: "dialog settings-dialog", "aria-labelledby": "settings-title", "data-testid": "settings" },
    h("h2", { id: "settings-title" }, t("settings.title")),
    h("p", { class: "hint" }, t("settings.kept")),
    language.row,
    ...rows,
    h("div", { class: "row" }, done));
  const box = dialog;
  // A tap on the backdrop (outside the box) closes it, as the other dialogs do.
  box.addEventListener("click", (e) => { if (e.target === box) box.close(); });
  box.addEventListener("close", () => {
    box.remove();
    if (dialog === box) dialog = null;
    // The focus goes back to the gear, unless the player has already moved it on (the close
    // event comes a task after the tap that closed the dialog): only a focus left on nothing.
    const now = document.activeElement;
    if (opener && opener.isConnected && (!now || now === document.body)) opener.focus();
  });
  document.body.append(box);
  box.showModal();
}

// Turning sound or vibration on plays it once (this tap also lets the browser start audio).
async function preview(name) {
  const { cue } = await import("./feedback.js");
  cue("turn", { [name]: true });
}

/** Wire the top bar's gear button; a tap on it before this ran (the words were not in yet) is
 *  kept by early.js, and opens the settings now. */
export function initSettings() {
  const btn = document.querySelector("[data-testid=settings-btn]");
  if (btn) {
    btn.addEventListener("click", () => openSettings(btn));
    btn.dataset.ready = "1";
    if (btn.dataset.early) { delete btn.dataset.early; openSettings(btn); }
  }
  let reopen = false;
  try { reopen = sessionStorage.getItem(REOPEN_KEY) === "1"; sessionStorage.removeItem(REOPEN_KEY); } catch { /* storage disabled */ }
  if (reopen && btn) openSettings(btn);
}
