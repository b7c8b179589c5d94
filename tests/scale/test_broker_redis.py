"""`RedisBroker` on a real Redis: the `Broker` contract across two brokers (two processes' worth)."""

from __future__ import annotations

import asyncio

from callbreak.server.broker_redis import RedisBroker


async def until(cond: object, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():  # type: ignore[operator]
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def test_payloads_reach_another_brokers_subscribers_in_publish_order(redis_server: str, ns: str) -> None:
    pub, sub = RedisBroker(redis_server, f"{ns}:"), RedisBroker(redis_server, f"{ns}:")
    await pub.start()
    await sub.start()
    got: dict[str, list[str]] = {"t/0": [], "t/1": []}
    stops = [await sub.join(ch, got[ch].append) for ch in got]
    assert sub.subscribers("t/0") == 1 and sub.subscribers("t/2") == 0
    for i in range(2000):
        pub.publish("t/0" if i % 3 else "t/1", str(i))
    pub.publish("t/2", "nobody listens")
    await until(lambda: len(got["t/0"]) + len(got["t/1"]) == 2000)
    assert got["t/0"] == [str(i) for i in range(2000) if i % 3]
    assert got["t/1"] == [str(i) for i in range(2000) if not i % 3]
    # after unsubscribing nothing more arrives; another subscriber still gets its channel
    stops[0]()
    marker: list[str] = []
    await sub.join("t/9", marker.append)
    pub.publish("t/0", "late")
    pub.publish("t/9", "marker")
    await until(lambda: marker == ["marker"])
    assert got["t/0"][-1] == "1999" and sub.subscribers("t/0") == 0
    await pub.close()
    await sub.close()


async def test_a_subscriber_that_fails_does_not_stop_the_others(redis_server: str, ns: str) -> None:
    b = RedisBroker(redis_server, f"{ns}:")
    await b.start()
    got: list[str] = []

    def bad(payload: str) -> None:
        raise ValueError(payload)

    await b.join("c", bad)
    await b.join("c", got.append)
    b.publish("c", "one")
    b.publish("c", "two")
    await until(lambda: got == ["one", "two"])
    await b.close()
