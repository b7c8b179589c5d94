"""The installable web app: the service worker's source, versioned by the static files.

The worker (``static/sw.js``) is served at ``/sw.js`` so that its scope is the whole site.  The
server puts two constants in front of it: ``BUILD``, a hash of the package version and of every
static file, and ``PRECACHE``, the URLs of the app shell (the SPA's pages and every static file).
A release that changes any file changes ``BUILD``, so browsers install the new worker, which fills a
new cache and deletes the old ones.

The worker installs while the first visit goes on, over the same (maybe slow) link: it asks for each
file with ``cache: "no-cache"``, so that a file the page has just loaded is only confirmed (``304``,
`file_answer`), not sent again; and it stores the other languages' catalogues only when a page asks
for them (a first visit's data on a slow phone was twice the page's: 181 KB for the worker, 71 KB
for the page; ``benchmarks/first_visit.py``).

>>> js = service_worker()
>>> js.startswith('const BUILD = "') and '"/static/app.js"' in js and '"/rules"' in js
True
>>> service_worker() == js   # the same files give the same worker, byte for byte
True
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from starlette.responses import FileResponse, Response

from .. import __version__
from ..i18n import DIR as I18N
from ..i18n import LANGUAGES

__all__ = ["PAGES", "SW_HEADERS", "build_id", "file_answer", "precache", "service_worker"]

STATIC = Path(__file__).parent / "static"
# The SPA's pages a person may open offline; each is index.html.  Any other page offline falls
# back to the cached "/" (the router then shows that a table needs the server).
PAGES = ("/", "/rules", "/calculator", "/matches")
_SKIP = {"sw.js", "index.html"}  # the worker itself; index.html is cached under the pages' URLs
SW_HEADERS = {"Cache-Control": "no-cache"}  # the browser asks for a new worker on every visit


def _files(static: Path) -> list[Path]:
    return sorted(
        p
        for p in static.rglob("*")
        if p.is_file() and not p.name.startswith(".") and "__pycache__" not in p.parts
    )


def build_id(static: Path = STATIC) -> str:
    """A short hash of the package version and of every static file's name and bytes.

    >>> b = build_id()
    >>> len(b), b == build_id(), all(c in "0123456789abcdef" for c in b)
    (16, True, True)
    """
    h = hashlib.sha256(__version__.encode())
    for p in _files(static):
        h.update(b"\0" + p.relative_to(static).as_posix().encode() + b"\0")
        h.update(p.read_bytes())
    for lang in LANGUAGES:  # the catalogues, served at /static/i18n/ (callbreak.i18n)
        h.update(b"\0i18n/" + lang.encode() + b"\0")
        h.update((I18N / f"{lang}.json").read_bytes())
    return h.hexdigest()[:16]


def precache(static: Path = STATIC) -> list[str]:
    """The URLs the worker stores at install: the pages, every static file and the English catalogue.

    The other languages' catalogues are stored as a page asks for them (the reader's own, which
    the first visit's page asks for again once the worker controls it: ``app.js``).

    >>> urls = precache()
    >>> urls[:4], "/static/app.js" in urls, "/static/i18n/en.json" in urls, "/static/i18n/hi.json" in urls
    (['/', '/rules', '/calculator', '/matches'], True, True, False)
    >>> "/static/sw.js" in urls
    False
    """
    files = [f"/static/{p.relative_to(static).as_posix()}" for p in _files(static) if p.name not in _SKIP]
    return [*PAGES, *files, "/static/i18n/en.json"]


def file_answer(request_headers: Mapping[str, str], path: Path, media_type: str) -> Response:
    """A file with its validators (``ETag``, ``Last-Modified``), or ``304 Not Modified`` with no
    body where the request's ``If-None-Match`` names its ETag (the service worker's install
    confirming a file the page has just loaded), as ``/static/`` answers.

    >>> index = STATIC / "index.html"
    >>> first = file_answer({}, index, "text/html")
    >>> first.status_code, first.headers["etag"].startswith('"')
    (200, True)
    >>> again = file_answer({"if-none-match": first.headers["etag"]}, index, "text/html")
    >>> again.status_code, again.body, again.headers["etag"] == first.headers["etag"]
    (304, b'', True)
    >>> file_answer({"if-none-match": '"another"'}, index, "text/html").status_code
    200
    """
    answer = FileResponse(path, media_type=media_type, stat_result=os.stat(path))
    etag = answer.headers["etag"]
    asked = request_headers.get("if-none-match", "")
    if etag in (tag.strip().removeprefix("W/") for tag in asked.split(",")):
        return Response(status_code=304, headers={"etag": etag, "last-modified": answer.headers["last-modified"]})
    return answer


def service_worker(static: Path = STATIC) -> str:
    """The worker's JavaScript as served at ``/sw.js``.

    >>> js = service_worker()
    >>> js.splitlines()[0] == f"const BUILD = {json.dumps(build_id())};", js.splitlines()[1].startswith("const PRECACHE = [")
    (True, True)
    """
    head = (
        f"const BUILD = {json.dumps(build_id(static))};\nconst PRECACHE = {json.dumps(precache(static))};\n"
    )
    return head + (static / "sw.js").read_text(encoding="utf-8")
