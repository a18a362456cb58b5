"""``external_id``: a resource that adopts a physical resource someone else made. Heat
creates nothing for it (its physical id is the given one, its attributes read from it),
keeps it across updates, and releases it (deletes nothing) when the stack, or an update,
lets it go; an update that sets or changes the reference is refused, as in Heat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stoker.engine.state import ResourceRecord
from stoker.functions.base import OMIT, resolve

if TYPE_CHECKING:
    from stoker.engine.operation import Operation

#: the resource data key recording the adopted reference
EXTERNAL = "external_id"


def declared(operation: Operation, name: str) -> str | None:
    """The ``external_id`` the definition gives resource ``name`` (resolved), if any."""
    definition = operation.definition
    if definition is None or name not in definition.template.resources:
        return None
    tree = definition.template.resources[name].external_id
    if tree is None:
        return None
    value = resolve(tree, operation.engine.runtime(definition, operation.records))
    return None if value in (None, OMIT, "") else str(value)


def adopted(record: ResourceRecord) -> str | None:
    """The reference the resource adopted, when it did."""
    found = record.data.get(EXTERNAL)
    return found if isinstance(found, str) else None


def created(external_id: str, properties: dict[str, Any]) -> dict[str, Any]:
    """The changes a create records for an adopted resource: nothing made."""
    return {"physical_id": external_id, "data": {EXTERNAL: external_id}, "properties": properties}


def update_refusal(operation: Operation, name: str, record: ResourceRecord) -> str | None:
    """Heat's refusal of an update that sets, changes or drops the reference."""
    wanted = declared(operation, name)
    if wanted == adopted(record):
        return None
    return (
        f"NotSupported: resources.{name}: Update to property external_id of {name} "
        f"({record.type}) is not supported."
    )
