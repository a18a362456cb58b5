"""Export, abandon, adopt and snapshots on both databases."""

from __future__ import annotations

import asyncio
import json
import os
import textwrap

import pytest
from sqlalchemy import text

from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine import adopt, snapshot_document
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, OperationRefused, StackEngine
from stoker.engine.state import Action, StackStatus, Status, WriteBatch
from stoker.errors import NotFound
from stoker.resources.registry import default_registry
from stoker.template.nodes import plain

FLAT = """
heat_template_version: 2018-08-31
parameters:
  len: {type: number, default: 8}
resources:
  rand:
    type: OS::Heat::RandomString
    properties: {length: {get_param: len}}
    metadata: {role: secret}
  none: {type: OS::Heat::None, depends_on: rand}
  val: {type: OS::Heat::Value, properties: {value: {get_attr: [rand, value]}}}
outputs:
  r: {value: {get_attr: [val, value]}}
"""

NESTED = """
heat_template_version: 2018-08-31
resources:
  top_rand: {type: OS::Heat::RandomString}
  nest:
    type: OS::Heat::Stack
    properties:
      template: |
        heat_template_version: 2018-08-31
        resources:
          inner: {type: OS::Heat::RandomString}
"""


def children_of(store, parent):
    """The live stacks whose parent is ``parent``, oldest first."""
    nested = store.list_stacks(parent.project, include_nested=True)
    return [stack for stack in nested if stack.parent_id == parent.id]


def create(engine, tmp_path, name, text_, parameters=None):
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(text_))
    options = LoadOptions(require_all_parameters=True, stack_name=name)
    result = load_definition(str(path), [], parameters or {}, options)
    assert result.definition is not None
    request = CreateRequest(
        name=name,
        definition=result.definition,
        template=plain(result.definition.template.document.data),
        environment=result.definition.environment.to_data(absolute_paths=True),
        parameters=parameters or {},
        template_file=os.path.abspath(path),
    )
    record = asyncio.run(engine.create(request))
    assert record.status is Status.COMPLETE, record.status_reason
    return record


@pytest.fixture
def engine(store):
    return StackEngine(store, default_registry(), EngineSettings())


def outputs(engine, record):
    return {o["output_key"]: o.get("output_value") for o in engine.outputs(record)}


def test_export_is_heats_document_and_changes_nothing(engine, store, tmp_path):
    record = create(engine, tmp_path, "flat", FLAT, {"len": "12"})
    data = asyncio.run(engine.export("flat"))
    assert set(data) == {
        "name", "id", "action", "status", "template", "environment", "files",
        "resources", "project_id", "stack_user_project_id", "tags",
    }  # fmt: skip
    assert (data["name"], data["id"], data["action"], data["status"]) == (
        "flat",
        record.id,
        "CREATE",
        "COMPLETE",
    )
    rand = data["resources"]["rand"]
    assert set(rand) == {
        "name",
        "resource_id",
        "type",
        "action",
        "status",
        "metadata",
        "resource_data",
    }
    assert rand["metadata"] == {"role": "secret"}
    assert len(rand["resource_data"]["value"]) == 12
    assert rand["resource_data"]["value"] == outputs(engine, record)["r"]
    assert data["environment"]["parameters"] == {"len": "12"}
    assert store.get_stack("flat", "default").status is Status.COMPLETE
    json.dumps(data)  # a JSON document


def test_abandon_forgets_the_stack_and_adopt_takes_it_back_unchanged(engine, store, tmp_path):
    record = create(engine, tmp_path, "flat", FLAT, {"len": "12"})
    value = outputs(engine, record)["r"]
    physical = {r.name: r.physical_id for r in store.resources(record.id)}
    data = asyncio.run(engine.abandon("flat"))
    assert store.get_stack("flat", "default") is None  # forgotten, the name is free
    gone = store.get_stack(record.id, "default")
    assert gone.deleted_at is not None and gone.action is Action.DELETE
    # nothing was deleted by a handler: every resource just left the stack
    assert {r.action for r in store.resources(record.id)} == {Action.DELETE}
    document = json.loads(json.dumps(data))
    adoption = adopt.load("flat", document, "adopt.json")
    assert [d for d in adoption.diagnostics if d.is_error] == []
    adopted = asyncio.run(engine.adopt(adoption, str(tmp_path), "adopt.json"))
    assert (adopted.action, adopted.status) == (Action.ADOPT, Status.COMPLETE)
    assert adopted.status_reason == "Stack ADOPT completed successfully"
    assert adopted.id != record.id
    assert outputs(engine, adopted)["r"] == value  # RandomString keeps its value
    again = {r.name: r for r in store.resources(adopted.id)}
    assert {n: r.physical_id for n, r in again.items()} == physical
    assert {(r.action, r.status) for r in again.values()} == {(Action.ADOPT, Status.COMPLETE)}
    assert again["rand"].properties["length"] == 12


