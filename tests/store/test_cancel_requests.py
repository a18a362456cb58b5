"""Cancel requests on the stack row: written only for a running operation, read by its
fenced writes, cleared by the next claim; on both databases."""

from __future__ import annotations

import pytest

from stoker.engine.state import Action, LeaseToken, StackStatus, Status, WriteBatch
from stoker.store import SqlStore

from . import factories as f

pytestmark = pytest.mark.heavy


def _claimed(store: SqlStore) -> tuple[str, LeaseToken]:
    record = f.stack()  # CREATE_IN_PROGRESS
    store.create_stack(record, [], [])
    assert store.acquire_lease(record.id, "e1", f.at(60), f.at(0)) is None
    lease = store.lease(record.id)
    assert lease is not None
    return record.id, LeaseToken(record.id, "e1", lease.generation)


def _event(stack_id: str) -> WriteBatch:
    return WriteBatch(events=[f.event(stack_id, "r")])


def test_a_fenced_write_returns_the_request_until_a_new_claim(store: SqlStore) -> None:
    stack_id, token = _claimed(store)
    assert store.write(_event(stack_id), token) is None
    assert store.request_cancel(stack_id, "cancel", ["CREATE", "UPDATE"])
    assert store.write(_event(stack_id), token) == "cancel"
    assert store.write(_event(stack_id), token) == "cancel"  # until someone claims again
    store.release_lease(stack_id, "e1")
    assert store.acquire_lease(stack_id, "e2", f.at(60), f.at(1)) is None
    generation = store.lease(stack_id).generation  # type: ignore[union-attr]
    assert store.write(_event(stack_id), LeaseToken(stack_id, "e2", generation)) is None


def test_a_request_needs_a_running_operation_of_an_allowed_action(store: SqlStore) -> None:
    stack_id, _ = _claimed(store)
    assert not store.request_cancel(stack_id, "rollback", ["UPDATE"])  # a create runs
    store.release_lease(stack_id, "e1")
    assert not store.request_cancel(stack_id, "cancel", ["CREATE"])  # nobody holds it
    store.acquire_lease(stack_id, "e1", f.at(60), f.at(0))
    store.write(
        WriteBatch(stacks=[StackStatus(stack_id, Action.CREATE, Status.COMPLETE, "done", f.at(2))])
    )
    assert not store.request_cancel(stack_id, "cancel", ["CREATE"])  # it ended
