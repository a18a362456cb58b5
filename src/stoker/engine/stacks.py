"""Stack operations: create, delete, rollback and resume, as traversals of one graph.

Each operation claims the stack (a lease), records every transition before and after its
effect (through the group-commit recorder), and walks the dependency graph with the
scheduler: create forward, delete and rollback in reverse. A resumed operation starts from
the recorded state, so a resource whose create completed is never created again.
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import string
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from stoker import codes
from stoker.definition.context import stack_arn
from stoker.definition.files import collect_files
from stoker.definition.sensitive import (
    carrying_secrets,
    sensitive_properties,
    sensitive_resources,
    withheld_failure,
    withheld_messages,
    withhold,
)
from stoker.definition.stack import StackDefinition, define_stack
from stoker.definition.template import parse_template
from stoker.diagnostics import Diagnostic
from stoker.engine import leases, testpoints
from stoker.engine.heap import frozen_heap
from stoker.engine.recorder import Recorder
from stoker.engine.resolution import ProviderCache, Resolution, TreeCheck, resolve_types
from stoker.engine.runtime import RuntimeContext, view_of
from stoker.engine.scheduler import Traversal, reverse, traverse
from stoker.engine.settings import EngineSettings
from stoker.engine.state import (
    Action,
    EventRecord,
    ResourceRecord,
    StackExists,
    StackRecord,
    StackStatus,
    Status,
    Store,
    WriteBatch,
)
from stoker.environment import child_environment, environment_from_data
from stoker.errors import FunctionError, StokerError
from stoker.errors import OperationRefused as OperationRefused
from stoker.errors import PropertyError as PropertyError
from stoker.errors import StackNotFound as StackNotFound
from stoker.functions.base import OMIT, Unresolved, resolve
from stoker.resources.base import ResourceContext, ResourceFailure, ResourcePlugin, ResourceView
from stoker.resources.nested import ChildSpec, ChildStack, NestedStackPlugin, ResourceGroup
from stoker.resources.registry import ResourceTypeRegistry
from stoker.resources.schema import validate_properties
from stoker.template.loader import Document

STACK_TYPE = "OS::Heat::Stack"
#: answers get_attr/get_resource for a provider template's facade (outputs, resource.<n>)
_PROVIDER = NestedStackPlugin()
_NAME_CHARS = string.ascii_letters + string.digits + "_.-"


@dataclass(slots=True)
class CreateRequest:
    name: str
    definition: StackDefinition  # validated with every parameter required
    template: dict[str, Any]  # the template as data (what is stored)
    environment: dict[str, Any]  # the merged environment as data
    parameters: dict[str, Any] = field(default_factory=dict)  # as given on the command line
    timeout_mins: int | None = None
    disable_rollback: bool = True
    tags: tuple[str, ...] = ()
    template_file: str | None = None


def validate_stack_name(name: str) -> str | None:
    """Heat's rule: a letter, then up to 254 letters, digits, '_', '.' or '-'."""
    if not name or not name[0].isascii() or not name[0].isalpha():
        return f'Invalid stack name "{name}": it must start with a letter'
    if len(name) > 255 or any(c not in _NAME_CHARS for c in name):
        return f'Invalid stack name "{name}": use at most 255 letters, digits, "_", "." and "-"'
    return None


def physical_name(stack_name: str, resource_name: str) -> str:
    """Heat's ``<stack>-<resource>-<12 random>``, shortened to 255 characters."""
    suffix = "".join(random.choices(string.ascii_lowercase + string.digits, k=12))
    name = f"{stack_name}-{resource_name}-{suffix}"
    return name if len(name) <= 255 else f"{name[:2]}-{name[-(255 - 3) :]}"


def failure_reason(name: str, error: BaseException) -> str:
    """Heat's ``<ExceptionClass>: resources.<name>: <message>``."""
    if isinstance(error, asyncio.CancelledError):
        return f"resources.{name}: cancelled"
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    return f"{type(error).__name__}: resources.{name}: {message}"


