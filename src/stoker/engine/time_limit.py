"""An operation's time limit, measured on the engine's clock.

An operation's timeout (``timeout_mins``, or the settings' default) is measured on a
`Clock`: `Operation.time_left` reads its ``now``, and `time_limit` waits out the time
left with its ``sleep`` and then expires an `asyncio.timeout` (which does the cancelling
and raises TimeoutError). The engine's clock is real time unless a test hands
`StackEngine` one of its own, so that when an operation runs out of time is decided by
the test, never by the machine's load.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Clock:
    """Real time: the monotonic clock, and the event loop's sleep."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


REAL_TIME = Clock()


@asynccontextmanager
async def time_limit(seconds: float | None, clock: Clock) -> AsyncIterator[None]:
    """TimeoutError out of the block once ``clock`` has slept ``seconds`` (None: no
    limit)."""
    async with asyncio.timeout(None) as limit:
        if seconds is None:
            yield
            return

        async def expire() -> None:
            await clock.sleep(max(seconds, 0.0))
            limit.reschedule(asyncio.get_running_loop().time())  # expires at once

        watcher = asyncio.create_task(expire())
        try:
            yield
        finally:
            watcher.cancel()
