"""The installable web app: the service worker's source, versioned by the static files.

The worker (``static/sw.js``) is served at ``/sw.js`` so that its scope is the whole site.  The
server puts three constants in front of it: ``BUILD``, a hash of the package version and of every
static file, ``PRECACHE``, the URLs of the app shell (the app's page, every static file and
catalogue), and
``SHELL``, the paths whose page is the app's (answered from the cache at once).
A release that changes any file changes ``BUILD``, so browsers install the new worker, which fills a
new cache and deletes the old ones.

The worker installs once the first visit's page is drawn, over the same (maybe slow) link: it asks
for each file with ``cache: "no-cache"``, so that a file the page has just loaded is only confirmed
(``304``, `file_answer`, `AppFiles`: an ETag of the file's bytes), not sent again (a first visit's
data on a slow phone was twice the page's: 181 KB for the worker, 71 KB for the page;
``benchmarks/first_visit.py``).

>>> js = service_worker()
>>> js.startswith('const BUILD = "') and '"/static/app.js"' in js and '"/rules"' in js
True
>>> service_worker() == js   # the same files give the same worker, byte for byte
True
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

from .. import __version__
from ..i18n import DIR as I18N
from ..i18n import LANGUAGES, catalogue, language_from_accept

__all__ = [
    "LANG_COOKIE",
    "PAGES",
    "SHELL",
    "SW_HEADERS",
    "AppFiles",
    "build_id",
    "content_etag",
    "file_answer",
    "page_answer",
    "page_language",
    "precache",
    "service_worker",
    "shell_patterns",
]

STATIC = Path(__file__).parent / "static"
# The app's page, index.html, stored once: the worker answers every path of `SHELL` with it (the
# router then draws the page, or says that a table needs the server).
PAGES = ("/",)
#: Every path the server answers with the app's page, index.html (Starlette's templates, for
#: `server.app`'s routes): the worker answers each from its cache at once, never waiting on the
#: network (a reload on a silent link showed nothing for 6 s; a slow one waited a round trip).
SHELL = ("/", "/t/{id}", "/join/{code}", "/watch/{id}", "/calculator", "/rules", "/matches", "/replay/{id}")
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
    """The URLs the worker stores at install: the pages, then every static file and catalogue.

    >>> urls = precache()
    >>> urls[0], "/static/app.js" in urls, "/static/i18n/hi.json" in urls, "/static/sw.js" in urls
    ('/', True, True, False)
    """
    files = [f"/static/{p.relative_to(static).as_posix()}" for p in _files(static) if p.name not in _SKIP]
    return [*PAGES, *files, *(f"/static/i18n/{lang}.json" for lang in LANGUAGES)]


_ETAGS: dict[tuple[str, int, int], str] = {}


def content_etag(path: Path, stat: os.stat_result) -> str:
    """The file's ETag: a hash of its bytes (Starlette's is of its time and size, which a release
    may keep for a changed file, and which differ between hosts behind a load balancer).  Kept per
    file, time and size: read once.

    >>> index = STATIC / "index.html"
    >>> tag = content_etag(index, index.stat())
    >>> tag.startswith('"') and tag.endswith('"') and len(tag) == 34, tag == content_etag(index, index.stat())
    (True, True)
    """
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _ETAGS:
        _ETAGS[key] = '"' + hashlib.sha256(path.read_bytes()).hexdigest()[:32] + '"'
    return _ETAGS[key]


def _confirmed(request_headers: Mapping[str, str], answer: Response) -> Response:
    """``answer``, or ``304 Not Modified`` with no body where ``If-None-Match`` names its ETag
    (or is ``*``); the 304 says it varies with ``Accept-Encoding`` as the gzipped answer does."""
    asked = request_headers.get("if-none-match", "")
    tags = [tag.strip().removeprefix("W/") for tag in asked.split(",")]
    if asked.strip() == "*" or answer.headers["etag"] in tags:
        confirmed = NotModifiedResponse(answer.headers)
        confirmed.headers["vary"] = "Accept-Encoding"
        return confirmed
    return answer


def file_answer(request_headers: Mapping[str, str], path: Path, media_type: str) -> Response:
    """A file with its validators (``ETag``: `content_etag`; ``Last-Modified``), or ``304 Not
    Modified`` with no body where the request's ``If-None-Match`` names its ETag (the service
    worker's install confirming a file the page has just loaded), as `AppFiles` answers.

    >>> index = STATIC / "index.html"
    >>> first = file_answer({}, index, "text/html")
    >>> first.status_code, first.headers["etag"] == content_etag(index, index.stat())
    (200, True)
    >>> again = file_answer({"if-none-match": first.headers["etag"]}, index, "text/html")
    >>> again.status_code, again.body, again.headers["etag"] == first.headers["etag"], again.headers["vary"]
    (304, b'', True, 'Accept-Encoding')
    >>> file_answer({"if-none-match": '"another"'}, index, "text/html").status_code
    200
    """
    stat = os.stat(path)
    answer = FileResponse(path, media_type=media_type, stat_result=stat, headers={"etag": content_etag(path, stat)})
    return _confirmed(request_headers, answer)


_WORDED: dict[tuple[str, int, int, str], tuple[bytes, str]] = {}
_TEXT = re.compile(r'(<(\w+)\b[^>]*\sdata-i18n="([\w.]+)"[^>]*>)[^<]*(</\2>)')


def _worded(index: Path, lang: str) -> tuple[bytes, str]:
    """index.html in ``lang``'s words (what the client's ``translatePage`` does on the page: each
    ``data-i18n`` element's text, each ``data-i18n-ATTR``'s attribute, ``<html lang>``), and its ETag."""
    stat = index.stat()
    key = (str(index), stat.st_mtime_ns, stat.st_size, lang)
    if key not in _WORDED:
        words = catalogue(lang)
        text = index.read_text(encoding="utf-8").replace('<html lang="en">', f'<html lang="{lang}">', 1)
        text = _TEXT.sub(lambda m: m.group(1) + html.escape(str(words[m.group(3)]), quote=False) + m.group(4), text)
        for attr in ("aria-label", "title", "content"):

            def attribute(m: re.Match[str], attr: str = attr) -> str:
                value = html.escape(str(words[m.group(1)]), quote=True)
                return re.sub(rf'(\s{attr}=")[^"]*"', lambda a: a.group(1) + value + '"', m.group(0), count=1)

            text = re.sub(rf'<[^>]*\sdata-i18n-{attr}="([\w.]+)"[^>]*>', attribute, text)
        body = text.encode("utf-8")
        _WORDED[key] = (body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
    return _WORDED[key]


#: the cookie in which the page keeps the language chosen on the device (static/i18n.js)
LANG_COOKIE = "callbreak_lang"


def page_language(request_headers: Mapping[str, str]) -> str:
    """The language to word the app's page in: the one chosen on the device (`LANG_COOKIE`; a reader
    who chose English on a Nepali phone saw a Nepali first paint, then English), else the browser's
    ``Accept-Language`` (`language_from_accept`).

    >>> page_language({"accept-language": "ne-NP", "cookie": "a=1; callbreak_lang=en"}), page_language({"accept-language": "ne-NP"})
    ('en', 'ne')
    >>> page_language({"accept-language": "bn", "cookie": "callbreak_lang=xx"})   # not one of ours: the browser's
    'bn'
    """
    for part in request_headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == LANG_COOKIE and value in LANGUAGES:
            return value
    return language_from_accept(request_headers.get("accept-language"))


def page_answer(request_headers: Mapping[str, str], index: Path) -> Response:
    """The app's page, index.html, worded in the language the browser asks for
    (`page_language`: the device's choice, else ``Accept-Language``), so that its first paint (the top bar, "Loading…")
    is in the reader's words, not English until the catalogue is in (on a slow phone's link, over a
    second: ``benchmarks/first_visit.py``); the client words it again by the reader's own choice.
    A ``304`` where ``If-None-Match`` names that wording's ETag.

    >>> index = STATIC / "index.html"
    >>> ne = page_answer({"accept-language": "ne-NP,ne;q=0.9,en;q=0.8"}, index)
    >>> text = ne.body.decode()
    >>> '<html lang="ne">' in text, ">नियम</a>" in text, ne.headers["vary"]
    (True, True, 'Accept-Language, Cookie')
    >>> page_answer({"accept-language": "ne", "if-none-match": ne.headers["etag"]}, index).status_code
    304
    >>> page_answer({}, index).headers["etag"] == content_etag(index, index.stat())   # English: the file itself
    True
    """
    # (the service worker's copy too, asked with the same headers: the page a first visit loaded is
    # confirmed, not sent again, and later visits open in the reader's words from it; a language
    # chosen after it was kept shows at first paint from the next release's copy)
    lang = page_language(request_headers)
    if lang == "en":
        answer = file_answer(request_headers, index, "text/html")
    else:
        body, tag = _worded(index, lang)
        answer = _confirmed(request_headers, Response(body, media_type="text/html", headers={"etag": tag}))
    answer.headers["vary"] = ("Accept-Encoding, " if answer.status_code == 304 else "") + "Accept-Language, Cookie"
    return answer


class AppFiles(StaticFiles):
    """``/static/``: Starlette's static files with `content_etag` for their ETag.

    >>> AppFiles(directory=STATIC).directory == STATIC
    True
    """

    def file_response(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        tag = content_etag(Path(full_path), stat_result)
        answer = FileResponse(full_path, status_code=status_code, stat_result=stat_result, headers={"etag": tag})
        return _confirmed(Headers(scope=scope), answer)


def shell_patterns() -> list[str]:
    """`SHELL` as the worker's regular expressions (a parameter: one segment; a slash may end it).

    >>> shell_patterns()[:2]
    ['^/$', '^/t/[^/]+/?$']
    >>> import re
    >>> [p for p in shell_patterns() if re.match(p, "/join/ab12cd")], any(re.match(p, "/metrics") for p in shell_patterns())
    (['^/join/[^/]+/?$'], False)
    """
    # (the paths have no character a regular expression reads otherwise but the parameters)
    return ["^/$" if path == "/" else "^" + re.sub(r"\{\w+\}", "[^/]+", path) + "/?$" for path in SHELL]


def service_worker(static: Path = STATIC) -> str:
    """The worker's JavaScript as served at ``/sw.js``.

    >>> js = service_worker()
    >>> js.splitlines()[0] == f"const BUILD = {json.dumps(build_id())};", js.splitlines()[1].startswith("const PRECACHE = [")
    (True, True)
    """
    head = (
        f"const BUILD = {json.dumps(build_id(static))};\nconst PRECACHE = {json.dumps(precache(static))};\n"
        f"const SHELL = {json.dumps(shell_patterns())};\n"
    )
    return head + (static / "sw.js").read_text(encoding="utf-8")
