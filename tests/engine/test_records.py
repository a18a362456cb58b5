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
