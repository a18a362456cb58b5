"""An event loop on virtual time, for tests of code that paces itself by its loop's clock.

The code under test reads the time from its running loop (``loop.time()``) and waits with
``asyncio.sleep``; run on `VirtualTimeLoop`, its clock starts at zero and moves only when
the loop has nothing ready to run: then it jumps to the next timer instead of waiting for
it. A test then asserts what the code did at which (virtual) time, exactly, whatever the
load on the machine; a wall-clock duration would only say how busy the machine was.

Only for code whose waits are all timers: work handed to a thread (``asyncio.to_thread``)
takes real time the virtual clock does not see, so a test gives such code a cloud that
answers on the loop itself.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _Selector(selectors.DefaultSelector):
    """The loop's selector: a wait with a timeout moves the virtual clock by that timeout
    instead of sleeping, unless something is ready already."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:  # no timer at all: only real I/O (a thread's wake-up) can come
            return super().select(None)
        self.now += timeout
        return []


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose ``time()`` is the virtual clock of its selector."""

    def __init__(self) -> None:
        self._virtual = _Selector()
        super().__init__(self._virtual)

    def time(self) -> float:
        return self._virtual.now


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a `VirtualTimeLoop`."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(coroutine)
