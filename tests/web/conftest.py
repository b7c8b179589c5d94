"""Browser tests: Playwright (sync API) driving Debian's Chromium against a real server.

Skipped, with the reason, only when ``/usr/bin/chromium`` is missing outside CI (in CI, which
installs it, they fail).

Every page runs under the server's Content-Security-Policy (the static-only server sends
it too), and every context records policy violations: a test that caused one fails.
So ``page.wait_for_function`` takes a function (``"() => ..."``): Playwright evaluates a
bare expression again at each poll with ``eval``, which the policy refuses.
"""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from callbreak.i18n import DIR as I18N
from callbreak.server.headers import SECURITY_HEADERS

from ..seeds import seed_of, seed_of_test

CHROMIUM = "/usr/bin/chromium"
STATIC = Path(__file__).resolve().parents[2] / "src" / "callbreak" / "server" / "static"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

if not os.path.exists(CHROMIUM):
    # skipped on a developer's machine without it; in CI (which installs it) a missing browser fails
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{CHROMIUM} is missing (CI must provide it: see .ci/run)", pytrace=False)
    pytest.skip(
        f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests", allow_module_level=True
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Static(http.server.SimpleHTTPRequestHandler):
    """Serves the client the way `callbreak serve` does: assets under /static, index.html elsewhere."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, directory=str(STATIC), **kw)

    def end_headers(self) -> None:
        for k, v in SECURITY_HEADERS.items():
            self.send_header(k, v)
        super().end_headers()

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == "/sw.js":
            from callbreak.server.pwa import SW_HEADERS, service_worker

            body = service_worker(STATIC).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for k, v in SW_HEADERS.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path.startswith("/static/i18n/"):  # the catalogues, as the server serves them
            return str(I18N / path[len("/static/i18n/") :])
        if path.startswith("/static/"):
            return str(STATIC / path[len("/static/") :])
        return str(STATIC / "index.html")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    """The client files alone (for the pages that need no server: calculator, rules)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Static)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="package")
def pw() -> Iterator[Any]:
    """Playwright for the browser tests.  Package scope, not session: the sync API keeps an
    event loop running in the main thread while it is started, so it is stopped before a test
    outside tests/web that runs its own loop (the terminal client's async pilot tests) runs in
    the same process; xdist may hand one worker both kinds in any order."""
    from playwright.sync_api import sync_playwright

    # a context's "request" events and routes see the service worker's fetches too (Chromium), for the
    # tests of what a first visit sends (test_pwa.py): on by default since Playwright 1.57, this
    # variable for the ones before; a page's own events and routes are unchanged
    os.environ["PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS"] = "1"
    with sync_playwright() as p:
        yield p


#: recorded in every page: each Content-Security-Policy violation, as a console error
CSP_PROBE = """
document.addEventListener("securitypolicyviolation", (e) => {
  if (!e.sourceFile) return;  // Playwright's own evaluations, not the page's
  (window.__csp = window.__csp || []).push(e.violatedDirective);
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`);
});
"""

#: the CSP violations (and Chromium's own "Refused to ..." reports) seen by the current test
CSP_VIOLATIONS: list[str] = []


def _is_csp(text: str) -> bool:
    return text.startswith("CSP violation")


class WatchedBrowser:
    """The browser, whose every new context records CSP violations in `CSP_VIOLATIONS`."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def new_context(self, **kw: Any) -> Any:
        ctx = self._real.new_context(**kw)
        ctx.add_init_script(CSP_PROBE)
        ctx.on("console", lambda m: CSP_VIOLATIONS.append(m.text) if m.type == "error" and _is_csp(m.text) else None)
        return ctx

    @property
    def unwatched(self) -> Any:
        """The browser itself (for a test that provokes violations on purpose)."""
        return self._real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@pytest.fixture(scope="package")
def browser(pw: Any) -> Iterator[Any]:
    b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield WatchedBrowser(b)
    b.close()


@pytest.fixture(autouse=True)
def no_csp_violations() -> Iterator[None]:
    """Every browser test fails on a Content-Security-Policy violation."""
    CSP_VIOLATIONS.clear()
    yield
    assert CSP_VIOLATIONS == [], CSP_VIOLATIONS


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1100, "height": 850})
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: Any) -> Any:
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    return pg


def start_server(port: int, db: str, log_path: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``callbreak serve`` with fast bots and timers (and ``env``, default
    this process's environment); return once it listens."""
    cmd = [sys.executable, "-m", "callbreak", "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db]
    # Fast bots and timers for the tests (an option the server does not take stops it: the test fails)
    for opt, val in (
        ("--bot-delay", "0.05"),
        ("--between-rounds", "2"),
        ("--forced-delay", "0.15"),
        ("--create-rate", "0"),
        ("--msg-rate", "0"),
        ("--connect-rate", "0"),
        # seeded deals: a test meets the same deals and bot play every run (the shared server's
        # tests each start the stream again: `seeded_deals`)
        ("--seed", str(seed_of_test())),
    ):
        cmd += [opt, val]
    # POST /test/seed (each test on a shared server starts the deals again: `restart_deals`)
    env = {**(os.environ if env is None else env), "CALLBREAK_TEST_RESEED": "1"}
    with open(log_path, "a") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail("callbreak serve exited: " + Path(log_path).read_text()[-2000:])
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("callbreak serve did not start listening in 30 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """A real ``callbreak serve`` process on a free port with a temporary SQLite file."""
    tmp = tempfile.mkdtemp(prefix="cb-web-")
    port = free_port()
    proc = start_server(port, os.path.join(tmp, "tables.sqlite"), os.path.join(tmp, "server.log"))
    yield f"http://127.0.0.1:{port}"
    stop_server(proc)


def restart_deals(server: str, key: str) -> None:
    """Start the seeded ``server``'s deals again from ``key`` (``POST /test/seed``): the tables
    made next are dealt alike whichever tests ran on it before."""
    import httpx

    r = httpx.post(f"{server}/test/seed", json={"seed": seed_of(key)}, timeout=30)
    assert r.status_code == 200, r.text


def _uses_server(items: list[Any]) -> bool:
    return any("server" in getattr(i, "fixturenames", ()) for i in items)


@pytest.fixture(scope="module", autouse=True)
def seeded_module(request: pytest.FixtureRequest) -> None:
    """A module's own tables made once for its tests (module fixtures) get the module's deals.
    (Autouse: set up before the module's other fixtures.)"""
    mine = [i for i in request.session.items if i.nodeid.split("::", 1)[0] == request.node.nodeid]
    if _uses_server(mine):
        restart_deals(request.getfixturevalue("server"), request.node.nodeid)


@pytest.fixture(autouse=True)
def seeded_deals(request: pytest.FixtureRequest) -> None:
    """Each test on the shared `server` gets its own deals, the same every run, whichever tests
    ran before it on this process's server (xdist shares them out differently each run)."""
    if "server" in request.fixturenames:
        restart_deals(request.getfixturevalue("server"), request.node.nodeid)
