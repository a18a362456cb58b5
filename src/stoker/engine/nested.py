"""Nested stacks seen from their facade: creating (or adopting, after a crash) the child
stack of a nested-stack resource, and the error that carries where inside it failed."""

from __future__ import annotations

import asyncio
import os
import random
import re
import string
import uuid
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from stoker.definition import (
    FilesMap,
    StackDefinition,
    Template,
    define_stack,
    handed_down,
)
from stoker.engine import leases, rolling
from stoker.engine.facade_check import facade_problem
from stoker.engine.state import (
    Action,
    ResourceRecord,
    StackRecord,
    Status,
    StoredDefinition,
    WriteBatch,
    live_child,
)
from stoker.engine.update_request import UpdateRequest, below
from stoker.environment import child_environment
from stoker.functions.base import OMIT, resolve
from stoker.resources import (
    ChildSpec,
    NestedStackPlugin,
    ResourceFailure,
    ResourceGroup,
    TemplateResource,
)

if TYPE_CHECKING:
    from stoker.engine.operation import Operation
    from stoker.engine.stacks import StackEngine


class NestedFailure(ResourceFailure):
    """A nested stack failed; carries the dotted path of the resource that failed inside."""

    #: the reason names the innermost resource under the path down to it (`heat_reason`),
    #: when that resource's own reason is known in Heat's form
    path_form = True

    def __init__(self, child: StackRecord, inner: tuple[str, str] | None) -> None:
        self.child = child
        self.inner_path, self.inner_reason = inner or (child.name, child.status_reason)
        super().__init__(f"Nested resource {self.inner_path} failed: {self.inner_reason}")


#: a resource's failure reason: ``<Class>: <its path>: <message>``
_REASON = re.compile(r"^(\w+): (resources(?:\.[^:\s]+|\[\d+\])+): (.*)$", re.S)


def heat_reason(path: str, name: str, error: NestedFailure) -> str | None:
    """The reason Heat gives a resource whose nested stack failed: the innermost
    resource's own, its path from this stack down (``ValueError:
    resources.victim.resources.oops: Test Resource failed oops``; a group's member is
    ``resources[1]``). ``path`` is the operation's (`Operation.path`); None when the
    inner reason is not in that form."""
    found = _REASON.match(error.inner_reason)
    prefix = f"{path}.{name}."
    if found is None or not error.inner_path.startswith(prefix):
        return None
    below = error.inner_path[len(prefix) :].split(".")[:-1]  # the stacks down to it
    steps = [f"resources.{name}"]
    steps += [f"resources[{part}]" if part.isdigit() else f"resources.{part}" for part in below]
    inner = found.group(2)
    member = re.fullmatch(r"resources\.(\d+)", inner)  # a group's member, as Heat writes it
    steps.append(f"resources[{member.group(1)}]" if member else inner)
    return f"{found.group(1)}: {'.'.join(steps)}: {found.group(3)}"


