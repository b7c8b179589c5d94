"""Response time of a served bot (Bhoos tournament protocol) with keep-alive on loopback,
minus the bot's own thinking time.

The server runs in its own process (``callbreak bot serve``, the standard library's
threaded HTTP server); the client sends real ``/bid`` and ``/play`` requests taken
from seeded matches over one kept-alive connection, and subtracts the bot's time,
which the server reports in its ``Server-Timing: bot;dur=<ms>`` header.  The
``random`` bot is used so that the bot's time is tiny and the figure is the
protocol's: JSON, validation and rebuilding the seat's view, HTTP, loopback.

For comparison ``--stack starlette`` serves the same `BotService` with Starlette on
uvicorn (the other stack we considered).

    python benchmarks/bhoos_latency.py --requests 3000
    python benchmarks/bhoos_latency.py --requests 3000 --stack starlette

Goal (issue 4): p99 ≤ 5 ms above the bot's thinking time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

from callbreak.arena.stats import percentile


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_starlette(port: int, level: str) -> None:  # runs in the child process
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from callbreak.remote.server import BotService

    svc = BotService(level)
    svc.warm_up()

    async def endpoint(request: Request) -> Response:
        raw = await request.body()
        status, obj, think = svc.handle_timed(request.method, request.url.path, raw)
        return Response(
            json.dumps(obj),
            status_code=status,
            media_type="application/json",
            headers={"Server-Timing": f"bot;dur={1000 * think:.3f}"},
        )

    app = Starlette(routes=[Route(p, endpoint, methods=["GET", "POST"]) for p in ("/hi", "/bid", "/play")])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def sample_requests(n: int) -> list[tuple[str, bytes]]:
    from callbreak import Match, Ruleset
    from callbreak.bots import make_bot
    from callbreak.remote.codec import view_to_request

    out: list[tuple[str, bytes]] = []
    seed = 0
    while len(out) < n:
        m = Match(Ruleset.preset("bhoos"), seed=seed)
        bots = [make_bot("random", seed * 4 + i) for i in range(4)]
        while not m.is_over and len(out) < n:
            seat = m.to_act
            assert seat is not None
            v = m.view(seat)
            path, body = view_to_request(v, time_budget_ms=1500)
            out.append((path, json.dumps(body).encode()))
            m.act(bots[seat].act(v))
        seed += 1
    return out


def measure(port: int, reqs: list[tuple[str, bytes]], client: str) -> dict[str, Any]:
    rtt: list[float] = []
    think: list[float] = []
    if client == "httpx":
        import httpx

        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:
            for i, (path, body) in enumerate(reqs):
                t0 = time.perf_counter()
                r = c.post(path, content=body, headers={"Content-Type": "application/json"})
                dt = time.perf_counter() - t0
                assert r.status_code == 200, r.text
                if i >= 50:  # the first requests warm things up
                    rtt.append(dt * 1000)
                    think.append(float(r.headers["server-timing"].split("dur=")[1]))
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port)
        for i, (path, body) in enumerate(reqs):
            t0 = time.perf_counter()
            conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            dt = time.perf_counter() - t0
            assert r.status == 200
            if i >= 50:
                rtt.append(dt * 1000)
                think.append(float((r.getheader("server-timing") or "dur=0").split("dur=")[1]))
        conn.close()
    over = [a - b for a, b in zip(rtt, think)]
    return {
        "client": client,
        "requests": len(rtt),
        "rtt_p50_ms": percentile(rtt, 50),
        "rtt_p99_ms": percentile(rtt, 99),
        "think_p50_ms": percentile(think, 50),
        "think_p99_ms": percentile(think, 99),
        "overhead_p50_ms": percentile(over, 50),
        "overhead_p99_ms": percentile(over, 99),
        "overhead_max_ms": max(over),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--bot", default="random")
    ap.add_argument("--stack", choices=("stdlib", "starlette"), default="stdlib")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--serve-starlette", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_starlette:
        serve_starlette(args.serve_starlette, args.bot)
        return 0
    port = free_port()
    if args.stack == "stdlib":
        cmd = [sys.executable, "-m", "callbreak", "bot", "serve", "--bot", args.bot, "--port", str(port)]
    else:
        cmd = [sys.executable, __file__, "--serve-starlette", str(port), "--bot", args.bot]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
    try:
        end = time.monotonic() + 60
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                c.request("GET", "/hi")
                if c.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > end:
                raise SystemExit("the server did not start")
            time.sleep(0.05)
        reqs = sample_requests(args.requests + 50)
        results = [measure(port, reqs, client) for client in ("http.client", "httpx")]
    finally:
        proc.kill()
        proc.wait()
    print(f"stack {args.stack}, bot {args.bot}, {args.requests} requests per client, keep-alive, loopback")
    print(
        f"{'client':12} {'rtt p50':>9} {'rtt p99':>9} {'bot p99':>9} {'over p50':>9} {'over p99':>9} {'over max':>9}  (ms)"
    )
    for r in results:
        print(
            f"{r['client']:12} {r['rtt_p50_ms']:9.3f} {r['rtt_p99_ms']:9.3f} {r['think_p99_ms']:9.3f} "
            f"{r['overhead_p50_ms']:9.3f} {r['overhead_p99_ms']:9.3f} {r['overhead_max_ms']:9.3f}"
        )
    ok = all(r["overhead_p99_ms"] <= 5.0 for r in results)
    print("goal p99 overhead <= 5 ms:", "met" if ok else "NOT met")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"stack": args.stack, "bot": args.bot, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
