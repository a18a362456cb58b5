"""Resolving functions while a stack runs: references and attributes from recorded state.

get_resource and get_attr read what the resource's handlers stored, through the
resource type's plugin (its reference id and attribute rules), never a live object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stoker.cloud.choice import HOW_TO_CHOOSE
from stoker.definition import StaticContext, chosen_zones
from stoker.engine.state import Action, ResourceRecord, Status
from stoker.errors import FunctionError
from stoker.functions.refs import navigate
from stoker.resources import (
    ChildStack,
    MemberAttributes,
    NestedStackPlugin,
    ResourceFailure,
    ResourcePlugin,
    ResourceView,
)

# Actions after which a resource's attributes can be read (heat-semantics §2, get_attr).
_READABLE = {
    Action.CREATE,
    Action.UPDATE,
    Action.ROLLBACK,
    Action.SUSPEND,
    Action.RESUME,
    Action.CHECK,
    Action.SNAPSHOT,
    Action.ADOPT,
}


def view_of(record: ResourceRecord) -> ResourceView:
    return ResourceView(
        name=record.name,
        type=record.type,
        physical_id=record.physical_id,
        properties=record.properties,
        data=record.data,
        action=record.action.value,
        status=record.status.value,
    )


class RuntimeContext(StaticContext):
    """A `Context` over a stack's recorded resources (a static context for the rest)."""

    def __init__(
        self,
        static: StaticContext,
        records: Mapping[str, ResourceRecord],
        plugin_for: Callable[[ResourceRecord], ResourcePlugin | None],
        child_of: Callable[[str], ChildStack] | None = None,
        declared_plugin: Callable[[str], ResourcePlugin | None] | None = None,
    ) -> None:
        super().__init__(
            parameters=static.parameters,
            declared_parameters=static.declared,
            resources=static.resources,
            conditions=static.conditions,
            files=static.files,
            unread_files=static.unread_files,
            mappings=static.mappings,
            stack_name=static.stack_name,
            stack_id=static.stack_id,
            project_id=static.project_id,
            facade=static.facade_data,
        )
        self.records = records
        self.plugin_for = plugin_for
        self.child_of = child_of
        #: the plugin of the type the template names for a resource, when a plugin answers
        #: for that name itself (None otherwise)
        self.declared_plugin = declared_plugin

    def availability_zones(self) -> list[str]:
        """Fn::GetAZs: the chosen cloud's Nova zones. With no cloud chosen the call fails,
        where and as Heat's fails when it cannot reach Nova (an output's output_error, a
        resource's create)."""
        zones = chosen_zones()
        if zones is None:
            raise FunctionError(
                "Fn::GetAZs asks Nova for the availability zones and no cloud is chosen: "
                + HOW_TO_CHOOSE
            )
        return zones

    def _record(self, resource: str) -> ResourceRecord:
        self._check_resource(resource)
        record = self.records.get(resource)
        if record is None:
            raise FunctionError(f'The specified reference "{resource}" (in unknown) is incorrect.')
        return record

    def _plugin(self, record: ResourceRecord) -> ResourcePlugin:
        plugin = self.plugin_for(record)
        if plugin is None:
            raise FunctionError(f"The Resource Type ({record.type}) could not be found.")
        return plugin

    def reference(self, resource: str) -> Any:
        record = self._record(resource)
        if record.action is Action.INIT:
            return resource  # Heat: the logical name before the resource exists
        plugin = self._plugin(record)
        child = self._child(record, plugin)
        if child is not None:
            assert isinstance(plugin, NestedStackPlugin)
            return plugin.nested_reference(view_of(record), child)
        return plugin.reference_id(view_of(record))

    def _child(self, record: ResourceRecord, plugin: ResourcePlugin) -> ChildStack | None:
        """The child stack of a nested-stack resource (None for other resources)."""
        child_id = record.data.get("child_id")
        if not isinstance(plugin, NestedStackPlugin) or not child_id or self.child_of is None:
            return None
        return self.child_of(str(child_id))

    def attribute(self, resource: str, attribute: str, path: Sequence[Any]) -> Any:
        record = self._record(resource)
        if not self._readable(record):
            return None
        plugin = self._plugin(record)
        name = str(attribute)
        try:
            child = self._child(record, plugin)
        except FunctionError:
            if record.status is not Status.FAILED:
                raise
            # its child was refused before it existed: Heat answers null, a group a null
            # per member (Heat stored that child with its members never created)
            if not isinstance(plugin, MemberAttributes):
                return None
            child = plugin.unstored_child(record.properties, record.name)
            if child is None:
                return None
        if name == "show" and not plugin.traits.own_show:
            value: Any = self._show(record)
        elif child is not None:
            assert isinstance(plugin, NestedStackPlugin)
            try:
                value, path = plugin.nested_attribute(view_of(record), name, path, child)
            except ResourceFailure as error:
                raise FunctionError(str(error)) from None
        elif name in plugin.attributes_schema or plugin.traits.dynamic_attributes:
            value = plugin.attribute(view_of(record), name)
        elif self._declares(resource, plugin, name):
            # an attribute of the template's type, of a resource still of its old type (an
            # update refused its replacement): Heat's resource has no value for it
            # (recorded: restricted/restricted_type_change_value)
            return None
        else:
            raise FunctionError(f"The Referenced Attribute ({resource} {name}) is incorrect.")
        try:
            return navigate(value, path, index_from_strings=False)
        except (LookupError, TypeError, ValueError):
            return None

    def _declares(self, resource: str, plugin: ResourcePlugin, name: str) -> bool:
        """Whether the type the template names for ``resource`` is another than the one its
        record has, and has attribute ``name``."""
        find = self.declared_plugin
        other = find(resource) if find is not None else None
        return other is not None and other is not plugin and name in other.attributes_schema

    def all_attributes(self, resource: str) -> Any:
        record = self._record(resource)
        if record.action is Action.ROLLBACK or record.status is Status.FAILED:
            return None
        if not self._readable(record):
            return None
        plugin = self._plugin(record)
        names = [name for name in plugin.attributes_schema if name != "show"]
        child = self._child(record, plugin)
        if (
            child is not None
            and isinstance(plugin, NestedStackPlugin)
            and type(plugin).nested_attribute is NestedStackPlugin.nested_attribute
        ):
            names = child.output_names()  # a provider template's attributes are its outputs
        if child is not None:
            return {
                name: self.attribute(resource, name, ()) for name in names if name != "attributes"
            }
        view = view_of(record)
        return {name: plugin.attribute(view, name) for name in names}

    @staticmethod
    def _readable(record: ResourceRecord) -> bool:
        return record.action in _READABLE

    @staticmethod
    def _show(record: ResourceRecord) -> None:
        """Heat's ``show`` asks the service behind a resource for its record; the types
        with no service behind them (Value, TestResource, RandomString...) answer null
        (measured on 24.1.2: tests/fidelity attributes/show.*). Types that keep a record
        of their own (software configs, groups, provider templates) set ``Traits.own_show``."""
        del record
        return None
