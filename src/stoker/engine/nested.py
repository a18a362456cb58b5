"""Nested stacks seen from their facade: creating (or adopting, after a crash) the child
stack of a nested-stack resource, and the error that carries where inside it failed."""

from __future__ import annotations

import asyncio
import os
import random
import string
import uuid
from typing import TYPE_CHECKING, Any

from stoker.definition.files import collect_files
from stoker.definition.sensitive import handed_down
from stoker.definition.stack import define_stack
from stoker.definition.template import parse_template
from stoker.engine import leases
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.environment import child_environment
from stoker.resources.base import ResourceFailure
from stoker.resources.nested import ChildSpec, NestedStackPlugin, ResourceGroup
from stoker.template.loader import Document

if TYPE_CHECKING:
    from stoker.engine.operation import Operation
    from stoker.engine.stacks import StackEngine


class NestedFailure(ResourceFailure):
    """A nested stack failed; carries the dotted path of the resource that failed inside."""

    def __init__(self, child: StackRecord, inner: tuple[str, str] | None) -> None:
        self.child = child
        self.inner_path, self.inner_reason = inner or (child.name, child.status_reason)
        super().__init__(f"Nested resource {self.inner_path} failed: {self.inner_reason}")


async def create_child(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    plugin: NestedStackPlugin,
    properties: dict[str, Any],
) -> dict[str, Any]:
    """Create (or adopt, after a crash) the child stack of a nested-stack resource.

    The child's id is recorded on the facade before the child exists, so a resumed
    create finds the child it already started instead of making a second one.
    """
    assert parent.definition is not None
    if parent.depth + 1 > engine.settings.max_nested_depth:
        raise ResourceFailure(f"Recursion depth exceeds {engine.settings.max_nested_depth}.")
    spec = plugin.child_spec(properties, record.name)
    data = dict(record.data)
    if isinstance(plugin, ResourceGroup):
        data["removed"] = plugin.removed(properties)
    child_id = data.get("child_id")
    existing = None
    if child_id:
        existing = await asyncio.to_thread(
            engine.store.get_stack, child_id, engine.settings.project
        )
    else:
        child_id = str(uuid.uuid4())
        suffix = "".join(random.choices(string.ascii_lowercase + string.digits, k=12))
        data.update(
            child_id=child_id, child_name=f"{parent.stack.name}-{record.name}-{suffix}"[-255:]
        )
        await parent.transition(
            record,
            Action.CREATE,
            Status.IN_PROGRESS,
            f"creating nested stack {data['child_name']}",
            data=data,
        )
    if existing is not None and existing.status is Status.IN_PROGRESS:
        child = await engine.resume_stack(existing, parent)
    elif existing is not None:
        child = existing
    else:
        child = await _new_child(engine, parent, record, spec, child_id, data["child_name"])
    if not (child.action is Action.CREATE and child.status is Status.COMPLETE):
        raise NestedFailure(child, engine.failed_children.pop(child.id, None))
    return {"physical_id": child.id, "data": data, "properties": dict(properties)}


async def _new_child(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    spec: ChildSpec,
    child_id: str,
    child_name: str,
) -> StackRecord:
    assert parent.definition is not None
    base_dir = spec.base_dir or parent.base_dir
    environment = child_environment(
        parent.definition.environment,
        record.name,
        spec.parameters,
        expanded=parent.resolution().resolved.get(record.name),
    )
    template = parse_template(Document(spec.template, "yaml", spec.location))
    files = dict(spec.files)
    if base_dir is not None:
        calls = template.calls_of("get_file")
        restrict = engine.settings.files_root
        files.update(collect_files(calls, base_dir, restrict_to=restrict).files)
    definition = define_stack(
        template,
        environment,
        files,
        require_all_parameters=True,
        stack_name=child_name,
        stack_id=child_id,
        project_id=parent.stack.project,
        facade=engine.facade(parent.definition, parent.records, record.name),
        taint=handed_down(
            parent.definition.template, record.name, parent.definition.taint, template
        ),
    )
    problems = definition.errors or [d for d in engine.check(definition, base_dir) if d.is_error]
    if problems:
        raise ResourceFailure(
            f"the nested stack ({spec.location}) is invalid: "
            + "; ".join(d.render() for d in problems[:5])
        )
    now = leases.now_utc()
    stack = StackRecord(
        id=child_id,
        name=child_name,
        project=parent.stack.project,
        action=Action.CREATE,
        status=Status.IN_PROGRESS,
        status_reason="Stack CREATE started",
        template=spec.template,
        environment=environment.to_data(absolute_paths=True),
        files=files,
        parameters=dict(spec.parameters),
        created_at=now,
        parent_id=parent.stack.id,
        parent_resource=record.name,
        timeout_mins=parent.stack.timeout_mins,
        disable_rollback=True,  # nested stacks never roll back by themselves
        template_file=os.path.join(base_dir, os.path.basename(spec.location))
        if base_dir
        else spec.location,
    )
    return await engine.create_stack(stack, definition, parent)
