"""Waiting inside a handler: through the engine's cancellable sleep, never blocking."""

from __future__ import annotations

import asyncio

from stoker.resources.base import ResourceContext

#: how long one step of an endless wait sleeps before sleeping again
FOREVER_STEP = 60.0


async def pause(context: ResourceContext, seconds: float) -> None:
    """Wait ``seconds``; a negative number waits until the operation is stopped.

    The engine's ``context.sleep`` ends early (raising CancelledError) when the operation
    is cancelled or times out, so even an endless wait releases its resource.
    """
    sleep = context.sleep or asyncio.sleep
    if seconds < 0:
        while True:
            await sleep(FOREVER_STEP)
    elif seconds > 0:
        await sleep(seconds)
