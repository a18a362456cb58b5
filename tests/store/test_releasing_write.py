"""An operation's last write gives its claim up in the same transaction
(`WriteBatch.release`): the stack is never seen in its final state still claimed, and the
release is fenced as the rest of the write is. On both databases."""

from __future__ import annotations

import pytest

from stoker.engine.state import Action, Lease, LeaseToken, StackStatus, Status, WriteBatch
from stoker.errors import LeaseLost
from stoker.store import SqlStore

from . import factories as f

LATER = f.at(60)  # when the first claim runs out


def _claim(store: SqlStore, stack_id: str, engine_id: str, expires, now) -> LeaseToken:
    assert store.acquire_lease(stack_id, engine_id, expires, now) is None
    lease = store.lease(stack_id)
    assert lease is not None
    return LeaseToken(stack_id, engine_id, lease.generation)


@pytest.fixture
def stack_id(store: SqlStore) -> str:
    """A new stack (unclaimed: `_claim` takes it as a test needs)."""
    made = f.stack()
    store.create_stack(made, [], [])
    return made.id


def test_the_last_write_releases_the_claim_with_the_final_state(
    store: SqlStore, stack_id: str
) -> None:
    token = _claim(store, stack_id, "engine-a", LATER, f.T0)
    done = StackStatus(stack_id, Action.CREATE, Status.COMPLETE, "done", f.at(1))
    batch = WriteBatch(
        stacks=[done],
        resources=[f.resource(stack_id, "r")],
        events=[f.event(stack_id, "r", reason="made")],
        release=True,
    )
    store.write(batch, token)
    record = store.get_stack(stack_id, "demo")
    assert record is not None and record.status is Status.COMPLETE
    assert [r.name for r in store.resources(stack_id)] == ["r"]
    assert store.lease(stack_id) is None
    # free at once for another engine, long before the claim would have run out
    assert store.acquire_lease(stack_id, "engine-b", f.at(120), f.at(2)) is None


def test_a_release_alone_is_a_write(store: SqlStore, stack_id: str) -> None:
    token = _claim(store, stack_id, "engine-a", LATER, f.T0)
    assert WriteBatch(release=True)
    store.write(WriteBatch(release=True), token)
    assert store.lease(stack_id) is None


def test_a_releasing_write_under_a_lost_claim_changes_nothing(
    store: SqlStore, stack_id: str
) -> None:
    token_a = _claim(store, stack_id, "engine-a", LATER, f.T0)
    _claim(store, stack_id, "engine-b", f.at(120), LATER)  # a stalled past its claim
    late = StackStatus(stack_id, Action.CREATE, Status.COMPLETE, "late", f.at(70))
    with pytest.raises(LeaseLost, match="engine-b holds it"):
        store.write(WriteBatch(stacks=[late], release=True), token_a)
    assert store.lease(stack_id) == Lease("engine-b", f.at(120))
    record = store.get_stack(stack_id, "demo")
    assert record is not None and record.status_reason != "late"


def test_a_releasing_batch_is_written_under_a_claim(store: SqlStore, stack_id: str) -> None:
    _claim(store, stack_id, "engine-a", LATER, f.T0)
    done = StackStatus(stack_id, Action.CREATE, Status.COMPLETE, "done", f.at(1))
    with pytest.raises(ValueError, match="under that claim"):
        store.write(WriteBatch(stacks=[done], release=True))
    assert store.lease(stack_id) is not None
