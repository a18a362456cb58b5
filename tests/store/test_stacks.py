"""Stacks: create, look up, list, names per project, deletion, and value round trips."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from stoker.engine.state import Action, StackExists, StackRecord, Status
from stoker.errors import StackLimitReached
from stoker.store import SqlStore, UnknownStack

from . import factories as f


def test_create_then_get_by_id_and_by_name(store: SqlStore) -> None:
    record = f.stack(
        "web",
        template={"heat_template_version": "2021-04-16", "resources": {"a": {"type": "X"}}},
        environment={"parameters": {"size": 3}, "resource_registry": {"My::T": "t.yaml"}},
        files={"t.yaml": "heat_template_version: 2021-04-16\n"},
        parameters={"size": 3, "password": "hidden but kept"},
        tags=("blue", "prod"),
        timeout_mins=30,
        disable_rollback=False,
        template_file="/srv/web.yaml",
    )
    store.create_stack(record, [f.resource(record.id, "a")], [f.event(record.id, "web")])
    assert store.get_stack(record.id, "demo") == record
    assert store.get_stack("web", "demo") == record
    assert store.resources(record.id)[0].name == "a"
    assert [e.resource_name for e in store.events(record.id)] == ["web"]


def test_get_is_scoped_to_the_project(store: SqlStore) -> None:
    record = f.stack("web", project="demo")
    store.create_stack(record, [], [])
    assert store.get_stack(record.id, "other") is None
    assert store.get_stack("web", "other") is None
    assert store.get_stack("nothing", "demo") is None


def test_names_are_unique_per_project_among_live_stacks(store: SqlStore) -> None:
    first = f.stack("web")
    store.create_stack(first, [], [])
    with pytest.raises(StackExists, match=r"The Stack \(web\) already exists"):
        store.create_stack(f.stack("web"), [f.resource("ignored", "a")], [])
    store.create_stack(f.stack("web", project="other"), [], [])  # another project: fine
    assert store.count_stacks("demo") == 1

    store.mark_deleted(first.id, f.at(60))
    second = f.stack("web", created_at=f.at(120))
    store.create_stack(second, [], [])  # the name is free again
    assert store.get_stack("web", "demo") == second
    deleted = store.get_stack(first.id, "demo")  # by id, deleted stacks are still there
    assert deleted is not None and deleted.deleted_at == f.at(60)


def test_a_failed_create_leaves_nothing(store: SqlStore) -> None:
    record = f.stack("web")
    with pytest.raises(UnknownStack):  # the event names a stack that does not exist
        store.create_stack(record, [f.resource(record.id, "a")], [f.event("nope", "web")])
    assert store.get_stack(record.id, "demo") is None
    assert store.resources(record.id) == []
    store.create_stack(record, [], [])  # and the name was never taken


def test_list_top_level_nested_and_deleted(store: SqlStore) -> None:
    parent = f.stack("parent", created_at=f.at(0))
    child = f.stack(
        "parent-child-abc", parent_id=parent.id, parent_resource="child", created_at=f.at(1)
    )
    gone = f.stack("gone", created_at=f.at(2))
    other = f.stack("elsewhere", project="other")
    for record in (parent, child, gone, other):
        store.create_stack(record, [], [])
    store.mark_deleted(gone.id, f.at(3))

    def names(**flags: bool) -> list[str]:
        return [s.name for s in store.list_stacks("demo", **flags)]

    assert names() == ["parent"]
    assert names(include_nested=True) == ["parent", "parent-child-abc"]
    assert names(include_deleted=True) == ["parent", "gone"]
    assert names(include_nested=True, include_deleted=True) == [
        "parent",
        "parent-child-abc",
        "gone",
    ]
    assert store.list_stacks("nobody") == []


def test_the_nested_listing_has_each_stacks_live_children(store: SqlStore) -> None:
    parent = f.stack("parent")
    store.create_stack(parent, [], [])
    children = [
        f.stack(f"child-{i}", parent_id=parent.id, parent_resource=f"r{i}", created_at=f.at(i))
        for i in range(3)
    ]
    for child in children:
        store.create_stack(child, [], [])
    grandchild = f.stack("grandchild", parent_id=children[0].id)
    store.create_stack(grandchild, [], [])
    store.mark_deleted(children[1].id, f.at(10))
    nested = store.list_stacks(parent.project, include_nested=True)

    def below(stack: StackRecord) -> list[StackRecord]:
        return [s for s in nested if s.parent_id == stack.id]

    assert below(parent) == [children[0], children[2]]
    assert below(children[0]) == [grandchild]
    assert below(grandchild) == []


def test_count_stacks_counts_live_stacks_of_the_project(store: SqlStore) -> None:
    assert store.count_stacks("demo") == 0
    records = [f.stack(f"s{i}") for i in range(4)]
    for record in records:
        store.create_stack(record, [], [])
    store.create_stack(f.stack("nested", parent_id=records[0].id), [], [])
    store.create_stack(f.stack("x", project="other"), [], [])
    store.mark_deleted(records[1].id, f.at(1))
    assert store.count_stacks("demo") == 3  # the nested stack does not count, as in Heat
    assert store.count_stacks("other") == 1


def test_mark_deleted_keeps_the_first_time(store: SqlStore) -> None:
    record = f.stack()
    store.create_stack(record, [], [])
    store.mark_deleted(record.id, f.at(5))
    store.mark_deleted(record.id, f.at(9))
    deleted = store.get_stack(record.id, "demo")
    assert deleted is not None and deleted.deleted_at == f.at(5)
    with pytest.raises(UnknownStack):
        store.mark_deleted("no-such-stack", f.at(1))


def test_times_come_back_as_aware_utc(store: SqlStore) -> None:
    plus_five = timezone(timedelta(hours=5, minutes=30))
    created = datetime(2024, 12, 31, 23, 59, 59, 999999, tzinfo=plus_five)
    record = f.stack(created_at=created)
    store.create_stack(
        record,
        [f.resource(record.id, "a", created_at=created, updated_at=created)],
        [f.event(record.id, "a", time=created)],
    )
    back = store.get_stack(record.id, "demo")
    assert back is not None
    resource = store.resources(record.id)[0]
    event = store.events(record.id)[0]
    for value in (back.created_at, resource.created_at, resource.updated_at, event.time):
        assert value == created
        assert value is not None and value.tzinfo is UTC
        assert value.utcoffset() == timedelta(0)
    assert back.updated_at is None and back.deleted_at is None


def test_naive_times_are_refused(store: SqlStore) -> None:
    naive = datetime(2025, 1, 1, 12, 0)
    with pytest.raises(ValueError, match="naive datetime"):
        store.create_stack(f.stack(created_at=naive), [], [])
    record = f.stack()
    with pytest.raises(ValueError, match="naive datetime"):
        store.create_stack(record, [f.resource(record.id, "a", created_at=naive)], [])
    assert store.count_stacks("demo") == 0


JSON_VALUE: dict[str, Any] = {
    "z_first": "key order is kept",
    "a_second": [1, -2, 3.25, 1e300, 2**62, True, False, None, "", []],
    "nested": {"deep": {"deeper": [{"x": {}}]}, "empty": {}},
    "unicode": 'naïve ☃ 日本語 \U0001f600 "quoted" back\\slash \n\t',
    "control": "\x01\x1f",
}


def test_json_round_trips_exactly(store: SqlStore) -> None:
    record = f.stack(
        template=JSON_VALUE,
        environment={"parameter_defaults": JSON_VALUE},
        files={"a.yaml": JSON_VALUE["unicode"], "b.txt": ""},
        parameters=JSON_VALUE,
    )
    resource = f.resource(
        record.id,
        "a",
        properties=JSON_VALUE,
        attributes={"list": JSON_VALUE["a_second"]},
        data=JSON_VALUE["nested"],
        requires=("b", "c"),
    )
    store.create_stack(record, [resource], [])
    back = store.get_stack(record.id, "demo")
    assert back == record
    assert back is not None and list(back.template) == list(JSON_VALUE)  # order too
    assert store.resources(record.id) == [resource]
    assert list(store.resources(record.id)[0].properties) == list(JSON_VALUE)


@pytest.mark.parametrize("bad", [math.nan, math.inf, datetime(2025, 1, 1), {1, 2}])
def test_non_json_values_are_refused(store: SqlStore, bad: object) -> None:
    record = f.stack(parameters={"x": bad})
    with pytest.raises((ValueError, TypeError)):
        store.create_stack(record, [], [])
    record = f.stack()
    with pytest.raises((ValueError, TypeError)):
        store.create_stack(record, [f.resource(record.id, "a", data={"x": bad})], [])
    assert store.count_stacks("demo") == 0


def test_stack_state_reads_back_as_enums(store: SqlStore) -> None:
    record = f.stack(action=Action.DELETE, status=Status.FAILED)
    store.create_stack(record, [], [])
    back = store.get_stack(record.id, "demo")
    assert back is not None
    assert back.action is Action.DELETE and back.status is Status.FAILED


def test_the_stacks_per_project_limit_holds_for_concurrent_creators(
    open_stores: Callable[[], SqlStore],
) -> None:
    """Eight creators at once (each its own engine, as eight processes), three places
    left: exactly three inserts pass, the rest are refused, on SQLite and PostgreSQL.
    Counted in another transaction than the insert, all eight would see room."""
    stores = [open_stores() for _ in range(8)]
    stores[0].create_stack(f.stack("existing"), [], [])
    stores[0].create_stack(f.stack("elsewhere", project="other"), [], [])
    start = threading.Barrier(len(stores))
    outcomes: list[str] = []
    lock = threading.Lock()

    def create(store: SqlStore, index: int) -> None:
        start.wait()
        try:
            record = f.stack(f"s{index}")
            store.create_stack(record, [f.resource(record.id, "a")], [], max_stacks=4)
            outcome = "created"
        except StackLimitReached as error:
            assert "maximum stacks per project, 4" in str(error)
            outcome = "refused"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=create, args=(s, i)) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["created"] * 3 + ["refused"] * 5
    assert stores[0].count_stacks("demo") == 4
    assert len(stores[0].list_stacks("demo")) == 4  # a refused create wrote nothing
    # nested stacks and other projects do not count
    parent = stores[0].get_stack("existing", "demo")
    assert parent is not None
    child = f.stack("child", parent_id=parent.id)
    stores[0].create_stack(child, [], [], max_stacks=4)  # nested: not limited
    stores[0].create_stack(f.stack("more", project="other"), [], [], max_stacks=4)
