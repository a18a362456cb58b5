"""Planning an update: each resource's `Decision` against the stored records, without
doing anything. The executor (`stoker.engine.update`) asks the same questions resource by
resource as it reaches them; ``stack update --dry-run`` (and ``--show-nested``) asks them
all at once. What cannot change is found without resolving anything (`untouched`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from stoker.definition import StackDefinition
from stoker.engine import nested
from stoker.engine.operation import Operation
from stoker.engine.plan import Change, Decision, Plan, decide, deletion
from stoker.engine.properties import resolve_properties
from stoker.engine.replacement import REPLACED
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.errors import FunctionError, PropertyError, ResourceFailure, StokerError
from stoker.functions.base import Function, Unresolved, resolve
from stoker.resources import NestedStackPlugin, ResourcePlugin, TemplateResource


def plan_update(
    operation: Operation, restricted: bool = True, untouched: Iterable[str] = ()
) -> Plan:
    """The plan of ``operation`` (its new definition against its records), with each
    resource's properties resolved against the records as they are now; ``untouched``
    ones (see `untouched`) are unchanged without being resolved."""
    definition = operation.definition
    assert definition is not None
    same = set(untouched)
    if same and operation.scope is None:
        operation.scope = frozenset(n for n in definition.enabled if n not in same)
    resolution = operation.resolution()
    assert definition.graph is not None
    plan = Plan()
    fresh: dict[str, Change] = {}  # resources that will be new: their values are unknown
    for name in definition.resource_order():
        if name in same:
            kept = operation.records[name]
            plan.decisions[name] = Decision(name, Change.UNCHANGED, kept.type, "not changed")
            continue
        decision = decision_of(operation, name, resolution.plugins.get(name), restricted)
        if decision.change in (Change.UNCHANGED, Change.UPDATE) and decision.refusal is None:
            decision = _reading_new(decision, definition, fresh) or decision
        if decision.change in (Change.REPLACE, Change.ADD):
            fresh[name] = decision.change
        plan.decisions[name] = decision
    for name, record in operation.records.items():
        if name not in plan.decisions and exists(record):
            plan.decisions[name] = deletion(record)
    return plan


async def preview_nested(operation: Operation, plan: Plan) -> None:
    """Add to ``plan`` the plan of every nested stack it updates, recursively (Heat's
    preview with ``show_nested``): each child against where the update takes it. As in
    Heat, a resource backed by a nested stack that keeps its definition counts as updated
    (its stack is always updated: what changes inside is known only there)."""
    for name, decision in list(plan.decisions.items()):
        record = operation.records.get(name)
        kept = decision.change in (Change.UPDATE, Change.UNCHANGED)
        if not kept or decision.refusal or record is None:
            continue
        plugin = operation.resolution().plugins.get(name)
        if not isinstance(plugin, NestedStackPlugin):
            continue
        if decision.change is Change.UNCHANGED:
            plan.decisions[name] = replace(
                decision, change=Change.UPDATE, reason="its nested stack is updated"
            )
        try:
            properties = resolve_properties(operation, name, plugin)
            target = await nested.child_target(
                operation.engine, operation, record, plugin, properties
            )
        except (PropertyError, FunctionError, Unresolved, ResourceFailure):
            continue  # what the child becomes is known only when the update runs
        if target is None:
            continue
        child = Operation(operation.engine, target.stack, target.definition, operation)
        await child.load_records()
        same = untouched(target.child, target.stack, target.definition, child.records)
        inner = plan_update(child, untouched=same)
        await preview_nested(child, inner)
        plan.nested[name] = inner


def _reading_new(
    decision: Decision, definition: StackDefinition, fresh: Mapping[str, Change]
) -> Decision | None:
    """As Heat's preview: a resource whose properties read a resource that will be new
    (replaced or added) counts as updated, since what it reads is known only then. Only
    references count, not a bare ``depends_on``."""
    assert definition.graph is not None
    explicit = set(definition.template.resources[decision.name].depends_on)
    for need in definition.graph.requires[decision.name]:
        if need in fresh and need not in explicit:
            return Decision(
                decision.name,
                Change.UPDATE,
                decision.type,
                f"reads {need}, which is {fresh[need].value}: its new values are known only then",
                decision.changed,
            )
    return None


def exists(record: ResourceRecord) -> bool:
    return not (
        record.action is Action.INIT
        or (record.action is Action.DELETE and record.status is Status.COMPLETE)
    )


def new_type(operation: Operation, name: str) -> str:
    assert operation.definition is not None
    types = operation.resolution().types
    return types.get(name, operation.definition.template.resources[name].type)


def decision_of(
    operation: Operation, name: str, plugin: ResourcePlugin | None, restricted: bool
) -> Decision:
    record = operation.records.get(name)
    if plugin is None and record is not None:
        plugin = operation.engine.plugin_of(replace(record, type=new_type(operation, name)))
    properties: dict[str, Any] | None = None
    if record is not None and plugin is not None and exists(record):
        try:
            properties = resolve_properties(operation, name, plugin)
        except (PropertyError, FunctionError, Unresolved):
            properties = None
    rules: frozenset[str] = frozenset()
    if restricted:
        assert operation.definition is not None
        registry = operation.definition.environment.resource_registry
        rules = registry.restricted_actions(name)
    kind = new_type(operation, name)
    moved = name in operation.definition_changed
    same = record is not None and _both_templates(operation, record, kind, plugin)
    return decide(
        name, record, kind, plugin, properties, rules, definition_changed=moved, same_kind=same
    )


def _both_templates(
    operation: Operation, record: ResourceRecord, kind: str, plugin: ResourcePlugin | None
) -> bool:
    """Whether a resource implemented by a provider template stays one under another
    type name (``My::A`` to ``My::B``, both templates): Heat updates it in place, its
    nested stack taking the new template. A recorded template resource is one whose type
    no plugin of the registry answers for, with a nested stack."""
    return (
        record.type != kind
        and isinstance(plugin, TemplateResource)
        and bool(record.data.get("child_id"))
        and operation.engine.registry.get(record.type) is None
    )


def definition_changes(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    definition: StackDefinition,
    previous: Callable[[], StackDefinition] | None = None,
) -> frozenset[str]:
    """The resources whose definition differs between two templates (as data) other than
    by their properties' values: as Heat compares a resource's stored definition with the
    new one (``before != after``) and updates it in place, however equal its resolved
    properties, when its ``type`` name, ``metadata``, ``depends_on``, ``deletion_policy``
    or ``update_policy`` changed, or a property is given that was not (or no longer is),
    even with its default's value (recorded: tests/fidelity/updates/cases/properties.yaml).
    ``previous`` (given when the parameters or the environment changed) rebuilds the
    current definition: a policy or metadata written the same but reading a parameter is
    compared by value, as Heat compares them resolved."""
    names = definition.template.names
    old_resources = old.get(names.resources) or {}
    new_resources = new.get(names.resources) or {}
    found = set()
    alike = []
    for name, body in new_resources.items():
        before = old_resources.get(name)
        if not (isinstance(body, dict) and isinstance(before, dict)):
            continue
        if _differs(before, body, names):
            found.add(str(name))
        elif previous is not None and _calls(definition, str(name)):
            alike.append(str(name))
    if alike:
        assert previous is not None
        try:
            current = previous()
        except StokerError:
            return frozenset(found)
        found.update(n for n in alike if _resolve_apart(current, definition, n))
    return frozenset(found)


def _policies(definition: StackDefinition, name: str) -> tuple[Any, ...]:
    found = definition.template.resources.get(name)
    if found is None:
        return ()
    return (found.metadata, found.update_policy, found.deletion_policy)


def _calls(definition: StackDefinition, name: str) -> bool:
    """Whether a resource's metadata or policies call a function."""
    pending = list(_policies(definition, name))
    while pending:
        value = pending.pop()
        if isinstance(value, Function):
            return True
        if isinstance(value, Mapping):
            pending.extend(value.values())
        elif isinstance(value, list | tuple):
            pending.extend(value)
    return False


