"""``stack adopt``: take back resources an abandon left behind, creating nothing.

The input is Heat's abandon document (`stoker.engine.abandon.document`). As in Heat's
``create_stack`` with ``adopt_stack_data``: the template and files come from the
document, the parameters are the document's overlaid with those given, environment files
apply on top; the stack is new (a new id). It goes ADOPT_IN_PROGRESS, each resource
ADOPT_IN_PROGRESS then ADOPT_COMPLETE with the document's ``resource_id`` as its physical
id and ``resource_data`` as its data (a RandomString keeps its value), its properties
resolved and checked as a create would; a resource the document does not give an id
fails (``Resource ID was not provided.``, Heat's words) and the stack ends ADOPT_FAILED.
A resource backed by a nested stack (a provider template, a group, a chain, an
``OS::Heat::Stack``) is adopted as Heat's ``StackResource.handle_adopt`` does: its child
is made from the resource's properties as at create, and adopted from the child's own
document (its entry in ``resources``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stoker.definition import (
    StackDefinition,
    define_stack,
    parse_template,
)
from stoker.diagnostics import Diagnostic
from stoker.engine import leases
from stoker.engine.heap import frozen_heap
from stoker.engine.nested import check_depth, child_template_file, new_child_ids
from stoker.engine.new_stacks import check_stack_name, refused_as_heat, write_new
from stoker.engine.operation import Operation
from stoker.engine.properties import resolve_properties
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.walks import Done, perform
from stoker.environment import (
    ResolvedType,
    child_environment,
    environment_from_data,
    load_environment_file,
    merge_environments,
)
from stoker.errors import OperationRefused, ResourceFailure
from stoker.resolution import resolve_types
from stoker.resources import NestedStackPlugin, ResourceGroup
from stoker.template.loader import Document
from stoker.template.nodes import plain

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


@dataclass(slots=True)
class Adoption:
    """What `load` made of an abandon document: the definition and what is stored."""

    name: str
    stack_id: str
    definition: StackDefinition | None
    diagnostics: list[Diagnostic]
    data: Mapping[str, Any]
    parameters: dict[str, Any]


def load(
    name: str,
    data: Mapping[str, Any],
    source: str,
    environment_paths: Sequence[str] = (),
    parameters: Mapping[str, str] | None = None,
) -> Adoption:
    """The stack ``data`` describes, with these environment files and parameters."""
    stack_id = str(uuid.uuid4())
    template_data = data.get("template")
    if not isinstance(template_data, dict):
        raise OperationRefused(f"{source}: the adopt document has no template")
    template = parse_template(Document(template_data, "json", source))
    stored_env = dict(data.get("environment") or {})
    given = dict(stored_env.pop("parameters", None) or {})
    given.update(parameters or {})
    base, found = environment_from_data(stored_env, source)
    environments = [base]
    for path in environment_paths:
        environment, env_found = load_environment_file(path)
        found.extend(env_found)
        environments.append(environment)
    environment, merged = merge_environments(
        environments,
        explicit_parameters=given,
        template_parameter_names=set(template.parameters),
        parameter_types={n: p.type.value for n, p in template.parameters.items()},
    )
    found.extend(merged)
    files = {str(k): str(v) for k, v in (data.get("files") or {}).items()}
    definition = define_stack(
        template,
        environment,
        files,
        require_all_parameters=True,
        stack_name=name,
        stack_id=stack_id,
    )
    return Adoption(name, stack_id, definition, found + definition.diagnostics, data, dict(given))


async def adopt(
    engine: StackEngine, adoption: Adoption, base_dir: str | None, source: str
) -> StackRecord:
    """Create the stack's records from the document; run no resource's create."""
    definition = adoption.definition
    assert definition is not None
    check_stack_name(adoption.name)
    stack = StackRecord(
        id=adoption.stack_id,
        name=adoption.name,
        project=engine.settings.project,
        action=Action.ADOPT,
        status=Status.IN_PROGRESS,
        status_reason="Stack ADOPT started",
        template=plain(definition.template.document.data) or {},
        environment=definition.environment.to_data(absolute_paths=True),
        files=dict(definition.files),
        parameters=adoption.parameters,
        created_at=leases.now_utc(),
        tags=tuple(str(t) for t in adoption.data.get("tags") or ()),
        template_file=source,
    )
    entries = adoption.data.get("resources")
    with frozen_heap():
        return await _adopt_stack(
            engine, stack, definition, base_dir, entries if isinstance(entries, dict) else {}
        )


async def _adopt_stack(
    engine: StackEngine,
    stack: StackRecord,
    definition: StackDefinition,
    base_dir: str | None,
    entries: Mapping[str, Any],
    parent: Operation | None = None,
) -> StackRecord:
    """Write the stack with its resources (INIT), claimed, and adopt each from its
    ``entries``; a nested resource's entry is its child's document, adopted as a nested
    stack. An adopted stack counts toward the project's limit, as a created one (Heat)."""
    # provider templates as the create reads them (a request's files map for the API)
    cache = engine.provider_cache(definition, base_dir)
    resolution = resolve_types(definition, engine.registry, base_dir, cache)
    with refused_as_heat(stack.name):
        _, fence = await write_new(engine, stack, definition, resolution.types)

    async def effect(operation: Operation, record: ResourceRecord) -> Done:
        entry = entries.get(record.name)
        plugin = resolution.plugins.get(record.name) or engine.plugin_of(record)
        if plugin is None:
            raise ResourceFailure(f"The Resource Type ({record.type}) could not be found.")
        properties = resolve_properties(operation, record.name, plugin, definition=definition)
        if isinstance(plugin, NestedStackPlugin):
            if not isinstance(entry, dict) or not isinstance(entry.get("resources"), dict):
                raise ResourceFailure("Resource ID was not provided.")
            return await _adopt_child(
                engine,
                operation,
                record,
                plugin,
                properties,
                entry,
                base_dir,
                definition,
                resolution.resolved.get(record.name),
            )
        resource_id = entry.get("resource_id") if isinstance(entry, dict) else None
        if not resource_id:
            raise ResourceFailure("Resource ID was not provided.")
        assert isinstance(entry, dict)
        data = entry.get("resource_data")
        await plugin.adopt(str(resource_id), data if isinstance(data, dict) else {})
        return Done(
            changes={
                "physical_id": str(resource_id),
                "data": dict(data) if isinstance(data, dict) else {},
                "properties": properties,
            }
        )

    return await perform(engine, stack, Action.ADOPT, effect, parent=parent, fence=fence)


