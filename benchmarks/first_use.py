"""Time to the first hint and the first hard bot action, cold cache vs warm, and the warm-up.

Three runs, each in fresh processes:

- ``served, cold``: `callbreak serve` with an empty numba cache (its own
  ``CALLBREAK_NUMBA_CACHE_DIR``); a scripted player makes a "Play now" table with
  hard bots over HTTP + WebSocket, asks for the calling hint, calls, asks for the
  first card hint; the server's warm-up runs meanwhile (its duration is read
  from the server's console);
- ``served, warm``: the same, with the cache the cold run left; ``after ready``:
  the player starts once the server has loaded the kernel (hard answers);
- ``in-process, cold``: what a player met before the warm-up existed: the first
  hard decision and the first card hint compiling the kernel where they run.

    python benchmarks/first_use.py

Times are ms from the message that gave the seat its turn (bot) or from the
request (hint) to the answer, as the client receives them.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

SRC = str(Path(__file__).resolve().parents[1] / "src")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_with(cache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(CALLBREAK_NUMBA_CACHE_DIR=cache, PYTHONPATH=SRC + os.pathsep + env.get("PYTHONPATH", ""))
    return env


async def player(base: str) -> dict[str, Any]:
    """Play now with hard bots until the first card hint; the times measured."""
    out: dict[str, Any] = {}
    async with httpx.AsyncClient() as http:
        r = await http.post(base + "/api/tables", json={"bots": "hard", "play_now": True, "rules": {"preset": "quick"}})
        made = r.json()
    ws_url = base.replace("http", "ws") + f"/ws/{made['table']}?token={made['token']}"
    async with websockets.connect(ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "since": 0}))
        turn_at: dict[int, float] = {}
        to_act: int | None = None
        asked: float | None = None
        bot_ms: list[float] = []
        while "card_hint_ms" not in out:
            m = json.loads(await asyncio.wait_for(ws.recv(), 600))
            now = time.perf_counter()
            if m["type"] == "hint" and asked is not None:
                ms = (now - asked) * 1000
                if m.get("call") is not None:
                    out["call_hint_ms"] = ms
                    await ws.send(json.dumps({"type": "call", "call": m["call"]}))
                else:
                    out["card_hint_ms"], out["card_hint_level"] = ms, m.get("level")
                asked = None
                continue
            t = m.get("table")
            if not isinstance(t, dict):
                continue
            ev = m.get("event") or {}
            if ev.get("kind") in ("call", "play") and ev.get("seat") != t["you"]:
                bot_ms.append((now - turn_at[ev["seat"]]) * 1000)
            if t.get("to_act") != to_act:
                to_act = t.get("to_act")
                if to_act is not None:
                    turn_at[to_act] = now
                if to_act == t["you"] and asked is None:
                    asked = time.perf_counter()
                    await ws.send(json.dumps({"type": "hint"}))
        out["first_bot_ms"] = bot_ms[0]
        out["max_bot_ms"] = max(bot_ms)
    return out


def warmup_seconds(log: Path, proc: subprocess.Popen[bytes]) -> float:
    """Wait for the server's "ready" line; the warm-up's duration it reports."""
    deadline = time.monotonic() + 900
    while (found := re.search(r"kernel is ready in ([\d.]+) s", log.read_text())) is None:
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError("no warm-up: " + log.read_text()[-1000:])
        time.sleep(0.2)
    return float(found.group(1))


def served(cache: str, after_ready: bool = False) -> dict[str, Any]:
    """A server with ``cache``; the player starts at once, or once the kernel is ready."""
    tmp = tempfile.mkdtemp(prefix="cb-first-")
    log = Path(tmp) / "server.log"
    port = free_port()
    cmd = [sys.executable, "-m", "callbreak", "serve", "--port", str(port), "--db", f"{tmp}/t.sqlite",
           "--bot-delay", "0.05", "--create-rate", "0", "--msg-rate", "0"]
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env_with(cache))
    try:
        base = f"http://127.0.0.1:{port}"
        while True:
            try:
                httpx.get(base + "/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        ready = warmup_seconds(log, proc) if after_ready else None
        result = asyncio.run(player(base))
        result["warmup_s"] = ready if ready is not None else warmup_seconds(log, proc)
        return result
    finally:
        proc.terminate()
        proc.wait(30)


IN_PROCESS = """
import json, time
from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.bots.hints import hint
m = Match(Ruleset.preset("quick"), seed=1)
seat = m.to_act
t0 = time.perf_counter(); m.act(make_bot("hard", 1).act(m.view(seat))); bot = time.perf_counter() - t0
while m.round.phase == "calling":
    m.act(make_bot("medium", 2).act(m.view(m.to_act)))
t0 = time.perf_counter(); hint(m.view(m.to_act)); h = time.perf_counter() - t0
print(json.dumps({"first_bot_ms": bot * 1000, "card_hint_ms": h * 1000}))
"""


def in_process(cache: str) -> dict[str, Any]:
    r = subprocess.run([sys.executable, "-c", IN_PROCESS], env=env_with(cache), capture_output=True, text=True,
                       check=True)
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def main() -> None:
    cache = tempfile.mkdtemp(prefix="cb-numba-")
    rows = [("served, cold", served(cache)), ("served, warm", served(cache)),
            ("served, warm, after ready", served(cache, after_ready=True)),
            ("in-process, cold", in_process(tempfile.mkdtemp(prefix="cb-numba-")))]

    def cell(d: dict[str, Any], key: str) -> str:
        v = d.get(key)
        return "-" if v is None else f"{v:.0f}" if isinstance(v, float) else str(v)

    print("| run | first hard action ms | slowest bot action ms | calling hint ms | first card hint ms "
          "| card hint level | warm-up s |")
    print("|---|---|---|---|---|---|---|")
    for name, d in rows:
        warm = "-" if "warmup_s" not in d else f"{d['warmup_s']:.1f}"
        print(f"| {name} | {cell(d, 'first_bot_ms')} | {cell(d, 'max_bot_ms')} | {cell(d, 'call_hint_ms')} "
              f"| {cell(d, 'card_hint_ms')} | {d.get('card_hint_level', 'hard')} | {warm} |")


if __name__ == "__main__":
    main()
