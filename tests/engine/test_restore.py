"""``stack snapshot restore`` on both databases: Heat's update to the snapshot's
definition under the action RESTORE (checked against the reference Heat 24.1.2)."""

from __future__ import annotations

import asyncio
import os
import textwrap

import pytest

from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, StackEngine, UpdateRequest
from stoker.engine.state import Action, StackStatus, Status, WriteBatch
from stoker.errors import NotFound, OperationRefused
from stoker.resources.registry import default_registry
from stoker.template.nodes import plain

BEFORE = """
heat_template_version: 2018-08-31
parameters:
  word: {type: string}
resources:
  kept: {type: OS::Heat::RandomString, properties: {length: 8}}
  changed: {type: OS::Heat::RandomString, properties: {length: 8}}
outputs:
  kept: {value: {get_attr: [kept, value]}}
  word: {value: {get_param: word}}
"""

AFTER = """
heat_template_version: 2018-08-31
parameters:
  word: {type: string}
resources:
  kept: {type: OS::Heat::RandomString, properties: {length: 8}}
  changed: {type: OS::Heat::RandomString, properties: {length: 12}}
  added: {type: OS::Heat::None}
outputs:
  kept: {value: {get_attr: [kept, value]}}
  word: {value: {get_param: word}}
  later: {value: after}
"""


@pytest.fixture
def engine(store):
    return StackEngine(store, default_registry(), EngineSettings())


def _load(tmp_path, name, text_, parameters):
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(text_))
    options = LoadOptions(require_all_parameters=True, stack_name="st")
    result = load_definition(str(path), [], parameters, options)
    assert result.definition is not None
    definition = result.definition
    data = (
        plain(definition.template.document.data),
        definition.environment.to_data(absolute_paths=True),
    )
    return definition, data, os.path.abspath(path)


def _values(store, stack_id):
    return {r.name: r.data.get("value") for r in store.resources(stack_id)}


def _outputs(engine, record):
    return {o["output_key"]: o.get("output_value") for o in engine.outputs(record)}


def _changed_then_restored(engine, store, tmp_path):
    definition, (template, environment), path = _load(tmp_path, "v1", BEFORE, {"word": "one"})
    created = asyncio.run(
        engine.create(
            CreateRequest(
                name="st",
                definition=definition,
                template=template,
                environment=environment,
                parameters={"word": "one"},
                template_file=path,
            )
        )
    )
    assert created.status is Status.COMPLETE, created.status_reason
    before = _values(store, created.id)
    made = asyncio.run(engine.snapshot("st", "first"))
    definition, (template, environment), path = _load(tmp_path, "v2", AFTER, {"word": "two"})
    request = UpdateRequest(
        definition=definition,
        template=template,
        environment=environment,
        parameters={"word": "two"},
        template_file=path,
    )
    updated = asyncio.run(engine.update("st", request))
    assert updated.status is Status.COMPLETE, updated.status_reason
    middle = _values(store, created.id)
    assert len(middle["changed"]) == 12 and _outputs(engine, updated)["word"] == "two"
    return made, before, middle


def test_restore_brings_back_the_snapshots_definition(engine, store, tmp_path):
    made, before, middle = _changed_then_restored(engine, store, tmp_path)
    restored = asyncio.run(engine.restore("st", made.id))
    assert (restored.action, restored.status, restored.status_reason) == (
        Action.RESTORE,
        Status.COMPLETE,
        "Stack RESTORE completed successfully",
    )
    stack = store.get_stack("st", "default")
    assert (stack.action, stack.status) == (Action.RESTORE, Status.COMPLETE)
    assert stack.template == made.data["template"]
    assert stack.environment["parameters"] == {"word": "one"}
    assert _outputs(engine, stack) == {"kept": before["kept"], "word": "one"}
    after = _values(store, stack.id)
    assert set(after) == {"kept", "changed"}  # the resource added since is gone
    # untouched since the snapshot: the same string; changed since: replaced back to
    # the snapshot's length with a new string (Heat's RandomString has no handle_restore)
    assert after["kept"] == before["kept"] == middle["kept"]
    assert len(after["changed"]) == 8 and after["changed"] != before["changed"]
    stack_events = [
        (e.action, e.status, e.reason)
        for e in store.events(stack.id)
        if e.resource_name == "st" and e.action is Action.RESTORE
    ]
    assert stack_events == [
        (Action.RESTORE, Status.IN_PROGRESS, "Stack RESTORE started"),
        (Action.RESTORE, Status.COMPLETE, "Stack RESTORE completed successfully"),
    ]
    # a resource restored says UPDATE (then is replaced), as in Heat
    events = store.events(stack.id)
    (start,) = [e.id for e in events if (e.action, e.status) == stack_events[0][:2]]
    replaced = [
        (e.action, e.status) for e in events if e.resource_name == "changed" and e.id > start
    ]
    assert replaced[:4] == [
        (Action.UPDATE, Status.IN_PROGRESS),
        (Action.UPDATE, Status.COMPLETE),
        (Action.CREATE, Status.IN_PROGRESS),
        (Action.CREATE, Status.COMPLETE),
    ]


def test_restoring_an_unknown_snapshot_changes_nothing(engine, store, tmp_path):
    made, _, middle = _changed_then_restored(engine, store, tmp_path)
    with pytest.raises(NotFound, match="^Snapshot with id nosuch not found$"):
        asyncio.run(engine.restore("st", "nosuch"))
    stack = store.get_stack("st", "default")
    assert (stack.action, stack.status) == (Action.UPDATE, Status.COMPLETE)
    assert _values(store, stack.id) == middle
    busy = StackStatus(stack.id, Action.UPDATE, Status.IN_PROGRESS, "x", made.created_at)
    store.write(WriteBatch(stacks=[busy]))
    with pytest.raises(OperationRefused, match=r"^Stack st already has an action \(UPDATE\) in"):
        asyncio.run(engine.restore("st", made.id))
    assert _values(store, stack.id) == middle
    done = StackStatus(stack.id, Action.UPDATE, Status.COMPLETE, "x", made.created_at)
    store.write(WriteBatch(stacks=[done]))
    # the snapshot can be named, and restoring twice is the same definition again
    assert asyncio.run(engine.restore("st", "first")).status is Status.COMPLETE
    assert asyncio.run(engine.restore("st", made.id)).status is Status.COMPLETE


def test_an_interrupted_restore_is_recovered_as_a_restore(engine, store, tmp_path):
    made, before, _ = _changed_then_restored(engine, store, tmp_path)
    restored = asyncio.run(engine.restore("st", made.id))
    # the state a process dying just before the stack's last write leaves (its claim ended)
    reason = "Stack RESTORE started"
    status = StackStatus(restored.id, Action.RESTORE, Status.IN_PROGRESS, reason, made.created_at)
    store.write(WriteBatch(stacks=[status]))
    recovered = asyncio.run(engine.recover("st"))
    assert (recovered.action, recovered.status) == (Action.RESTORE, Status.COMPLETE)
    assert recovered.status_reason == "Stack RESTORE completed successfully"
    # continued as the update it is: nothing deleted, the outputs still resolve
    assert Action.DELETE not in {r.action for r in store.resources(restored.id)}
    assert _outputs(engine, recovered) == {"kept": before["kept"], "word": "one"}
