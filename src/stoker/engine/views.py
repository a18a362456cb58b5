"""Heat-shaped views of stored stacks: the documents and rows ``openstack stack ...``
shows (``GET /stacks/{name}/{id}``, resource and event rows), built from records.

They live in the library, not in the CLI, so that the CLI and a REST API show the same
shapes. Hidden parameters are masked structurally here (by name), never by rewriting
strings. Heavy modules (the definition machinery) are imported by the functions that need
them: listing stacks needs none of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from stoker.engine.state import (
    Action,
    EventRecord,
    ResourceRecord,
    SnapshotRecord,
    StackRecord,
    Status,
    Store,
)
from stoker.errors import StokerError
from stoker.template.versions import Format

if TYPE_CHECKING:
    from stoker.engine.plan import Plan
    from stoker.engine.stacks import StackEngine


def time_text(value: Any) -> str | None:
    """A time as Heat's API writes it (UTC, seconds, ``Z``)."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else None


def stack_parameters(engine: StackEngine, record: StackRecord) -> dict[str, str]:
    """All parameters (pseudo ones too) as strings, hidden ones masked, as Heat shows them;
    a nested stack's parameter its parent fed from a hidden value (the definition's
    `Taint`) is masked as a hidden one is (Heat shows it in clear: a deliberate
    difference, by the rule that hidden values are masked wherever they are shown)."""
    from stoker.definition import stack_arn
    from stoker.parameters import display_value

    definition = engine.definition_of(record)
    fed = definition.taint.parameters
    shown = {
        name: display_value(
            replace(parameter, hidden=True) if name in fed else parameter,
            definition.parameters[name],
        )
        for name, parameter in definition.template.parameters.items()
        if name in definition.parameters
    }
    if definition.template.version.format is Format.HOT:
        pseudo = {
            "OS::stack_id": record.id,
            "OS::stack_name": record.name,
            "OS::project_id": record.project,
        }
    else:
        arn = stack_arn(record.project, record.name, record.id)
        pseudo = {
            "AWS::StackId": arn,
            "AWS::StackName": record.name,
            "AWS::Region": "ap-southeast-1",
        }
    # a template that declares a pseudo-parameter's name shows its own value, as Heat does
    declared = definition.template.parameters
    shown.update({name: value for name, value in pseudo.items() if name not in declared})
    return shown


def stack_document(
    engine: StackEngine, record: StackRecord, resolve_outputs: bool = True
) -> dict[str, Any]:
    """The stack as Heat's API shows it (``GET /stacks/{name}/{id}``).

    Hidden parameters are masked in ``parameters``; outputs carry their values, as Heat's
    do (the table view marks the sensitive ones, see `table_outputs`)."""
    parameters = stack_parameters(engine, record)
    description = record.template.get(
        "description", record.template.get("Description", "No description")
    )
    document: dict[str, Any] = {
        "id": record.id,
        "stack_name": record.name,
        "description": description,
        "template_description": description,
        "stack_status": f"{record.action.value}_{record.status.value}",
        "stack_status_reason": record.status_reason,
        "creation_time": time_text(record.created_at),
        "updated_time": time_text(record.updated_at),
        "deletion_time": time_text(record.deleted_at),
        "disable_rollback": record.disable_rollback,
        "timeout_mins": record.timeout_mins,
        "parameters": parameters,
        "parent": record.parent_id,
        "stack_owner": None,
        "stack_user_project_id": record.project,
        "tags": list(record.tags) or None,
        "notification_topics": [],
        "capabilities": [],
        "links": [],
    }
    if resolve_outputs and record.deleted_at is None:
        document["outputs"] = engine.outputs(record)
    return document


