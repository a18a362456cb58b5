"""Reading a stack back from the store: its definition (rebuilt from what it stored, and
cached), its outputs, the plugin of each recorded resource, and a nested stack as its
facade sees it. Nothing here writes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.definition import (
    NO_TAINT,
    StackDefinition,
    define_stack,
    handed_down,
    parse_template,
    stack_arn,
    withheld_failure,
)
from stoker.engine.runtime import RuntimeContext
from stoker.engine.settings import EngineSettings
from stoker.engine.state import ResourceRecord, StackRecord, Status, Store
from stoker.environment import environment_from_data
from stoker.errors import FunctionError
from stoker.functions.base import OMIT, Unresolved, resolve
from stoker.limits import UNBOUNDED, applied
from stoker.resources import ChildStack, NestedStackPlugin, ResourcePlugin, ResourceTypeRegistry
from stoker.template.loader import Document

#: answers get_attr/get_resource for a provider template's facade (outputs, resource.<n>)
_PROVIDER = NestedStackPlugin()


class StackQueries:
    """Definitions, outputs and runtime contexts of stored stacks, for one engine."""

    def __init__(
        self, store: Store, registry: ResourceTypeRegistry, settings: EngineSettings
    ) -> None:
        self.store = store
        self.registry = registry
        self.settings = settings
        self._definitions: dict[str, StackDefinition] = {}
        #: settled nested stacks as their facades see them, by id (see `child_view`)
        self._views: dict[str, ChildView] = {}

    def plugin_of(self, record: ResourceRecord) -> ResourcePlugin | None:
        """The plugin that answers for a recorded resource (provider facades included)."""
        plugin = self.registry.get(record.type)
        if record.data.get("child_id") and not isinstance(plugin, NestedStackPlugin):
            # a provider template, recorded under the type it stands in for: that may be
            # a built-in type's name (``OS::Heat::RandomString: nested.yaml``), whose
            # plugin does not answer for a resource with a nested stack
            return _PROVIDER
        return plugin

    def definition_of(self, stack: StackRecord) -> StackDefinition:
        """Rebuild a stack's definition from what it stored (once per engine until an
        update changes it, see `forget`: a child's definition needs its parent's, so
        reading a group of N nested members would otherwise rebuild the group N times)."""
        cached = self._definitions.get(stack.id)
        if cached is None:
            cached = self._definitions[stack.id] = self.rebuild(stack)
        return cached

    def summary_definition(self, summary: StackRecord) -> StackDefinition:
        """`definition_of` a stack read as a summary (`Store.stack_summary`, its
        definition left empty): the stack's full row is read (and its sealed values
        decrypted) only when its definition is not known already."""
        cached = self._definitions.get(summary.id)
        if cached is not None:
            return cached
        stack = self.store.get_stack(summary.id, summary.project)
        if stack is None:
            raise FunctionError(f"The stack {summary.id} could not be found.")
        return self.definition_of(stack)

    def remember(self, stack_id: str, definition: StackDefinition) -> None:
        """``definition`` is what the stack stored (it was created from it): a top stack's
        or a nested stack's when its parent creates it (no view of either is kept: a top
        stack is nobody's child, a new one's ancestors are being created)."""
        self._definitions[stack_id] = definition

    def created(self, stack: StackRecord, records: Mapping[str, ResourceRecord]) -> None:
        """A nested stack this engine has just created, COMPLETE, and its resources'
        records as the create wrote them: its facade's view is made from them (`child_view`)
        rather than read back, as a settled stack's (its definition was `remember`ed)."""
        definition = self._definitions.get(stack.id)
        if definition is None or stack.status is not Status.COMPLETE:
            return
        view = ChildView(self, stack)
        view.known(definition, records)
        self._views[stack.id] = view

    def forget(self, stack_id: str) -> None:
        """The stack's stored definition or records changed (an update, a signal):
        rebuild it, and read it and its ancestors' outputs again, when next asked."""
        self._definitions.pop(stack_id, None)
        self._unsettle(stack_id)

    def _unsettle(self, stack_id: str) -> None:
        """Drop the views of a stack and of every stack above it, whose outputs may read
        its own."""
        if not self._views:
            return
        current: str | None = stack_id
        while current is not None:
            view = self._views.pop(current, None)
            if view is not None:
                current = view.stack.parent_id
                continue
            stack = self.store.get_stack(current, self.settings.project)
            current = stack.parent_id if stack is not None else None

    def rebuild(self, stack: StackRecord) -> StackDefinition:
        """The definition of what a stack (or a snapshot of one) stored. What was stored
        passed the limits of the operation that stored it, perhaps raised ones: delete,
        recover and restore must not refuse it under the defaults."""
        with applied(UNBOUNDED):
            return self._rebuild(stack)

    def _rebuild(self, stack: StackRecord) -> StackDefinition:
        document = Document(stack.template, "yaml", stack.template_file or f"<stack {stack.name}>")
        template = parse_template(document)
        environment, _ = environment_from_data(
            stack.environment, f"<stack {stack.name}>", stored=True
        )
        facade = None
        taint = NO_TAINT
        if stack.parent_id and stack.parent_resource:
            parent = self.store.get_stack(stack.parent_id, stack.project)
            if parent is not None:
                records = {r.name: r for r in self.store.resources(parent.id)}
                above = self.definition_of(parent)
                facade = self.facade(above, records, stack.parent_resource)
                taint = handed_down(above.template, stack.parent_resource, above.taint, template)
        return define_stack(
            template,
            environment,
            stack.files,
            require_all_parameters=True,
            stack_name=stack.name,
            stack_id=stack.id,
            project_id=stack.project,
            facade=facade,
            taint=taint,
        )

    def facade(
        self, definition: StackDefinition, records: Mapping[str, ResourceRecord], name: str
    ) -> dict[str, Any] | None:
        """What resource_facade returns inside the child of resource ``name``."""
        resource = definition.template.resources.get(name)
        if resource is None:
            return None
        context = self.runtime(definition, records)

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

    # ------------------------------------------------------------------ outputs
    def outputs(self, stack: StackRecord) -> list[dict[str, Any]]:
        """Each output resolved on its own; a failing one carries ``output_error``."""
        definition = self.definition_of(stack)
        if not definition.template.outputs:
            return []  # without reading every resource of the stack
        records = {r.name: r for r in self.store.resources(stack.id)}
        context = self.runtime(definition, records)
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
                except FunctionError as error:  # rebuilt without a hidden value it read
                    entry["output_value"] = None
                    failure = withheld_failure(
                        error, output.value, definition.template, definition.taint
                    )
                    entry["output_error"] = failure.message
                except Unresolved as error:
                    entry["output_value"] = None
                    entry["output_error"] = str(error)
            result.append(entry)
        return result

    def runtime(
        self, definition: StackDefinition, records: Mapping[str, ResourceRecord]
    ) -> RuntimeContext:
        assert definition.context is not None
        resources = definition.template.resources

        def declared(name: str) -> ResourcePlugin | None:
            found = resources.get(name)
            return self.registry.get(found.type) if found is not None else None

        return RuntimeContext(
            definition.context, records, self.plugin_of, self.child_view, declared
        )

    def child_view(self, child_id: str) -> ChildStack:
        """A nested stack as its facade sees it. A settled one (its last action complete)
        is read once per engine, its outputs computed once: a stack is settled until an
        operation of this engine changes it (`forget`), and TripleO's service chains read
        a group of a hundred members' outputs in some thirty places, each output built
        from the members' own nested outputs."""
        view = self._views.get(child_id)
        if view is not None:
            return view
        # a summary: the definition is most often known (remembered when the child was
        # created), and then its stored one need not be decrypted (see `_state`)
        stack = self.store.stack_summary(child_id, self.settings.project)
        if stack is None:
            raise FunctionError(f"The nested stack {child_id} could not be found.")
        view = ChildView(self, stack)
        if stack.status is Status.COMPLETE:
            self._views[child_id] = view
        return view