class StackEngine:
    """Runs stack operations against a store, with an explicit resource-type registry."""

    def __init__(
        self,
        store: Store,
        registry: ResourceTypeRegistry,
        settings: EngineSettings | None = None,
        *,
        listener: Callable[[EventRecord], None] | None = None,
        engine_id: str | None = None,
    ) -> None:
        self.store = store
        self.registry = registry
        self.settings = settings or EngineSettings()
        self.listener = listener
        self.engine_id = engine_id or leases.new_engine_id()
        #: failed child stacks: where inside they failed, for the facade's message
        self._children: dict[str, tuple[str, str]] = {}
        self._definitions: dict[str, StackDefinition] = {}

    # ------------------------------------------------------------------ checks before
    def resolve_types(self, definition: StackDefinition, base_dir: str | None) -> Resolution:
        return resolve_types(definition, self.registry, base_dir)

    def resource_types(
        self, definition: StackDefinition, base_dir: str | None = None
    ) -> dict[str, str]:
        """The type recorded for each enabled resource (after the resource registry)."""
        resolution = self.resolve_types(definition, base_dir)
        types = dict(resolution.types)
        for name in definition.enabled:
            types.setdefault(name, definition.template.resources[name].type)
        return types

    def check(self, definition: StackDefinition, base_dir: str | None = None) -> list[Diagnostic]:
        """What would stop a create before anything is written: unknown types, property
        values that are already known and wrong, provider templates (recursively), limits."""
        found: list[Diagnostic] = []
        template = definition.template
        limit = self.settings.max_resources_per_stack
        if limit >= 0 and len(definition.enabled) > limit:
            found.append(
                Diagnostic(
                    codes.RESOURCE_DEFINITION,
                    f"The stack has {len(definition.enabled)} resources, more than the limit "
                    f"of {limit} (max_resources_per_stack); raise it with "
                    "--max-resources-per-stack",
                    (template.names.resources,),
                )
            )
        tree = TreeCheck(
            self.registry,
            self.settings.max_nested_depth,
            cache=ProviderCache(self.settings.files_root),
        )
        top = definition.template.file
        chain = (os.path.abspath(top),) if os.path.isfile(top) else ()
        found.extend(tree.check(definition, base_dir, chain))
        return found

    def plugin_of(self, record: ResourceRecord) -> ResourcePlugin | None:
        """The plugin that answers for a recorded resource (provider facades included)."""
        plugin = self.registry.get(record.type)
        if plugin is None and record.data.get("child_id"):
            return _PROVIDER
        return plugin

    # ------------------------------------------------------------------ create
    async def create(self, request: CreateRequest) -> StackRecord:
        problem = validate_stack_name(request.name)
        if problem:
            raise OperationRefused(problem)
        project = self.settings.project
        count = await asyncio.to_thread(self.store.count_stacks, project)
        if count >= self.settings.max_stacks_per_project:
            raise OperationRefused(
                f"You have reached the maximum stacks per project, "
                f"{self.settings.max_stacks_per_project}. Please delete some stacks."
            )
        now = leases.now_utc()
        stack = StackRecord(
            id=str(uuid.uuid4()),
            name=request.name,
            project=project,
            action=Action.CREATE,
            status=Status.IN_PROGRESS,
            status_reason="Stack CREATE started",
            template=request.template,
            environment=request.environment,
            files=dict(request.definition.files),
            parameters=request.parameters,
            created_at=now,
            tags=request.tags,
            timeout_mins=request.timeout_mins,
            disable_rollback=request.disable_rollback,
            template_file=request.template_file,
        )
        try:
            with frozen_heap():
                return await self._create_stack(stack, request.definition, parent=None)
        except StackExists:
            raise OperationRefused(f"The Stack ({request.name}) already exists.") from None

    async def _create_stack(
        self, stack: StackRecord, definition: StackDefinition, parent: _Operation | None
    ) -> StackRecord:
        """Write the stack with its resources (INIT), claim it, and create it."""
        operation = _Operation(self, stack, definition, parent)
        resolution = operation.resolution()
        assert definition.graph is not None
        initial = [
            ResourceRecord(
                stack_id=stack.id,
                name=name,
                type=resolution.types.get(name, definition.template.resources[name].type),
                action=Action.INIT,
                status=Status.COMPLETE,
                requires=tuple(definition.graph.requires[name]),
                created_at=stack.created_at,
            )
            for name in definition.resource_order()
        ]
        event = self._stack_event(
            stack, Action.CREATE, Status.IN_PROGRESS, "Stack CREATE started", stack.created_at
        )
        claim, fence = leases.claim_new(stack.id, self.engine_id, self.settings.lease_seconds)
        await asyncio.to_thread(self.store.create_stack, stack, initial, [event], claim)
        self._notify([event])
        testpoints.reached("after_stack_row")
        operation.attach(fence)
        return await self._run_create(operation, done=())

    async def _run_create(self, operation: _Operation, done: Iterable[str]) -> StackRecord:
        stack = operation.stack
        async with leases.held(self.store, operation.claim()):
            try:
                result = await operation.walk(Action.CREATE, done)
            except asyncio.CancelledError:
                # A nested stack whose parent's operation stopped (timed out): say so
                # rather than leave it CREATE_IN_PROGRESS.
                await asyncio.shield(
                    operation.finish(
                        Action.CREATE,
                        Status.FAILED,
                        "Create cancelled: the operation of the stack above it stopped",
                    )
                )
                raise
            if result.ok:
                testpoints.reached("before_stack_complete")
                return await operation.finish(
                    Action.CREATE, Status.COMPLETE, "Stack CREATE completed successfully"
                )
            reason = operation.failure_summary(Action.CREATE, result)
            failed = await operation.finish(Action.CREATE, Status.FAILED, reason)
            if stack.disable_rollback:
                return failed
            await operation.set_stack(Action.ROLLBACK, Status.IN_PROGRESS, "Stack ROLLBACK started")
            return await self._run_delete(operation, Action.ROLLBACK)

    # ------------------------------------------------------------------ delete
    async def delete(self, name_or_id: str) -> StackRecord:
        stack = await self._find(name_or_id)
        await self._refuse_nested(stack, "delete")
        with frozen_heap():
            return await self._delete_stack(stack, parent=None)

    async def _delete_stack(self, stack: StackRecord, parent: _Operation | None) -> StackRecord:
        """Claim the stack and delete it (its nested stacks with it)."""
        fence = await self._claim(stack)
        operation = _Operation(self, stack, None, parent)
        operation.attach(fence)
        async with leases.held(self.store, fence):
            await operation.set_stack(Action.DELETE, Status.IN_PROGRESS, "Stack DELETE started")
            return await self._run_delete(operation, Action.DELETE)

    async def _run_delete(self, operation: _Operation, action: Action) -> StackRecord:
        await operation.load_records()
        operation.restart_clock()
        result = await operation.walk(Action.DELETE, operation.already_deleted())
        if not result.ok:
            reason = operation.failure_summary(Action.DELETE, result)
            return await operation.finish(action, Status.FAILED, reason)
        record = await operation.finish(
            action, Status.COMPLETE, f"Stack {action.value} completed successfully"
        )
        if action is Action.DELETE:
            now = leases.now_utc()
            fence = operation.claim()
            await asyncio.to_thread(self.store.mark_deleted, record.id, now, fence.token)
            record = replace(record, deleted_at=now)
        return record

    # ------------------------------------------------------------------ resume
    async def resume(self, name_or_id: str) -> StackRecord:
        """Continue an interrupted create, delete or rollback from the recorded state."""
        stack = await self._find(name_or_id)
        await self._refuse_nested(stack, "resume")
        with frozen_heap():
            return await self._resume_stack(stack, parent=None)

    async def _resume_stack(self, stack: StackRecord, parent: _Operation | None) -> StackRecord:
        if stack.status is not Status.IN_PROGRESS:
            raise OperationRefused(
                f"Stack {stack.name} is {stack.action.value}_{stack.status.value}: there is "
                "no interrupted operation to resume"
            )
        fence = await self._claim(stack)
        if stack.action is Action.CREATE:
            operation = _Operation(self, stack, self.definition_of(stack), parent)
            operation.attach(fence)
            await operation.load_records()
            done = [
                name
                for name, r in operation.records.items()
                if r.action is Action.CREATE and r.status is Status.COMPLETE
            ]
            return await self._run_create(operation, done)
        operation = _Operation(self, stack, None, parent)
        operation.attach(fence)
        async with leases.held(self.store, fence):
            return await self._run_delete(operation, stack.action)

    # ------------------------------------------------------------------ nested stacks
    async def _nested_create(
        self,
        parent: _Operation,
        record: ResourceRecord,
        plugin: NestedStackPlugin,
        properties: dict[str, Any],
    ) -> dict[str, Any]:
        """Create (or adopt, after a crash) the child stack of a nested-stack resource.

        The child's id is recorded on the facade before the child exists, so a resumed
        create finds the child it already started instead of making a second one.
        """
        assert parent.definition is not None
        if parent.depth + 1 > self.settings.max_nested_depth:
            raise ResourceFailure(f"Recursion depth exceeds {self.settings.max_nested_depth}.")
        spec = plugin.child_spec(properties, record.name)
        data = dict(record.data)
        if isinstance(plugin, ResourceGroup):
            data["removed"] = plugin.removed(properties)
        child_id = data.get("child_id")
        existing = None
        if child_id:
            existing = await asyncio.to_thread(
                self.store.get_stack, child_id, self.settings.project
            )
        else:
            child_id = str(uuid.uuid4())
            suffix = "".join(random.choices(string.ascii_lowercase + string.digits, k=12))
            data.update(
                child_id=child_id, child_name=f"{parent.stack.name}-{record.name}-{suffix}"[-255:]
            )
            await parent._transition(
                record,
                Action.CREATE,
                Status.IN_PROGRESS,
                f"creating nested stack {data['child_name']}",
                data=data,
            )
        if existing is not None and existing.status is Status.IN_PROGRESS:
            child = await self._resume_stack(existing, parent)
        elif existing is not None:
            child = existing
        else:
            child = await self._new_child(parent, record, spec, child_id, data["child_name"])
        if not (child.action is Action.CREATE and child.status is Status.COMPLETE):
            raise NestedFailure(child, self._children.pop(child.id, None))
        return {"physical_id": child.id, "data": data, "properties": dict(properties)}

    async def _new_child(
        self,
        parent: _Operation,
        record: ResourceRecord,
        spec: ChildSpec,
        child_id: str,
        child_name: str,
    ) -> StackRecord:
        assert parent.definition is not None
        base_dir = spec.base_dir or parent.base_dir
        environment = child_environment(
            parent.definition.environment,
            record.name,
            spec.parameters,
            expanded=parent.resolution().resolved.get(record.name),
        )
        template = parse_template(Document(spec.template, "yaml", spec.location))
        if record.name in sensitive_resources(parent.definition.template):
            template = carrying_secrets(template)
        files = dict(spec.files)
        if base_dir is not None:
            calls = template.calls_of("get_file")
            restrict = self.settings.files_root
            files.update(collect_files(calls, base_dir, restrict_to=restrict).files)
        definition = define_stack(
            template,
            environment,
            files,
            require_all_parameters=True,
            stack_name=child_name,
            stack_id=child_id,
            project_id=parent.stack.project,
            facade=self._facade(parent.definition, parent.records, record.name),
        )
        problems = definition.errors or [d for d in self.check(definition, base_dir) if d.is_error]
        if problems:
            raise ResourceFailure(
                f"the nested stack ({spec.location}) is invalid: "
                + "; ".join(d.render() for d in problems[:5])
            )
        now = leases.now_utc()
        stack = StackRecord(
            id=child_id,
            name=child_name,
            project=parent.stack.project,
            action=Action.CREATE,
            status=Status.IN_PROGRESS,
            status_reason="Stack CREATE started",
            template=spec.template,
            environment=environment.to_data(absolute_paths=True),
            files=files,
            parameters=dict(spec.parameters),
            created_at=now,
            parent_id=parent.stack.id,
            parent_resource=record.name,
            timeout_mins=parent.stack.timeout_mins,
            disable_rollback=True,  # nested stacks never roll back by themselves
            template_file=os.path.join(base_dir, os.path.basename(spec.location))
            if base_dir
            else spec.location,
        )
        return await self._create_stack(stack, definition, parent)

    # ------------------------------------------------------------------ helpers
    async def _find(self, name_or_id: str) -> StackRecord:
        stack = await asyncio.to_thread(self.store.get_stack, name_or_id, self.settings.project)
        if stack is None or stack.deleted_at is not None:
            raise StackNotFound(f"The Stack ({name_or_id}) could not be found.")
        return stack

    async def _refuse_nested(self, stack: StackRecord, operation: str) -> None:
        """A nested stack belongs to the resource that made it: deleting it from outside
        would leave its parent COMPLETE with outputs that silently vanish, and resuming it
        alone would race its parent's own resume. Only an orphan (parent gone) is free."""
        if stack.parent_id is None:
            return
        parent = await asyncio.to_thread(self.store.get_stack, stack.parent_id, stack.project)
        if parent is None or parent.deleted_at is not None:
            return
        raise OperationRefused(
            f"Stack {stack.name} is a nested stack, owned by resource "
            f"{stack.parent_resource} of stack {parent.name}: {operation} {parent.name} "
            "(or update that resource) instead"
        )

    async def _claim(self, stack: StackRecord) -> leases.Fence:
        try:
            return await asyncio.to_thread(
                leases.acquire, self.store, stack.id, self.engine_id, self.settings.lease_seconds
            )
        except leases.LeaseHeld as held:
            raise OperationRefused(
                f"Stack {stack.name} already has an action ({stack.action.value}) in "
                f"progress (engine {held.lease.engine_id}, lease until "
                f"{held.lease.expires_at.isoformat(timespec='seconds')})."
            ) from None

    def definition_of(self, stack: StackRecord) -> StackDefinition:
        """Rebuild a stack's definition from what was stored at create (once per engine:
        what a stack stores never changes, and a child's definition needs its parent's,
        so reading a group of N nested members would otherwise rebuild the group N times)."""
        cached = self._definitions.get(stack.id)
        if cached is None:
            cached = self._definitions[stack.id] = self._rebuild_definition(stack)
        return cached

    def _rebuild_definition(self, stack: StackRecord) -> StackDefinition:
        document = Document(stack.template, "yaml", stack.template_file or f"<stack {stack.name}>")
        template = parse_template(document)
        environment, _ = environment_from_data(stack.environment, f"<stack {stack.name}>")
        facade = None
        if stack.parent_id and stack.parent_resource:
            parent = self.store.get_stack(stack.parent_id, stack.project)
            if parent is not None:
                records = {r.name: r for r in self.store.resources(parent.id)}
                above = self.definition_of(parent)
                if stack.parent_resource in sensitive_resources(above.template):
                    template = carrying_secrets(template)
                facade = self._facade(above, records, stack.parent_resource)
        return define_stack(
            template,
            environment,
            stack.files,
            require_all_parameters=True,
            stack_name=stack.name,
            stack_id=stack.id,
            project_id=stack.project,
            facade=facade,
        )

    def _facade(
        self, definition: StackDefinition, records: Mapping[str, ResourceRecord], name: str
    ) -> dict[str, Any] | None:
        """What resource_facade returns inside the child of resource ``name``."""
        resource = definition.template.resources.get(name)
        if resource is None:
            return None
        context = self._runtime(definition, records)

        def value(tree: Any, default: Any) -> Any:
            try:
                resolved = resolve(tree, context) if tree is not None else None
            except (FunctionError, Unresolved):
                return default
            return default if resolved in (None, OMIT) else resolved

        policy = str(value(resource.deletion_policy, "Delete"))
        return {
            "metadata": value(resource.metadata, {}),
            "deletion_policy": policy[:1].upper() + policy[1:],
            "update_policy": value(resource.update_policy, {}),
        }

    def _stack_event(
        self, stack: StackRecord, action: Action, status: Status, reason: str, now: Any
    ) -> EventRecord:
        return EventRecord(stack.id, stack.name, STACK_TYPE, action, status, reason, stack.id, now)

    def _notify(self, events: Iterable[EventRecord]) -> None:
        if self.listener is not None:
            for event in events:
                self.listener(event)

    # ------------------------------------------------------------------ outputs
    def outputs(self, stack: StackRecord) -> list[dict[str, Any]]:
        """Each output resolved on its own; a failing one carries ``output_error``."""
        definition = self.definition_of(stack)
        records = {r.name: r for r in self.store.resources(stack.id)}
        context = self._runtime(definition, records)
        result = []
        for name, output in definition.template.outputs.items():
            entry: dict[str, Any] = {"output_key": name, "description": output.description}
            disabled = (
                output.condition is not None
                and definition.scope is not None
                and (definition.scope.condition_value(output.condition) is False)
            )
            if disabled:
                entry["output_value"] = None
            else:
                try:
                    value = resolve(output.value, context)
                    entry["output_value"] = None if value is OMIT else value
                except FunctionError as error:
                    entry["output_value"] = None
                    failure = withheld_failure(error, output.value, definition.template)
                    entry["output_error"] = failure.message
                except Unresolved as error:
                    entry["output_value"] = None
                    entry["output_error"] = str(error)
            result.append(entry)
        return result

    def _runtime(
        self, definition: StackDefinition, records: Mapping[str, ResourceRecord]
    ) -> RuntimeContext:
        assert definition.context is not None
        return RuntimeContext(definition.context, records, self.plugin_of, self._child_view)

    def _child_view(self, child_id: str) -> ChildStack:
        stack = self.store.get_stack(child_id, self.settings.project)
        if stack is None:
            raise FunctionError(f"The nested stack {child_id} could not be found.")
        return _ChildView(self, stack)

    # ------------------------------------------------------------------ signals
    async def signal_with_token(self, token: str, details: Any) -> tuple[str, str]:
        """Signal the resource holding ``token`` (a wait condition handle's own secret), the
        way a server that only knows its token signals; returns (stack, resource)."""
        project = self.settings.project
        stacks = await asyncio.to_thread(self.store.list_stacks, project, include_nested=True)
        for stack in stacks:
            for record in await asyncio.to_thread(self.store.resources, stack.id):
                held = record.data.get("token")
                if isinstance(held, str) and secrets.compare_digest(held, token):
                    await self.signal(stack.id, record.name, details)
                    return stack.name, record.name
        raise StackNotFound("No resource holds this signal token.")

    async def signal(self, name_or_id: str, resource_name: str, details: Any) -> None:
        stack = await self._find(name_or_id)
        records = {r.name: r for r in await asyncio.to_thread(self.store.resources, stack.id)}
        record = records.get(resource_name)
        if record is None:
            raise StackNotFound(
                f"The Resource ({resource_name}) could not be found in Stack {stack.name}."
            )
        if record.action in (Action.DELETE, Action.SUSPEND) or record.action is Action.INIT:
            raise OperationRefused(
                f"Signal resource during {record.action.value} is not supported."
            )
        plugin = self.plugin_of(record)
        if plugin is None:
            raise OperationRefused(f"The Resource Type ({record.type}) could not be found.")
        context = ResourceContext(
            stack_name=stack.name,
            stack_id=stack.id,
            project_id=stack.project,
            resource_name=record.name,
            physical_name=record.physical_id or record.name,
            properties=record.properties,
            data=dict(record.data),
            physical_id=record.physical_id,
        )
        await plugin.signal(context, details)
        now = leases.now_utc()
        updated = replace(record, data=context.data, updated_at=now)
        reason = "Signal received"
        if isinstance(details, dict) and details.get("reason"):
            reason = f"Signal: {details['reason']}"
        event = EventRecord(
            stack.id,
            record.name,
            record.type,
            Action.SIGNAL,
            Status.COMPLETE,
            reason,
            record.physical_id,
            now,
        )
        await asyncio.to_thread(self.store.write, WriteBatch(resources=[updated], events=[event]))
        self._notify([event])


