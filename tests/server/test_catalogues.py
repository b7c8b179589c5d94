"""The server serves the language catalogues (callbreak.i18n) to the browser, and only them."""

from __future__ import annotations

import httpx

from callbreak.i18n import LANGUAGES, catalogue

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
    # the worker stores English at install, another language as a page asks for it (test_pwa.py)
    worker = httpx.get(f"{server.base}/sw.js").text
    assert [lang for lang in LANGUAGES if f'"/static/i18n/{lang}.json"' in worker] == ["en"]


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
