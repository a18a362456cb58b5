"""`Coalescer`: the keys asked while a call is in flight go together in the next call; with
``parallel`` above one, keys beyond one call's ``size`` are asked for at the same time.

Everything runs on an event loop with virtual time (`virtual_time`) and a cloud that answers
on that loop: the tests assert which calls were in flight together and when each pause and
call happened on the loop's clock, exactly, not how long they took on a machine that may be
busy."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from stoker.cloud.batch import Coalescer

from . import virtual_time


class _LoopCloud:
    """`Cloud.call` answered on the loop itself (no thread: a call takes no time on the
    virtual clock)."""

    async def call(self, what: str, call: Callable[[Any], Any]) -> Any:
        return call(None)


class _PairedCloud:
    """`Cloud.call` that answers a call only once another is in flight beside it; a call
    alone is answered with nothing after a (virtual) second."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.paired = asyncio.Event()

    async def call(self, what: str, call: Callable[[Any], Any]) -> Any:
        found = call(None)
        self.in_flight += 1
        if self.in_flight >= 2:
            self.paired.set()
        try:
            await asyncio.wait_for(self.paired.wait(), 1.0)
        except TimeoutError:
            return {}
        finally:
            self.in_flight -= 1
        return found


def _asked(parallel: int, keys: list[str]) -> tuple[list[Any], list[list[str]]]:
    batches: list[list[str]] = []

    def fetch(connection: Any, asked: list[str]) -> dict[str, str]:
        batches.append(list(asked))
        return {key: key.upper() for key in asked}

    coalescer: Coalescer[str, str] = Coalescer(
        _PairedCloud(),  # type: ignore[arg-type]
        "test.fetch",
        fetch,
        size=2,
        parallel=parallel,
    )

    async def run() -> list[Any]:
        return await asyncio.gather(*(coalescer.ask(key) for key in keys))

    return virtual_time.run(run()), batches


def test_parallel_calls_are_in_flight_together() -> None:
    answers, batches = _asked(2, ["a", "b", "c", "d"])
    assert answers == ["A", "B", "C", "D"]
    assert batches == [["a", "b"], ["c", "d"]]


def test_one_call_at_a_time_by_default() -> None:
    answers, batches = _asked(1, ["a", "b", "c", "d"])
    # the first call waits for a second that never comes while it is in flight
    assert answers == [None, None, None, None]
    assert batches == [["a", "b"], ["c", "d"]]


def _polled(listings: list[float], answers: list[bool], late: float = 0.0) -> list[float]:
    """The pauses of a server's `wait_ready` whose BUILD listings take ``listings``
    seconds and answer ``answers`` (in BUILD or not) in turn; each pause ends ``late``
    seconds after it was due (an event loop busy with other work). On virtual time: the
    pauses are exactly what `wait_ready` asked for."""
    from stoker.resources.base import ResourceContext
    from stoker.resources.openstack.server import Server

    pauses: list[float] = []
    answered = iter(answers)
    took = iter(listings)

    class Polled(Server):
        async def building(self, server: str, spacing: float) -> bool:
            await asyncio.sleep(next(took))
            return next(answered)

        async def read_out_of_build(self, context: ResourceContext, server: str) -> Any:
            return {"id": server, "status": "ACTIVE"}

    async def pause(seconds: float) -> None:
        pauses.append(seconds)
        await asyncio.sleep(seconds + late)

    context = ResourceContext(
        stack_name="s", stack_id="s1", project_id="p1", resource_name="server",
        physical_name="s-server-x", properties={}, physical_id="srv-1", sleep=pause,
    )  # fmt: skip
    building = {"id": "srv-1", "status": "BUILD"}
    shown = virtual_time.run(Polled(_LoopCloud()).wait_ready(context, building))  # type: ignore[arg-type]
    assert shown["status"] == "ACTIVE"
    return pauses


def test_a_building_server_asks_on_its_own_cadence() -> None:
    """A server's asks for the shared BUILD listing are counted from when it was made:
    it pauses only the rest of a delay after an answer that took a while (a full delay
    after each answer let a hundred servers' asks drift into clusters the listing
    missed)."""
    pauses = _polled([0.05] * 3, [True, True, False])
    # asks due at 0.1, 0.2 and 0.3 s; each answer took 0.05 s of the next delay
    assert pauses == pytest.approx([0.1, 0.05, 0.05], abs=1e-9)


def test_late_wake_ups_do_not_add_up() -> None:
    """A pause that ends late (the loop was busy) shortens the next one: the asks stay
    on the cadence counted from when the server was made instead of drifting later by
    each wake-up's lateness (which let a hundred servers' asks drift into clusters)."""
    pauses = _polled([0.0] * 3, [True, True, False], late=0.03)
    # woken at 0.13 and 0.23 s: the asks stay due at 0.2 and 0.3 s
    assert pauses == pytest.approx([0.1, 0.07, 0.07], abs=1e-9)


def test_a_late_answer_does_not_bring_a_burst_of_asks() -> None:
    """An answer later than a whole delay moves the cadence on: the next ask is at once
    and the one after it a delay later, not several at once to catch up."""
    pauses = _polled([0.35, 0.01, 0.01], [True, True, False])
    # answered at 0.45 s (due at 0.2): asked again at once, then at 0.55 s
    assert pauses == pytest.approx([0.1, 0.0, 0.09], abs=1e-9)


def _call_gaps(spacings: list[float | None], default: float) -> list[float]:
    """The times between the starts of the calls a coalescer spaced ``default`` makes for
    asks one after another, each with its own spacing (None: the coalescer's), on the
    virtual clock of the loop the coalescer paces itself by."""
    starts: list[float] = []

    def fetch(connection: Any, asked: list[str]) -> dict[str, str]:
        starts.append(asyncio.get_running_loop().time())
        return {key: key for key in asked}

    coalescer: Coalescer[str, str] = Coalescer(
        _LoopCloud(),  # type: ignore[arg-type]
        "test.fetch",
        fetch,
        spacing=default,
    )

    async def run() -> None:
        for index, spacing in enumerate(spacings):
            await coalescer.ask(f"k{index}", spacing=spacing)

    virtual_time.run(run())
    return [later - earlier for earlier, later in zip(starts, starts[1:], strict=False)]


def test_an_ask_may_space_the_calls_closer() -> None:
    """A poller with short delays has the listing sooner than the coalescer's spacing;
    one without a spacing of its own waits the coalescer's."""
    gaps = _call_gaps([0.02, 0.02, None], default=0.3)
    assert gaps == pytest.approx([0.02, 0.3], abs=1e-9)