async def create_child(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    plugin: NestedStackPlugin,
    properties: dict[str, Any],
) -> dict[str, Any]:
    """Create (or adopt, after a crash) the child stack of a nested-stack resource.

    The child's id is recorded on the facade before the child exists, so a resumed
    create finds the child it already started instead of making a second one.
    """
    assert parent.definition is not None
    check_depth(engine, parent)
    if isinstance(plugin, TemplateResource) and not record.data.get("child_id"):
        cache = engine.provider_cache(parent.definition)
        problem = facade_problem(parent.definition, record.name, plugin, engine.registry, cache)
        if problem is not None:
            raise ResourceFailure(problem)
    spec = plugin.child_spec(properties, record.name)
    data = dict(record.data)
    if isinstance(plugin, ResourceGroup):
        data["removed"] = plugin.removed(properties)
    child_id = data.get("child_id")
    existing = None
    if child_id:
        existing = await asyncio.to_thread(
            engine.store.get_stack, child_id, engine.settings.project
        )
    else:
        child_id, child_name = new_child_ids(parent, record.name)
        data.update(child_id=child_id, child_name=child_name)
        # recorded before the child exists, with no event of its own (Heat writes none)
        started = replace(
            parent.records.get(record.name, record),  # its state as the action left it
            data=data,
            physical_id=child_id,  # as Heat's resource_id: known from here, failed or not
            # as Heat's properties_data, stored as the create starts: a group whose child
            # is refused below still knows its members (`MemberAttributes.unstored_child`)
            properties=dict(properties),
        )
        await parent.write(WriteBatch(resources=[started]))
    batched = None
    if isinstance(plugin, ResourceGroup) and int(properties.get("count", 1)):
        batched = rolling.policy_of(_update_policy(parent, record.name), "batch_create")
    if batched is not None:
        # Heat's batch_create: an empty child first, then the members batch by batch
        assert isinstance(plugin, ResourceGroup)
        spec = plugin.spec_of({}, record.name)
    if existing is not None and existing.status is Status.IN_PROGRESS:
        child = await engine.recover_stack(existing, parent)
    elif existing is not None:
        child = existing
    else:
        child = await _new_child(engine, parent, record, spec, child_id, data["child_name"], plugin)
    if not (child.action in (Action.CREATE, Action.UPDATE) and child.status is Status.COMPLETE):
        raise NestedFailure(child, engine.failed_children.pop(child.id, None))
    if batched is not None:
        assert isinstance(plugin, ResourceGroup)
        members = [r.name for r in await _members(engine, child)]
        skip = set(plugin.removed(properties))
        current = replace(record, data=data)
        child = await _in_batches(
            engine, parent, current, plugin, properties, child, skip, batched, members
        )
    return {"physical_id": child.id, "data": data, "properties": dict(properties)}


def check_depth(engine: StackEngine, parent: Operation) -> None:
    """Refuse a child stack one level deeper than the engine's limit."""
    if parent.depth + 1 > engine.settings.max_nested_depth:
        raise ResourceFailure(f"Recursion depth exceeds {engine.settings.max_nested_depth}.")


def new_child_ids(parent: Operation, resource: str) -> tuple[str, str]:
    """A new child stack's id and name: ``<stack>-<resource>-<random suffix>``, as Heat's."""
    suffix = "".join(random.choices(string.ascii_lowercase + string.digits, k=12))
    return str(uuid.uuid4()), f"{parent.stack.name}-{resource}-{suffix}"[-255:]


async def _new_child(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    spec: ChildSpec,
    child_id: str,
    child_name: str,
    plugin: NestedStackPlugin,
) -> StackRecord:
    built = _child_definition(engine, parent, record, spec, child_id, child_name, plugin=plugin)
    stack = _child_stack(
        parent,
        record.name,
        spec,
        built,
        child_id,
        child_name,
        (Action.CREATE, Status.IN_PROGRESS, "Stack CREATE started"),
        timeout_mins=parent.stack.timeout_mins,
        disable_rollback=True,  # nested stacks never roll back by themselves
    )
    return await engine.create_stack(stack, built.definition, parent)


def _child_stack(
    parent: Operation,
    resource: str,
    spec: ChildSpec,
    built: _Built,
    child_id: str,
    child_name: str,
    state: tuple[Action, Status, str],
    **settings: Any,
) -> StackRecord:
    """The record of ``resource``'s child stack as ``built``, in ``state`` (action, status,
    reason): one for the create that stores it and the preview that does not."""
    action, status, reason = state
    return StackRecord(
        id=child_id,
        name=child_name,
        project=parent.stack.project,
        action=action,
        status=status,
        status_reason=reason,
        template=spec.template,
        environment=built.environment,
        files=built.files,
        parameters=built.parameters,
        created_at=leases.now_utc(),
        parent_id=parent.stack.id,
        parent_resource=resource,
        template_file=built.template_file,
        **settings,
    )


@dataclass(frozen=True, slots=True)
class _Built:
    definition: StackDefinition
    environment: dict[str, Any]
    files: dict[str, str]
    template_file: str

    @property
    def parameters(self) -> dict[str, Any]:
        """The values the parent passes down, as the child's record holds them: its stored
        environment's ``parameters`` section (their plain form), the one mapping, which a
        store then keeps once for both (`stoker.store.documents.STACK_PARAMETERS`)."""
        parameters: dict[str, Any] = self.environment["parameters"]
        return parameters


