"""What a store writes once instead of twice: a stack's own parameters where its
environment's ``parameters`` section is the mapping its record holds (the raw template
keeps a mark, `stoker.store.documents.STACK_PARAMETERS`), and the digests of documents
whose top-level keys and values are objects it has seen (`DocumentDigests`)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from stoker.engine.state import DefinitionChange, StoredDefinition, WriteBatch
from stoker.store import SqlStore
from stoker.store.documents import STACK_PARAMETERS
from stoker.store.jsontext import dumps
from stoker.store.models import Document, RawTemplate, Stack
from stoker.store.secrets import is_sealed

from . import factories as f

SECRET = "correct-horse-battery"
PLAIN = {"heat_template_version": "2021-04-16", "resources": {}}
HIDDEN = {
    "heat_template_version": "2021-04-16",
    "parameters": {"pw": {"type": "string", "hidden": True}},
    "resources": {},
}


def _environment(parameters: Any) -> dict[str, Any]:
    return {
        "parameters": parameters,
        "parameter_defaults": {"Debug": True},
        "resource_registry": {},
        "event_sinks": [],
    }


def _stored(store: SqlStore, stack_id: str) -> tuple[Any, Any, Any]:
    """The stack row's parameters and previous ones, and its raw template's environment,
    as the database holds them."""
    with store.engine.connect() as connection:
        row = connection.execute(
            select(Stack.parameters, Stack.prev_parameters, RawTemplate.environment)
            .join(RawTemplate, RawTemplate.id == Stack.raw_template_id)
            .where(Stack.id == stack_id)
        ).one()
    return row[0], row[1], row[2]


def _count_documents(store: SqlStore) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(Document)).scalar_one())


@pytest.mark.parametrize("sealed", [False, True], ids=["plain", "sealed"])
def test_parameters_that_are_the_records_mapping_are_stored_once(
    store: SqlStore, sealed: bool
) -> None:
    parameters = {"pw": SECRET, "count": 3, "names": ["a", "b"]}
    environment = _environment(parameters)
    stack = f.stack(
        template=HIDDEN if sealed else PLAIN,
        environment=environment,
        parameters=parameters,
    )
    store.create_stack(stack, [], [])
    stored_parameters, _, own = _stored(store, stack.id)
    assert is_sealed(stored_parameters) is sealed and is_sealed(own) is sealed
    if not sealed:
        assert own["parameters"] == STACK_PARAMETERS
        assert stored_parameters == parameters
    read = store.get_stack(stack.id, stack.project)
    assert read.parameters == parameters
    assert read.environment == environment
    assert list(read.environment) == list(environment)  # the sections in their order

    # an update keeps the definition as the previous one: its parameters are the
    # previous ones of the row
    new = StoredDefinition(stack.template, _environment({"pw": "new"}), {}, {"pw": "new"}, None)
    store.change_definition(DefinitionChange(stack.id, new), WriteBatch())
    stored_parameters, previous_parameters, own = _stored(store, stack.id)
    if not sealed:  # a mapping equal to the record's but another object: stored whole
        assert own["parameters"] == {"pw": "new"}
        assert previous_parameters == parameters
    read = store.get_stack(stack.id, stack.project)
    assert (read.parameters, read.environment) == ({"pw": "new"}, _environment({"pw": "new"}))
    previous = store.previous_definition(stack.id)
    assert previous is not None
    assert (previous.parameters, previous.environment) == (parameters, environment)


def test_a_plain_stack_that_becomes_sealed_reads_its_previous_parameters(
    store: SqlStore,
) -> None:
    """The previous raw template of a stack an update sealed keeps the mark in clear; its
    parameters, sealed with the row's at the update, fill it in."""
    parameters = {"pw": SECRET}
    environment = _environment(parameters)
    stack = f.stack(environment=environment, parameters=parameters)
    store.create_stack(stack, [], [])
    hidden = {"pw": "other"}
    new = StoredDefinition(HIDDEN, _environment(hidden), {}, hidden, None)
    store.change_definition(DefinitionChange(stack.id, new), WriteBatch())
    _, previous_parameters, _ = _stored(store, stack.id)
    assert is_sealed(previous_parameters)
    previous = store.previous_definition(stack.id)
    assert previous is not None
    assert (previous.parameters, previous.environment) == (parameters, environment)