class _ChildView:
    """A nested stack as its facade sees it (`ChildStack`), read from recorded state."""

    def __init__(self, engine: StackEngine, stack: StackRecord) -> None:
        self.engine = engine
        self.stack = stack
        self.stack_id = stack.id
        self.stack_name = stack.name
        self.arn = stack_arn(stack.project, stack.name, stack.id)
        self._definition: StackDefinition | None = None
        self._records: dict[str, ResourceRecord] | None = None

    def _state(self) -> tuple[StackDefinition, dict[str, ResourceRecord]]:
        if self._definition is None or self._records is None:
            self._definition = self.engine.definition_of(self.stack)
            self._records = {r.name: r for r in self.engine.store.resources(self.stack.id)}
        return self._definition, self._records

    def _context(self) -> RuntimeContext:
        definition, records = self._state()
        return self.engine._runtime(definition, records)

    def output_names(self) -> list[str]:
        return list(self._state()[0].template.outputs)

    def output(self, name: str) -> Any:
        definition, _ = self._state()
        output = definition.template.outputs.get(name)
        if output is None:
            raise LookupError(name)
        try:
            value = resolve(output.value, self._context())
        except (FunctionError, Unresolved) as error:
            if isinstance(error, FunctionError):
                error = withheld_failure(error, output.value, definition.template)
            message = getattr(error, "message", str(error))
            raise FunctionError(
                f"Error in {self.stack.parent_resource} output {name}: {message}"
            ) from None
        return None if value is OMIT else value

    def members(self) -> list[str]:
        definition, records = self._state()
        return [name for name in definition.template.resources if name in records]

    def reference(self, member: str) -> Any:
        return self._context().reference(member)

    def attribute(self, member: str, attribute: str, path: Any) -> Any:
        return self._context().attribute(member, attribute, tuple(path))


