"""The server's engine workers: operations run in the background, as in Heat.

A request that starts an operation (create, update, delete, an action) returns as soon as
the operation has begun — its claim on the stack is taken and its first event is written
— and the operation goes on in a task of the server's event loop. Every operation gets an
engine of its own (its own lease holder id), so two requests on one stack are told apart
by the leases exactly as two processes are. A sweep at start and then every lease period
takes over the IN_PROGRESS operations whose holder died (its lease expired, or its process
on this machine is gone): several servers on one PostgreSQL share the work, and a server
that starts finishes what a dead one left.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import os
import threading
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from stoker.engine import EngineSettings, EventRecord, StackRecord, Store, holder_is_dead, now_utc
from stoker.errors import StokerError

if TYPE_CHECKING:
    from stoker.api.trusts import StackCredentials
    from stoker.cloud.acting import Acting
    from stoker.engine import StackEngine
    from stoker.resources import ResourceTypeRegistry

log = logging.getLogger("stoker.api")

Run = Callable[["StackEngine"], Coroutine[Any, Any, Any]]


@functools.cache
def _engine_class() -> type[StackEngine]:
    """The engine, imported for the first operation (or the first recovery)."""
    from stoker.engine import StackEngine

    return StackEngine


def _recover(stack_id: str) -> Run:
    def run(engine: StackEngine) -> Coroutine[Any, Any, Any]:
        return engine.recover(stack_id)

    return run


def _forgetting(run: Run, credentials: StackCredentials, stack: StackRecord) -> Run:
    """``run``, then the trust of ``stack`` deleted if the operation deleted it."""

    async def running(engine: StackEngine) -> Any:
        try:
            return await run(engine)
        finally:
            found = await asyncio.to_thread(engine.store.get_stack, stack.id, stack.project)
            if found is not None:
                try:
                    await asyncio.to_thread(credentials.forget, found)
                except StokerError as error:
                    log.warning("stack %s: %s", stack.id, error)

    return running


class Operations:
    """Engines for requests, and the background tasks that run their operations.

    Without a ``registry``, the default one (stoker's built-in resource types) is built
    on first use, and the engine is imported with the first engine made: an idle server
    holds neither (see `stoker.api.app`)."""

    def __init__(
        self,
        store: Store,
        registry: ResourceTypeRegistry | None,
        settings: EngineSettings,
        credentials: StackCredentials | None = None,
    ) -> None:
        self.store = store
        #: with each stack's owner acting in the cloud: the stacks' trusts (`stoker.api.trusts`)
        self.credentials = credentials
        self._registry = registry
        self._registry_lock = threading.Lock()  # handlers ask for it in worker threads too
        self.settings = settings
        self.tasks: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.Task[None] | None = None

    @property
    def registry(self) -> ResourceTypeRegistry:
        """The resource types this server runs."""
        if self._registry is None:
            with self._registry_lock:
                if self._registry is None:
                    from stoker.resources import default_registry

                    self._registry = default_registry()
        return self._registry

    def engine(
        self, project: str, listener: Callable[[EventRecord], None] | None = None
    ) -> StackEngine:
        """An engine for one request in ``project`` (a fresh lease holder id)."""
        # the server reads no file of its own for a client: templates come with requests
        settings = replace(self.settings, project=project, files_from_request=True)
        return _engine_class()(self.store, self.registry, settings, listener=listener)

    async def start(
        self,
        project: str,
        run: Run,
        *,
        stack: StackRecord | None = None,
        acting: Acting | None = None,
    ) -> EventRecord | None:
        """Begin ``run`` in the background; return once it wrote its first event (its
        claim holds), or raise what stopped it before that (a refusal, a lost race for
        the claim). An operation that ends without any event returns None.

        Its cloud calls act as ``acting``, else as the owner of ``stack`` (its trust),
        else as whoever the request acts as; an operation that leaves ``stack`` deleted
        deletes its trust (`stoker.api.trusts`)."""
        loop = asyncio.get_running_loop()
        began: asyncio.Future[EventRecord] = loop.create_future()

        def first(event: EventRecord) -> None:
            if not began.done():
                began.set_result(event)

        credentials = self.credentials
        if credentials is not None and stack is not None:
            if acting is None:
                acting = await asyncio.to_thread(credentials.for_stack, stack)
            run = _forgetting(run, credentials, stack)
        context = contextvars.copy_context()
        if acting is not None:
            from stoker.cloud.acting import ACTING

            context.run(ACTING.set, acting)
        task: asyncio.Task[Any] = asyncio.create_task(
            run(self.engine(project, first)), context=context
        )
        self.tasks.add(task)
        task.add_done_callback(self._finished)
        await asyncio.wait({task, began}, return_when=asyncio.FIRST_COMPLETED)
        if began.done():
            return began.result()
        began.cancel()
        task.result()  # raises what stopped the operation before it began
        return None

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None and not isinstance(error, StokerError):
            log.error("operation failed", exc_info=error)

    # ------------------------------------------------------------------ recovery
    def orphaned(self) -> list[StackRecord]:
        """IN_PROGRESS stacks whose holder is gone: no lease, an expired one, or one held by
        a process of this machine that exited."""
        now = now_utc()
        found = []
        for stack in self.store.stacks_in_progress():
            lease = self.store.lease(stack.id)
            if lease is None or lease.expires_at <= now or holder_is_dead(lease.engine_id):
                found.append(stack)
        return found

    async def sweep(self) -> int:
        """Take over every orphaned operation (see `orphaned`); how many were started."""
        started = 0
        for stack in await asyncio.to_thread(self.orphaned):
            try:
                await self.start(stack.project, _recover(stack.id), stack=stack)
            except StokerError as error:  # another server took it first, or it cannot go on
                log.info("not recovering %s: %s", stack.id, error)
                continue
            log.info("recovering the %s of stack %s", stack.action.value, stack.id)
            started += 1
        return started

    async def _sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except StokerError as error:  # the database is away: try again later
                log.warning("recovery sweep failed: %s", error)
            await asyncio.sleep(self.settings.lease_seconds)

    def begin(self) -> None:
        """Start the recovery sweeps (the server's startup)."""
        self._sweeper = asyncio.create_task(self._sweep_forever())

    async def close(self, grace: float = 5.0, *, abandon: bool = False) -> None:
        """Stop sweeping and give running operations ``grace`` seconds. Then, with
        ``abandon`` (a server stopping), leave the rest as they are: the process exits
        at once, their claims lapse and the next server to sweep takes them over, exactly
        as after a crash. Without it (tests, an embedded app) cancel them (an operation
        cancelled ends FAILED, saying so)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        if not self.tasks:
            return
        _, pending = await asyncio.wait(set(self.tasks), timeout=grace)
        if not pending:
            return
        if abandon:
            log.warning(
                "stopping with %d operations running: the next server takes them over",
                len(pending),
            )
            logging.shutdown()
            os._exit(0)
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=grace)
