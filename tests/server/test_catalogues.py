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
    worker = httpx.get(f"{server.base}/sw.js").text
    assert all(f'"/static/i18n/{lang}.json"' in worker for lang in LANGUAGES)


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
