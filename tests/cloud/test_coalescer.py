"""`Coalescer`: the keys asked while a call is in flight go together in the next call; with
``parallel`` above one, keys beyond one call's ``size`` are asked for at the same time."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from stoker.cloud.batch import Coalescer


class _Cloud:
    """`Cloud.call` as far as a coalescer uses it: the call on a thread of its own."""

    async def call(self, what: str, call: Callable[[Any], Any]) -> Any:
        return await asyncio.to_thread(call, None)


def _asked(parallel: int, keys: list[str]) -> tuple[list[Any], list[list[str]]]:
    both_in_flight = threading.Barrier(2, timeout=1)
    batches: list[list[str]] = []

    def fetch(connection: Any, asked: list[str]) -> dict[str, str]:
        batches.append(list(asked))
        try:
            both_in_flight.wait()  # answered only once two calls are in flight together
        except threading.BrokenBarrierError:
            return {}
        return {key: key.upper() for key in asked}

    coalescer: Coalescer[str, str] = Coalescer(
        _Cloud(),  # type: ignore[arg-type]
        "test.fetch",
        fetch,
        size=2,
        parallel=parallel,
    )

    async def run() -> list[Any]:
        return await asyncio.gather(*(coalescer.ask(key) for key in keys))

    return asyncio.run(run()), batches


def test_parallel_calls_are_in_flight_together() -> None:
    answers, batches = _asked(2, ["a", "b", "c", "d"])
    assert answers == ["A", "B", "C", "D"]
    assert batches == [["a", "b"], ["c", "d"]]


def test_one_call_at_a_time_by_default() -> None:
    answers, batches = _asked(1, ["a", "b", "c", "d"])
    # the first call waits for a second that never comes while it is in flight
    assert answers == [None, None, None, None]
    assert batches == [["a", "b"], ["c", "d"]]


def test_a_building_server_asks_again_a_delay_after_it_asked() -> None:
    """The shared BUILD listing starts at most every 0.1 s: a server pauses the rest of
    its delay after an answer that took a while, so it is in time for the next listing
    (a full delay after each answer missed every other listing of a hundred servers')."""
    from stoker.resources.base import ResourceContext
    from stoker.resources.openstack.server import Server

    pauses: list[float] = []
    answers = iter([True, True, False])

    class Polled(Server):
        async def building(self, server: str) -> bool:
            await asyncio.sleep(0.05)  # the listing's time
            return next(answers)

        async def read_out_of_build(self, context: ResourceContext, server: str) -> Any:
            return {"id": server, "status": "ACTIVE"}

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    context = ResourceContext(
        stack_name="s", stack_id="s1", project_id="p1", resource_name="server",
        physical_name="s-server-x", properties={}, physical_id="srv-1", sleep=pause,
    )  # fmt: skip
    shown = asyncio.run(Polled(_Cloud()).wait_ready(context, {"id": "srv-1", "status": "BUILD"}))
    assert shown["status"] == "ACTIVE"
    assert pauses[0] == 0.1
    assert all(0.0 <= p < 0.08 for p in pauses[1:]), pauses
