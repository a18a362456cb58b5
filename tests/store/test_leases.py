"""Leases: a compare-and-swap claim on a stack, with expiry, renewal and release."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from datetime import timedelta, timezone

import pytest

from stoker.engine import leases
from stoker.engine.state import Action, Lease, LeaseToken, StackStatus, Status, WriteBatch
from stoker.errors import LeaseLost
from stoker.store import SqlStore, UnknownStack

from . import factories as f
from . import workers

pytestmark = pytest.mark.heavy

LATER = f.at(60)  # when the first lease runs out


@pytest.fixture
def stack_id(store: SqlStore) -> str:
    record = f.stack()
    store.create_stack(record, [], [])
    return record.id


def test_acquire_a_free_stack(store: SqlStore, stack_id: str) -> None:
    assert store.lease(stack_id) is None
    assert store.acquire_lease(stack_id, "engine-a", LATER, f.T0) is None
    assert store.lease(stack_id) == Lease("engine-a", LATER)


def test_a_live_lease_refuses_another_engine(store: SqlStore, stack_id: str) -> None:
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    holder = store.acquire_lease(stack_id, "engine-b", f.at(120), f.at(59))
    assert holder == Lease("engine-a", LATER)
    assert holder is not None and holder.expires_at.tzinfo is not None
    assert store.lease(stack_id) == Lease("engine-a", LATER)


def test_the_holder_may_acquire_again(store: SqlStore, stack_id: str) -> None:
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    assert store.acquire_lease(stack_id, "engine-a", f.at(90), f.at(1)) is None
    assert store.lease(stack_id) == Lease("engine-a", f.at(90))


def test_an_expired_lease_is_taken_over(store: SqlStore, stack_id: str) -> None:
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    assert store.acquire_lease(stack_id, "engine-b", f.at(120), LATER) is None  # at expiry
    assert store.lease(stack_id) == Lease("engine-b", f.at(120))
    assert store.renew_lease(stack_id, "engine-a", f.at(200)) is False  # a lost its claim
    store.release_lease(stack_id, "engine-a")  # and cannot release b's
    assert store.lease(stack_id) == Lease("engine-b", f.at(120))


def test_renew_and_release(store: SqlStore, stack_id: str) -> None:
    assert store.renew_lease(stack_id, "engine-a", LATER) is False  # nothing to renew
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    assert store.renew_lease(stack_id, "engine-a", f.at(90)) is True
    assert store.lease(stack_id) == Lease("engine-a", f.at(90))
    assert store.acquire_lease(stack_id, "engine-b", f.at(120), f.at(61)) is not None
    store.release_lease(stack_id, "engine-a")
    assert store.lease(stack_id) is None
    assert store.renew_lease(stack_id, "engine-a", f.at(90)) is False
    assert store.acquire_lease(stack_id, "engine-b", f.at(120), f.at(61)) is None


def test_leases_are_per_stack(store: SqlStore, stack_id: str) -> None:
    other = f.stack("other")
    store.create_stack(other, [], [])
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    assert store.acquire_lease(other.id, "engine-b", LATER, f.T0) is None
    assert store.lease(other.id) == Lease("engine-b", LATER)


def test_lease_times_in_other_zones(store: SqlStore, stack_id: str) -> None:
    east = timezone(timedelta(hours=9))
    store.acquire_lease(stack_id, "engine-a", LATER.astimezone(east), f.T0.astimezone(east))
    # 59 s later, written in another zone: still live.
    assert store.acquire_lease(stack_id, "engine-b", f.at(99), f.at(59).astimezone(east))
    assert store.acquire_lease(stack_id, "engine-b", f.at(99), f.at(60)) is None


def test_unknown_stacks(store: SqlStore) -> None:
    with pytest.raises(UnknownStack):
        store.acquire_lease("nope", "engine-a", LATER, f.T0)
    with pytest.raises(UnknownStack):
        store.lease("nope")
    assert store.renew_lease("nope", "engine-a", LATER) is False
    store.release_lease("nope", "engine-a")


def test_two_engines_in_one_process(open_stores: Callable[[], SqlStore], stack_id: str) -> None:
    first, second = open_stores(), open_stores()  # two engines, two connection pools
    assert first.acquire_lease(stack_id, "engine-a", LATER, f.T0) is None
    assert second.acquire_lease(stack_id, "engine-b", LATER, f.T0) == Lease("engine-a", LATER)


def test_two_processes_race_for_the_same_stacks(store: SqlStore, store_url: str) -> None:
    stack_ids = []
    for index in range(40):
        record = f.stack(f"s{index}")
        store.create_stack(record, [], [])
        stack_ids.append(record.id)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    processes = [
        context.Process(
            target=workers.claim_all, args=(store_url, engine, stack_ids, barrier, results)
        )
        for engine in ("engine-a", "engine-b")
    ]
    for process in processes:
        process.start()
    outcomes = dict(results.get(timeout=120) for _ in processes)
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    for stack_id in stack_ids:
        lease = store.lease(stack_id)
        assert lease is not None
        winner, loser = lease.engine_id, {"engine-a": "engine-b", "engine-b": "engine-a"}
        # The winner was told "yours" (None); the loser was told who won.
        assert outcomes[winner][stack_id] is None
        assert outcomes[loser[winner]][stack_id] == winner


def test_two_processes_race_to_create_the_same_names(store: SqlStore, store_url: str) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    processes = [
        context.Process(target=workers.create_named, args=(store_url, i, 30, barrier, results))
        for i in range(2)
    ]
    for process in processes:
        process.start()
    outcomes = dict(results.get(timeout=120) for _ in processes)
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    created = sorted(outcomes[0] + outcomes[1])
    assert created == sorted(f"race-{i}" for i in range(30))  # each name exactly once
    assert store.count_stacks("demo") == 30


# -- fencing: the lease's generation checked with every write ----------------------------


def test_each_claim_gets_a_new_generation(store: SqlStore, stack_id: str) -> None:
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    first = store.lease(stack_id)
    store.acquire_lease(stack_id, "engine-b", f.at(120), LATER)  # taken over at expiry
    second = store.lease(stack_id)
    assert first is not None and second is not None
    assert second.generation == first.generation + 1
    store.acquire_lease(stack_id, "engine-b", f.at(130), f.at(61))  # the holder again
    third = store.lease(stack_id)
    assert third is not None and third.generation == second.generation + 1


def test_a_write_under_a_lost_claim_changes_nothing(store: SqlStore, stack_id: str) -> None:
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    lease_a = store.lease(stack_id)
    assert lease_a is not None
    token_a = LeaseToken(stack_id, "engine-a", lease_a.generation)
    done = StackStatus(stack_id, Action.CREATE, Status.COMPLETE, "done", f.at(1))
    store.write(WriteBatch(stacks=[done]), token_a)  # while the claim holds
    store.acquire_lease(stack_id, "engine-b", f.at(120), LATER)  # a stalled, b took over
    failed = StackStatus(stack_id, Action.CREATE, Status.FAILED, "late", f.at(70))
    resource = f.resource(stack_id, "late")
    with pytest.raises(LeaseLost, match="engine-b holds it"):
        store.write(WriteBatch(stacks=[failed], resources=[resource]), token_a)
    with pytest.raises(LeaseLost):
        store.mark_deleted(stack_id, f.at(71), token_a)
    record = store.get_stack(stack_id, "demo")
    assert record is not None and record.status is Status.COMPLETE and record.deleted_at is None
    assert store.resources(stack_id) == []
    lease_b = store.lease(stack_id)
    assert lease_b is not None
    store.write(WriteBatch(stacks=[failed]), LeaseToken(stack_id, "engine-b", lease_b.generation))


HIDDEN = {
    "heat_template_version": "2021-04-16",
    "parameters": {"pw": {"type": "string", "hidden": True}},
    "resources": {},
}


def test_the_group_commit_refuses_a_sealed_write_after_the_claim_is_lost(
    store: SqlStore, open_stores: Callable[[], SqlStore]
) -> None:
    """`SqlStore.write` runs on the driver's cursor: its fence check refuses the whole
    batch (stack status, resources, events) once another engine took the claim, and once
    that engine released it, and the one transaction it ran leaves no trace."""
    record = f.stack(template=HIDDEN, parameters={"pw": "s3cret"})
    store.create_stack(record, [], [])
    stack_id = record.id
    store.acquire_lease(stack_id, "engine-a", LATER, f.T0)
    lease_a = store.lease(stack_id)
    assert lease_a is not None
    token_a = LeaseToken(stack_id, "engine-a", lease_a.generation)
    first = WriteBatch(
        stacks=[f.status(stack_id, Status.IN_PROGRESS, "working", f.at(1))],
        resources=[f.resource(stack_id, "kept", properties={"pw": "s3cret"})],
        events=[f.event(stack_id, "kept", reason="started")],
    )
    store.write(first, token_a)  # the claim holds: written, sealed
    other = open_stores()  # another process's store takes the stack over
    assert other.acquire_lease(stack_id, "engine-b", f.at(120), LATER) is None
    late = WriteBatch(
        stacks=[f.status(stack_id, Status.FAILED, "late", f.at(70))],
        resources=[
            f.resource(stack_id, "kept", status=Status.FAILED),
            f.resource(stack_id, "new", properties={"pw": "s3cret"}),
        ],
        events=[f.event(stack_id, "new", reason="late")],
    )
    with pytest.raises(LeaseLost, match="engine-b holds it"):
        store.write(late, token_a)
    other.release_lease(stack_id, "engine-b")
    with pytest.raises(LeaseLost, match="has released it"):
        store.write(late, token_a)
    for reader in (store, other):
        stack = reader.get_stack(stack_id, "demo")
        assert stack is not None and stack.status_reason == "working"
        assert stack.status is Status.IN_PROGRESS
        resources = reader.resources(stack_id)
        assert [(r.name, r.status, r.properties) for r in resources] == [
            ("kept", Status.IN_PROGRESS, {"pw": "s3cret"})
        ]
        assert [e.reason for e in reader.events(stack_id)] == ["started"]
    # the refused write left the store usable: the same connection writes again
    store.acquire_lease(stack_id, "engine-a", f.at(200), f.at(130))
    lease = store.lease(stack_id)
    assert lease is not None
    store.write(late, LeaseToken(stack_id, "engine-a", lease.generation))
    assert {r.name for r in store.resources(stack_id)} == {"kept", "new"}


def test_a_heartbeat_that_cannot_renew_stops_the_operation_before_expiry(
    store: SqlStore, stack_id: str
) -> None:
    """The database stops answering renewals: the block is cancelled with LeaseLost while
    the claim recorded in the database is still live, so no taker can overlap it.

    What happened is counted, not timed: the heartbeat tries to renew every third of the
    claim's life and gives up at the first failed renewal past two thirds of it, so it
    stops at the second try (the first, if the loop was too busy to try sooner), never at
    the third, when the claim expires; how long that took says only how busy the machine
    was."""
    tries: list[object] = []

    class Unreachable:
        def __getattr__(self, name: str) -> object:
            return getattr(store, name)

        def renew_lease(self, *args: object) -> bool:
            tries.append(args)
            raise OSError("connection refused")

    seconds = 1.5

    async def operation() -> None:
        fence = leases.acquire(store, stack_id, "engine-a", seconds)
        with pytest.raises(LeaseLost, match="could not be renewed for 1 s"):
            async with leases.held(Unreachable(), fence):  # type: ignore[arg-type]
                await asyncio.sleep(30)

    asyncio.run(operation())
    assert 1 <= len(tries) <= 2, tries  # stopped before the third try, at the expiry
    assert store.lease(stack_id) is None  # and released (the store still answers that)
