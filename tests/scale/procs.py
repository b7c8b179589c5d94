"""`callbreak serve` processes on PostgreSQL and Redis, and nginx in front of them."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from ..server.conftest import Server
from .services import NGINX, free_port, unavailable


def until(cond: Callable[[], object], timeout: float = 30.0, what: Callable[[], str] = lambda: "timed out") -> None:
    """Wait for ``cond()`` to hold (polled every 50 ms); after ``timeout`` seconds, fail with ``what()``."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what()
        time.sleep(0.05)


class ScaledServer(Server):
    """``callbreak serve --db postgresql://… --redis redis://…`` as a child process."""

    def __init__(self, pg: str, redis: str, ns: str, env: dict[str, str] | None = None) -> None:
        super().__init__(Path("unused"), {"CALLBREAK_NAMESPACE": ns, "CALLBREAK_LEASE_TTL": "1.5", **(env or {})})
        self.pg = pg
        self.redis = redis

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        # the log goes to a file: a pipe nobody reads would stop the server once it is full
        self.log = Path(tempfile.mkstemp(prefix="callbreak-serve-", suffix=".log")[1])
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "callbreak", "serve", "--port", str(self.port), "--db", self.pg,
                 "--redis", self.redis, "--log-level", "info"],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self) -> None:
        """Until ``/readyz`` says it is serving with the others."""
        assert self.proc is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.output()}")
            try:
                if httpx.get(self.base + "/readyz", timeout=0.5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not start")


#: the deployment's own nginx site (deploy/nginx/callbreak.conf), run with our upstreams and port
SITE = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "callbreak.conf"

MAIN_CONF = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
worker_rlimit_nofile {files};
events {{ worker_connections {conns}; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/site.conf;
}}
"""


def site(upstreams: list[int], port: int, limits: bool = True, plain_wait: int | None = None) -> str:
    """deploy/nginx/callbreak.conf with ``upstreams`` (loopback ports) and listening on ``port``;
    without its per-address limits when ``limits`` is false (a load benchmark's clients all come
    from 127.0.0.1); ``plain_wait``: seconds for a plain request in place of the site's own (a test
    of what a page does with nginx's 504, not of how long nginx waits)."""
    text = SITE.read_text()
    if not limits:
        text, n = re.subn(r"^ +limit_(?:req|conn) [^;]*;\n", "", text, flags=re.M)
        assert n == 3, "deploy/nginx/callbreak.conf: not the three limits of its location"
    # each upstream with the deployment's own server parameters (max_fails=0: see the site's comment)
    first = re.search(r"^    server \S+((?: [^;\s]+)*);", text, re.M)
    assert first is not None, "deploy/nginx/callbreak.conf: no server line"
    servers = "".join(f"    server 127.0.0.1:{p}{first.group(1)};\n" for p in upstreams)
    text, n = re.subn(r"(upstream callbreak \{\n(?:.*\n)*?    hash [^\n]*\n)(?:.*\n)*?(    keepalive)", lambda m: m.group(1) + servers + m.group(2), text)
    assert n == 1, "deploy/nginx/callbreak.conf: no upstream block"
    text, n = re.subn(r"listen 80;", f"listen 127.0.0.1:{port};", text)
    assert n == 1, "deploy/nginx/callbreak.conf: no listen 80"
    if plain_wait is not None:
        text, n = re.subn(r"(    location / \{\n(?:.*\n)*?        proxy_read_timeout )\d+s;", rf"\g<1>{plain_wait}s;", text)
        assert n == 1, "deploy/nginx/callbreak.conf: no read timeout in location /"
    return text


class Nginx:
    """Debian's nginx on a loopback port over ``upstreams`` (ports; each table's requests to one of
    them, the rest spread), with the site's
    per-address limits unless ``limits`` is false."""

    def __init__(
        self, upstreams: list[int], limits: bool = True, worker_connections: int = 1024, plain_wait: int | None = None
    ) -> None:
        import os

        if not os.path.exists(NGINX):
            unavailable("nginx is not installed (apt-get install nginx)")
        self.dir = Path(tempfile.mkdtemp(prefix="callbreak-nginx-"))
        self.port = free_port()
        (self.dir / "site.conf").write_text(site(upstreams, self.port, limits, plain_wait))
        conf = self.dir / "nginx.conf"
        # a proxied socket holds two of nginx's connections (the client's and the upstream's)
        conf.write_text(MAIN_CONF.format(dir=self.dir, conns=worker_connections, files=2 * worker_connections + 64))
        self.proc = subprocess.Popen(
            [NGINX, "-c", str(conf), "-p", str(self.dir), "-g", "daemon off;"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base + "/healthz", timeout=0.5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("nginx exited: " + (self.dir / "error.log").read_text())
            time.sleep(0.05)
        raise RuntimeError("nginx did not start")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def start_all(servers: list[ScaledServer]) -> None:
    """Start the processes side by side (each takes seconds to import and join)."""
    for s in servers:
        s.launch()
    for s in servers:
        s.wait_ready()
