"""A delete reads each resource's ``deletion_policy`` from the stored template, rebuilding
the stack's definition only when the template names a policy at all (a large stack with
none is deleted without parsing its template again)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from test_operations import request

from stoker.engine.deletion import names_policy
from stoker.engine.operation import Operation
from stoker.engine.queries import StackQueries
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import StackEngine
from stoker.engine.state import Status
from stoker.resources.base import ResourceContext
from stoker.resources.builtin.none_resource import NoneResource
from stoker.resources.registry import default_registry


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ({"resources": {"a": {"type": "T"}}}, False),
        ({"resources": {"a": {"type": "T", "deletion_policy": "Retain"}}}, True),
        ({"Resources": {"a": {"Type": "T", "DeletionPolicy": "Retain"}}}, True),
        ({"Resources": {"a": {"Type": "T"}}}, False),
        ({"resources": {"a": "not a mapping"}}, True),  # the parsed definition decides
        ({"resources": {"b": {"type": "T", "deletion_policy": "Retain"}}}, False),
        ({"resources": {"a": None}}, False),
        (None, True),
    ],
)
def test_names_policy(template: Any, expected: bool) -> None:
    assert names_policy(template, "a") is expected


POLICIES = """
heat_template_version: wallaby
parameters:
  policy: {type: string, default: Retain}
resources:
  kept: {type: OS::Heat::None, deletion_policy: {get_param: policy}}
  gone: {type: OS::Heat::None}
"""

NO_POLICY = """
heat_template_version: wallaby
resources:
  first: {type: OS::Heat::None}
  second: {type: OS::Heat::None, depends_on: first}
"""


@pytest.mark.parametrize(("text", "rebuilds"), [(NO_POLICY, 0), (POLICIES, 1)])
def test_a_delete_rebuilds_the_definition_only_for_a_policy(
    store: Any, monkeypatch: pytest.MonkeyPatch, text: str, rebuilds: int
) -> None:
    deleted: list[str] = []
    rebuilt: list[str] = []
    original = StackQueries.rebuild

    async def delete(self: NoneResource, context: ResourceContext) -> None:
        deleted.append(context.resource_name)

    def rebuild(self: StackQueries, stack: Any) -> Any:
        rebuilt.append(stack.name)
        return original(self, stack)

    monkeypatch.setattr(NoneResource, "delete", delete)
    monkeypatch.setattr(StackQueries, "rebuild", rebuild)
    created = asyncio.run(
        StackEngine(store, default_registry(), EngineSettings()).create(request(text))
    )
    assert created.status is Status.COMPLETE, created.status_reason
    # another process deletes it, as `stoker stack delete` does: no definition cached
    engine = StackEngine(store, default_registry(), EngineSettings())
    record = asyncio.run(engine.delete("s"))
    assert record.status is Status.COMPLETE, record.status_reason
    assert len(rebuilt) == rebuilds
    # the policy is Heat's either way: Retain skips the handler, get_param resolved
    assert sorted(deleted) == (["first", "second"] if text is NO_POLICY else ["gone"])


def test_a_type_without_a_delete_handler_is_deleted_without_a_context(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OS::Heat::None keeps the base handler, which does nothing: no context (and no
    random physical name) is made to call it."""
    made: list[str] = []
    original = Operation.resource_context

    def resource_context(self: Operation, record: Any, properties: Any, plugin: Any) -> Any:
        made.append(record.name)
        return original(self, record, properties, plugin)

    monkeypatch.setattr(Operation, "resource_context", resource_context)
    engine = StackEngine(store, default_registry(), EngineSettings())
    created = asyncio.run(
        engine.create(
            request(NO_POLICY + "  value: {type: OS::Heat::Value, properties: {value: 1}}\n")
        )
    )
    assert created.status is Status.COMPLETE, created.status_reason
    assert sorted(made) == ["first", "second", "value"]
    made.clear()
    record = asyncio.run(engine.delete("s"))
    assert record.status is Status.COMPLETE, record.status_reason
    assert made == []


def test_only_a_type_that_reads_it_gets_a_physical_name(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Traits.reads_physical_name`: OS::Heat::None's contexts carry "" (no random
    name made for each), a Value's carries Heat's ``<stack>-<resource>-<12 random>``."""
    names: dict[str, str] = {}
    original = Operation.resource_context

    def resource_context(self: Operation, record: Any, properties: Any, plugin: Any) -> Any:
        context = original(self, record, properties, plugin)
        names[record.name] = context.physical_name
        return context

    monkeypatch.setattr(Operation, "resource_context", resource_context)
    engine = StackEngine(store, default_registry(), EngineSettings())
    text = NO_POLICY + "  value: {type: OS::Heat::Value, properties: {value: 1}}\n"
    created = asyncio.run(engine.create(request(text)))
    assert created.status is Status.COMPLETE, created.status_reason
    assert names["first"] == names["second"] == ""
    assert re.fullmatch(r"s-value-[a-z0-9]{12}", names["value"])
