// The single-page app: a router on location.pathname.  Each page lives in its own
// module, loaded on first use, and renders into <main id="app">.
import { h, fill } from "./util.js";
import { initSettings } from "./settings.js";
import { t } from "./i18n.js";
import { resumeBanner } from "./seats.js";

const ROUTES = [
  [/^\/$/, "home", async (m) => (await import("./home.js")).renderHome],
  [/^\/calculator\/?$/, "calculator", async () => (await import("./calculator.js")).renderCalculator],
  [/^\/rules\/?$/, "rules", async () => (await import("./rules.js")).renderRules],
  [/^\/t\/([\w-]+)\/?$/, "table", async () => (await import("./table.js")).renderTable],
  [/^\/watch\/([\w-]+)\/?$/, "watch", async () => (await import("./table.js")).renderWatch],
  // (a link pasted with a chat's ")" or "." after it: the code is its part before them)
  [/^\/join\/([\w-]+(?:\.[\w-]+)?)[^\w\/-]*\/?$/, "join", async () => (await import("./home.js")).renderJoin],
  [/^\/matches\/?$/, "matches", async () => (await import("./matches.js")).renderMatches],
  [/^\/replay\/([\w-]+)\/?$/, "replay", async () => (await import("./matches.js")).renderReplay],
];


// Pages that live on the server's data: offline (the page itself came from the service worker's
// cache) they say so, and open by themselves when the connection is back.
const NEEDS_SERVER = new Set(["table", "watch", "join", "replay"]);

function offline(root) {
  fill(root, h("div", { class: "page", "data-testid": "offline" },
    h("h1", null, t("offline.title")),
    h("p", null, t("offline.text")),
    h("p", null, h("a", { class: "btn", href: "/rules", "data-link": true }, t("offline.rules")), " ",
      h("a", { class: "btn", href: "/calculator", "data-link": true }, t("calc.title")))));
  const back = () => route();
  window.addEventListener("online", back);
  return () => window.removeEventListener("online", back);
}

let cleanup = null;
let seq = 0;

// A new release's service worker takes over an open page (skipWaiting + claim, sw.js): the modules
// this page holds are the old build's, and a module imported from then on would be the new build's.
// So once that happens the next page is loaded whole (a full navigation), never mixed; and a page
// module that fails to load (a mixed build, or a file gone) reloads the page once.
let stale = false;
if ("serviceWorker" in navigator) {
  const controlled = !!navigator.serviceWorker.controller;
  navigator.serviceWorker.addEventListener("controllerchange", () => { if (controlled) stale = true; });
}
const RELOADED = "callbreak.reloaded";

function reloadOnce(path) {
  try {
    if (sessionStorage.getItem(RELOADED) === path) return false;
    sessionStorage.setItem(RELOADED, path);
  } catch { return false; }
  location.reload();
  return true;
}

// pages that show the way back to a match still on, at their top (home.js draws its own)
const WAY_BACK = new Set(["rules", "calculator", "matches"]);

// the page drawn (path and query): a move to an anchor within it draws nothing again
let routed = "";
// a page has been drawn (the first one, on load, leaves the focus where the browser puts it)
let routedOnce = false;