def table_outputs(
    engine: StackEngine, record: StackRecord, outputs: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``outputs`` with the value of each one derived from a hidden parameter replaced by
    ``<sensitive>``: only for the human table view, as Terraform does; machine formats
    carry the value, as Heat's API does."""
    from stoker.definition import SENSITIVE, sensitive_outputs
    from stoker.engine.sensitivity import StackTaints

    taint = StackTaints(engine).of(record)  # across parent and children
    sensitive = sensitive_outputs(engine.definition_of(record).template, taint)
    return [
        {**o, "output_value": SENSITIVE}
        if o.get("output_key") in sensitive and o.get("output_value") is not None
        else o
        for o in outputs
    ]


def stack_row(record: StackRecord) -> dict[str, Any]:
    """A stack as ``openstack stack list`` shows it."""
    return {
        "id": record.id,
        "stack_name": record.name,
        "stack_status": f"{record.action.value}_{record.status.value}",
        "stack_status_reason": record.status_reason,
        "creation_time": time_text(record.created_at),
        "updated_time": time_text(record.updated_at),
        "deletion_time": time_text(record.deleted_at),
        "parent": record.parent_id,
        "tags": list(record.tags) or None,
    }


def masked_environment(engine: StackEngine, record: StackRecord) -> dict[str, Any]:
    """The stored environment with the values of hidden parameters (by name, in
    ``parameters`` and ``parameter_defaults``) masked, those a parent fed from a hidden
    value (the definition's `Taint`) too; nothing else is touched."""
    from stoker.definition import hidden_names

    try:
        definition = engine.definition_of(record)
        hidden = hidden_names(definition.template, definition.taint)
    except StokerError:  # no definition to ask: mask every value rather than leak one
        hidden = None
    return mask_environment(record.environment, hidden)


def mask_environment(environment: Mapping[str, Any], hidden: Set[str] | None) -> dict[str, Any]:
    """``environment`` (its data, as stored or as a request gave it) with the values of
    the ``hidden`` parameters masked, by name, in ``parameters`` and
    ``parameter_defaults`` (every value there when ``hidden`` is None); `POST /validate`
    shows the environment it was given through this too."""
    from stoker.parameters import MASK

    data = dict(environment)
    for section in ("parameters", "parameter_defaults"):
        values = data.get(section)
        if isinstance(values, dict):
            data[section] = {
                name: MASK if hidden is None or name in hidden else value
                for name, value in values.items()
            }
    return data


# ---------------------------------------------------------------------------- resources
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
    found = []
    for r in records:
        child_id = r.data.get("child_id")
        if child_id:
            child = store.get_stack(str(child_id), project)
            if child is not None:
                found.append(child)
    return found


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
    from stoker.engine.sensitivity import StackTaints

    try:
        template = engine.definition_of(record).template
        taint = StackTaints(engine).of(record)  # across parent and children
    except StokerError:
        return {name: SENSITIVE for name in attributes}  # cannot tell: show nothing
    if found.name not in sensitive_resources(template, taint):
        return attributes
    return {name: SENSITIVE for name in attributes}


def template_document(engine: StackEngine, record: StackRecord) -> Any:
    """The stored template as ``stack template show`` prints it: a generated template
    whose members the parent fed a hidden value (a group's, a chain's) shows their
    properties and metadata masked (`stoker.definition.sensitive.shown_template`)."""
    from stoker.definition import shown_template

    try:
        definition = engine.definition_of(record)
    except StokerError:  # a definition that cannot be rebuilt: as stored
        return record.template
    return shown_template(record.template, definition.template, definition.taint)


def shown_properties(
    engine: StackEngine, record: StackRecord, found: ResourceRecord
) -> dict[str, Any]:
    """The resource's resolved properties, each one whose template expression reads a
    hidden parameter (directly or through another resource) shown as ``<sensitive>``:
    Heat does not show properties at all, and they would carry the secret verbatim."""
    from stoker.definition import SENSITIVE, sensitive_properties
    from stoker.engine.sensitivity import StackTaints

    try:
        template = engine.definition_of(record).template
        taint = StackTaints(engine).of(record)  # across parent and children
    except StokerError:
        return dict(found.properties)
    sensitive = sensitive_properties(template, found.name, taint)
    return {k: SENSITIVE if k in sensitive else v for k, v in found.properties.items()}


# ---------------------------------------------------------------------------- events
def event_row(event: EventRecord) -> dict[str, Any]:
    """An event as ``openstack stack event list`` shows it."""
    return {
        "id": event.id,
        "event_time": event.time.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "resource_name": event.resource_name,
        "logical_resource_id": event.resource_name,
        "physical_resource_id": event.physical_id or "",
        "resource_status": f"{event.action.value}_{event.status.value}",
        "resource_status_reason": event.reason,
        "resource_type": event.resource_type,
    }


def failure_line(store: Store, record: StackRecord) -> str:
    """One line for an operation that did not end as asked: the stack's state and reason,
    and, after a rollback, what failed first, from the events as Heat's chain tells it
    (the first failed resource, else the stack's own failure): ``s1: update failed: t:
    ValueError: resources.t: Test Resource failed bad; rolled back
    (ROLLBACK_COMPLETE)``. Heat itself records only "Stack ROLLBACK completed
    successfully" as the stack's status reason (checked against Heat 24.1.2)."""
    state = f"{record.action.value}_{record.status.value}"
    if record.action is not Action.ROLLBACK:
        return f"{record.name}: {state}: {record.status_reason}"
    if record.status is Status.COMPLETE:
        outcome = f"rolled back ({state})"
    else:
        outcome = f"the rollback did not complete ({state}: {record.status_reason})"
    cause = _failure_before_rollback(store, record)
    if cause is None:
        return f"{record.name}: {outcome}"
    action, reason = cause
    return f"{record.name}: {action.value.lower()} failed: {reason}; {outcome}"


def _failure_before_rollback(store: Store, record: StackRecord) -> tuple[Action, str] | None:
    """What failed in the operation that rolled back: its first failed resource (named),
    else the stack's own failed event; looked for between the event that started the
    operation and the one that started the rollback."""

    def own(event: EventRecord) -> bool:
        return event.physical_id == record.id and event.resource_name == record.name

    events = store.events(record.id)
    end = next(
        (
            index
            for index in range(len(events) - 1, -1, -1)
            if own(events[index])
            and events[index].action is Action.ROLLBACK
            and events[index].status is Status.IN_PROGRESS
        ),
        len(events),
    )
    first: EventRecord | None = None
    stack_failure: EventRecord | None = None
    action: Action | None = None  # the operation's (a resource an update adds is created)
    for event in reversed(events[:end]):
        if own(event):
            if event.status is Status.IN_PROGRESS:
                action = event.action  # the operation's start
                break
            if event.status is Status.FAILED and stack_failure is None:
                stack_failure = event
        elif event.status is Status.FAILED:
            first = event
    if first is not None:
        return action or first.action, f"{first.resource_name}: {first.reason}"
    if stack_failure is not None:
        return stack_failure.action, stack_failure.reason
    return None


def stack_events(store: Store, project: str, stack: StackRecord, depth: int) -> list[EventRecord]:
    """The events of ``stack`` (oldest first), with its nested stacks' down to ``depth``."""
    events = list(store.events(stack.id))
    if depth > 0:
        for child in child_stacks(store, project, store.resources(stack.id)):
            events.extend(stack_events(store, project, child, depth - 1))
    return sorted(events, key=lambda e: (e.time, e.id or 0)) if depth > 0 else events


# ---------------------------------------------------------------------------- update plan
def update_preview(
    store: Store, stack: StackRecord, plan: Plan, *, show_nested: bool = False
) -> dict[str, list[dict[str, Any]]]:
    """A plan as Heat's ``PUT /stacks/{name}/{id}/preview`` shows its ``resource_changes``:
    the lists ``unchanged``, ``updated``, ``replaced``, ``added``, ``deleted`` of resources
    (the ones that will exist as new ones are INIT), each with stoker's ``reason``. With
    ``show_nested`` (Heat's ``show_nested=True``) the resources of the nested stacks the
    update changes join the same lists, each naming its ``parent_resource``."""
    result = _preview(store, stack, plan, None)
    if show_nested:
        _add_nested(store, stack, plan, result)
    return result


def _add_nested(
    store: Store, stack: StackRecord, plan: Plan, result: dict[str, list[dict[str, Any]]]
) -> None:
    records = {r.name: r for r in store.resources(stack.id)}

    def child_of(name: str) -> StackRecord | None:
        child_id = records[name].data.get("child_id") if name in records else None
        return store.get_stack(str(child_id), stack.project) if child_id else None

    for name, inner in plan.nested.items():
        child = child_of(name)
        if child is None:
            continue
        for kind, entries in _preview(store, child, inner, name).items():
            result.setdefault(kind, []).extend(entries)
        _add_nested(store, child, inner, result)
    for name in plan.gone:
        child = child_of(name)
        if child is not None:  # its nested stack goes, every resource in it
            _deleted_tree(store, child, name, result)
    _added_trees(stack, plan, result)


def _added_trees(stack: StackRecord, plan: Plan, result: dict[str, list[dict[str, Any]]]) -> None:
    """Every resource of the nested stacks the added or replacing resources create
    (`Plan.born`), as added: the stack they will be in does not exist yet, ``stack``
    (whose update creates them) stands for it."""
    for parent, inner in plan.born.items():
        for decision in inner.decisions.values():
            record = ResourceRecord(
                stack.id, decision.name, decision.type, Action.INIT, Status.COMPLETE
            )
            entry = resource_row(record, stack.name)
            entry["reason"] = decision.reason
            entry["parent_resource"] = parent
            result.setdefault("added", []).append(entry)
        _added_trees(stack, inner, result)


def _deleted_tree(
    store: Store, stack: StackRecord, parent: str, result: dict[str, list[dict[str, Any]]]
) -> None:
    """Every resource of ``stack`` and of its nested stacks as deleted, as Heat's update
    preview with ``show_nested`` lists the tree a replaced or removed resource takes away."""
    declared = declared_types(stack)
    for record in store.resources(stack.id):
        entry = resource_row(record, stack.name, declared.get(record.name))
        entry["reason"] = f"{parent} goes, and its nested stack with it"
        entry["parent_resource"] = parent
        result.setdefault("deleted", []).append(entry)
        child_id = record.data.get("child_id")
        child = store.get_stack(str(child_id), stack.project) if child_id else None
        if child is not None:
            _deleted_tree(store, child, record.name, result)


def _preview(
    store: Store, stack: StackRecord, plan: Plan, parent: str | None
) -> dict[str, list[dict[str, Any]]]:
    from stoker.engine.plan import Change

    records = {r.name: r for r in store.resources(stack.id)}
    result: dict[str, list[dict[str, Any]]] = {}
    for kind, decisions in plan.by_change().items():
        entries = []
        for decision in decisions:
            record = records.get(decision.name)
            if record is None or decision.change in (Change.REPLACE, Change.ADD):
                entry = {
                    **resource_row(
                        ResourceRecord(
                            stack.id, decision.name, decision.type, Action.INIT, Status.COMPLETE
                        ),
                        stack.name,
                    ),
                }
            else:
                entry = resource_row(record, stack.name)
            entry["reason"] = decision.refusal or decision.reason
            if parent is not None:
                entry["parent_resource"] = parent
            entries.append(entry)
        result[kind] = entries
    return result


# ---------------------------------------------------------------------------- REST API
def api_stack_row(record: StackRecord) -> dict[str, Any]:
    """A stack as Heat's ``GET /stacks`` lists it: `stack_row` with what the API adds
    (the project, the owner, the description)."""
    row = stack_row(record)
    row.update(
        {
            "project": record.project,
            "description": record.template.get(
                "description", record.template.get("Description", "")
            )
            or "",
            "stack_owner": None,
            "stack_user_project_id": record.project,
        }
    )
    return row


def output_list(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``GET .../outputs``: each output's key and description, without values (Heat
    resolves them only for ``GET .../outputs/{key}`` and the stack document)."""
    return [
        {"output_key": o.get("output_key"), "description": o.get("description")} for o in outputs
    ]


def api_event_row(event: EventRecord, stack_name: str) -> dict[str, Any]:
    """An event as Heat's API lists it: `event_row` with its id as text (Heat's are
    UUIDs; clients treat them as opaque) and the stack's name."""
    row = event_row(event)
    row["id"] = str(event.id)
    row["stack_name"] = stack_name
    return row


def resource_metadata(
    engine: StackEngine, stack: StackRecord, records: dict[str, ResourceRecord], name: str
) -> Any:
    """``GET .../resources/{name}/metadata``: the resource's metadata resolved now (as
    the resource sees it through ``resource_facade``); ``<sensitive>`` for a resource
    whose properties or metadata read a hidden value, as its attributes are."""
    from stoker.definition import SENSITIVE, sensitive_resources
    from stoker.engine.sensitivity import StackTaints

    try:
        definition = engine.definition_of(stack)
        taint = StackTaints(engine).of(stack)
    except StokerError:
        return {}
    if name in sensitive_resources(definition.template, taint):
        return SENSITIVE
    facade = engine.facade(definition, records, name)
    return facade.get("metadata", {}) if facade else {}


def snapshot_document(snapshot: SnapshotRecord) -> dict[str, Any]:
    """Heat's shape of a snapshot (``GET .../snapshots/{id}``, and each list entry)."""
    return {
        "id": snapshot.id,
        "name": snapshot.name,
        "status": snapshot.status,
        "status_reason": snapshot.status_reason,
        "data": snapshot.data,
        "creation_time": snapshot.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
