"""The store's side of an update: a new definition with the previous one kept (and sealed
like the current one when the stack hides values), rows an update removes, and no raw
template left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from stoker.engine.state import DefinitionChange, StoredDefinition, WriteBatch
from stoker.store import SqlStore
from stoker.store.models import RawTemplate
from stoker.store.secrets import SEALED

from . import factories as f
from .test_secrets import SECRET, create_hidden_stack, raw_text

pytestmark = pytest.mark.heavy


def _raw_templates(store: SqlStore) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(RawTemplate)).scalar_one())


def test_an_update_keeps_the_previous_definition_and_a_rollback_swaps_back(store: SqlStore):
    stack = f.stack()
    store.create_stack(stack, [f.resource(stack.id, "a"), f.resource(stack.id, "b")], [])
    assert store.previous_definition(stack.id) is None
    first = StoredDefinition.of(stack)
    new = StoredDefinition(
        {"resources": {"a": {}}}, {"parameters": {}}, {"f": "x"}, {"p": "1"}, "/t.yaml"
    )
    change = DefinitionChange(stack.id, new, tags=("t",), timeout_mins=5, disable_rollback=False)
    store.change_definition(change, WriteBatch(removed=[(stack.id, "b")]))
    current = store.get_stack(stack.id, stack.project)
    assert (current.template, current.files, current.parameters) == (
        new.template,
        new.files,
        new.parameters,
    )
    assert (current.tags, current.timeout_mins, current.disable_rollback) == (("t",), 5, False)
    assert current.template_file == "/t.yaml"
    assert store.previous_definition(stack.id) == first
    assert [r.name for r in store.resources(stack.id)] == ["a"]
    # the rollback: the previous definition becomes current again, the update's kept
    store.change_definition(DefinitionChange(stack.id, first), WriteBatch())
    assert store.get_stack(stack.id, stack.project).template == stack.template
    assert store.previous_definition(stack.id) == new
    for _ in range(3):
        store.change_definition(DefinitionChange(stack.id, new), WriteBatch())
    assert _raw_templates(store) == 2  # the current and the previous one, nothing more


def test_a_hidden_stacks_definitions_stay_sealed(store: SqlStore, tmp_path: Path):
    stack_id = create_hidden_stack(store, tmp_path)
    stack = store.get_stack(stack_id, "default")
    again = StoredDefinition(
        stack.template, stack.environment, stack.files, {"pw": "another-secret"}, None
    )
    store.change_definition(DefinitionChange(stack_id, again), WriteBatch())
    text = raw_text(store)
    assert SECRET not in text and "another-secret" not in text and SEALED in text
    assert store.previous_definition(stack_id).parameters == {"pw": SECRET}
    assert store.get_stack(stack_id, "default").parameters == {"pw": "another-secret"}
