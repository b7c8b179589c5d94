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
