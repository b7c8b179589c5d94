"""The server serves the language catalogues (callbreak.i18n) to the browser, and only them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import httpx

from callbreak.i18n import LANGUAGES, catalogue
from callbreak.server.pwa import STATIC

from .conftest import Server


def test_catalogues_are_served_and_precached(server: Server) -> None:
    for lang in LANGUAGES:
        r = httpx.get(f"{server.base}/static/i18n/{lang}.json")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        assert r.json() == catalogue(lang)
        assert r.headers["x-content-type-options"] == "nosniff"  # served as the other files are
    for other in ("fr.json", "__init__.py", "en", "..%2Fcli.py"):
        r = httpx.get(f"{server.base}/static/i18n/{other}")
        assert r.status_code == 404, other
    worker = httpx.get(f"{server.base}/sw.js").text
    assert all(f'"/static/i18n/{lang}.json"' in worker for lang in LANGUAGES)


def test_a_file_the_browser_has_is_confirmed_not_sent_again(server: Server) -> None:
    """A slow phone's first visit: the service worker, installing, asked for every file again past
    the browser's copies, 181 KB on the link beside the page's 71 KB (benchmarks/first_visit.py).
    It now asks with the copy's ETag: a page, a catalogue or a static file the browser has is
    confirmed (304, no body), one it has another copy of is sent."""
    for path in ("/", "/rules", "/static/i18n/ne.json", "/static/table.js"):
        first = httpx.get(server.base + path)
        assert first.status_code == 200 and first.headers["etag"], path
        same = httpx.get(server.base + path, headers={"If-None-Match": first.headers["etag"]})
        assert (same.status_code, same.content, same.headers["etag"]) == (304, b"", first.headers["etag"]), path
        other = httpx.get(server.base + path, headers={"If-None-Match": '"an older copy"'})
        assert (other.status_code, other.content) == (200, first.content), path


def test_the_pages_files_go_compressed_to_a_browser_that_takes_it(server: Server) -> None:
    """A newcomer's try on a slow phone's link: 229 KB before the home page could be tapped, 10 to
    12 s; none of it compressed. The page's words, code and style go gzipped to a browser that
    says it takes gzip (every browser), as they are to one that does not; a small answer as it is."""
    big = ["/static/i18n/ne.json", "/static/style.css", "/static/table.js", "/"]
    for path in big:
        plain = httpx.get(server.base + path, headers={"Accept-Encoding": "identity"})
        packed = httpx.get(server.base + path, headers={"Accept-Encoding": "gzip"})  # (httpx unpacks it)
        assert plain.status_code == packed.status_code == 200, path
        assert "content-encoding" not in plain.headers, path
        assert packed.headers["content-encoding"] == "gzip" and packed.content == plain.content, path
        # at most half the bytes on the link (a third and less but for the small page itself)
        with httpx.stream("GET", server.base + path, headers={"Accept-Encoding": "gzip"}) as r:
            sent = len(b"".join(r.iter_raw()))
        assert sent * 2 < len(plain.content), (path, sent, len(plain.content))
        assert packed.headers["x-content-type-options"] == "nosniff"  # (the same headers)
    small = httpx.get(server.base + "/healthz", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers


def test_a_release_that_keeps_a_files_size_and_time_is_not_confirmed_as_the_old(
    make_server: Callable[..., Server], tmp_path: Path
) -> None:
    """A reviewer's find: the ETag was of the file's time and size (Starlette's), and a release built
    with fixed times (as Nix and some image builders do) keeps both for a changed file; the new
    worker, asking with the old copy's ETag, was told 304 and kept the old build's code for good.
    The ETag is of the file's bytes: the same bytes on any host, other bytes another tag."""
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    env = {"CALLBREAK_STATIC": str(static)}
    util = static / "util.js"
    server = make_server(env=env, db=tmp_path / "a.db")
    old = httpx.get(server.base + "/static/util.js")
    assert old.status_code == 200
    before = util.stat()
    text = util.read_bytes()
    util.write_bytes(text.replace(b"export", b"EXPORT", 1))  # the same size, other bytes
    os.utime(util, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (util.stat().st_size, util.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    server.stop()
    again = make_server(env=env, db=tmp_path / "b.db")  # (the release: a process started anew)
    got = httpx.get(again.base + "/static/util.js", headers={"If-None-Match": old.headers["etag"]})
    assert got.status_code == 200 and got.content == util.read_bytes(), got.status_code
    # and the same bytes on another process (another host behind the balancer) have the same tag
    other = make_server(env=env, db=tmp_path / "c.db")
    assert httpx.get(other.base + "/static/util.js").headers["etag"] == got.headers["etag"]
