"""Where every new table's seed comes from: the one place the server draws it.

A table's seed (`TableMeta.seed`) decides everything random about its play: the deals, the
bots' names and every bot decision (`autopilot.decision_seed`). A server started without a
seed draws each one from `secrets` (nobody can know the deals in advance). A server started
with ``--seed N`` (``CALLBREAK_SEED``) draws them from a stream seeded with ``N`` and the
process's number (``--process``; ``--workers`` numbers its children itself), so the same
seed and the same sequence of table creations give the same deals and the same bot play (a seeded
server's hard seats search without the serving wall-clock cap, so load does not cut them short; a
hard seat answers at the medium level until its kernel is warm, as on any server):
**for tests and demonstrations only**, since whoever knows the seed knows the deals.

Table ids, invite secrets and seat tokens never come from this stream (`hub.new_token`).

>>> a, b = TableSeeds(7), TableSeeds(7)
>>> [a.draw() for _ in range(3)] == [b.draw() for _ in range(3)]
True
>>> TableSeeds(7).draw() != TableSeeds(8).draw() != TableSeeds(7, process=1).draw()
True
>>> a.restart(7); a.draw() == TableSeeds(7).draw()
True
>>> TableSeeds(None).seeded, 0 <= TableSeeds(None).draw() < 2**62
(False, True)
"""

from __future__ import annotations

import random
import secrets

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..seeds import check_seed

__all__ = ["Reseed", "TableSeeds", "seed_route"]

#: a table's seed has this many bits (as `secrets.randbits` drew it before there was a stream)
SEED_BITS = 62


class TableSeeds:
    """The seeds of the tables this process creates: from ``seed`` and ``process`` when
    ``seed`` is given, else from `secrets`.

    >>> seeds = TableSeeds(2026, process=1)
    >>> seeds.seeded, seeds.draw() == TableSeeds(2026, process=1).draw() != TableSeeds(2026).draw()
    (True, True)
    """

    def __init__(self, seed: int | None, process: int = 0) -> None:
        self.process = process
        self._rng: random.Random | None = None
        if seed is not None:
            self.restart(seed)

    @property
    def seeded(self) -> bool:
        """Whether the seeds come from a known seed (a test or demonstration server)."""
        return self._rng is not None

    def restart(self, seed: int) -> None:
        """Start the stream again from ``seed`` (this process's number mixed in)."""
        check_seed(seed)
        # a string seed is hashed (SHA-512) by `random`: the same on every platform and version
        self._rng = random.Random(f"callbreak-tables:{seed}:{self.process}")

    def draw(self) -> int:
        """The next new table's seed."""
        if self._rng is None:
            return secrets.randbits(SEED_BITS)
        return self._rng.getrandbits(SEED_BITS)


class Reseed(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /test/seed``: the seed the stream starts again from.

    >>> msgspec.json.decode(b'{"seed": 12}', type=Reseed)
    Reseed(seed=12)
    """

    seed: int


def seed_route(seeds: TableSeeds) -> Route:
    """``POST /test/seed`` ``{"seed": N}``: the next tables' seeds come from ``N`` as if the
    server had just started with ``--seed N``. Served only by a seeded server started with
    ``CALLBREAK_TEST_RESEED`` (tests only: on a demonstration server anyone could set the deals
    to a seed they know); a test sharing one server with others starts its own stream with it,
    so it meets the same deals whichever tests ran before.

    >>> import asyncio, httpx
    >>> from starlette.applications import Starlette
    >>> seeds = TableSeeds(1)
    >>> app = Starlette(routes=[seed_route(seeds)])
    >>> async def post(body):
    ...     async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://t") as client:
    ...         r = await client.post("/test/seed", json=body)
    ...         return r.status_code, r.json()
    >>> asyncio.run(post({"seed": 5})), seeds.draw() == TableSeeds(5).draw()
    ((200, {'seed': 5}), True)
    >>> asyncio.run(post({"seed": -2}))
    (400, {'error': 'bad_json', 'message': 'seed must be a whole number from 0, not -2'})
    >>> asyncio.run(post({"seed": "x"}))
    (400, {'error': 'bad_json', 'message': 'Expected `int`, got `str` - at `$.seed`'})
    """

    async def reseed(request: Request) -> Response:
        try:
            body = msgspec.json.decode(await request.body(), type=Reseed)
            seeds.restart(body.seed)
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as e:
            return JSONResponse({"error": "bad_json", "message": str(e)}, status_code=400)
        return JSONResponse({"seed": body.seed})

    return Route("/test/seed", reseed, methods=["POST"])
