"""Clocks for the engine (``clock=``), so a test decides when an operation runs out of
time, whatever the machine's load: `virtual_time`, on which time passes only when a
resource waits, and `no_time`, on which an operation is out of time at once."""

from __future__ import annotations

import asyncio

import pytest

from stoker.engine.time_limit import Clock


class VirtualTime(Clock):
    """Hand ``clock=`` the object and ``sleep=`` its `wait`. The clock stands still while
    the engine works; a resource's wait (`wait`) moves it on. A time limit
    (`Clock.sleep`, see `stoker.engine.time_limit`) that falls within the wait expires
    at its moment, and the wait then lasts until the operation stops it."""

    def __init__(self) -> None:
        self.current = 0.0
        self._limits: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self.current

    async def sleep(self, seconds: float) -> None:
        entry = (self.current + seconds, asyncio.get_running_loop().create_future())
        self._limits.append(entry)
        try:
            await entry[1]
        finally:
            self._limits.remove(entry)

    async def wait(self, seconds: float) -> None:
        end = self.current + seconds
        due = [limit for limit in self._limits if limit[0] <= end]
        if not due:
            self.current = end
            return
        deadline, future = min(due, key=lambda limit: limit[0])
        self.current = deadline
        future.set_result(None)
        await asyncio.get_running_loop().create_future()  # until the operation stops it


class NoTime(Clock):
    """A clock on which an operation's time is up as soon as it starts."""

    async def sleep(self, seconds: float) -> None:
        return None


@pytest.fixture
def virtual_time() -> VirtualTime:
    return VirtualTime()


@pytest.fixture
def no_time() -> NoTime:
    return NoTime()