def _resolve_apart(old: StackDefinition, new: StackDefinition, name: str) -> bool:
    """Whether a resource's metadata or policies resolve to other values (what cannot be
    resolved before the update runs, an attribute, counts as the same)."""
    if old.context is None or new.context is None:
        return False
    try:
        before = [resolve(v, old.context) for v in _policies(old, name)]
        after = [resolve(v, new.context) for v in _policies(new, name)]
    except (FunctionError, Unresolved, StokerError):
        return False
    return bool(before) and before != after


def _differs(before: Mapping[str, Any], after: Mapping[str, Any], names: Any) -> bool:
    for key in (names.type, names.metadata, names.deletion_policy, names.update_policy):
        if before.get(key) != after.get(key):
            return True
    if _depends(before.get(names.depends_on)) != _depends(after.get(names.depends_on)):
        return True
    return _keys(before.get(names.properties)) != _keys(after.get(names.properties))


def _depends(value: Any) -> Any:
    """``depends_on`` as Heat keeps it: one name is a list of one."""
    return [value] if isinstance(value, str) else value


def _keys(properties: Any) -> frozenset[str]:
    return frozenset(map(str, properties)) if isinstance(properties, dict) else frozenset()


def untouched(
    old: StackRecord,
    new: StackRecord,
    definition: StackDefinition,
    records: Mapping[str, ResourceRecord],
) -> list[str]:
    """Resources that cannot change: their template snippet, what they depend on, and
    everything around (parameters, environment, files, other sections) are the same, and
    they are COMPLETE. Their properties need not even be resolved: an update's cost
    follows what changes, not the stack's size."""
    key = definition.template.names.resources
    old_sections = {k: v for k, v in old.template.items() if k != key and k not in _FREE}
    new_sections = {k: v for k, v in new.template.items() if k != key and k not in _FREE}
    if (
        old_sections != new_sections
        or old.environment != new.environment
        or old.files != new.files
        or old.parameters != new.parameters
    ):
        return []
    old_resources = old.template.get(key) or {}
    new_resources = new.template.get(key) or {}
    graph = definition.graph
    assert graph is not None
    registry = definition.environment.resource_registry
    dirty: set[str] = set()
    for name in definition.resource_order():
        record = records.get(name)
        if (
            record is None
            or "pre-update" in registry.hooks(name)  # a breakpoint stops even an unchanged one
            or record.status is not Status.COMPLETE
            or not exists(record)
            or REPLACED in record.data
            or "child_id" in record.data  # a nested stack: always updated, as in Heat
            or old_resources.get(name) != new_resources.get(name)
            or tuple(graph.requires[name]) != record.requires
            or any(need in dirty for need in graph.requires[name])
        ):
            dirty.add(name)
    return [name for name in definition.resource_order() if name not in dirty]


#: template sections whose change touches no resource
_FREE = frozenset({"description", "Description", "outputs", "Outputs"})
