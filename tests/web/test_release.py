"""A returning player after a release: the page never runs one build's modules with another's.

The service worker serves the page's modules from the cache of the build the page was loaded
with; a new release's worker takes over the open page. The test serves a copy of the web client
(``CALLBREAK_STATIC``), visits it, "releases" a version whose ``table.js`` needs a new export of
``util.js``, restarts the server on the same port, reloads, and starts a game: the table must
open (before the fix: "Something went wrong", the new table.js against the old util.js).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import STATIC, free_port, start_server, stop_server

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture
def client_copy() -> Iterator[Path]:
    tmp = Path(tempfile.mkdtemp(prefix="cb-release-"))
    shutil.copytree(STATIC, tmp / "static")
    yield tmp
    shutil.rmtree(tmp, ignore_errors=True)


def release(static: Path) -> None:
    """A new version: util.js gains an export that table.js imports."""
    util = static / "util.js"
    util.write_text(util.read_text(encoding="utf-8") + "\nexport const RELEASE = 2;\n", encoding="utf-8")
    table = static / "table.js"
    text = table.read_text(encoding="utf-8")
    assert 'from "./util.js";' in text
    table.write_text(
        'import { RELEASE } from "./util.js";\nconsole.log("release", RELEASE);\n' + text, encoding="utf-8"
    )


def test_a_release_never_mixes_two_builds_in_one_page(browser: Any, client_copy: Path) -> None:
    static = client_copy / "static"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "CALLBREAK_STATIC": str(static)}
    db, log = str(client_copy / "t.sqlite"), str(client_copy / "server.log")
    proc = start_server(port, db, log, env=env)
    ctx = browser.new_context(**PHONE)
    try:
        page = ctx.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/")
        page.wait_for_selector("[data-testid=play-now]")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        first = page.evaluate("caches.keys()")
        assert len(first) == 1
        stop_server(proc)
        release(static)
        proc = start_server(port, db, log, env=env)
        # The returning player: the page loads from the old build's cache, the new worker installs.
        page.reload()
        page.wait_for_selector("[data-testid=play-now]")
        # (wait_for_function does not await a promise: poll the new build's cache from here)
        deadline = time.monotonic() + 60
        while (keys := page.evaluate("caches.keys()")) == first or len(keys) != 1:
            assert time.monotonic() < deadline, f"the new release's worker never took over: {keys}"
            page.wait_for_timeout(100)
        page.fill("[data-testid=my-name]", "Asha")
        page.locator("[data-testid=play-now]").tap()
        page.wait_for_selector("[data-testid=hand] [data-card]")
        assert page.locator("text=Something went wrong").count() == 0
        assert errors == []
        # and the table runs the new build
        assert page.evaluate("import('/static/util.js').then((m) => m.RELEASE)") == 2
    finally:
        ctx.close()
        stop_server(proc)