def test_an_adopted_stack_counts_toward_the_project_limit(store, tmp_path):
    """Heat counts adopted stacks as created ones: at the limit, adopt is refused."""
    limited = StackEngine(store, default_registry(), EngineSettings(max_stacks_per_project=1))
    create(limited, tmp_path, "flat", FLAT)
    document = json.loads(json.dumps(asyncio.run(limited.abandon("flat"))))
    create(limited, tmp_path, "other", FLAT)  # the one place left
    adoption = adopt.load("flat", document, "adopt.json")
    with pytest.raises(OperationRefused, match="maximum stacks per project, 1"):
        asyncio.run(limited.adopt(adoption, str(tmp_path), "adopt.json"))
    assert store.get_stack("flat", "default") is None


def test_adopt_fails_a_resource_the_document_gives_no_id(engine, store, tmp_path):
    create(engine, tmp_path, "flat", FLAT)
    data = asyncio.run(engine.export("flat"))
    del data["resources"]["none"]
    adoption = adopt.load("other", data, "adopt.json")
    result = asyncio.run(engine.adopt(adoption, str(tmp_path), "adopt.json"))
    assert (result.action, result.status) == (Action.ADOPT, Status.FAILED)
    assert "Resource ID was not provided." in result.status_reason
    with pytest.raises(OperationRefused, match=r"The Stack \(flat\) already exists"):
        adoption = adopt.load("flat", data, "adopt.json")
        asyncio.run(engine.adopt(adoption, str(tmp_path), "adopt.json"))


def test_a_nested_stack_is_inside_the_document_and_abandoned_with_its_parent(
    engine, store, tmp_path
):
    record = create(engine, tmp_path, "nested", NESTED)
    (child,) = children_of(store, record)
    data = asyncio.run(engine.export("nested"))
    assert data["resources"]["nest"]["id"] == child.id  # the child's own document
    assert "inner" in data["resources"]["nest"]["resources"]
    with pytest.raises(OperationRefused, match="owned by resource nest"):
        asyncio.run(engine.abandon(child.name))
    asyncio.run(engine.abandon("nested"))
    assert store.get_stack(child.id, "default").deleted_at is not None


def test_snapshots_store_each_resources_data_in_heats_shapes(engine, store, tmp_path):
    record = create(engine, tmp_path, "nested", NESTED)
    value = {r.name: r.data["value"] for r in store.resources(record.id) if "value" in r.data}
    made = asyncio.run(engine.snapshot("nested", "first"))
    assert (made.status, made.status_reason) == (
        "COMPLETE",
        "Stack SNAPSHOT completed successfully",
    )
    stack = store.get_stack("nested", "default")
    assert (stack.action, stack.status) == (Action.SNAPSHOT, Status.COMPLETE)
    (child,) = children_of(store, record)
    assert store.get_stack(child.id, "default").action is Action.SNAPSHOT
    shown = snapshot_document(made)
    assert set(shown) == {"id", "name", "status", "status_reason", "data", "creation_time"}
    data = shown["data"]
    assert (data["action"], data["status"]) == ("SNAPSHOT", "COMPLETE")
    assert data["resources"]["top_rand"]["resource_data"]["value"] == value["top_rand"]
    assert data["resources"]["top_rand"]["action"] == "SNAPSHOT"
    assert "inner" in data["resources"]["nest"]["resources"]
    second = asyncio.run(engine.snapshot("nested"))
    assert [s.id for s in asyncio.run(engine.snapshots("nested"))] == [made.id, second.id]
    assert asyncio.run(engine.find_snapshot("nested", "first")).id == made.id
    asyncio.run(engine.delete_snapshot("nested", made.id))
    with pytest.raises(NotFound, match=f"Snapshot with id {made.id} not found"):
        asyncio.run(engine.find_snapshot("nested", made.id))
    # a stack with an operation in progress cannot be snapshotted (Heat's words)
    store.write(
        WriteBatch(
            stacks=[StackStatus(record.id, Action.CREATE, Status.IN_PROGRESS, "x", made.created_at)]
        )
    )
    with pytest.raises(OperationRefused, match=r"already has an action \(CREATE\) in progress"):
        asyncio.run(engine.snapshot("nested"))