def _child_definition(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    spec: ChildSpec,
    child_id: str,
    child_name: str,
    kept: dict[str, str] | None = None,
    *,
    plugin: NestedStackPlugin | None = None,
) -> _Built:
    """The child's definition, checked as a create checks it (for a create or an update).
    ``kept``: an updated child's own files, under the parent's: a rolling update keeps
    members on their old provider template until their batch, and a request that names
    only the new one (Heat reads a template only when its resource changes) still has it.
    ``plugin``: the resource's, whose provider template (`provider_model`) the child's
    template is a plain copy of."""
    assert parent.definition is not None
    base_dir = spec.base_dir or parent.base_dir
    environment = child_environment(
        parent.definition.environment,
        record.name,
        spec.parameters,
        expanded=parent.resolution().resolved.get(record.name),
    )
    template = engine.child_templates.parse(spec, provider_model(plugin, spec))
    files = dict(spec.files)
    if engine.files_only(base_dir):
        # Heat hands a child its parent's files: its own providers are found there, and
        # a provider's get_file (named as written, or beside it in a package)
        given = FilesMap(parent.definition.files)
        found = given.collect(template.calls_of("get_file"), spec.location).files
        files = {**(kept or {}), **parent.definition.files, **files, **found}
    elif base_dir is not None:
        files.update(engine.child_templates.files(spec, base_dir, engine.settings.files_root))
    definition = define_stack(
        template,
        environment,
        files,
        require_all_parameters=True,
        stack_name=child_name,
        stack_id=child_id,
        project_id=parent.stack.project,
        facade=engine.facade(parent.definition, parent.records, record.name),
        taint=handed_down(
            parent.definition.template, record.name, parent.definition.taint, template
        ),
        output_values=False,
    )
    problems = definition.errors or [d for d in engine.check(definition, base_dir) if d.is_error]
    if problems:
        raise ResourceFailure(
            f"the nested stack ({spec.location}) is invalid: "
            + "; ".join(d.render() for d in problems[:5])
        )
    stored = engine.stored_environments.to_data(environment)
    return _Built(definition, stored, files, child_template_file(base_dir, spec))


def child_template_file(base_dir: str | None, spec: ChildSpec) -> str:
    """Where a child stack's template is from: beside the parent's, when that is a file."""
    return os.path.join(base_dir, os.path.basename(spec.location)) if base_dir else spec.location


def provider_model(plugin: NestedStackPlugin | None, spec: ChildSpec) -> Template | None:
    """The provider template (as read, with positions) whose plain copy is ``spec``'s
    template, when ``plugin`` is a provider resource's and ``spec`` is its child's."""
    if isinstance(plugin, TemplateResource) and spec.template is plugin.template:
        model = getattr(plugin, "template_model", None)
        if isinstance(model, Template):
            return model
    return None


def unborn_child(
    engine: StackEngine,
    parent: Operation,
    name: str,
    type_name: str,
    plugin: NestedStackPlugin,
    properties: dict[str, Any],
) -> tuple[StackRecord, StackDefinition]:
    """The child stack an added or replacing resource ``name`` will create, built as its
    create builds it (`ResourceFailure` when it is invalid) and not stored: what an
    update's preview with ``show_nested`` lists as added."""
    record = ResourceRecord(parent.stack.id, name, type_name, Action.INIT, Status.COMPLETE)
    spec = plugin.child_spec(properties, name)
    child_name = f"{parent.stack.name}-{name}"
    built = _child_definition(engine, parent, record, spec, "", child_name, plugin=plugin)
    state = (Action.INIT, Status.COMPLETE, "")
    return _child_stack(parent, name, spec, built, "", child_name, state), built.definition


