"""Claims on stacks: one operation per stack, and taking over from an engine that died.

An operation holds a lease (engine id + expiry) and renews it while it runs. Another
operation on the same stack is refused while the lease is live. A lease whose holder
stopped renewing expires; one held by a process of this machine that no longer exists is
treated as expired at once, so ``stoker stack resume`` works right after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

from stoker.engine.state import Store
from stoker.errors import LeaseHeld as LeaseHeld


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


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return False


def now_utc() -> datetime:
    return datetime.now(UTC)


def acquire(
    store: Store,
    stack_id: str,
    engine_id: str,
    seconds: float,
    clock: Callable[[], datetime] = now_utc,
) -> None:
    """Claim the stack or raise LeaseHeld with the live lease in the way."""
    now = clock()
    blocking = store.acquire_lease(stack_id, engine_id, now + timedelta(seconds=seconds), now)
    if blocking is None:
        return
    if holder_is_dead(blocking.engine_id):
        # The holder's process is gone: its lease is as good as expired.
        later = max(now, blocking.expires_at) + timedelta(microseconds=1)
        blocking = store.acquire_lease(
            stack_id, engine_id, later + timedelta(seconds=seconds), later
        )
        if blocking is None:
            return
    raise LeaseHeld(blocking)


@contextlib.asynccontextmanager
async def held(store: Store, stack_id: str, engine_id: str, seconds: float) -> AsyncIterator[None]:
    """Keep renewing an acquired lease while the block runs; release it afterwards."""

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(seconds / 3)
            expires = now_utc() + timedelta(seconds=seconds)
            await asyncio.to_thread(store.renew_lease, stack_id, engine_id, expires)

    task = asyncio.create_task(heartbeat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.to_thread(store.release_lease, stack_id, engine_id)