async function route() {
  const root = document.getElementById("app");
  const path = location.pathname;
  routed = path + location.search;
  const my = ++seq;
  if (stale) { location.assign(location.href); return; }
  if (cleanup) { try { cleanup(); } catch { /* ignore */ } cleanup = null; }
  for (const [re, name, loader] of ROUTES) {
    const m = re.exec(path);
    if (!m) continue;
    document.title = t(`title.${name}`);
    for (const a of document.querySelectorAll(".topbar nav a")) {
      if (a.getAttribute("href") === path) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    if (NEEDS_SERVER.has(name) && !navigator.onLine) {
      document.body.dataset.page = "offline";  // (a page of its own look: on the table's felt, its words were near invisible)
      cleanup = offline(root);
      return;
    }
    try {
      const render = await loader(m);
      if (my !== seq) return;
      // the page's look with the page: set before its code came, the page before it was drawn on
      // the table's felt for seconds on a slow phone, its words near invisible (a newcomer's try)
      document.body.dataset.page = name;
      cleanup = render(root, decodeURIComponent(m[1] || "")) || null;
      if (WAY_BACK.has(name)) {  // (drawn with the page: nothing moves in under a finger)
        const banner = resumeBanner();
        if (banner && root.firstElementChild) root.firstElementChild.prepend(banner);
      }
      // a page moved to within the app: the keyboard's focus on its heading, read out (it stayed on
      // the page's start, the title alone changed: a keyboard player's try); the table places its own
      const was = document.activeElement;
      const lost = !was || was === document.body || !was.isConnected || !!was.closest(".topbar");  // (or on the top bar's link that came here)
      if (routedOnce && lost && name !== "table" && name !== "watch") {
        const heading = root.querySelector("h1");
        if (heading) { heading.tabIndex = -1; heading.focus({ preventScroll: true }); } else root.focus({ preventScroll: true });
      }
      routedOnce = true;
      try { sessionStorage.removeItem(RELOADED); } catch { /* storage disabled */ }
    } catch (e) {
      console.error(e);
      if (my === seq && reloadOnce(path)) return;
      document.body.dataset.page = "error";
      fill(root, h("div", { class: "page" }, h("h1", null, t("page.error")), h("p", null, String(e.message || e))));
    }
    return;
  }
  document.body.dataset.page = "notfound";
  fill(root, h("div", { class: "page" }, h("h1", null, t("page.not_found")),
    h("p", null, h("a", { href: "/", "data-link": true }, t("page.back_home")))));
}

document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-link]");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  if (url.pathname + url.hash !== location.pathname + location.hash) history.pushState(null, "", url.pathname + url.search + url.hash);
  route();
  window.scrollTo(0, 0);
});

// (an anchor of the same page, "#section" of the rules, fires popstate too: it is a scroll, not a
// new page; drawing the page again threw a table away and opened its socket anew)
// (a seat's link pasted over the table's address, "/t/ID#TOKEN", is a new seat: drawn again)
window.addEventListener("popstate", () => {
  const seatLink = location.pathname.startsWith("/t/") && location.hash.length > 10;
  if (location.pathname + location.search !== routed || seatLink) route();
});
// "Skip to content" moves the focus to the page's content, without a "#app" in the address
document.querySelector("a.skip")?.addEventListener("click", (e) => {
  e.preventDefault();
  document.getElementById("app").focus();
});
initSettings();
const drawn = route();

// The pages that lead to a table ("Play now", a friend's link) ask for the table's code once they
// are drawn: on a slow phone's link a tap on "Play now" then waits for the table's first message
// only, not for the table's code too (a hand 3.8 s after the tap before, 3.1 s now, at 400 kbit/s:
// benchmarks/first_visit.py).
const LEAD_TO_TABLE = new Set(["home", "join"]);
const warmed = drawn.then(() => {
  if (!LEAD_TO_TABLE.has(document.body.dataset.page)) return null;
  const [, , tableCode] = ROUTES.find(([, name]) => name === "table");
  // (a failure here is the table's too when one opens: its import fails as this one did, and the
  // page is loaded again once, as for any page's code that fails: reloadOnce)
  return tableCode().catch((e) => console.warn("The table's code did not load ahead:", e));
});

// The service worker (/sw.js) keeps the pages and their files for offline use.  Without it
// (an old browser, or a page not served over https or from localhost) everything works online.
// It is installed once the first page is drawn and loaded (and the table's code is in, where it
// was asked for): its downloads then take nothing from the page's own on a slow link, and a file
// the page has is only confirmed (a 304), not sent again.
if ("serviceWorker" in navigator) {
  const loaded = document.readyState === "complete" ? null : new Promise((ok) => window.addEventListener("load", ok, { once: true }));
  Promise.all([warmed, loaded]).then(() => navigator.serviceWorker.register("/sw.js", { scope: "/" }))
    .catch((e) => console.warn("No offline support:", e));
}