# ---------------------------------------------------------------------------- update
async def update_child(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    plugin: NestedStackPlugin,
    properties: dict[str, Any],
) -> dict[str, Any]:
    """Update the child stack of a nested-stack resource to what its new properties want
    (Heat's StackResource: the child's own resources decide whether they change).

    A ResourceGroup whose ``resource_def`` changed under ``update_policy.rolling_update``
    goes there in batches (`stoker.engine.rolling`), with the pauses between them. A child
    whose update was interrupted (a crash) is continued first, so a recovered parent
    finishes it rather than starting it over; a child already at its target is left alone.
    """
    child = await asyncio.to_thread(live_child, engine.store, parent.stack.project, record)
    if child is None:
        data = {k: v for k, v in record.data.items() if k not in ("child_id", "child_name")}
        return await create_child(engine, parent, replace(record, data=data), plugin, properties)
    if child.status is Status.IN_PROGRESS:
        child = await engine.recover_stack(child, parent)
        _check(engine, child, record)
    data = dict(record.data)
    if not isinstance(plugin, ResourceGroup):
        child = await _update_to(
            engine, parent, record, child, plugin.child_spec(properties, record.name), plugin
        )
        return {"physical_id": child.id, "data": data, "properties": dict(properties)}
    records = await _members(engine, child)
    members = [r.name for r in records]
    skip = _skiplist(plugin, record, properties, records)
    data["removed"] = sorted(skip, key=rolling.member_order)
    target = int(properties.get("count", 1))
    policy = rolling.policy_of(_update_policy(parent, record.name), "rolling_update")
    changed = record.properties.get("resource_def") != properties.get("resource_def")
    if policy is not None and changed:
        child = await _in_batches(
            engine, parent, record, plugin, properties, child, skip, policy, members
        )
    else:
        spec = plugin.members_spec(properties, record.name, skip, target)
        child = await _update_to(engine, parent, record, child, spec)
    return {"physical_id": child.id, "data": data, "properties": dict(properties)}


async def _in_batches(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    plugin: ResourceGroup,
    properties: dict[str, Any],
    child: StackRecord,
    skip: set[str],
    policy: rolling.BatchPolicy,
    members: list[str],
) -> StackRecord:
    """Take a group's child to its new members batch by batch (a rolling update, or a
    batched create), pausing between batches; each batch is one update of the child."""
    target = int(properties.get("count", 1))
    current = len([n for n in members if n not in skip])
    bodies = child.template.get("resources") or {}
    wanted = set(rolling.names(target, skip))
    done = sum(
        1 for n in members if n in wanted and bodies.get(n) == plugin.member_body(properties, n)
    )
    plan = rolling.batches(
        target, current, policy.max_batch_size, policy.min_in_service, updated=done
    )
    rolling.check_timeout(len(plan), policy.pause_time, parent.time_left())
    for index, (size, fresh) in enumerate(plan):
        if index and policy.pause_time:
            await engine.sleep(policy.pause_time)
        bodies = child.template.get("resources") or {}
        old = [(r.name, bodies.get(r.name)) for r in await _members(engine, child)]
        batch = rolling.batch_members(
            [(n, body) for n, body in old if n not in skip],
            size,
            fresh,
            target,
            skip,
            lambda member: plugin.member_body(properties, member),
        )
        child = await _update_to(engine, parent, record, child, plugin.spec_of(batch, record.name))
    return child


async def _members(engine: StackEngine, child: StackRecord) -> list[ResourceRecord]:
    """The child's members that exist, oldest first (Heat's member order), failed ones
    left out as Heat's group inspector leaves them."""
    records = await asyncio.to_thread(engine.store.resources, child.id)
    alive = [r for r in records if r.status is not Status.FAILED and r.exists]
    alive.sort(key=lambda r: (r.created_at, rolling.member_order(r.name)))
    return alive


def _skiplist(
    plugin: ResourceGroup,
    record: ResourceRecord,
    properties: dict[str, Any],
    members: list[ResourceRecord],
) -> set[str]:
    """The names the group never uses again (Heat's name skiplist, kept in the resource's
    data): the earlier ones (unless ``removal_policies_mode`` is ``update``) and each
    ``removal_policies`` entry naming a member, by its name or by its reference id."""
    current = {str(n) for n in record.data.get("removed") or ()}
    found = set() if properties.get("removal_policies_mode") == "update" else set(current)
    names = {r.name for r in members}
    references = {str(r.physical_id): r.name for r in members if r.physical_id}
    for entry in plugin.removed(properties):
        if entry in current or entry in names:
            found.add(entry)
        elif entry in references:
            found.add(references[entry])
    return found


@dataclass(frozen=True, slots=True)
class ChildTarget:
    """Where an update takes a nested stack: its record, the new spec and definition."""

    child: StackRecord
    stack: StackRecord  # the child as it will be: new template, environment, parameters
    definition: StackDefinition


