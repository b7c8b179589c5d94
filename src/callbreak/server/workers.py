"""``callbreak serve --workers N``: N server processes on one listening socket.

The parent binds the socket and starts N children (``callbreak serve --fd``, the same
options), each a whole server that joins the others through Redis; the kernel spreads new
connections over them.  A child that dies is started again; SIGTERM or SIGINT stops them all.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

__all__ = ["supervise", "worker_argv"]


def worker_argv(argv: list[str], fd: int) -> list[str]:
    """The child's command line: the parent's, without ``--workers``, with ``--fd``.

    >>> worker_argv(["serve", "--workers", "3", "--port=9", "--workers=2", "--redis", "redis://x"], 7)
    ['serve', '--port=9', '--redis', 'redis://x', '--fd', '7']
    """
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--workers":
            skip = True
            continue
        if a.startswith("--workers="):
            continue
        out.append(a)
    return [*out, "--fd", str(fd)]


def supervise(host: str, port: int, workers: int) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    fd = sock.fileno()
    argv = worker_argv(sys.argv[1:], fd)
    cmd = [sys.executable, "-m", "callbreak", *argv]
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    procs = [subprocess.Popen(cmd, pass_fds=(fd,)) for _ in range(workers)]
    while not stopping:
        time.sleep(0.2)
        for i, p in enumerate(procs):
            if p.poll() is not None and not stopping:
                print(f"callbreak serve: worker {p.pid} exited ({p.returncode}); starting another", flush=True)
                procs[i] = subprocess.Popen(cmd, pass_fds=(fd,))
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
    sock.close()
    return 0