def test_a_snapshot_of_a_stack_with_a_hidden_parameter_is_sealed_at_rest(engine, store, tmp_path):
    template = """
    heat_template_version: 2018-08-31
    parameters:
      pw: {type: string, hidden: true}
    resources:
      v: {type: OS::Heat::Value, properties: {value: {get_param: pw}}}
    """
    create(engine, tmp_path, "hidden", template, {"pw": "sekrit-value-42"})
    made = asyncio.run(engine.snapshot("hidden"))
    assert made.data["environment"]["parameters"]["pw"] == "sekrit-value-42"
    with store.engine.connect() as connection:
        raw = connection.execute(text("SELECT data FROM snapshots")).scalar_one()
    assert "sekrit-value-42" not in str(raw)
    again = asyncio.run(engine.find_snapshot("hidden", made.id))
    assert again.data["environment"]["parameters"]["pw"] == "sekrit-value-42"


def test_rotating_the_key_keeps_snapshots_readable(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from stoker.cli.main import cli
    from stoker.store import open_store
    from stoker.store.secrets import KEY_ENV, KEY_FILE_ENV

    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / "own.key"))  # rotated: not the session's
    monkeypatch.delenv(KEY_ENV, raising=False)
    url = f"sqlite:///{tmp_path / 'stoker.db'}"
    template = """
    heat_template_version: 2018-08-31
    parameters:
      pw: {type: string, hidden: true}
    resources:
      v: {type: OS::Heat::Value, properties: {value: {get_param: pw}}}
    """
    with open_store(url) as store:
        engine = StackEngine(store, default_registry(), EngineSettings())
        create(engine, tmp_path, "hidden", template, {"pw": "sekrit-value-42"})
        made = asyncio.run(engine.snapshot("hidden"))
    result = CliRunner().invoke(cli, ["--db", url, "db", "rotate-key"])
    assert result.exit_code == 0, result.output
    with open_store(url) as store:
        engine = StackEngine(store, default_registry(), EngineSettings())
        again = asyncio.run(engine.find_snapshot("hidden", made.id))
        assert again.data["environment"]["parameters"]["pw"] == "sekrit-value-42"


GROUPED = """
heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def: {type: OS::Heat::RandomString, properties: {length: 6}}
  nest:
    type: OS::Heat::Stack
    properties:
      template: |
        heat_template_version: 2018-08-31
        resources:
          inner: {type: OS::Heat::RandomString}
        outputs:
          said: {value: {get_attr: [inner, value]}}
outputs:
  values: {value: {get_attr: [group, value]}}
  said: {value: {get_attr: [nest, outputs, said]}}
"""


def test_nested_stacks_are_adopted_from_their_own_documents(engine, store, tmp_path):
    record = create(engine, tmp_path, "grouped", GROUPED)
    before = outputs(engine, record)
    data = json.loads(json.dumps(asyncio.run(engine.abandon("grouped"))))
    assert set(data["resources"]["group"]["resources"]) == {"0", "1"}
    adoption = adopt.load("grouped", data, "a.json")
    result = asyncio.run(engine.adopt(adoption, str(tmp_path), "a.json"))
    assert (result.action, result.status) == (Action.ADOPT, Status.COMPLETE), result.status_reason
    assert outputs(engine, result) == before  # every RandomString kept its value
    children = children_of(store, result)
    assert {c.parent_resource for c in children} == {"group", "nest"}
    for child in children:
        assert (child.action, child.status) == (Action.ADOPT, Status.COMPLETE)
        assert {(r.action, r.status) for r in store.resources(child.id)} == {
            (Action.ADOPT, Status.COMPLETE)
        }
    # a nested entry missing from the document fails the resource, as a flat one does
    del data["resources"]["nest"]
    result = asyncio.run(engine.adopt(adopt.load("again", data, "a.json"), str(tmp_path), "a.json"))
    assert result.status is Status.FAILED and "Resource ID was not provided." in (
        result.status_reason
    )


def test_a_snapshot_walks_into_os_heat_stack_only(engine, store, tmp_path):
    record = create(engine, tmp_path, "grouped", GROUPED)
    made = asyncio.run(engine.snapshot("grouped"))
    assert made.status == "COMPLETE"
    children = {c.parent_resource: c for c in children_of(store, record)}
    assert children["nest"].action is Action.SNAPSHOT  # Heat's RemoteStack snapshots it
    assert children["group"].action is Action.CREATE  # a group's child is left as it is
    assert set(made.data["resources"]["group"]["resources"]) == {"0", "1"}