class ChildView:
    """A nested stack as its facade sees it (`ChildStack`), read from recorded state."""

    def __init__(self, queries: StackQueries, stack: StackRecord) -> None:
        self.queries = queries
        self.stack = stack
        self.stack_id = stack.id
        self.stack_name = stack.name
        self.arn = stack_arn(stack.project, stack.name, stack.id)
        self._definition: StackDefinition | None = None
        self._records: dict[str, ResourceRecord] | None = None
        self._runtime: RuntimeContext | None = None
        #: each output's value once computed (the view is of one state of the stack)
        self._outputs: dict[str, Any] = {}

    def known(self, definition: StackDefinition, records: Mapping[str, ResourceRecord]) -> None:
        """The stack's definition and records, known without reading them."""
        self._definition = definition
        self._records = dict(records)

    def _state(self) -> tuple[StackDefinition, dict[str, ResourceRecord]]:
        if self._definition is None or self._records is None:
            self._definition = self.queries.summary_definition(self.stack)
            self._records = {r.name: r for r in self.queries.store.resources(self.stack.id)}
        return self._definition, self._records

    def _context(self) -> RuntimeContext:
        if self._runtime is None:
            definition, records = self._state()
            self._runtime = self.queries.runtime(definition, records)
        return self._runtime

    def output_names(self) -> list[str]:
        return list(self._state()[0].template.outputs)

    def output(self, name: str) -> Any:
        if name in self._outputs:
            return self._outputs[name]
        value = self._output(name)
        self._outputs[name] = value
        return value

    def _output(self, name: str) -> Any:
        definition, _ = self._state()
        output = definition.template.outputs.get(name)
        if output is None:
            raise LookupError(name)
        try:
            value = resolve(output.value, self._context())
        except (FunctionError, Unresolved) as error:
            if isinstance(error, FunctionError):  # rebuilt without a hidden value it read
                error = withheld_failure(error, output.value, definition.template, definition.taint)
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
