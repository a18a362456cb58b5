"""Planning an update: each resource's `Decision` against the stored records, without
doing anything. The executor (`stoker.engine.update`) asks the same questions resource by
resource as it reaches them; ``stack update --dry-run`` (and ``--show-nested``) asks them
all at once. What cannot change is found without resolving anything (`untouched`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from stoker.definition import EdgeReason, StackDefinition
from stoker.engine import nested
from stoker.engine.operation import Operation
from stoker.engine.plan import Change, Decision, Plan, decide, deletion
from stoker.engine.properties import resolve_properties
from stoker.engine.replacement import REPLACED
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.update_request import below
from stoker.errors import FunctionError, PropertyError, ResourceFailure, StokerError
from stoker.functions.base import Function, Unresolved, resolve
from stoker.resources import NestedStackPlugin, ResourcePlugin, TemplateResource


def plan_update(
    operation: Operation,
    untouched: Iterable[str] = (),
    heat_view: bool = True,
    previous: Operation | None = None,
) -> Plan:
    """The plan of ``operation`` (its new definition against its records).

    With ``heat_view``, as Heat's preview lists it: Heat previews against a new stack
    where no resource exists yet, so a resource whose properties read another (get_attr,
    get_resource) sees null and the logical name where the update will see values: it
    counts as updated (or replaced, when the property it reads cannot change in place),
    whether or not what it reads changes (recorded in
    tests/fidelity/updates/recordings/preview.json); the update decides again with the
    values. Without, what the update will do as far as it can be known now (a repair's
    preview, which Heat has no counterpart of): only what a replaced or added resource
    gives its readers is unknown. ``untouched`` ones (see `untouched`) are unchanged
    without being resolved (in Heat's view, only those that read no resource).
    ``previous``: the stack's current definition over the same records, for the
    resources a failed create never reached (see `_never_created`)."""
    definition = operation.definition
    assert definition is not None and definition.graph is not None
    graph = definition.graph
    same = {n for n in untouched if not (heat_view and _reads_resources(graph.reasons[n]))}
    if same and operation.scope is None:
        operation.scope = frozenset(n for n in definition.enabled if n not in same)
    resolution = operation.resolution()
    unknown = not_created(operation)
    plan = Plan()
    fresh: dict[str, Change] = {}  # resources that will be new: their values are unknown
    for name in definition.resource_order():
        if name in same:
            kept = operation.records[name]
            plan.decisions[name] = Decision(name, Change.UNCHANGED, kept.type, "not changed")
            continue
        plugin = resolution.plugins.get(name)
        decision = decision_of(operation, name, plugin, True)
        read = [n for n, bits in graph.reasons[name].items() if bits & _READS]
        new = [n for n in read if n in fresh]
        actual = decision  # what the update does, as far as it is known now
        if (heat_view or new) and decision.change in (Change.UNCHANGED, Change.UPDATE):
            reading = unknown
            if not heat_view:
                reading = {**operation.records, **{n: unknown[n] for n in new}}
            seen = decision_of(operation, name, plugin, True, reading=reading)
            if seen.change not in (decision.change, Change.UNCHANGED) and not decision.refusal:
                # a rule against changing it (restricted_actions) refuses only what does
                # change: what a replaced resource gives it will, the rest may not
                refusal = seen.refusal if new else None
                decision = replace(seen, reason=_unknown_reads(read, fresh), refusal=refusal)
                if new:  # what a replaced resource gives it does change
                    actual = decision
        if actual.change in (Change.REPLACE, Change.ADD):
            fresh[name] = actual.change
        if heat_view and previous is not None and decision.change is Change.ADD:
            decision = _never_created(previous, operation, name, decision) or decision
        plan.decisions[name] = decision
    for name, record in operation.records.items():
        if name not in plan.decisions and record.exists:
            plan.decisions[name] = deletion(record)
    return plan


#: the reasons of an edge that mean a resource's definition reads the other one
_READS = EdgeReason.GET_RESOURCE | EdgeReason.GET_ATTR


def _never_created(
    previous: Operation, operation: Operation, name: str, decision: Decision
) -> Decision | None:
    """Heat's preview of a resource that a failed create never reached (INIT, in both
    definitions): it is a resource of the stack, so it is unchanged when its definition
    is (both read as in a new stack, each with its own parameters), else updated; the
    update creates it either way (recorded: preview/failed_create_*)."""
    record = operation.records.get(name)
    before = previous.definition
    if record is None or record.action is not Action.INIT or before is None:
        return None
    if name not in before.enabled:
        return None
    old_plugin = previous.resolution().plugins.get(name)
    new_plugin = operation.resolution().plugins.get(name)
    if old_plugin is None or new_plugin is None or type(old_plugin) is not type(new_plugin):
        return replace(decision, change=Change.REPLACE, reason="never created; type changed")
    try:
        old = resolve_properties(previous, name, old_plugin, not_created(previous))
        new = resolve_properties(operation, name, new_plugin, not_created(operation))
    except (PropertyError, FunctionError, Unresolved):
        old, new = {}, None
    if old == new and name not in operation.definition_changed:
        why = "never created, its definition the same: the update creates it"
        return replace(decision, change=Change.UNCHANGED, reason=why)
    why = "never created, its definition changed: the update creates it"
    return replace(decision, change=Change.UPDATE, reason=why)


def _unknown_reads(read: list[str], fresh: Mapping[str, Change]) -> str:
    new = [name for name in read if name in fresh]
    if new:
        return f"reads {new[0]}, which is {fresh[new[0]].value}: its new values are known only then"
    return (
        f"reads {', '.join(read)}, whose values Heat's preview does not know yet: listed as "
        "Heat lists it; the update decides with their values (alone if they hold)"
    )


def _reads_resources(reasons: Mapping[str, int]) -> bool:
    return any(bits & _READS for bits in reasons.values())


def not_created(operation: Operation) -> dict[str, ResourceRecord]:
    """Every resource of the new definition as the functions of Heat's update preview read
    them: resources of a new stack, none created yet (a reference is the logical name, an
    attribute null)."""
    definition = operation.definition
    assert definition is not None
    resources = definition.template.resources
    return {
        name: ResourceRecord(
            operation.stack.id, name, resources[name].type, Action.INIT, Status.COMPLETE
        )
        for name in definition.resource_order()
    }


async def preview_nested(operation: Operation, plan: Plan, heat_view: bool = True) -> None:
    """Add to ``plan`` the plan of every nested stack it updates, recursively (Heat's
    preview with ``show_nested``): each child against where the update takes it. As in
    Heat, a resource backed by a nested stack that keeps its definition counts as updated
    (its stack is always updated: what changes inside is known only there). The nested
    stacks that go (`Plan.gone`) and those that come (`Plan.born`) are listed too."""
    _gone(operation, plan)
    _born(operation, plan)
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
        if not plugin.previewed_inside:
            continue
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
        _repairing(operation, child, name)
        same = untouched(target.child, target.stack, target.definition, child.records)
        same = [n for n in same if n not in child.revisit]
        inner = plan_update(child, untouched=same, heat_view=heat_view)
        await preview_nested(child, inner, heat_view)
        plan.nested[name] = inner


def _opened(plugin: ResourcePlugin | None) -> bool:
    """Whether Heat's preview lists what is inside this type's nested stack (a nested
    stack's, not an ``OS::Heat::Stack``'s remote one)."""
    return isinstance(plugin, NestedStackPlugin) and plugin.previewed_inside


def _gone(operation: Operation, plan: Plan) -> None:
    """The replaced or deleted resources whose nested stack Heat lists as deleted."""
    for name, decision in plan.decisions.items():
        record = operation.records.get(name)
        if decision.change not in (Change.REPLACE, Change.DELETE) or record is None:
            continue
        if record.data.get("child_id") and _opened(operation.engine.plugin_of(record)):
            plan.gone.append(name)


def _born(operation: Operation, plan: Plan) -> None:
    """The nested stack each added or replacing resource creates, every resource in it
    added, and theirs below (recorded: preview/stack_resource_to_provider_show_nested).
    Its properties are read as the preview reads them (`not_created`); a child that
    cannot be known before the update runs is not listed."""
    unknown: dict[str, ResourceRecord] | None = None
    for name, decision in plan.decisions.items():
        plugin = operation.resolution().plugins.get(name)
        if decision.change not in (Change.ADD, Change.REPLACE) or decision.refusal:
            continue
        if not _opened(plugin):
            continue
        assert isinstance(plugin, NestedStackPlugin)
        unknown = unknown if unknown is not None else not_created(operation)
        try:
            properties = resolve_properties(operation, name, plugin, unknown)
            stack, definition = nested.unborn_child(
                operation.engine, operation, name, decision.type, plugin, properties
            )
        except (PropertyError, FunctionError, Unresolved, ResourceFailure):
            continue
        inner = Plan()
        resources = definition.template.resources
        for member in definition.resource_order():
            why = f"created with the nested stack of {name}"
            inner.decisions[member] = Decision(member, Change.ADD, resources[member].type, why)
        _born(Operation(operation.engine, stack, definition, operation), inner)
        plan.born[name] = inner


def _repairing(operation: Operation, child: Operation, name: str) -> None:
    """A drift repair's resources inside the nested stack of ``name`` (`below`): revisited,
    their stand-in records (what the cloud has) in place of the stored ones."""
    child.revisit = below(operation.revisit, name)
    child.stand_ins = {
        path: operation.stand_ins[f"{name}/{path}"]
        for path in child.revisit
        if f"{name}/{path}" in operation.stand_ins
    }
    child.records.update({n: r for n, r in child.stand_ins.items() if "/" not in n})


def new_type(operation: Operation, name: str) -> str:
    assert operation.definition is not None
    types = operation.resolution().types
    return types.get(name, operation.definition.template.resources[name].type)


def decision_of(
    operation: Operation,
    name: str,
    plugin: ResourcePlugin | None,
    restricted: bool,
    reading: Mapping[str, ResourceRecord] | None = None,
) -> Decision:
    """Resource ``name``'s fate, its new properties resolved over the records (or over
    ``reading``, what a preview's functions read instead)."""
    record = operation.records.get(name)
    if plugin is None and record is not None:
        plugin = operation.engine.plugin_of(replace(record, type=new_type(operation, name)))
    properties: dict[str, Any] | None = None
    if record is not None and plugin is not None and record.exists:
        try:
            properties = resolve_properties(operation, name, plugin, reading)
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
            or not record.exists
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
