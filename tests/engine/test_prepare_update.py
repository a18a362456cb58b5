"""`prepare_update`: the one assembly of an update request, which ``stoker stack update``
and the REST API's PUT/PATCH share: what it keeps of the stack, what the caller changes,
and the two stages at which it refuses (loading, then the engine's check)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from stoker.definition.loading import LoadOptions
from stoker.definition.requests import RequestInputs, load_request
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, StackEngine
from stoker.engine.state import StackRecord
from stoker.engine.update_request import UpdateChanges, UpdateFiles, prepare_update
from stoker.resources.registry import default_registry
from stoker.template.loader import load_document
from stoker.template.nodes import plain

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  size: {type: number}
resources:
  v:
    type: OS::Heat::Value
    properties: {value: {get_param: size}}
outputs:
  id: {value: {get_param: OS::stack_id}}
"""


@pytest.fixture
def engine(store) -> StackEngine:
    return StackEngine(store, default_registry(), EngineSettings())


@pytest.fixture
def stack(engine: StackEngine) -> StackRecord:
    inputs = RequestInputs(TEMPLATE, parameters={"size": 1})
    result = load_request(inputs, LoadOptions(require_all_parameters=True, stack_name="s"))
    assert result.definition is not None and result.ok
    request = CreateRequest(
        name="s",
        definition=result.definition,
        template=plain(load_document(TEMPLATE, "t.yaml").data),
        environment=result.definition.environment.to_data(),
        parameters={"size": 1},
        timeout_mins=7,
        disable_rollback=False,
        tags=("a", "b"),
    )
    return asyncio.run(engine.create(request))


def test_what_the_caller_leaves_out_is_the_stack_s_own(engine, stack) -> None:
    prepared = prepare_update(
        engine, stack, RequestInputs(None, parameters={"size": 2}), LoadOptions(), existing=True
    )
    request = prepared.request
    assert request is not None and prepared.errors == []
    assert (request.timeout_mins, request.disable_rollback, request.tags) == (7, False, ("a", "b"))
    assert request.parameters == {"size": 2}
    assert request.template_file == stack.template_file
    # the stack exists: its id is known while the new definition is read
    assert request.definition.context is not None
    assert request.definition.context.stack_id == stack.id


def test_what_the_caller_gives_replaces_the_stack_s_own(engine, stack) -> None:
    prepared = prepare_update(
        engine,
        stack,
        RequestInputs(None),
        LoadOptions(),
        existing=True,
        changes=UpdateChanges(timeout_mins=3, disable_rollback=True, tags=()),
    )
    request = prepared.request
    assert request is not None
    assert (request.timeout_mins, request.disable_rollback, request.tags) == (3, True, ())
    assert request.parameters == {"size": 1}  # kept by the PATCH


def test_a_definition_that_does_not_load_is_refused_before_the_check(engine, stack) -> None:
    prepared = prepare_update(
        engine, stack, RequestInputs("heat_template_version: [\n"), LoadOptions(), existing=False
    )
    assert prepared.request is None and prepared.load_failed
    assert prepared.checked == [] and prepared.errors


def test_a_definition_the_check_refuses_is_refused_after_loading(engine, stack) -> None:
    unknown = TEMPLATE.replace("OS::Heat::Value", "OS::No::Such")
    prepared = prepare_update(
        engine, stack, RequestInputs(unknown, parameters={"size": 1}), LoadOptions(), existing=False
    )
    assert prepared.request is None and not prepared.load_failed
    assert any("OS::No::Such" in d.message for d in prepared.errors)


def test_files_on_disk_load_as_the_cli_gives_them(engine, stack, tmp_path: Path) -> None:
    path = tmp_path / "new.yaml"
    path.write_text(TEMPLATE)
    prepared = prepare_update(
        engine,
        stack,
        UpdateFiles(str(path), parameters={"size": "5"}),
        LoadOptions(),
        existing=False,
        template_file=str(path),
    )
    request = prepared.request
    assert request is not None
    assert request.template_file == str(path)
    assert request.parameters == {"size": "5"}
