"""Heat-shaped views of stored stacks: the documents and rows ``openstack stack ...``
shows (``GET /stacks/{name}/{id}``, the stack list, its parameters, outputs, environment,
template and snapshots), built from records. Resources are shown by
`stoker.engine.resource_views`, events by `stoker.engine.event_views`, an update's plan
by `stoker.engine.plan_views`.

They live in the library, not in the CLI, so that the CLI and a REST API show the same
shapes. Hidden parameters are masked structurally here (by name), never by rewriting
strings. Heavy modules (the definition machinery) are imported by the functions that need
them: listing stacks needs none of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from stoker.engine.state import SnapshotRecord, StackRecord
from stoker.errors import StokerError
from stoker.template.versions import Format

if TYPE_CHECKING:
    from stoker.definition import StackDefinition
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
    arn = stack_arn(record.project, record.name, record.id)
    shown.update(pseudo_parameters(definition, record.name, record.project, record.id, arn))
    return shown


def pseudo_parameters(
    definition: StackDefinition, name: str, project: str, stack_id: str, arn: str
) -> dict[str, str]:
    """The pseudo parameters a stack shows beside its own (``arn``: its AWS::StackId),
    but those its template declares: it shows its own value then, as Heat does."""
    if definition.template.version.format is Format.HOT:
        pseudo = {"OS::stack_id": stack_id, "OS::stack_name": name, "OS::project_id": project}
    else:
        pseudo = {"AWS::StackId": arn, "AWS::StackName": name, "AWS::Region": "ap-southeast-1"}
    return {k: v for k, v in pseudo.items() if k not in definition.template.parameters}


def stack_document(
    engine: StackEngine, record: StackRecord, resolve_outputs: bool = True
) -> dict[str, Any]:
    """The stack as Heat's API shows it (``GET /stacks/{name}/{id}``).

    Hidden parameters are masked in ``parameters``; outputs carry their values, as Heat's
    do (the table view marks the sensitive ones, see `table_outputs`)."""
    parameters = stack_parameters(engine, record)
    description = _description(record)
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


def _description(record: StackRecord, default: str = "No description") -> Any:
    """The template's description, as Heat shows it (``default`` without one)."""
    return record.template.get("description", record.template.get("Description", default))


def stack_summary(record: StackRecord) -> dict[str, Any]:
    """The stack's short view: what ``openstack stack create|update|adopt`` print when the
    operation ends (python-heatclient's ``_show_stack(..., short=True)``), in its order.

    Built from the record alone: no parameters, and no outputs computed (the client asks
    Heat for the stack without resolving them); ``stack show`` is the full view."""
    return {
        "id": record.id,
        "stack_name": record.name,
        "description": _description(record),
        "creation_time": time_text(record.created_at),
        "updated_time": time_text(record.updated_at),
        "stack_status": f"{record.action.value}_{record.status.value}",
        "stack_status_reason": record.status_reason,
    }


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


# ---------------------------------------------------------------------------- REST API
def api_stack_row(record: StackRecord) -> dict[str, Any]:
    """A stack as Heat's ``GET /stacks`` lists it: `stack_row` with what the API adds
    (the project, the owner, the description)."""
    row = stack_row(record)
    row.update(
        {
            "project": record.project,
            "description": _description(record, "") or "",
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


def snapshot_document(snapshot: SnapshotRecord) -> dict[str, Any]:
    """Heat's shape of a snapshot (``GET .../snapshots/{id}``, and each list entry)."""
    return {
        "id": snapshot.id,
        "name": snapshot.name,
        "status": snapshot.status,
        "status_reason": snapshot.status_reason,
        "data": snapshot.data,
        "creation_time": time_text(snapshot.created_at),
    }
