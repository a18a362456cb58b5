"""``stack adopt``: take back resources an abandon left behind, creating nothing.

The input is Heat's abandon document (`stoker.engine.abandon.document`). As in Heat's
``create_stack`` with ``adopt_stack_data``: the template and files come from the
document, the parameters are the document's overlaid with those given, environment files
apply on top; the stack is new (a new id). It goes ADOPT_IN_PROGRESS, each resource
ADOPT_IN_PROGRESS then ADOPT_COMPLETE with the document's ``resource_id`` as its physical
id and ``resource_data`` as its data (a RandomString keeps its value), its properties
resolved and checked as a create would; a resource the document does not give an id
fails (``Resource ID was not provided.``, Heat's words) and the stack ends ADOPT_FAILED.
Adopting a document with nested stacks inside is refused for now (Heat adopts them as
nested adopts; stoker does not yet).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stoker.definition.sensitive import sensitive_properties, withheld_messages, withhold
from stoker.definition.stack import StackDefinition, define_stack
from stoker.definition.template import parse_template
from stoker.diagnostics import Diagnostic
from stoker.engine import leases
from stoker.engine.heap import frozen_heap
from stoker.engine.resolution import resolve_types
from stoker.engine.runtime import RuntimeContext
from stoker.engine.state import (
    Action,
    EventRecord,
    ResourceRecord,
    StackExists,
    StackRecord,
    Status,
)
from stoker.engine.walks import STACK_TYPE, ActionHost, Done, StackWalk, perform
from stoker.environment import environment_from_data, load_environment_file, merge_environments
from stoker.errors import FunctionError, OperationRefused, PropertyError, ResourceFailure
from stoker.functions.base import OMIT, resolve
from stoker.resources.nested import ChildStack, NestedStackPlugin
from stoker.resources.schema import validate_properties
from stoker.template.loader import Document
from stoker.template.nodes import plain


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
    host: ActionHost, adoption: Adoption, base_dir: str | None, source: str
) -> StackRecord:
    """Create the stack's records from the document; run no resource's create."""
    from stoker.engine.stacks import validate_stack_name  # the one rule for names

    definition = adoption.definition
    assert definition is not None and definition.graph is not None
    problem = validate_stack_name(adoption.name)
    if problem:
        raise OperationRefused(problem)
    resolution = _resolution(host, definition, base_dir)
    nested = sorted(
        n for n, p in resolution.items() if p is None or isinstance(p, NestedStackPlugin)
    )
    if nested:
        raise OperationRefused(
            f"adopting nested stacks is not supported yet (resources {', '.join(nested)})"
        )
    now = leases.now_utc()
    stack = StackRecord(
        id=adoption.stack_id,
        name=adoption.name,
        project=host.settings.project,
        action=Action.ADOPT,
        status=Status.IN_PROGRESS,
        status_reason="Stack ADOPT started",
        template=plain(definition.template.document.data) or {},
        environment=definition.environment.to_data(absolute_paths=True),
        files=dict(definition.files),
        parameters=adoption.parameters,
        created_at=now,
        tags=tuple(str(t) for t in adoption.data.get("tags") or ()),
        template_file=source,
    )
    types = {
        n: (p.type_name if p else definition.template.resources[n].type)
        for n, p in resolution.items()
    }
    initial = [
        ResourceRecord(
            stack_id=stack.id,
            name=name,
            type=types.get(name, definition.template.resources[name].type),
            action=Action.INIT,
            status=Status.COMPLETE,
            requires=tuple(definition.graph.requires[name]),
            created_at=now,
        )
        for name in definition.resource_order()
    ]
    event = EventRecord(
        stack.id,
        stack.name,
        STACK_TYPE,
        Action.ADOPT,
        Status.IN_PROGRESS,
        "Stack ADOPT started",
        stack.id,
        now,
    )
    try:
        await asyncio.to_thread(host.store.create_stack, stack, initial, [event])
    except StackExists:
        raise OperationRefused(f"The Stack ({adoption.name}) already exists.") from None
    if host.listener is not None:
        host.listener(event)
    entries = adoption.data.get("resources") or {}

    async def effect(walk: StackWalk, record: ResourceRecord) -> Done:
        entry = entries.get(record.name) if isinstance(entries, dict) else None
        resource_id = entry.get("resource_id") if isinstance(entry, dict) else None
        if not resource_id:
            raise ResourceFailure("Resource ID was not provided.")
        assert isinstance(entry, dict)
        properties = _properties(host, definition, walk, record.name)
        data = entry.get("resource_data")
        return Done(
            changes={
                "physical_id": str(resource_id),
                "data": dict(data) if isinstance(data, dict) else {},
                "properties": properties,
            }
        )

    with frozen_heap():
        return await perform(host, stack, Action.ADOPT, effect)


def _resolution(
    host: ActionHost, definition: StackDefinition, base_dir: str | None
) -> dict[str, Any]:
    """Each enabled resource's plugin (None for a provider template)."""

    resolution = resolve_types(definition, host.registry, base_dir)
    return {
        name: resolution.plugins.get(name)
        or host.registry.get(definition.template.resources[name].type)
        for name in definition.enabled
    }


def _no_child(child_id: str) -> ChildStack:
    raise FunctionError(f"The nested stack {child_id} could not be found.")


def _properties(
    host: ActionHost, definition: StackDefinition, walk: StackWalk, name: str
) -> dict[str, Any]:
    """The resource's properties resolved over what is adopted so far and checked against
    its type's schema, as a create would (Heat's adopt stores them too)."""
    resource = definition.template.resources[name]
    plugin = host.plugin_of(walk.records[name])
    if plugin is None:
        raise ResourceFailure(f"The Resource Type ({resource.type}) could not be found.")
    assert definition.context is not None
    context = RuntimeContext(definition.context, walk.records, host.plugin_of, _no_child)
    values: dict[str, Any] = {}
    raw = resource.properties if isinstance(resource.properties, dict) else {}
    for key, tree in raw.items():
        value = resolve(tree, context)
        if value is not OMIT:
            values[str(key)] = value
    path = (*resource.path, definition.template.names.properties)
    validated, found = validate_properties(
        plugin.properties_schema,
        values,
        path=path,
        type_name=plugin.type_name,
        dynamic=plugin.dynamic_properties,
    )
    sensitive = sensitive_properties(definition.template, name)
    problems = [d.render() for d in withhold(found, path, sensitive) if d.is_error]
    if not problems:
        problems = withheld_messages(plugin.validate(validated), sensitive)
    if problems:
        raise PropertyError("; ".join(problems))
    return validated