async def _adopt_child(
    engine: StackEngine,
    operation: Operation,
    record: ResourceRecord,
    plugin: NestedStackPlugin,
    properties: dict[str, Any],
    entry: Mapping[str, Any],
    base_dir: str | None,
    definition: StackDefinition,
    expanded: ResolvedType | None,
) -> Done:
    """Heat's ``StackResource.handle_adopt``: the child template comes from the resource's
    properties, as at create; the child's resources from its document. The child's id is
    recorded on the resource before the child exists, as create records it. ``expanded``:
    its type as the parent's resolution found it."""
    check_depth(engine, operation)
    spec = plugin.child_spec(properties, record.name)
    child_id, child_name = new_child_ids(operation, record.name)
    data: dict[str, Any] = {"child_id": child_id, "child_name": child_name}
    if isinstance(plugin, ResourceGroup):
        data["removed"] = plugin.removed(properties)
    await operation.transition(
        record, Action.ADOPT, Status.IN_PROGRESS, f"adopting nested stack {child_name}", data=data
    )
    child_base = spec.base_dir or base_dir
    environment = child_environment(
        definition.environment, record.name, spec.parameters, expanded=expanded
    )
    template = engine.child_templates.parse(spec)
    files = dict(spec.files)
    if child_base is not None:
        files.update(engine.child_templates.files(spec, child_base, engine.settings.files_root))
    child_definition = define_stack(
        template,
        environment,
        files,
        require_all_parameters=True,
        stack_name=child_name,
        stack_id=child_id,
        project_id=operation.stack.project,
        facade=engine.facade(definition, operation.records, record.name),
    )
    if child_definition.errors:
        raise ResourceFailure(
            f"the nested stack ({spec.location}) is invalid: "
            + "; ".join(d.render() for d in child_definition.errors[:5])
        )
    child = StackRecord(
        id=child_id,
        name=child_name,
        project=operation.stack.project,
        action=Action.ADOPT,
        status=Status.IN_PROGRESS,
        status_reason="Stack ADOPT started",
        template=spec.template,
        environment=engine.stored_environments.to_data(environment),
        files=files,
        parameters=dict(spec.parameters),
        created_at=leases.now_utc(),
        parent_id=operation.stack.id,
        parent_resource=record.name,
        timeout_mins=operation.stack.timeout_mins,
        template_file=child_template_file(child_base, spec),
    )
    result = await _adopt_stack(
        engine, child, child_definition, child_base, entry["resources"], operation
    )
    if result.status is not Status.COMPLETE:
        raise ResourceFailure(
            f"Nested stack {child_name} {result.action.value}_{result.status.value}: "
            f"{result.status_reason}"
        )
    return Done(changes={"physical_id": child_id, "data": data, "properties": properties})
