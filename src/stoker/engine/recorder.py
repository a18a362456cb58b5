"""Group commit: state changes from many concurrent jobs written in few transactions.

"State first, effect second" means a job may start its effect only after its
IN_PROGRESS record is durable. Writing one transaction per record would make the
database the bottleneck; instead every job hands its records to the recorder and waits,
and the recorder commits whatever has accumulated in one transaction, then wakes all of
them. Nothing is skipped: a job resumes only when its own records are committed.

A resource whose effect touches nothing outside the records (`Traits.external_effect`
false) need not wait at all: `Recorder.defer` queues its records, and
they are committed with the next awaited write, when ``max_batch`` rows are queued, or
``delay`` seconds after the first of them was queued, whichever comes first. Transactions
are committed in the order their records were handed over, so once an awaited write is
durable every record queued before it is durable too: a resource with an external effect
records IN_PROGRESS (awaited) before its handler starts, so nothing it depends on, nor a
value it read (a RandomString's), can be lost if the process dies after its effect. A
queued record lost in a crash is an effect-free action the resumed operation redoes.

With a `Fence` (the operation's claim), every transaction is checked against the claim
in the database, so a process that lost the stack to another writes nothing more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from stoker.engine import crash_hook
from stoker.engine.leases import Fence
from stoker.engine.state import EventRecord, ResourceRecord, Store, WriteBatch

#: how long a queued (deferred) record may wait for a commit, at most, in seconds: long
#: enough that a chain of effect-free resources shares a few commits, short enough that
#: another process watching the stack sees it move
DEFER_SECONDS = 0.02


class Recorder:
    def __init__(
        self,
        store: Store,
        *,
        max_batch: int = 2000,
        fence: Fence | None = None,
        delay: float = DEFER_SECONDS,
        listener: Callable[[list[EventRecord]], None] | None = None,
    ) -> None:
        self.store = store
        self.max_batch = max_batch
        self.fence = fence
        self.delay = delay
        #: told of the events of each commit, in the order they were committed
        self.listener = listener
        self._pending = WriteBatch()
        self._waiters: list[asyncio.Future[None]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        #: the queued batch holds deferred records (nobody waits to hear that it failed)
        self._deferred = False
        #: a commit of deferred records failed: every later write fails with it
        self._failure: BaseException | None = None
        #: the deferred records' time is up: the next flush commits them
        self._due = False

    async def write(self, batch: WriteBatch) -> None:
        """Return once ``batch`` is committed (raises what the commit raised)."""
        if not batch:
            return
        self._refuse()
        self._add(batch)
        await self._committed()

    def defer(self, batch: WriteBatch) -> None:
        """Queue ``batch`` to be committed soon, without waiting (see the module's
        docstring): for the records of an effect-free action only."""
        if not batch:
            return
        self._refuse()
        self._add(batch)
        self._queued()

    def defer_resource(self, record: ResourceRecord, events: Sequence[EventRecord]) -> None:
        """`defer` of one resource's record and its events, as an effect-free action
        hands them over (one per resource of a create or delete), without a batch."""
        self._refuse()
        pending = self._pending
        if pending.states:
            pending.states.pop((record.stack_id, record.name), None)
        pending.resources.append(record)
        pending.events.extend(events)
        self._queued()

    def defer_state(self, record: ResourceRecord, events: Sequence[EventRecord]) -> None:
        """`defer_resource` of a record whose stored row (once what is queued before it is
        written) differs from it only in its state (`WriteBatch.states`): the store writes
        the state alone."""
        self._refuse()
        self._pending.states[record.stack_id, record.name] = record
        self._pending.events.extend(events)
        self._queued()

    def _queued(self) -> None:
        self._deferred = True
        if self._size() >= self.max_batch:
            self._start()
        elif self._timer is None and (self._flusher is None or self._flusher.done()):
            self._timer = asyncio.get_running_loop().call_later(self.delay, self._time_up)

    async def flush(self) -> None:
        """Return once every record handed over so far is committed."""
        self._refuse()
        if self._pending or self._waiters:
            await self._committed()

    def _refuse(self) -> None:
        if self._failure is not None:
            raise self._failure
        if self.fence is not None:
            self.fence.check()

    def _add(self, batch: WriteBatch) -> None:
        pending = self._pending
        if pending.states:  # a full record written after a state supersedes it
            for record in batch.resources:
                pending.states.pop((record.stack_id, record.name), None)
        pending.stacks.extend(batch.stacks)
        pending.resources.extend(batch.resources)
        pending.events.extend(batch.events)
        pending.removed.extend(batch.removed)
        pending.states.update(batch.states)
        pending.release = pending.release or batch.release

    def _size(self) -> int:
        pending = self._pending
        return len(pending.resources) + len(pending.events) + len(pending.states)

    async def _committed(self) -> None:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._start()
        await waiter

    def _time_up(self) -> None:
        self._timer = None
        self._due = True
        self._start()

    def _start(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())

    async def _flush(self) -> None:
        while self._waiters or (self._due and self._pending) or self._size() >= self.max_batch:
            await asyncio.sleep(0)  # let every job that is ready add its records first
            self._due = False
            batch, self._pending = self._pending, WriteBatch()
            waiters, self._waiters = self._waiters, []
            deferred, self._deferred = self._deferred, False
            try:
                for part in _split(batch, self.max_batch):
                    # On the loop, not in a thread: a commit is a fraction of a millisecond
                    # and every job waiting for it would wait anyway; handing it to a
                    # thread cost more than the commit itself.
                    if self.fence is not None:
                        self.fence.write(self.store, part)
                    else:
                        self.store.write(part)
                    crash_hook.after_commit()
                if self.listener is not None:
                    self.listener(batch.events)
            except BaseException as error:  # the waiters must learn about it
                if deferred and self._failure is None:
                    self._failure = error
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_exception(error)
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
        if self._pending and self._timer is None:  # deferred records queued meanwhile
            self._timer = asyncio.get_running_loop().call_later(self.delay, self._time_up)


def _split(batch: WriteBatch, size: int) -> list[WriteBatch]:
    """Keep transactions bounded; a resource's record and its event stay in order."""
    total = len(batch.resources) + len(batch.events) + len(batch.stacks) + len(batch.states)
    if total <= size:
        return [batch]
    resources = batch.resources
    states: list[ResourceRecord] = []
    if batch.states:
        if resources:  # written whole, after the records (each state is later than them)
            resources = [*resources, *batch.states.values()]
        else:
            states = list(batch.states.values())
    parts: list[WriteBatch] = []
    step = max(1, size // 2)
    for start in range(0, max(len(resources), len(batch.events), len(states)), step):
        parts.append(
            WriteBatch(
                resources=resources[start : start + step],
                events=batch.events[start : start + step],
                states={(r.stack_id, r.name): r for r in states[start : start + step]},
            )
        )
    parts[-1].stacks.extend(batch.stacks)
    parts[-1].removed.extend(batch.removed)
    parts[-1].release = batch.release
    return parts
