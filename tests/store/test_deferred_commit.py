"""The recorder's deferred records (`Recorder.defer`), against a real store.

Effect-free resources queue their records instead of waiting for them; the queue must
still reach the database on its own within the delay, in order with the awaited writes,
and a commit of queued records that fails must fail the operation's later writes (nobody
waited for that commit to hear of it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest

from stoker.engine import leases
from stoker.engine.recorder import Recorder
from stoker.engine.state import Status, WriteBatch
from stoker.errors import LeaseLost
from stoker.store import SqlStore

from . import factories as f

pytestmark = pytest.mark.heavy


def _stack(store: SqlStore) -> str:
    record = f.stack()
    store.create_stack(record, [], [])
    return record.id


def _reasons(store: SqlStore, stack_id: str) -> list[str]:
    return [e.reason for e in store.events(stack_id)]


def test_queued_records_are_committed_after_the_delay_without_a_write(store: SqlStore) -> None:
    stack_id = _stack(store)

    async def scenario() -> tuple[list[str], list[str]]:
        recorder = Recorder(store, delay=0.01)
        recorder.defer(WriteBatch(events=[f.event(stack_id, "a", reason="queued")]))
        before = _reasons(store, stack_id)
        # Nothing else writes: only the delay commits it. Waited for, not timed (a commit
        # on a busy machine may take longer than any fixed pause): up to ten seconds.
        after: list[str] = []
        for _ in range(1000):
            await asyncio.sleep(0.01)
            after = _reasons(store, stack_id)
            if after:
                break
        return before, after

    before, after = asyncio.run(scenario())
    assert before == [] and after == ["queued"]


def test_an_awaited_write_commits_what_was_queued_before_it_in_order(store: SqlStore) -> None:
    stack_id = _stack(store)

    async def scenario() -> None:
        recorder = Recorder(store, delay=60)  # never by the delay here
        recorder.defer(WriteBatch(events=[f.event(stack_id, "a", reason="first")]))
        await recorder.write(WriteBatch(events=[f.event(stack_id, "b", reason="second")]))

    asyncio.run(scenario())
    assert _reasons(store, stack_id) == ["first", "second"]


def test_a_record_queued_after_a_state_of_its_resource_supersedes_it(store: SqlStore) -> None:
    """A state (`Recorder.defer_state`) is written after the batch's whole records: one
    that a whole record of its resource follows must not be written over it."""
    stack_id = _stack(store)
    store.write(WriteBatch(resources=[f.resource(stack_id, "a"), f.resource(stack_id, "b")]))
    stored = {r.name: r for r in store.resources(stack_id)}
    state = replace(stored["a"], status=Status.COMPLETE, status_reason="state")
    whole = replace(stored["a"], status=Status.FAILED, data={"k": 1})
    kept = replace(stored["b"], status=Status.COMPLETE, status_reason="kept")

    async def scenario() -> None:
        recorder = Recorder(store, delay=60)
        recorder.defer_state(state, [f.event(stack_id, "a", reason="state")])
        recorder.defer_state(kept, [f.event(stack_id, "b", reason="kept")])
        recorder.defer_resource(whole, [f.event(stack_id, "a", reason="whole")])
        await recorder.flush()

    asyncio.run(scenario())
    assert store.resources(stack_id) == [whole, kept]
    assert _reasons(store, stack_id) == ["state", "kept", "whole"]


def test_a_failed_commit_of_queued_records_fails_the_later_writes(
    store: SqlStore, open_stores: Callable[[], SqlStore]
) -> None:
    record = f.stack()
    claim, fence = leases.claim_new(record.id, "engine-a", 0.05)
    store.create_stack(record, [], [], claim)
    # another engine takes the stack over once the claim has run out
    other = open_stores()
    later = leases.now_utc() + timedelta(seconds=1)
    assert other.acquire_lease(record.id, "engine-b", later + timedelta(minutes=1), later) is None

    async def scenario() -> None:
        recorder = Recorder(store, delay=0.01, fence=fence)
        recorder.defer(WriteBatch(events=[f.event(record.id, "a", reason="lost")]))
        await asyncio.sleep(0.1)  # the queued commit is refused: nobody is told yet
        with pytest.raises(LeaseLost):
            await recorder.write(WriteBatch(events=[f.event(record.id, "b", reason="later")]))

    asyncio.run(scenario())
    assert _reasons(store, record.id) == []
