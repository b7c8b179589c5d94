// The service worker: the pages and their files load offline after a first visit.
// The server serves this file at /sw.js with three constants in front of it (see pwa.py):
//   BUILD     a hash of the package version and every static file;
//   PRECACHE  the app shell: the app's page ("/", index.html), every file under /static/ and
//             every language's catalogue.
//   SHELL     the paths whose page is the app's own (index.html): "/", "/t/ID", "/rules", ...
// The app's pages: from this build's cache at once (a reload on a silent link showed nothing for
// 6 s, a slow link waited a round trip; the page is the same for every path and changes with the
// build only, which a new worker brings).  Any other page: network first, the cached shell when the
// network fails.  Static files: from this build's cache (they match the shell of the same build),
// the network for anything not in it.
// Whatever it fetches is asked for with "no-cache": the browser's copy is used only once the server
// has confirmed it (a 304, no body), so the new build's files are stored, never an old copy, and a
// file the first visit's page has just loaded does not cross a slow link twice.
// /api/ and /ws/ are never cached: the table itself needs the server.
/* global BUILD, PRECACHE, SHELL */
const CACHE = `callbreak-${BUILD}`;
const NEVER = ["/api/", "/ws/", "/healthz", "/sw.js"];
const NAV_TIMEOUT_MS = 6000; // a network that hangs (not failing outright) gets the cached page after this
const SHELL_RE = SHELL.map((source) => new RegExp(source));

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(PRECACHE.map((url) => new Request(url, { cache: "no-cache" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("callbreak-") && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || NEVER.some((p) => url.pathname.startsWith(p))) return;
  if (req.mode === "navigate") event.respondWith(page(req, url));
  else if (url.pathname.startsWith("/static/")) event.respondWith(asset(req));
});

async function page(req, url) {
  if (SHELL_RE.some((re) => re.test(url.pathname))) {
    const shell = await (await caches.open(CACHE)).match("/");
    if (shell) return shell;
  }
  try {
    return await withTimeout(fetch(req), NAV_TIMEOUT_MS);
  } catch (err) {
    const cache = await caches.open(CACHE);
    const hit = (await cache.match(url.pathname, { ignoreSearch: true })) || (await cache.match("/"));
    if (hit) return hit;
    throw err;
  }
}

async function asset(req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req, { ignoreSearch: true });
  if (hit) return hit;
  const res = await fetch(new Request(req, { cache: "no-cache" }));
  if (res.ok && res.type === "basic") await cache.put(req, res.clone());
  return res;
}

function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the network is too slow")), ms);
    promise.then((v) => { clearTimeout(timer); resolve(v); }, (e) => { clearTimeout(timer); reject(e); });
  });
}
