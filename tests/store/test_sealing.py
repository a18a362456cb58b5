"""How a sealed stack's values are stored: empty values in clear (told from tokens by
structure, the stack's parameters as the mark), tokens kept for values that did not
change, and rows sealed the earlier way (every value a token) still read back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cryptography.fernet import Fernet
from sqlalchemy import select, update

from stoker.engine.state import DefinitionChange, Status, StoredDefinition, WriteBatch
from stoker.store import SqlStore
from stoker.store.jsontext import dumps, loads
from stoker.store.models import Resource, Stack
from stoker.store.secrets import (
    SEALED,
    TEXT_PREFIX,
    Sealer,
    is_sealed,
    key_source,
    new_key,
    read_key,
    sealed_json,
)

from . import factories as f

SECRET = "correct-horse-battery"
HIDDEN = {
    "heat_template_version": "2021-04-16",
    "parameters": {"pw": {"type": "string", "hidden": True}},
}


def _row(store: SqlStore, stack_id: str, name: str) -> dict[str, Any]:
    """A resource row as the database holds it."""
    table = Resource.__table__
    query = select(table).where(table.c.stack_id == stack_id, table.c.name == name)
    with store.engine.connect() as connection:
        return dict(connection.execute(query).one()._mapping)


def _hidden_stack(store: SqlStore, **changes: Any) -> str:
    record = f.stack(name="hidden", template=HIDDEN, **changes)
    store.create_stack(record, [], [])
    return record.id


def test_empty_values_are_stored_in_clear_and_the_rest_sealed(
    store: SqlStore, open_stores: Callable[[], SqlStore]
) -> None:
    """In a sealed stack an empty value is kept as it is, every other one is a token, and
    the stack's parameters (its mark) are a token even when empty: a store that has not
    read the stack yet still seals what it writes there, and opens what it reads, even
    when the first resource's values are all empty."""
    stack_id = _hidden_stack(store, parameters={})
    with store.engine.connect() as connection:
        parameters = connection.execute(select(Stack.parameters)).scalar_one()
    assert is_sealed(parameters)
    writer = open_stores()
    writer.write(
        WriteBatch(
            resources=[
                f.resource(stack_id, "empty", properties={}, attributes={}, data={}),
                f.resource(
                    stack_id,
                    "full",
                    properties={"pw": SECRET, "zero": 0},
                    attributes={"out": SECRET},
                    data={},
                    status_reason=f"failed: {SECRET}",
                ),
                f.resource(stack_id, "falsy", properties={"no": False}, attributes=[0]),
            ],
            events=[f.event(stack_id, "full", reason=""), f.event(stack_id, "full", SECRET)],
        )
    )
    empty = _row(store, stack_id, "empty")
    assert (empty["properties"], empty["attributes"], empty["data"]) == ({}, {}, {})
    assert empty["status_reason"] == ""
    full = _row(store, stack_id, "full")
    assert is_sealed(full["properties"]) and is_sealed(full["attributes"])
    assert full["data"] == {} and full["status_reason"].startswith(TEXT_PREFIX)
    falsy = _row(store, stack_id, "falsy")  # 0 and false carry a value
    assert is_sealed(falsy["properties"]) and is_sealed(falsy["attributes"])
    reader = open_stores()
    records = {r.name: r for r in reader.resources(stack_id)}
    assert records["empty"].properties == {} and records["empty"].status_reason == ""
    assert records["full"].properties == {"pw": SECRET, "zero": 0}
    assert records["full"].attributes == {"out": SECRET}
    assert records["full"].status_reason == f"failed: {SECRET}"
    assert records["falsy"].properties == {"no": False}
    assert records["falsy"].attributes == [0]
    assert [e.reason for e in reader.events(stack_id)] == ["", SECRET]


def test_values_sealed_the_earlier_way_read_back(
    store: SqlStore, open_stores: Callable[[], SqlStore]
) -> None:
    """Rows written before empty values were kept in clear hold tokens of them (the
    status reason a token of ""): they read back as they were."""
    stack_id = _hidden_stack(store, parameters={"pw": SECRET})
    store.write(WriteBatch(resources=[f.resource(stack_id, "r", properties={"pw": SECRET})]))
    key = read_key(key_source())
    assert key is not None
    fernet = Fernet(key)

    def token(text: str) -> str:
        return fernet.encrypt(text.encode()).decode("ascii")

    table = Resource.__table__
    with store.engine.begin() as connection:
        connection.execute(
            update(table)
            .where(table.c.stack_id == stack_id)
            .values(
                attributes={SEALED: token("{}")},
                data={SEALED: token("[]")},
                status_reason=TEXT_PREFIX + token(""),
            )
        )
    (record,) = open_stores().resources(stack_id)
    assert record.properties == {"pw": SECRET}
    assert (record.attributes, record.data, record.status_reason) == ({}, [], "")


