"""``callbreak serve --workers N``: N server processes on one listening socket.

The parent binds the socket and starts N children (``callbreak serve --fd``, the same
options, each with its own ``--process`` number: 0 to N-1, then N, N+1... for a child started
again, so seeded children never deal alike: `callbreak.server.seeding`), each a whole server
that joins the others through Redis; the kernel spreads new connections over them.  A child that dies is started again; SIGTERM or SIGINT stops them all.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

__all__ = ["keep_running", "listening_socket", "numbered_argv", "supervise", "worker_argv"]


def worker_argv(argv: list[str], fd: int) -> list[str]:
    """The child's command line: the parent's, without ``--workers`` and ``--status-port``
    (each child gets a port of its own: `supervise`), with ``--fd``.

    >>> worker_argv(["serve", "--workers", "3", "--port=9", "--workers=2", "--redis", "redis://x",
    ...              "--status-port", "9100"], 7)
    ['serve', '--port=9', '--redis', 'redis://x', '--fd', '7']
    """
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--workers", "--status-port"):
            skip = True
            continue
        if a.startswith(("--workers=", "--status-port=")):
            continue
        out.append(a)
    return [*out, "--fd", str(fd)]


def numbered_argv(cmd: list[str], option: str, k: int) -> list[str]:
    """``cmd`` for the ``k``-th process started: ``option k`` after it (the last one given wins).

    >>> numbered_argv(["serve", "--seed", "7"], "--process", 2)
    ['serve', '--seed', '7', '--process', '2']
    """
    return [*cmd, option, str(k)]


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening (port 0: any free one), to be
    handed to the server processes; ``OSError`` where the address cannot be had.

    >>> sock = listening_socket("127.0.0.1", 0)
    >>> sock.getsockname()[1] > 0
    True
    >>> sock.close()
    """
    # the first address the name gives (as a server binds it: AI_PASSIVE); IPPROTO_TCP named, since
    # asyncio sets TCP_NODELAY on the connections of a socket only when its protocol says TCP
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        if os.name == "posix":  # (on Windows it would let a second server take a port in use)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def supervise(
    sock: socket.socket, workers: int, first_process: int = 0, statuses: list[socket.socket] | None = None
) -> int:
    """Serve the listening ``sock`` (`listening_socket`) with ``workers`` children (`worker_argv`)
    until stopped; the children are numbered ``--process first_process``, ``first_process + 1``, ...
    (hosts serving one store on one ``--seed`` give each a ``--process`` base of its own); with
    ``statuses`` (one listening socket a child), the child in slot k (0 … workers − 1, and the one
    started again in its place) also serves ``statuses[k]``, its own status port."""
    statuses = statuses or []
    for s in (sock, *statuses):
        s.set_inheritable(True)
    fd = sock.fileno()
    cmd = [sys.executable, "-m", "callbreak", *worker_argv(sys.argv[1:], fd)]
    per_slot = (lambda k: ["--status-fd", str(statuses[k].fileno())]) if statuses else None
    try:
        return keep_running(
            cmd, workers, "callbreak serve", pass_fds=(fd, *(s.fileno() for s in statuses)),
            numbered="--process", first=first_process, per_slot=per_slot,
        )
    finally:
        for s in (sock, *statuses):
            s.close()


def keep_running(
    cmd: list[str],
    n: int,
    name: str,
    pass_fds: tuple[int, ...] = (),
    numbered: str | None = None,
    first: int = 0,
    per_slot: Callable[[int], list[str]] | None = None,
) -> int:
    """Run ``n`` processes of ``cmd`` and start again any that dies (saying so as ``name``),
    until SIGTERM or SIGINT: then stop them all (SIGTERM, then SIGKILL after 15 s) and return 0.
    With ``numbered`` (an option), the k-th process started (from 0) gets ``numbered first + k``
    (`numbered_argv`); ``per_slot(k)``: more options for the process in slot k (0 … n − 1), the
    same for the one started again in its place.
    The supervisor of ``callbreak serve --workers`` and ``callbreak bot-worker --processes``."""
    stopping = False
    started = 0

    def spawn(slot: int) -> subprocess.Popen[bytes]:
        nonlocal started
        argv = cmd if numbered is None else numbered_argv(cmd, numbered, first + started)
        started += 1
        return subprocess.Popen([*argv, *(per_slot(slot) if per_slot else [])], pass_fds=pass_fds)

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    procs = [spawn(k) for k in range(n)]
    while not stopping:
        time.sleep(0.2)
        for i, p in enumerate(procs):
            if p.poll() is not None and not stopping:
                print(f"{name}: worker {p.pid} exited ({p.returncode}); starting another", flush=True)
                procs[i] = spawn(i)
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
    return 0
