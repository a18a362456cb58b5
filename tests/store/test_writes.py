"""Write batches (upserts, events, stack state; all or nothing) and reading them back."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stoker.engine.state import Action, StackStatus, Status, WriteBatch
from stoker.store import SqlStore, UnknownStack
from stoker.store.jsontext import _ENCODER, dumps

from . import factories as f


@pytest.fixture
def stack_id(store: SqlStore) -> str:
    record = f.stack()
    store.create_stack(record, [], [])
    return record.id


def test_empty_batch_is_nothing(store: SqlStore, stack_id: str) -> None:
    store.write(WriteBatch())
    assert store.resources(stack_id) == [] and store.events(stack_id) == []


def test_count_resources_counts_the_stack_s_own(store: SqlStore, stack_id: str) -> None:
    other = f.stack(name="other")
    store.create_stack(other, [f.resource(other.id, "x")], [])
    assert store.count_resources(stack_id) == 0
    store.write(WriteBatch(resources=[f.resource(stack_id, n) for n in "abc"]))
    store.write(WriteBatch(resources=[f.resource(stack_id, "a", status=Status.COMPLETE)]))
    assert store.count_resources(stack_id) == 3
    assert store.count_resources(other.id) == 1


def test_resources_are_upserted_by_stack_and_name(store: SqlStore, stack_id: str) -> None:
    names = ["c", "a", "b"]
    first = [f.resource(stack_id, n, created_at=f.at(1), updated_at=f.at(1)) for n in names]
    store.write(WriteBatch(resources=first))
    assert store.resources(stack_id) == first

    done = f.resource(
        stack_id,
        "a",
        status=Status.COMPLETE,
        status_reason="state changed",
        physical_id="phys-a",
        properties={"value": 1},
        attributes={"output": "x"},
        data={"k": "v"},
        requires=("c",),
        created_at=f.at(1),
        updated_at=f.at(2),
    )
    new = f.resource(stack_id, "d")
    store.write(WriteBatch(resources=[new, done]))
    back = store.resources(stack_id)
    assert [r.name for r in back] == ["c", "a", "b", "d"]  # the order they were first written
    assert back[1] == done
    assert back[3] == new


def test_created_at_stays_when_a_later_record_omits_it(store: SqlStore, stack_id: str) -> None:
    store.write(WriteBatch(resources=[f.resource(stack_id, "a", created_at=f.at(1))]))
    store.write(WriteBatch(resources=[f.resource(stack_id, "a", updated_at=f.at(2))]))
    (back,) = store.resources(stack_id)
    assert back.created_at == f.at(1) and back.updated_at == f.at(2)


def test_the_last_record_of_a_name_in_one_batch_wins(store: SqlStore, stack_id: str) -> None:
    batch = [
        f.resource(stack_id, "a"),
        f.resource(stack_id, "b"),
        f.resource(stack_id, "a", status=Status.COMPLETE),
    ]
    store.write(WriteBatch(resources=batch))
    back = store.resources(stack_id)
    assert [(r.name, r.status) for r in back] == [
        ("a", Status.COMPLETE),
        ("b", Status.IN_PROGRESS),
    ]


def test_a_state_changes_the_row_s_state_alone(store: SqlStore, stack_id: str) -> None:
    """`WriteBatch.states`: the store writes action, status, reason and updated_at only
    (a delete's rows), whatever else the record holds."""
    whole = f.resource(
        stack_id, "a", physical_id="p", data={"k": "v"}, requires=("b",), created_at=f.at(1)
    )
    store.write(WriteBatch(resources=[whole, f.resource(stack_id, "b")]))
    deleted = replace(
        whole,
        action=Action.DELETE,
        status=Status.COMPLETE,
        status_reason="gone",
        updated_at=f.at(9),
    )
    other = replace(deleted, data={"not": "written"}, physical_id="other")
    store.write(WriteBatch(states={(stack_id, "a"): other}))
    assert store.resources(stack_id)[0] == deleted


def test_a_state_of_a_row_not_there_is_written_whole(store: SqlStore, stack_id: str) -> None:
    record = f.resource(stack_id, "a", status=Status.COMPLETE, data={"k": 1}, updated_at=f.at(3))
    store.write(WriteBatch(states={(stack_id, "a"): record}))
    assert store.resources(stack_id) == [record]
    with pytest.raises(UnknownStack):
        store.write(WriteBatch(states={("missing", "x"): f.resource("missing", "x")}))


def test_a_state_after_a_record_of_it_in_the_batch_wins(store: SqlStore, stack_id: str) -> None:
    first = f.resource(stack_id, "a", data={"k": 1})
    later = replace(first, action=Action.DELETE, status=Status.COMPLETE, updated_at=f.at(5))
    store.write(WriteBatch(resources=[first], states={(stack_id, "a"): later}))
    assert store.resources(stack_id) == [later]


def test_stack_status_changes(store: SqlStore, stack_id: str) -> None:
    store.write(WriteBatch(stacks=[f.status(stack_id, Status.COMPLETE, "done", f.at(30))]))
    back = store.get_stack(stack_id, "demo")
    assert back is not None
    assert (back.action, back.status, back.status_reason) == (
        Action.CREATE,
        Status.COMPLETE,
        "done",
    )
    # a create's change of state is no update: the stack's updated_time stays null (Heat)
    assert back.updated_at is None
    for status, time in ((Status.IN_PROGRESS, f.at(40)), (Status.COMPLETE, f.at(50))):
        change = StackStatus(stack_id, Action.UPDATE, status, "updating", time)
        store.write(WriteBatch(stacks=[change]))
    back = store.get_stack(stack_id, "demo")
    assert back is not None
    assert back.updated_at == f.at(40)  # when the update began


def test_a_batch_is_all_or_nothing(store: SqlStore, stack_id: str) -> None:
    store.write(WriteBatch(resources=[f.resource(stack_id, "a")]))
    good = WriteBatch(
        stacks=[f.status(stack_id, Status.COMPLETE, "done")],
        resources=[f.resource(stack_id, "a", status=Status.COMPLETE), f.resource(stack_id, "b")],
        events=[f.event(stack_id, "a", "one")],
    )
    failures = [
        WriteBatch(good.stacks, good.resources, [*good.events, f.event("missing", "x")]),
        WriteBatch(good.stacks, [*good.resources, f.resource("missing", "x")], good.events),
        WriteBatch([*good.stacks, f.status("missing", Status.FAILED)], good.resources),
    ]
    for batch in failures:
        with pytest.raises(UnknownStack) as raised:
            store.write(batch)
        assert raised.value.stack_id == "missing"
    with pytest.raises(ValueError, match="naive"):
        bad_time = f.event(stack_id, "a", time=f.T0.replace(tzinfo=None))
        store.write(WriteBatch(good.stacks, good.resources, [*good.events, bad_time]))

    back = store.get_stack(stack_id, "demo")
    assert back is not None and back.status is Status.IN_PROGRESS
    assert [(r.name, r.status) for r in store.resources(stack_id)] == [("a", Status.IN_PROGRESS)]
    assert store.events(stack_id) == []
    store.write(good)
    assert [r.name for r in store.resources(stack_id)] == ["a", "b"]


def test_events_are_oldest_first_with_ids(store: SqlStore, stack_id: str) -> None:
    other = f.stack("other")
    store.create_stack(other, [], [])
    for round_ in range(3):
        store.write(
            WriteBatch(
                events=[
                    f.event(stack_id, f"r{round_}", "first", physical_id="p"),
                    f.event(other.id, "x", "elsewhere"),
                    f.event(stack_id, f"r{round_}", "second", time=f.at(round_)),
                ]
            )
        )
    events = store.events(stack_id)
    assert [(e.resource_name, e.reason) for e in events] == [
        (f"r{i}", reason) for i in range(3) for reason in ("first", "second")
    ]
    ids = [e.id for e in events if isinstance(e.id, int)]
    assert len(ids) == len(events) == len(set(ids)) and ids == sorted(ids)
    assert events[0].physical_id == "p" and events[1].physical_id is None
    assert events[5].time == f.at(2)
    assert [e.stack_id for e in store.events(other.id)] == [other.id] * 3


def test_events_after_an_id_and_limited(store: SqlStore, stack_id: str) -> None:
    store.write(WriteBatch(events=[f.event(stack_id, f"r{i}") for i in range(10)]))
    everything = store.events(stack_id)
    pages: list[list[str]] = []
    after: int | None = None
    while page := store.events(stack_id, after_id=after, limit=4):
        pages.append([e.resource_name for e in page])
        after = page[-1].id
    assert pages == [["r0", "r1", "r2", "r3"], ["r4", "r5", "r6", "r7"], ["r8", "r9"]]
    assert store.events(stack_id, after_id=everything[-1].id) == []
    assert store.events(stack_id, after_id=everything[4].id) == everything[5:]
    assert store.events(stack_id, limit=2) == everything[:2]
    store.write(WriteBatch(events=[f.event(stack_id, "later")]))  # following new events
    assert [e.resource_name for e in store.events(stack_id, after_id=after)] == ["later"]


def test_resources_of_an_unknown_stack_are_none(store: SqlStore) -> None:
    assert store.resources("nope") == []
    assert store.events("nope") == []


def test_many_resources_in_batches(store: SqlStore, stack_id: str) -> None:
    """A scaled-down version of the engine's big-stack pattern, on every backend."""
    names = [f"r{i:04d}" for i in range(2500)]
    for status in (Status.IN_PROGRESS, Status.COMPLETE):
        for start in range(0, len(names), 1000):
            chunk = names[start : start + 1000]
            store.write(
                WriteBatch(
                    resources=[
                        f.resource(stack_id, n, status=status, properties={"n": n}) for n in chunk
                    ],
                    events=[f.event(stack_id, n, status=status) for n in chunk],
                )
            )
    back = store.resources(stack_id)
    assert [r.name for r in back] == names
    assert {r.status for r in back} == {Status.COMPLETE}
    assert back[1234].properties == {"n": "r1234"}
    assert len(store.events(stack_id)) == 5000


@pytest.mark.parametrize("value", [{}, [], (), 0, "", None, False, {"a": []}, [{}]])
def test_dumps_writes_empty_values_as_the_encoder_does(value: object) -> None:
    """The shortcuts for an empty map or list (most rows' attributes, data and requires)
    write what the JSON encoder writes."""
    assert dumps(value) == _ENCODER.encode(value)


def test_requires_round_trip_empty_or_not(store: SqlStore, stack_id: str) -> None:
    store.write(
        WriteBatch(
            resources=[
                f.resource(stack_id, "a"),
                f.resource(stack_id, "b", requires=("a",)),
            ]
        )
    )
    assert {r.name: r.requires for r in store.resources(stack_id)} == {"a": (), "b": ("a",)}
