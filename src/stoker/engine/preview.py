"""A create preview as Heat's ``POST /stacks/preview`` shows it: the stack document of a
stack that does not exist (``id`` ``"None"``, ``parent`` null) and each resource as it
would start (INIT COMPLETE), its properties as the type will see them and its attributes
unknown; a resource backed by a nested stack (a provider template, a group) is the list of
that stack's resources, each naming its ``parent_resource``, nested as deep as the tree
(Heat's ``StackResource.preview``). Hidden values are masked (`stoker.definition.sensitive`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from stoker.definition import SENSITIVE, StackDefinition, sensitive_properties
from stoker.engine.stack_views import pseudo_parameters, time_text
from stoker.parameters import display_value
from stoker.resolution.resource_checks import known_properties
from stoker.resolution.tree import TreeCheck
from stoker.resources import validate_properties

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine
    from stoker.resources import ResourcePlugin

#: what Heat writes for the id of a stack that is only previewed
NO_ID = "None"


def preview_document(
    engine: StackEngine,
    definition: StackDefinition,
    *,
    name: str,
    project: str,
    disable_rollback: bool,
    timeout_mins: int | None,
    tags: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The ``stack`` of Heat's preview answer for ``definition`` (checked already)."""
    tree = TreeCheck(
        engine.registry,
        engine.settings.max_nested_depth,
        cache=engine.provider_cache(definition),
    )
    tree.check(definition, None)
    children = {names: child for names, _, child in tree.nested}
    template = definition.template
    description = template.description or "No description"
    return {
        "stack_name": name,
        "id": NO_ID,
        "links": [],
        "creation_time": time_text(datetime.now(UTC)),
        "updated_time": None,
        "deletion_time": None,
        "notification_topics": [],
        "parameters": _parameters(definition, name, project),
        "description": description,
        "template_description": description,
        "capabilities": [],
        "disable_rollback": disable_rollback,
        "timeout_mins": timeout_mins,
        "stack_owner": None,
        "parent": None,
        "stack_user_project_id": None,
        "tags": list(tags),
        "outputs": [
            {
                "output_key": key,
                "description": output.description or "No description given",
                "output_value": None,
            }
            for key, output in template.outputs.items()
        ],
        "resources": _resources(tree, children, definition, (), name, project),
    }


def _parameters(definition: StackDefinition, name: str, project: str) -> dict[str, str]:
    """The parameters as a stack shows them (strings, hidden ones masked), with the
    pseudo parameters of a stack that has no id yet."""
    template = definition.template
    shown = {
        key: display_value(parameter, definition.parameters[key])
        for key, parameter in template.parameters.items()
        if key in definition.parameters
    }
    shown.update(pseudo_parameters(definition, name, project, NO_ID, NO_ID))
    return shown


def _resources(
    tree: TreeCheck,
    children: dict[tuple[str, ...], StackDefinition],
    definition: StackDefinition,
    names: tuple[str, ...],
    stack_name: str,
    project: str,
) -> list[Any]:
    resolution = tree.resolutions.get(names)
    graph = definition.graph
    required_by: dict[str, list[str]] = {name: [] for name in definition.enabled}
    if graph is not None:
        for name in definition.enabled:
            for need in graph.requires[name]:
                required_by.setdefault(need, []).append(name)
    found: list[Any] = []
    for name in definition.enabled:
        path = (*names, name)
        child = children.get(path)
        if child is not None:
            inner = _resources(tree, children, child, path, f"{stack_name}-{name}", project)
            found.append(_with_parent(inner, name))
            continue
        plugin = resolution.plugins.get(name) if resolution is not None else None
        attributes = plugin.attributes_schema if plugin is not None else ()
        found.append(
            {
                "resource_name": name,
                "resource_type": definition.template.resources[name].type,
                "resource_action": "INIT",
                "resource_status": "COMPLETE",
                "resource_status_reason": "",
                "physical_resource_id": "",
                "creation_time": None,
                "updated_time": None,
                "resource_identity": _identity(project, stack_name, f"/resources/{name}"),
                "stack_identity": _identity(project, stack_name, ""),
                "stack_name": stack_name,
                "required_by": required_by.get(name, []),
                "description": definition.template.resources[name].description or "",
                "metadata": {},
                "attributes": {key: None for key in attributes if key != "show"},
                "properties": _properties(definition, name, plugin),
            }
        )
    return found


def _with_parent(entries: list[Any], parent: str) -> list[Any]:
    """A nested stack's entries, each of its own resources naming ``parent``."""
    for entry in entries:
        if isinstance(entry, dict):
            entry["parent_resource"] = parent
    return entries


def _identity(project: str, stack_name: str, path: str) -> dict[str, str]:
    return {"tenant": project, "stack_name": stack_name, "stack_id": NO_ID, "path": path}


def _properties(
    definition: StackDefinition, name: str, plugin: ResourcePlugin | None
) -> dict[str, Any]:
    """The values known before create, with the type's defaults; those reading a hidden
    value masked. A value that waits for another resource is null, as Heat shows it."""
    known, _ = known_properties(definition, name)
    if plugin is None:
        return known
    values, _ = validate_properties(
        plugin.properties_schema,
        known,
        path=(),
        type_name=plugin.type_name,
        dynamic=plugin.traits.dynamic_properties,
    )
    hidden = sensitive_properties(definition.template, name, definition.taint)
    return {k: SENSITIVE if k in hidden else v for k, v in values.items()}
