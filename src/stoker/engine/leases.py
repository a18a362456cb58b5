"""Claims on stacks: one operation per stack, and taking over from an engine that died.

An operation holds a lease (engine id + expiry) and renews it while it runs. Another
operation on the same stack is refused while the lease is live. A lease whose holder
stopped renewing expires; one held by a process of this machine that no longer exists is
treated as expired at once, so ``stoker stack recover`` works right after a crash.

A lease alone does not make one writer: a holder that stalls past its expiry (a paused
VM, ``SIGSTOP``, a blocked loop) and then continues would run beside the process that took
the stack over. So every claim gets a generation (the fencing token, `Fence`): each write
of the operation carries it and the store applies the write only if the claim is still
that one, in the same transaction. A holder that lost its claim fails its next write, and
does not start another handler without first confirming the claim; and a holder that
cannot renew (the database is unreachable) stops its operation before the claim expires,
so nothing of it is still running when another process may take over.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

from stoker.engine import testpoints
from stoker.engine.state import Lease, LeaseToken, Store, WriteBatch
from stoker.errors import LeaseHeld as LeaseHeld
from stoker.errors import LeaseLost

#: a claim not confirmed for this share of its duration is renewed before a handler starts;
#: a heartbeat that cannot renew it for this long stops the operation (before it expires)
STALE_SHARE = 2 / 3


def new_engine_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def holder_is_dead(engine_id: str) -> bool:
    """True if the lease holder was a process on this machine that has exited."""
    host, _, rest = engine_id.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return _is_zombie(pid)


def live_lease(store: Store, stack_id: str) -> Lease | None:
    """The claim on the stack if a live process holds it (not expired, holder alive):
    what tells a running operation (refuse, or cancel it) from an interrupted one."""
    lease = store.lease(stack_id)
    if lease is None or lease.expires_at <= now_utc():
        return None
    return None if holder_is_dead(lease.engine_id) else lease


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return False


def now_utc() -> datetime:
    return datetime.now(UTC)


class Fence:
    """An operation's claim on one stack: the token its writes carry, when the claim was
    last known to hold (monotonic, so a paused process sees the pause), and whether it was
    lost. Losing it cancels the task that runs the operation (see `held`)."""

    def __init__(self, token: LeaseToken, seconds: float) -> None:
        self.token = token
        self.seconds = seconds
        self.confirmed = time.monotonic()
        self.lost: str | None = None
        #: ``stack cancel``'s request, as the last write under this claim read it
        self.cancel_request: str | None = None
        #: the operation's last write gave the claim up (`WriteBatch.release`): `held`
        #: has nothing left to release, and a renewal that finds the claim gone is no loss
        self.released = False
        self._task: asyncio.Task[object] | None = None

    @property
    def stack_id(self) -> str:
        return self.token.stack_id

    def check(self) -> None:
        if self.lost is not None:
            raise LeaseLost(self.lost)

    def stale(self) -> bool:
        return time.monotonic() - self.confirmed >= self.seconds * STALE_SHARE

    def lose(self, reason: str) -> None:
        """Record the loss (first reason wins) and stop the operation (on the loop's
        thread). The task that finds the loss itself raises LeaseLost instead."""
        if self.lost is not None:
            return
        self.lost = reason
        task = self._task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def _renew(self, store: Store) -> str | None:
        """Extend the claim (blocking); why it is lost, or None."""
        started = time.monotonic()
        expires = now_utc() + timedelta(seconds=self.seconds)
        if store.renew_lease(self.token.stack_id, self.token.engine_id, expires):
            self.confirmed = max(self.confirmed, started)
            return None
        holder = store.lease(self.token.stack_id)
        taken = (
            f"engine {holder.engine_id} holds it now"
            if holder
            else "another process took the stack over since, and has released it"
        )
        return (
            f"this process lost its claim on stack {self.token.stack_id} (claim "
            f"{self.token.generation}) while it was not running: {taken}; it stopped "
            "without writing anything more"
        )

    async def renew(self, store: Store) -> None:
        """Extend the claim; LeaseLost (and the operation stops) if another holds it."""
        lost = await asyncio.to_thread(self._renew, store)
        if lost is not None and not self.released:
            self.lose(lost)
        self.check()

    async def confirm(self, store: Store) -> None:
        """Before a handler starts: the claim is known to hold, or is renewed now."""
        self.check()
        if self.stale():
            await self.renew(store)

    def write(self, store: Store, batch: WriteBatch) -> None:
        """Write ``batch`` under this claim (LeaseLost, and the operation stops, if lost)."""
        self.check()
        try:
            request = store.write(batch, self.token)
        except LeaseLost as error:
            self.lose(str(error))
            raise
        if request is not None:
            self.cancel_request = request
        if batch.release:
            self.released = True


def acquire(
    store: Store,
    stack_id: str,
    engine_id: str,
    seconds: float,
) -> Fence:
    """Claim the stack (a new generation) or raise LeaseHeld with the live lease in the way."""
    now = now_utc()
    blocking = store.acquire_lease(stack_id, engine_id, now + timedelta(seconds=seconds), now)
    if blocking is not None and holder_is_dead(blocking.engine_id):
        # The holder's process is gone: its lease is as good as expired.
        later = max(now, blocking.expires_at) + timedelta(microseconds=1)
        blocking = store.acquire_lease(
            stack_id, engine_id, later + timedelta(seconds=seconds), later
        )
    if blocking is not None:
        raise LeaseHeld(blocking)
    ours = store.lease(stack_id)
    if ours is None or ours.engine_id != engine_id:  # only if the new claim expired at once
        raise LeaseHeld(ours or Lease(engine_id="nobody", expires_at=now))
    return Fence(LeaseToken(stack_id, engine_id, ours.generation), seconds)


def claim_new(stack_id: str, engine_id: str, seconds: float) -> tuple[Lease, Fence]:
    """The claim a new stack's row is inserted with (`Store.create_stack`), and its fence.

    Claiming after the insert would leave a window in which another process (a delete)
    could take the stack, finish, and release it, and the creator would then claim it
    again and create resources in a deleted stack. The fence is made first, so the claim
    is counted as confirmed no later than the expiry written to the row is measured from.
    """
    fence = Fence(LeaseToken(stack_id, engine_id, NEW_GENERATION), seconds)
    return Lease(engine_id, now_utc() + timedelta(seconds=seconds), NEW_GENERATION), fence


#: the generation of the claim a stack is created with (a later claim counts up from it)
NEW_GENERATION = 1


@contextlib.asynccontextmanager
async def held(store: Store, fence: Fence) -> AsyncIterator[Fence]:
    """Keep renewing an acquired claim while the block runs; release it afterwards.

    If the claim is lost (a renewal finds another holder, a fenced write fails) or cannot
    be renewed for `STALE_SHARE` of its duration, the block's task is cancelled and the
    block ends with LeaseLost instead.
    """
    task = asyncio.current_task()
    fence._task = task

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(fence.seconds / 3)
            testpoints.reached("heartbeat")
            try:
                await fence.renew(store)
            except LeaseLost:
                return
            except Exception as error:  # the database is unreachable: retry until stale
                if fence.stale():
                    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
                    fence.lose(
                        f"the claim on the stack could not be renewed for "
                        f"{fence.seconds * STALE_SHARE:.0f} s ({type(error).__name__}: "
                        f"{first[:200]}); the operation stopped before the claim expired"
                    )
                    return

    beat = asyncio.create_task(heartbeat())
    try:
        yield fence
    except asyncio.CancelledError:
        if fence.lost is None:
            raise
        if task is not None and task.cancelling():
            task.uncancel()
        raise LeaseLost(fence.lost) from None
    except LeaseLost:
        if task is not None and task.cancelling():
            task.uncancel()  # the cancel `lose` sent was delivered and turned into this
        raise
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
        fence._task = None
        if fence.released:
            pass  # with the operation's last write
        elif fence.lost is None:
            await asyncio.to_thread(store.release_lease, fence.stack_id, fence.token.engine_id)
        else:
            # Still ours if only renewals failed; another engine's claim is left alone.
            with contextlib.suppress(Exception):
                await asyncio.to_thread(store.release_lease, fence.stack_id, fence.token.engine_id)
