"""Many resources' reads answered by one call: polls and lookups coalesced.

A stack of a hundred servers waits on a hundred servers at once. Asked one at a time,
that is a hundred GETs per poll round; asked together, it is one listing (the servers
still in BUILD, the ports of these devices) whose answer serves every waiter, as the
tools that drive clouds at scale poll. A `Coalescer` gathers the keys asked while its
previous call is in flight (or while ``spacing`` seconds since that call's start have
not passed) and asks for all of them in the next call; no waiter is answered from a call
that began before it asked, so an answer is never older than the ask.
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from stoker.cloud.connection import Cloud

K = TypeVar("K")
V = TypeVar("V")


class Coalescer(Generic[K, V]):
    """Asks for values by key; ``fetch(connection, keys)`` answers a batch of keys at
    once (a key it leaves out is answered None)."""

    def __init__(
        self,
        cloud: Cloud,
        what: str,
        fetch: Callable[[Any, list[K]], Mapping[K, V]],
        *,
        size: int = 50,
        spacing: float = 0.0,
        parallel: int = 1,
    ) -> None:
        self.cloud = cloud
        self.what = what
        self.fetch = fetch
        #: the most keys one call carries (a URL of ids has a length)
        self.size = size
        #: the least time between the starts of two calls (a poll of many needs no more);
        #: an ask may give its own, and the least of the waiting asks' holds
        self.spacing = spacing
        #: how many calls may be in flight at once (more than one: keys beyond one call's
        #: ``size`` are asked for at the same time, not one call after another)
        self.parallel = parallel
        #: how many calls were made (for tests and figures)
        self.calls = 0
        self._pending: dict[K, list[asyncio.Future[V | None]]] = {}
        #: the spacing each waiting key's asks gave (the least of them)
        self._spacings: dict[K, float] = {}
        self._runner: asyncio.Task[None] | None = None
        #: the calls in flight beside the runner (``parallel`` above one)
        self._calls: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last = -math.inf

    async def ask(self, key: K, *, spacing: float | None = None) -> V | None:
        """The value for ``key`` from a call that starts after this ask; a failed call's
        error is raised to every waiter of it. ``spacing``: this ask's own least time
        between two calls' starts, in place of the coalescer's (a poller that waits
        longer between its asks needs the listing less often)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new event loop (one per operation in tests)
            self._loop, self._pending, self._runner, self._last = loop, {}, None, -math.inf
            self._calls, self._spacings = set(), {}
        future: asyncio.Future[V | None] = loop.create_future()
        self._pending.setdefault(key, []).append(future)
        if spacing is not None:
            known = self._spacings.get(key)
            self._spacings[key] = spacing if known is None else min(known, spacing)
        if self._runner is None or self._runner.done():
            self._runner = loop.create_task(self._run())
        return await future

    def _fetch(self, keys: list[K], connection: Any) -> Mapping[K, V]:
        return self.fetch(connection, keys)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            if len(self._calls) >= self.parallel:
                await asyncio.wait(self._calls, return_when=asyncio.FIRST_COMPLETED)
                continue
            wait = self._last + self._spacing() - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            keys = list(self._pending)[: self.size]
            waiting = {key: self._pending.pop(key) for key in keys}
            for key in keys:
                self._spacings.pop(key, None)
            self._last = loop.time()
            self.calls += 1
            if self.parallel == 1:
                await self._call(keys, waiting)
            else:  # in flight on its own: the next keys need not wait for its answer
                call = loop.create_task(self._call(keys, waiting))
                self._calls.add(call)
                call.add_done_callback(self._done)

    def _spacing(self) -> float:
        """The least spacing a waiting ask holds to (the coalescer's for an ask without
        its own)."""
        if not self._spacings:
            return self.spacing
        least = min(self._spacings.values())
        if len(self._spacings) < len(self._pending):
            least = min(least, self.spacing)
        return least

    def _done(self, call: asyncio.Task[None]) -> None:
        self._calls.discard(call)
        if not call.cancelled():
            call.exception()  # seen: its waiters were told of it

    async def _call(self, keys: list[K], waiting: dict[K, list[asyncio.Future[V | None]]]) -> None:
        """One call for ``keys``; its answer, or its error, to their waiters."""
        try:
            found = await self.cloud.call(self.what, functools.partial(self._fetch, keys))
        except BaseException as error:  # noqa: BLE001 - every waiter learns of it
            for futures in waiting.values():
                for future in futures:
                    if not future.done():
                        future.set_exception(error)
            if not isinstance(error, Exception):
                raise
            return
        for key, futures in waiting.items():
            for future in futures:
                if not future.done():
                    future.set_result(found.get(key))
