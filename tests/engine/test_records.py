"""The engine's records: values compared and hashed by value, built without
``object.__setattr__`` (see `stoker.engine.state`)."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import UTC, datetime

import pytest

from stoker.engine import state
from stoker.engine.state import Action, EventRecord, Lease, ResourceRecord, Status

NOW = datetime(2026, 11, 25, 6, 0, tzinfo=UTC)
RECORD_CLASSES = [
    value
    for value in vars(state).values()
    if isinstance(value, type)
    and dataclasses.is_dataclass(value)
    and value.__module__ == state.__name__
    and value is not state.WriteBatch  # a batch is built up, not a value
]


def event(**changes: object) -> EventRecord:
    values: dict[str, object] = {
        "stack_id": "s",
        "resource_name": "r",
        "resource_type": "OS::Heat::None",
        "action": Action.CREATE,
        "status": Status.COMPLETE,
        "reason": "state changed",
        "physical_id": None,
        "time": NOW,
    }
    return EventRecord(**{**values, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", RECORD_CLASSES, ids=lambda c: c.__name__)
def test_a_record_is_built_by_a_plain_init(cls: type) -> None:
    # A frozen dataclass has its own __setattr__ (raising), and its __init__ goes around
    # it with object.__setattr__ for each field: five times slower to build.
    assert "__setattr__" not in vars(cls)
    assert "__slots__" in vars(cls)


def test_records_compare_and_hash_by_value() -> None:
    assert event() == event()
    assert hash(event()) == hash(event())
    assert len({event(), event(), event(reason="other")}) == 2
    assert event() != event(status=Status.FAILED)
    # a field left out of the comparison is left out of the hash too, as when frozen
    lease = Lease("engine", NOW, generation=1)
    assert lease == Lease("engine", NOW, generation=2)
    assert hash(lease) == hash(Lease("engine", NOW, generation=2))


def test_records_replace_and_pickle_as_values() -> None:
    record = ResourceRecord("s", "r", "OS::Heat::None", Action.INIT, Status.COMPLETE)
    changed = dataclasses.replace(record, action=Action.CREATE, data={"uuid": "u"})
    assert (record.action, record.data) == (Action.INIT, {})
    assert (changed.action, changed.data) == (Action.CREATE, {"uuid": "u"})
    assert pickle.loads(pickle.dumps(changed)) == changed


#: a ResourceRecord's fields that a state-only write (`WriteBatch.states`) sets or keys by
STATE_FIELDS = {"action", "status", "status_reason", "updated_at", "stack_id", "name"}
OTHER_VALUES: dict[str, object] = {
    "type": "OS::Heat::Value",
    "physical_id": "other",
    "properties": {"value": 2},
    "attributes": {"value": 2},
    "data": {"kept": 2},
    "requires": ("other",),
    "created_at": datetime(2026, 11, 26, tzinfo=UTC),
}


def test_same_row_compares_every_field_a_state_write_would_lose() -> None:
    """`engine.operation._same_row` decides that a resource's COMPLETE may be written as
    its state alone: a field it does not compare would be lost from the row. Each field
    but the state and the keys must make it answer no (a new field fails this test until
    it is compared, or named above)."""
    from stoker.engine.operation import _same_row

    stored = ResourceRecord(
        "s", "r", "OS::Heat::None", Action.CREATE, Status.IN_PROGRESS, physical_id="p",
        properties={"value": 1}, attributes={"value": 1}, data={"kept": 1},
        requires=("a",), created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    fields = {f.name for f in dataclasses.fields(ResourceRecord)}
    assert fields - STATE_FIELDS == set(OTHER_VALUES)
    done = dataclasses.replace(
        stored, status=Status.COMPLETE, status_reason="done", updated_at=datetime.now(UTC)
    )
    assert _same_row(stored, done)
    for name, value in OTHER_VALUES.items():
        assert not _same_row(stored, dataclasses.replace(done, **{name: value})), name