async def child_target(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    plugin: NestedStackPlugin,
    properties: dict[str, Any],
) -> ChildTarget | None:
    """The child stack an update of ``record`` ends with (for a preview); None when the
    resource has no child yet."""
    child = await asyncio.to_thread(live_child, engine.store, parent.stack.project, record)
    if child is None:
        return None
    if isinstance(plugin, ResourceGroup):
        records = await _members(engine, child)
        skip = _skiplist(plugin, record, properties, records)
        count = int(properties.get("count", 1))
        spec = plugin.members_spec(properties, record.name, skip, count)
    else:
        spec = plugin.child_spec(properties, record.name)
    built = _child_definition(
        engine, parent, record, spec, child.id, child.name, child.files, plugin=plugin
    )
    stored = StoredDefinition(
        spec.template, built.environment, built.files, built.parameters, built.template_file
    )
    return ChildTarget(child, stored.on(child), built.definition)


def _update_policy(parent: Operation, name: str) -> Any:
    """The resource's ``update_policy``, resolved against the stack as it is now."""
    assert parent.definition is not None
    tree = parent.definition.template.resources[name].update_policy
    if tree is None:
        return None
    value = resolve(tree, parent.engine.runtime(parent.definition, parent.records))
    return None if value is OMIT else value


class NestedUpdateFailure(NestedFailure):
    """A child stack's update failed. Heat's reason (its convergence engine, recorded in
    tests/fidelity/updates: failures, nested) takes one of three forms:

    - a resource of the child failed its UPDATE: that failure, under the path down to it
      (``ValueError: resources.g.resources[0]: ...``), as a nested create's
      (`heat_reason`);
    - anything else (a resource the child update creates failed): the child's own reason
      under the facade's path, without an exception class (``resources.g: Resource
      CREATE failed: ...``);
    - an ``OS::Heat::Stack``, which watches its child as a remote stack: ``ResourceInError:
      resources.n: Went to status UPDATE_FAILED due to "<the child's reason>"``.
    """

    def __init__(self, child: StackRecord, inner: tuple[str, str] | None, remote: bool) -> None:
        super().__init__(child, inner)
        # else (and when the innermost reason is not known): the child's own reason
        self.path_form = not remote and child.status_reason.startswith(
            f"Resource {Action.UPDATE.value} failed: "
        )
        self.bare = not remote
        self.args = (child.status_reason,)
        if remote:
            self.heat_class = "ResourceInError"
            state = f"{child.action.value}_{child.status.value}"
            self.args = (f'Went to status {state} due to "{child.status_reason}"',)


def _check(engine: StackEngine, child: StackRecord, record: ResourceRecord) -> None:
    if child.status is not Status.COMPLETE:
        inner = engine.failed_children.pop(child.id, None)
        raise NestedUpdateFailure(child, inner, record.type == "OS::Heat::Stack")


async def _update_to(
    engine: StackEngine,
    parent: Operation,
    record: ResourceRecord,
    child: StackRecord,
    spec: ChildSpec,
    plugin: NestedStackPlugin | None = None,
) -> StackRecord:
    """One update of the child to ``spec``. Heat updates the child even when nothing in
    it changes (its resources then stay as they are); only a recovered update skips a
    child that already reached ``spec`` before the crash (``record`` still IN_PROGRESS)."""
    built = _child_definition(
        engine, parent, record, spec, child.id, child.name, child.files, plugin=plugin
    )
    if (
        record.status is Status.IN_PROGRESS
        and child.status is Status.COMPLETE
        and child.template == spec.template
        and child.parameters == spec.parameters
        and child.environment == built.environment
        and child.files == built.files
    ):
        return child
    request = UpdateRequest(
        definition=built.definition,
        template=spec.template,
        environment=built.environment,
        parameters=built.parameters,
        template_file=built.template_file,
        timeout_mins=parent.stack.timeout_mins,
        disable_rollback=True,
        tags=child.tags,
        revisit=below(parent.revisit, record.name),  # a drift repair's, inside the child
    )
    result = await engine.update_stack(child, request, parent)
    _check(engine, result, record)
    return result
