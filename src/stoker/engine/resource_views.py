"""Heat-shaped views of a stack's resources: the rows of ``openstack stack resource
list`` (nested stacks' too), the document of ``resource show`` and the metadata of
``GET .../resources/{name}/metadata``, with the type Heat shows and the values that read
a hidden one masked (see `stoker.engine.stack_views` for why views live in the library).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from stoker.engine.stack_views import time_text
from stoker.engine.state import ResourceRecord, StackRecord, Store, child_stack
from stoker.errors import StokerError

if TYPE_CHECKING:
    from stoker.definition import Taint, Template
    from stoker.engine.stacks import StackEngine


def declared_types(stack: StackRecord) -> dict[str, str]:
    """Each resource's type as the stack's stored template names it (``My::Server``, a
    group member's type as its ``resource_def`` gives it), before the environment's
    ``resource_registry`` maps it: the type Heat shows (``Resource.type()``), also after
    an update that changed only the environment. Records keep the type it resolved to."""
    template = stack.template
    section = template.get("resources", template.get("Resources"))
    if not isinstance(section, dict):
        return {}
    found = {}
    for name, body in section.items():
        if isinstance(body, dict):
            kind = body.get("type", body.get("Type"))
            if isinstance(kind, str) and _shown_as_declared(stack, str(name), kind):
                found[str(name)] = kind
    return found


def _shown_as_declared(stack: StackRecord, name: str, kind: str) -> bool:
    """Whether the type a template names is shown rather than the record's: a type Heat
    itself implements, not mapped by the environment, is the record's own type whenever
    the resource is at this template; when it is not (an update refused to replace it
    by one of this type), Heat shows the type of the resource's own, older definition
    (recorded: restricted/restricted_type_change), which is the record's."""
    from stoker.resources import heat_knows

    return not heat_knows(kind) or _mapped(stack.environment, name, kind)


def _mapped(environment: Mapping[str, Any], name: str, kind: str) -> bool:
    """Whether an environment's resource_registry maps type ``kind`` (for resource
    ``name``, or globally; ``*`` globs too)."""
    registry = environment.get("resource_registry")
    if not isinstance(registry, Mapping):
        return False
    blocks = [registry]
    own = registry.get("resources")
    if isinstance(own, Mapping) and isinstance(own.get(name), Mapping):
        blocks.append(own[name])
    return any(
        key == kind or (key.endswith("*") and kind.startswith(key[:-1]))
        for block in blocks
        for key in block
        if isinstance(key, str)
    )


def _shown_type(record: ResourceRecord, declared: str | None) -> str:
    """The type a resource shows: the one its template names, except for a provider
    template's resource recorded under another name (its record keeps the name it was
    made or last updated under): an update refused or never reached it, and Heat shows
    the type of its own, older definition (recorded: restricted/
    rename_same_provider_update_restricted)."""
    if declared is None or declared == record.type:
        return record.type
    if record.data.get("child_id"):
        from stoker.resources import heat_knows

        if not heat_knows(record.type):
            return record.type
    return declared


def resource_row(
    record: ResourceRecord, stack_name: str, declared: str | None = None
) -> dict[str, Any]:
    """A resource as ``openstack stack resource list`` shows it; ``declared`` is its type
    as the template names it (`declared_types`), shown when known."""
    return {
        "resource_name": record.name,
        "logical_resource_id": record.name,
        "physical_resource_id": record.physical_id or "",
        "resource_type": _shown_type(record, declared),
        "resource_status": f"{record.action.value}_{record.status.value}",
        "resource_status_reason": record.status_reason,
        "updated_time": time_text(record.updated_at or record.created_at),
        "creation_time": time_text(record.created_at),
        "required_by": [],
        "stack_name": stack_name,
    }


def child_stacks(store: Store, project: str, records: list[ResourceRecord]) -> list[StackRecord]:
    """The nested stacks created by ``records`` (those that still exist)."""
    children = (child_stack(store, project, r) for r in records)
    return [child for child in children if child is not None]


def resource_rows(
    store: Store, project: str, stack: StackRecord, depth: int
) -> list[dict[str, Any]]:
    """The resource rows of ``stack``, and of its nested stacks down to ``depth``."""
    records = store.resources(stack.id)
    required_by: dict[str, list[str]] = {r.name: [] for r in records}
    for r in records:
        for need in r.requires:
            required_by.setdefault(need, []).append(r.name)
    rows = []
    declared = declared_types(stack)
    for r in records:
        row = resource_row(r, stack.name, declared.get(r.name))
        row["required_by"] = required_by.get(r.name, [])
        row["parent_resource"] = stack.parent_resource
        rows.append(row)
    if depth > 0:
        for child in child_stacks(store, project, records):
            rows.extend(resource_rows(store, project, child, depth - 1))
    return rows


def resource_document(
    engine: StackEngine, stack: StackRecord, records: dict[str, ResourceRecord], name: str
) -> dict[str, Any]:
    """One resource as ``openstack stack resource show`` shows it, with its attributes
    and its properties (sensitive ones marked)."""
    found = records[name]
    row = resource_row(found, stack.name, declared_types(stack).get(name))
    row["required_by"] = [n for n, r in records.items() if name in r.requires]
    plugin = engine.plugin_of(found)
    attributes: dict[str, Any] = {}
    if plugin is not None:
        from stoker.engine.runtime import view_of

        view = view_of(found)
        for attribute in plugin.attributes_schema:
            if attribute != "show":
                try:
                    attributes[attribute] = plugin.attribute(view, attribute)
                except Exception as error:  # an attribute's failure is shown, not raised
                    attributes[attribute] = f"<error: {error}>"
    row["attributes"] = shown_attributes(engine, stack, found, attributes)
    row["properties"] = shown_properties(engine, stack, found)
    return row


def shown_attributes(
    engine: StackEngine, record: StackRecord, found: ResourceRecord, attributes: dict[str, Any]
) -> dict[str, Any]:
    """``attributes``, every one ``<sensitive>`` when the resource's properties or metadata
    read a hidden value (the stack's own hidden parameter, or one the `Taint` says reached
    it from a parent or a child): its attributes are computed from them (an
    ``OS::Heat::Value`` hands the value back, an attribute's error may quote it). An
    output that reads such an attribute still shows it: the author asked for that one."""
    from stoker.definition import SENSITIVE, sensitive_resources

    known = _taint(engine, record)
    if known is not None and found.name not in sensitive_resources(*known):
        return attributes
    return {name: SENSITIVE for name in attributes}  # sensitive, or cannot tell


def shown_properties(
    engine: StackEngine, record: StackRecord, found: ResourceRecord
) -> dict[str, Any]:
    """The resource's resolved properties, each one whose template expression reads a
    hidden parameter (directly or through another resource) shown as ``<sensitive>``:
    Heat does not show properties at all, and they would carry the secret verbatim."""
    from stoker.definition import SENSITIVE, sensitive_properties

    known = _taint(engine, record)
    if known is None:
        return dict(found.properties)
    sensitive = sensitive_properties(known[0], found.name, known[1])
    return {k: SENSITIVE if k in sensitive else v for k, v in found.properties.items()}


def resource_metadata(
    engine: StackEngine, stack: StackRecord, records: dict[str, ResourceRecord], name: str
) -> Any:
    """``GET .../resources/{name}/metadata``: the resource's metadata resolved now (as
    the resource sees it through ``resource_facade``); ``<sensitive>`` for a resource
    whose properties or metadata read a hidden value, as its attributes are."""
    from stoker.definition import SENSITIVE, sensitive_resources

    known = _taint(engine, stack)
    if known is None:
        return {}
    if name in sensitive_resources(*known):
        return SENSITIVE
    facade = engine.facade(engine.definition_of(stack), records, name)
    return facade.get("metadata", {}) if facade else {}


def _taint(engine: StackEngine, stack: StackRecord) -> tuple[Template, Taint] | None:
    """The stack's template and what reads a hidden value in it, across parent and
    children (`StackTaints`); None when its definition cannot be rebuilt."""
    from stoker.engine.sensitivity import StackTaints

    try:
        return engine.definition_of(stack).template, StackTaints(engine).of(stack)
    except StokerError:
        return None