def test_an_unchanged_value_keeps_its_token_and_equal_values_get_their_own(
    store: SqlStore,
) -> None:
    """A resource's row is written whole at each transition: values that did not change
    keep their tokens, changed ones get new tokens, and two resources with equal values
    never share a token (the database does not show which values are equal)."""
    stack_id = _hidden_stack(store, parameters={"pw": SECRET})
    same = {"pw": SECRET}
    store.write(
        WriteBatch(
            resources=[
                f.resource(stack_id, "a", properties=same, status_reason="state changed"),
                f.resource(stack_id, "b", properties=same, status_reason="state changed"),
            ]
        )
    )
    first = _row(store, stack_id, "a")
    assert first["properties"] != _row(store, stack_id, "b")["properties"]
    assert first["status_reason"] != _row(store, stack_id, "b")["status_reason"]
    store.write(
        WriteBatch(
            resources=[
                f.resource(
                    stack_id,
                    "a",
                    properties=dict(same),
                    attributes={"out": SECRET},
                    status=Status.COMPLETE,
                    status_reason="state changed",
                )
            ]
        )
    )
    second = _row(store, stack_id, "a")
    assert second["properties"] == first["properties"]
    assert second["status_reason"] == first["status_reason"]
    store.write(WriteBatch(resources=[f.resource(stack_id, "a", properties={"pw": "other"})]))
    third = _row(store, stack_id, "a")
    assert is_sealed(third["properties"]) and third["properties"] != first["properties"]
    (record,) = [r for r in store.resources(stack_id) if r.name == "a"]
    assert record.properties == {"pw": "other"}


def test_a_plain_stack_reason_that_looks_sealed_reads_as_written(store: SqlStore) -> None:
    """Whether a reason is a token is known from the stack's mark, never from how the
    text starts: a plain stack's reason that begins like a sealed one is shown as is."""
    record = f.stack(name="plain")
    store.create_stack(record, [], [])
    forged = TEXT_PREFIX + "not-a-token"
    store.write(WriteBatch(events=[f.event(record.id, "r", reason=forged)]))
    assert [e.reason for e in store.events(record.id)] == [forged]


def test_a_stack_sealed_by_another_process_reads_back_opened(
    store: SqlStore, open_stores: Callable[[], SqlStore]
) -> None:
    """A store that has read a plain stack looks at it again when it reads: another
    process's update that adds a hidden parameter seals it from then on."""
    record = f.stack(name="plain", parameters={"pw": "old"})
    store.create_stack(record, [f.resource(record.id, "r", properties={"pw": "old"})], [])
    assert [r.properties for r in store.resources(record.id)] == [{"pw": "old"}]
    other = open_stores()
    definition = StoredDefinition(HIDDEN, {}, {}, {"pw": SECRET}, None)
    other.change_definition(
        DefinitionChange(record.id, definition),
        WriteBatch(
            resources=[f.resource(record.id, "r", properties={"pw": SECRET})],
            events=[f.event(record.id, "r", reason=SECRET)],
        ),
    )
    assert SECRET not in str(_row(store, record.id, "r"))
    assert [r.properties for r in store.resources(record.id)] == [{"pw": SECRET}]
    assert [e.reason for e in store.events(record.id)] == [SECRET]


def test_a_sealed_values_text_is_what_the_encoder_writes() -> None:
    """A sealed value's JSON text is made around its token, not encoded: it must be the
    text the store's encoder makes of ``{SEALED: token}``, and read back as the value."""
    sealer = Sealer(new_key())
    value = {"password": SECRET, "nested": ["é", '"quoted"', 0, False]}
    text = sealer.seal_json_at(("stack", "server", "properties"), value)
    stored = loads(text)
    assert text == dumps(stored) == sealed_json(stored[SEALED])
    assert SECRET not in text
    assert sealer.unseal(stored) == value
    assert sealer.seal_json_at(("stack", "server", "data"), {}) == "{}"
