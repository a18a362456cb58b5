"""An update's plan as Heat's ``PUT /stacks/{name}/{id}/preview`` shows its
``resource_changes``: each resource as a row (`stoker.engine.resource_views`) in the list
of what the update does to it, with stoker's reason, nested stacks' resources too when
asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stoker.engine.resource_views import declared_types, resource_row
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status, Store, child_stack

if TYPE_CHECKING:
    from stoker.engine.plan import Decision, Plan


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
    for name, inner in plan.nested.items():
        child = child_stack(store, stack.project, records.get(name))
        if child is None:
            continue
        for kind, entries in _preview(store, child, inner, name).items():
            result.setdefault(kind, []).extend(entries)
        _add_nested(store, child, inner, result)
    for name in plan.gone:
        child = child_stack(store, stack.project, records.get(name))
        if child is not None:  # its nested stack goes, every resource in it
            _deleted_tree(store, child, name, result)
    _added_trees(stack, plan, result)


def _added_trees(stack: StackRecord, plan: Plan, result: dict[str, list[dict[str, Any]]]) -> None:
    """Every resource of the nested stacks the added or replacing resources create
    (`Plan.born`), as added: the stack they will be in does not exist yet, ``stack``
    (whose update creates them) stands for it."""
    for parent, inner in plan.born.items():
        for decision in inner.decisions.values():
            entry = _unborn_row(stack, decision)
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
        child = child_stack(store, stack.project, record)
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
                entry = _unborn_row(stack, decision)
            else:
                entry = resource_row(record, stack.name)
            entry["reason"] = decision.refusal or decision.reason
            if parent is not None:
                entry["parent_resource"] = parent
            entries.append(entry)
        result[kind] = entries
    return result


def _unborn_row(stack: StackRecord, decision: Decision) -> dict[str, Any]:
    """The row of a resource the update will create, in ``stack``: INIT, with no id."""
    record = ResourceRecord(stack.id, decision.name, decision.type, Action.INIT, Status.COMPLETE)
    return resource_row(record, stack.name)