class _Operation:
    """One running operation on one stack: its records in memory, its writes, its jobs."""

    def __init__(
        self,
        engine: StackEngine,
        stack: StackRecord,
        definition: StackDefinition | None,
        parent: _Operation | None = None,
    ) -> None:
        self.engine = engine
        self.stack = stack
        self.definition = definition
        self.parent = parent
        self.depth: int = parent.depth + 1 if parent else 0
        #: dotted resource path of this stack, for messages: "parent.web.0"
        self.path: str = f"{parent.path}.{stack.parent_resource}" if parent else stack.name
        directory = os.path.dirname(stack.template_file or "")
        self.base_dir = os.path.abspath(directory) if directory else None
        self.recorder = Recorder(engine.store)
        self.fence: leases.Fence | None = None
        self.records: dict[str, ResourceRecord] = {}
        self._resolution: Resolution | None = None
        #: where the first failure happened (dotted path) and why
        self.first_failure: tuple[str, str] | None = None
        self.started = time.monotonic()
        timeout = (stack.timeout_mins * 60) if stack.timeout_mins else None
        self.timeout = timeout or engine.settings.default_timeout_seconds
        self.timed_out = False

    def attach(self, fence: leases.Fence) -> None:
        """From now on every write is checked against this claim (see `leases.Fence`)."""
        self.fence = fence
        self.recorder.fence = fence

    def claim(self) -> leases.Fence:
        assert self.fence is not None, "an operation runs only under a claim"
        return self.fence

    def time_left(self) -> float | None:
        return self.timeout - (time.monotonic() - self.started)

    def restart_clock(self) -> None:
        """A rollback or delete gets its own time, not what a failed create left."""
        self.started = time.monotonic()
        self.timed_out = False

    def resolution(self) -> Resolution:
        """The plugin of each resource (provider templates read once per operation)."""
        if self._resolution is None:
            assert self.definition is not None
            self._resolution = self.engine.resolve_types(self.definition, self.base_dir)
        return self._resolution

    async def load_records(self) -> None:
        records = await asyncio.to_thread(self.engine.store.resources, self.stack.id)
        self.records = {r.name: r for r in records}

    def already_deleted(self) -> list[str]:
        return [
            n
            for n, r in self.records.items()
            if r.action is Action.INIT
            or (r.action is Action.DELETE and r.status is Status.COMPLETE)
        ]

    async def write(self, batch: WriteBatch) -> None:
        await self.recorder.write(batch)
        for record in batch.resources:
            self.records[record.name] = record
        self.engine._notify(batch.events)

    async def set_stack(self, action: Action, status: Status, reason: str) -> None:
        now = leases.now_utc()
        event = self.engine._stack_event(self.stack, action, status, reason, now)
        await self.write(
            WriteBatch(
                stacks=[StackStatus(self.stack.id, action, status, reason, now)], events=[event]
            )
        )
        self.stack = replace(
            self.stack, action=action, status=status, status_reason=reason, updated_at=now
        )

    async def finish(self, action: Action, status: Status, reason: str) -> StackRecord:
        await self.set_stack(action, status, reason)
        if status is Status.FAILED and self.first_failure is not None:
            self.engine._children[self.stack.id] = self.first_failure
        return self.stack

    def failure_summary(self, action: Action, result: Traversal) -> str:
        if self.timed_out:
            return "Create timed out" if action is Action.CREATE else "Timed out"
        name, error = next(iter(result.failed.items()), (None, None))
        if name is None or error is None:
            return f"Resource {action.value} failed: operation stopped"
        record = self.records.get(name)
        reason = record.status_reason if record else failure_reason(name, error)
        return f"Resource {action.value} failed: {reason}"

    # -- traversal -----------------------------------------------------------------
    async def walk(self, action: Action, done: Iterable[str]) -> Traversal:
        if action is Action.CREATE:
            assert self.definition is not None
            if not self.records:
                await self.load_records()
            graph = self.definition.graph
            assert graph is not None
            requires: Mapping[str, Any] = graph.requires
            job = self.create_one
        else:
            requires = reverse({n: r.requires for n, r in self.records.items()})
            job = self.delete_one
        try:
            async with asyncio.timeout(max(self.time_left() or 0.0, 0.0)):
                return await traverse(
                    requires, job, concurrency=self.engine.settings.concurrency, done=done
                )
        except TimeoutError:
            self.timed_out = True
            await self.load_records()
            failed: dict[str, BaseException] = {
                n: TimeoutError()
                for n, r in self.records.items()
                if r.status is Status.FAILED and r.action is action
            }
            return Traversal(failed=failed or {"": TimeoutError()})

    async def _transition(
        self, record: ResourceRecord, action: Action, status: Status, reason: str, **changes: Any
    ) -> ResourceRecord:
        now = leases.now_utc()
        updated = replace(
            record, action=action, status=status, status_reason=reason, updated_at=now, **changes
        )
        event = EventRecord(
            self.stack.id,
            record.name,
            record.type,
            action,
            status,
            reason,
            updated.physical_id,
            now,
        )
        await self.write(WriteBatch(resources=[updated], events=[event]))
        return updated

    def _context(self, record: ResourceRecord, properties: Mapping[str, Any]) -> ResourceContext:
        return ResourceContext(
            stack_name=self.stack.name,
            stack_id=self.stack.id,
            project_id=self.stack.project,
            resource_name=record.name,
            physical_name=record.data.get("physical_name")
            or physical_name(self.stack.name, record.name),
            properties=properties,
            data=dict(record.data),
            physical_id=record.physical_id,
            time_left=self.time_left,
            lookup=self.lookup,
            sleep=asyncio.sleep,
        )

    async def lookup(self, reference: str) -> ResourceView | None:
        """A resource's current recorded state (fresh from the store: signals arrive there)."""
        records = await asyncio.to_thread(self.engine.store.resources, self.stack.id)
        for record in records:
            if record.name == reference or record.physical_id == reference:
                return view_of(record)
        return None

    async def _act(
        self,
        name: str,
        action: Action,
        effect: Callable[[ResourceRecord], Awaitable[dict[str, Any]]],
    ) -> None:
        """State first, effect second: record IN_PROGRESS (committed), run the effect, then
        record COMPLETE with what the effect returned, or FAILED with why."""
        record = await self._transition(
            self.records[name], action, Status.IN_PROGRESS, "state changed"
        )
        testpoints.reached("before_handler")
        # No handler starts under a claim that may have passed to another process.
        await self.claim().confirm(self.engine.store)
        try:
            changes = await effect(record)
            testpoints.reached("after_handler")
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):
                reason = f"{action.value.capitalize()} timed out"
            else:
                reason = failure_reason(name, error)
            if self.first_failure is None and not isinstance(error, asyncio.CancelledError):
                self.first_failure = (
                    (error.inner_path, error.inner_reason)
                    if isinstance(error, NestedFailure)
                    else (f"{self.path}.{name}", reason)
                )
            # On top of the latest record: the effect may have recorded something on the
            # way (a nested stack's id), which the cleanup after a failure needs.
            latest = self.records.get(name, record)
            await asyncio.shield(self._transition(latest, action, Status.FAILED, reason))
            raise
        await self._transition(record, action, Status.COMPLETE, "state changed", **changes)
        testpoints.reached("after_complete")

    async def create_one(self, name: str) -> None:
        async def create(record: ResourceRecord) -> dict[str, Any]:
            plugin = self.resolution().plugins.get(name) or self.engine.plugin_of(record)
            if plugin is None:
                raise StokerError(f"The Resource Type ({record.type}) could not be found.")
            properties = self._properties(name, plugin)
            if isinstance(plugin, NestedStackPlugin):
                return await self.engine._nested_create(self, record, plugin, properties)
            context = self._context(record, properties)
            await plugin.create(context)
            return {
                "physical_id": context.physical_id,
                "data": context.data,
                "properties": dict(properties),
            }

        await self._act(name, Action.CREATE, create)

    def _properties(self, name: str, plugin: ResourcePlugin) -> dict[str, Any]:
        assert self.definition is not None
        resource = self.definition.template.resources[name]
        context = self.engine._runtime(self.definition, self.records)
        values: dict[str, Any] = {}
        properties = resource.properties if isinstance(resource.properties, dict) else {}
        for key, tree in properties.items():
            try:
                value = resolve(tree, context)
            except FunctionError as error:
                raise withheld_failure(error, tree, self.definition.template) from None
            if value is not OMIT:
                values[str(key)] = value
        path = (*resource.path, self.definition.template.names.properties)
        validated, found = validate_properties(
            plugin.properties_schema,
            values,
            path=path,
            type_name=plugin.type_name,
            dynamic=plugin.dynamic_properties,
        )
        sensitive = sensitive_properties(self.definition.template, name)
        problems = [d.render() for d in withhold(found, path, sensitive) if d.is_error]
        if not problems:
            problems = withheld_messages(plugin.validate(validated), sensitive)
        if problems:
            raise PropertyError("; ".join(problems))
        return validated

    async def delete_one(self, name: str) -> None:
        async def delete(record: ResourceRecord) -> dict[str, Any]:
            child_id = record.data.get("child_id")
            if child_id:
                child = await asyncio.to_thread(
                    self.engine.store.get_stack, str(child_id), self.stack.project
                )
                if child is not None and child.deleted_at is None:
                    result = await self.engine._delete_stack(child, self)
                    if result.status is not Status.COMPLETE:
                        raise NestedFailure(result, self.engine._children.pop(result.id, None))
                return {}
            plugin = self.engine.plugin_of(record)
            if plugin is not None:
                await plugin.delete(self._context(record, record.properties))
            return {}

        await self._act(name, Action.DELETE, delete)


class NestedFailure(ResourceFailure):
    """A nested stack failed; carries the dotted path of the resource that failed inside."""

    def __init__(self, child: StackRecord, inner: tuple[str, str] | None) -> None:
        self.child = child
        self.inner_path, self.inner_reason = inner or (child.name, child.status_reason)
        super().__init__(f"Nested resource {self.inner_path} failed: {self.inner_reason}")