def test_parameters_equal_only_as_python_values_are_both_kept(store: SqlStore) -> None:
    """``True == 1``, but JSON tells them apart: only the record's own mapping is taken
    for its parameters."""
    stack = f.stack(environment=_environment({"flag": True}), parameters={"flag": 1})
    store.create_stack(stack, [], [])
    read = store.get_stack(stack.id, stack.project)
    assert dumps(read.environment["parameters"]) == '{"flag":true}'
    assert dumps(read.parameters) == '{"flag":1}'


def test_a_kept_digest_finds_its_document_or_writes_it_again(store: SqlStore) -> None:
    """A document whose top-level keys and values are the objects of one written before
    is found by the digest kept for it, also once its last user has gone with it (then
    written again), and after a key rotation (by its new digest)."""
    template = {"heat_template_version": "2021-04-16", "description": "kept", "resources": {}}
    files = {"a.sh": "echo a"}
    first = f.stack("first", template=template, files=files)
    store.create_stack(first, [], [])
    documents = _count_documents(store)
    # a copy of the mapping holding the same objects: the same document
    second = f.stack("second", template=dict(template), files=dict(files))
    store.create_stack(second, [], [])
    assert _count_documents(store) == documents
    # both users move away: the documents go with the last one
    other = StoredDefinition({"heat_template_version": "2021-04-16"}, {}, {}, {}, None)
    for stack in (first, second):
        store.change_definition(
            DefinitionChange(stack.id, other, keep_previous=False), WriteBatch()
        )
    third = f.stack("third", template=template, files=files)
    store.create_stack(third, [], [])
    read = store.get_stack(third.id, third.project)
    assert (read.template, read.files) == (template, files)
    store.rotate_key()
    documents = _count_documents(store)
    fourth = f.stack("fourth", template=template, files=files)
    store.create_stack(fourth, [], [])
    assert _count_documents(store) == documents
    read = store.get_stack(fourth.id, fourth.project)
    assert (read.template, read.files) == (template, files)


def test_a_mapping_of_other_values_is_another_document(store: SqlStore) -> None:
    template = {"heat_template_version": "2021-04-16", "description": "one", "resources": {}}
    store.create_stack(f.stack("one", template=template), [], [])
    changed = {**template, "description": "two"}
    stack = f.stack("two", template=changed)
    store.create_stack(stack, [], [])
    read = store.get_stack(stack.id, stack.project)
    assert read.template == changed


def test_copies_of_a_mapping_one_level_down_are_known_and_a_changed_one_is_not(
    store: SqlStore,
) -> None:
    """A child's environment copies its registry's stored form and has lists of its own:
    the same document; a copy with one value changed, or a list not empty, is another."""
    registry = {"OS::Thing": "/t/thing.yaml", "resources": {}}

    def environment(registry: dict[str, Any], sinks: list[Any]) -> dict[str, Any]:
        return {"parameters": {}, "resource_registry": registry, "event_sinks": sinks}

    first = f.stack("first", environment=environment(dict(registry), []))
    store.create_stack(first, [], [])
    documents = _count_documents(store)
    second = f.stack("second", environment=environment({**registry, "resources": {}}, []))
    store.create_stack(second, [], [])
    assert _count_documents(store) == documents
    changed = environment({**registry, "OS::Thing": "/t/other.yaml"}, [])
    sinks = environment(dict(registry), [{"type": "zaqar-queue", "target": "q"}])
    for name, other in (("changed", changed), ("sinks", sinks)):
        stack = f.stack(name, environment=other)
        store.create_stack(stack, [], [])
        documents += 1
        assert _count_documents(store) == documents
        assert store.get_stack(stack.id, stack.project).environment == other
    assert store.get_stack(second.id, second.project).environment == second.environment
