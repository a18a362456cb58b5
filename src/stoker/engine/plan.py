"""A stack update as a value: what happens to each resource, and why.

Diffing the stored stack (its resource records: type, state, resolved properties)
against a new definition gives a `Plan`: per resource one of unchanged, update in
place, replace, add or delete, with the reason. ``stack update --dry-run`` prints it,
``stack update`` executes it, and a rollback is the plan back to the previous
definition. ``stack create --dry-run`` shows the plan of a stack that has no resources
yet (everything added).

The decision for one resource follows Heat 24.1.2 (resource.py ``_needs_update`` and
``update_template_diff_properties``, recorded in tests/fidelity/update):

- a resource that is not in the stack yet (or was never created) is added (Heat's preview
  lists a never-created one by its definition instead: `planning.plan_update`);
- a FAILED resource is replaced (Heat's ``needs_replace_failed``), as is one whose type
  changed;
- a change of an ``immutable`` property refuses the update (Heat's ``NotSupported``);
- a change of a property that is not ``update_allowed``, or one the plugin says needs a
  new resource (``needs_replace``, e.g. TestResource's ``update_replace``), replaces, as
  does any property change of a type with no update in place (Heat's default
  ``handle_update``: OS::Heat::Delay);
- any other property change updates in place, and so does a change of the resource's
  definition alone (its type's name, ``metadata``, ``depends_on``, ``deletion_policy``,
  ``update_policy``, the properties given: Heat compares the stored definition with the
  new one); no change leaves it alone, and so do types that never update
  (``OS::Heat::None``);
- a nested-stack resource (provider template, group, chain, OS::Heat::Stack) whose child
  exists is always updated, changed or not, and a FAILED one too: its child's own
  resources decide (Heat's StackResource; its plugin's ``traits`` say
  ``replace_failed=False`` and ``always_updates=True``);
- the environment's ``restricted_actions`` turn an update or a replacement of that
  resource into a refusal, naming the resource and the rule.

The executor decides again for each resource when it reaches it, with its properties
resolved against the state at that moment (a resource that reads an attribute of a
replaced one sees the new value), using the same `decide`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from stoker.engine.runtime import view_of
from stoker.engine.state import Action, ResourceRecord, Status
from stoker.resources import ResourcePlugin


class Change(StrEnum):
    """What an update does to one resource (the names of Heat's preview lists)."""

    UNCHANGED = "unchanged"
    UPDATE = "updated"
    REPLACE = "replaced"
    ADD = "added"
    DELETE = "deleted"


@dataclass(frozen=True, slots=True)
class Decision:
    """One resource's fate in an update. ``refusal`` (Heat's message) means the update of
    this resource is not allowed: the stack update fails on it, naming the rule."""

    name: str
    change: Change
    type: str
    reason: str
    #: the properties whose values differ (for updates and property-driven replacements)
    changed: tuple[str, ...] = ()
    refusal: str | None = None
    #: the plugin asked for the replacement (``needs_replace``), not the schema
    by_plugin: bool = False
    #: an update in place that replaces the resource once it runs (a type with no update
    #: in place, as Heat's default ``handle_update``): previews and restricted_actions
    #: see an update
    late_replace: bool = False


@dataclass(slots=True)
class Plan:
    """Every resource's `Decision`: the new template's resources in its order, then the
    resources that go away (in the order they were recorded)."""

    decisions: dict[str, Decision] = field(default_factory=dict)
    #: with ``--show-nested``: the plan of each updated nested stack, by its resource
    nested: dict[str, Plan] = field(default_factory=dict)
    #: with ``--show-nested``: the resources replaced or deleted whose nested stack goes
    #: with them, every resource in it listed as deleted (Heat opens a nested stack's,
    #: not an ``OS::Heat::Stack``'s: its child is a remote stack to Heat)
    gone: list[str] = field(default_factory=list)
    #: with ``--show-nested``: the nested stack an added or replacing resource creates,
    #: as a plan where every resource is added, by its resource
    born: dict[str, Plan] = field(default_factory=dict)

    def __repr__(self) -> str:
        # Short: Python 3.11's asyncio.run formats the repr of its main task's result.
        counts = ", ".join(f"{k}={len(v)}" for k, v in self.changes().items())
        return f"Plan({counts})"

    def of(self, change: Change) -> list[Decision]:
        return [d for d in self.decisions.values() if d.change is change]

    def changes(self) -> dict[str, list[str]]:
        """The names per kind, in Heat's preview order of keys."""
        return {kind.value: [d.name for d in self.of(kind)] for kind in _PREVIEW_ORDER}

    def by_change(self) -> dict[str, list[Decision]]:
        """The decisions per kind, in Heat's preview order of keys."""
        return {kind.value: self.of(kind) for kind in _PREVIEW_ORDER}


_PREVIEW_ORDER = (Change.UNCHANGED, Change.UPDATE, Change.REPLACE, Change.ADD, Change.DELETE)


def changed_properties(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[str, ...]:
    """The property names whose values differ (set, unset or changed), in ``after``'s
    order, then those only ``before`` had."""
    names = [k for k in after if before.get(k) != after[k] or k not in before]
    names.extend(k for k in before if k not in after)
    return tuple(names)


def restricted_refusal(name: str, action: str) -> str:
    """Heat's ResourceActionRestricted message, as the stack's reason carries it (Heat
    writes a name that is a number, a group member's, as an index: ``resources[1]``)."""
    path = f"resources[{name}]" if name.isdigit() else f"resources.{name}"
    return f"ResourceActionRestricted: {path}: {action} is restricted for resource."


def decide(
    name: str,
    record: ResourceRecord | None,
    new_type: str,
    plugin: ResourcePlugin | None,
    properties: Mapping[str, Any] | None,
    restricted: Iterable[str] = (),
    definition_changed: bool = False,
    same_kind: bool = False,
) -> Decision:
    """The fate of resource ``name``: its recorded state, the type and the plugin the new
    definition gives it, its new properties (validated, defaults applied; None when they
    cannot be known yet, which counts as a change), its ``restricted_actions``, and
    whether its definition changed other than by its properties' values (Heat updates
    such a resource in place: `planning.definition_changes`).
    ``same_kind``: a new type name that Heat's update treats as the same kind of
    resource (a provider template before and after: Heat compares the classes, and every
    template resource is a TemplateResource), so the name's change replaces nothing."""
    rules = frozenset(restricted)
    if record is None or record.action is Action.INIT:
        return Decision(name, Change.ADD, new_type, "not in the stack yet")
    if record.action is Action.DELETE and record.status is Status.COMPLETE:
        return Decision(name, Change.ADD, new_type, "deleted earlier: created again")
    compared = record.type if same_kind else new_type
    decision = _decide_existing(name, record, compared, plugin, properties, definition_changed)
    if same_kind and decision.type != new_type:
        decision = replace(decision, type=new_type)
    if decision.change is Change.UPDATE and "update" in rules:
        return _refused(decision, restricted_refusal(name, "update"))
    if decision.change is Change.REPLACE and "replace" in rules:
        return _refused(decision, restricted_refusal(name, "replace"))
    return decision


def _refused(decision: Decision, message: str) -> Decision:
    return replace(decision, refusal=message)


def _decide_existing(
    name: str,
    record: ResourceRecord,
    new_type: str,
    plugin: ResourcePlugin | None,
    properties: Mapping[str, Any] | None,
    definition_changed: bool = False,
) -> Decision:
    state = f"{record.action.value}_{record.status.value}"
    keeps_failed = (
        plugin is not None
        and not plugin.traits.replace_failed
        and _exists(record)
        and record.type == new_type
        and record.action is not Action.CHECK  # marked unhealthy: replaced as a whole
    )
    if record.status is Status.FAILED and not keeps_failed:
        return Decision(name, Change.REPLACE, new_type, f"the resource is {state}")
    if record.type != new_type:
        return Decision(
            name, Change.REPLACE, new_type, f"type changed from {record.type} to {new_type}"
        )
    if plugin is None:
        return Decision(name, Change.REPLACE, new_type, f"no plugin answers for {new_type}")
    if properties is None:
        return Decision(name, Change.UPDATE, new_type, "properties not known until run")
    changed = changed_properties(record.properties, properties)
    if not changed and plugin.traits.always_updates and _exists(record):
        why = f"the resource is {state}" if record.status is Status.FAILED else "no property"
        return Decision(
            name,
            Change.UPDATE,
            new_type,
            f"{why}: its nested stack is updated, its own resources decide",
        )
    if not changed and definition_changed and not plugin.traits.never_updates:
        return Decision(name, Change.UPDATE, new_type, "only its definition changed")
    if not changed:
        return Decision(name, Change.UNCHANGED, new_type, "no property changed")
    if plugin.traits.never_updates:
        return Decision(
            name, Change.UNCHANGED, new_type, f"{new_type} never updates", changed=changed
        )
    schema = plugin.properties_schema
    immutable = [k for k in changed if k in schema and schema[k].immutable]
    if immutable:
        message = (
            f"NotSupported: resources.{name}: Update to properties "
            f"{', '.join(immutable)} of {name} ({new_type}) is not supported."
        )
        return Decision(
            name, Change.UPDATE, new_type, "an immutable property changed", changed, message
        )
    # a property the new schema no longer has (a provider template that dropped a
    # parameter) replaces nothing: Heat compares only the new schema's properties
    fixed = [
        k
        for k in changed
        if k in schema and not plugin.traits.dynamic_properties and not _allowed(schema, k)
    ]
    if fixed:
        return Decision(
            name,
            Change.REPLACE,
            new_type,
            f"{', '.join(fixed)} cannot be updated in place (not update_allowed)",
            changed,
        )
    if plugin.needs_replace(view_of(record), properties):
        reason = f"{new_type} needs a new resource"
        return Decision(name, Change.REPLACE, new_type, reason, changed, by_plugin=True)
    if type(plugin).update is ResourcePlugin.update and not plugin.traits.always_updates:
        # Heat's default handle_update replaces on any property change (OS::Heat::Delay):
        # an update that becomes a replacement only once it runs
        reason = f"{new_type} has no update in place: a changed property replaces it"
        return Decision(name, Change.UPDATE, new_type, reason, changed, late_replace=True)
    return Decision(
        name, Change.UPDATE, new_type, f"changed in place: {', '.join(changed)}", changed
    )


def _exists(record: ResourceRecord) -> bool:
    """Whether the resource has something to update: a physical resource, or the child
    stack a nested-stack resource records before the child is complete."""
    return record.physical_id is not None or bool(record.data.get("child_id"))


def _allowed(schema: Mapping[str, Any], key: str) -> bool:
    declared = schema.get(key)
    return declared is not None and bool(declared.update_allowed)


def deletion(record: ResourceRecord) -> Decision:
    """A resource the new definition no longer has."""
    return Decision(record.name, Change.DELETE, record.type, "not in the new template")
