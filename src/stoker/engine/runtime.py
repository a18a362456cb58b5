"""Resolving functions while a stack runs: references and attributes from recorded state.

get_resource and get_attr read what the resource's handlers stored, through the
resource type's plugin (its reference id and attribute rules), never a live object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stoker.definition.context import StaticContext
from stoker.engine.state import Action, ResourceRecord, Status
from stoker.errors import FunctionError
from stoker.functions.refs import navigate
from stoker.resources.base import ResourcePlugin, ResourceView

# Actions after which a resource's attributes can be read (heat-semantics §2, get_attr).
_READABLE = {
    Action.CREATE,
    Action.UPDATE,
    Action.ROLLBACK,
    Action.SUSPEND,
    Action.RESUME,
    Action.CHECK,
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
        plugin_for: Callable[[str], ResourcePlugin | None],
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
        )
        self.records = records
        self.plugin_for = plugin_for

    def _record(self, resource: str) -> ResourceRecord:
        self._check_resource(resource)
        record = self.records.get(resource)
        if record is None:
            raise FunctionError(f'The specified reference "{resource}" is incorrect.')
        return record

    def _plugin(self, record: ResourceRecord) -> ResourcePlugin:
        plugin = self.plugin_for(record.type)
        if plugin is None:
            raise FunctionError(f"The Resource Type ({record.type}) could not be found.")
        return plugin

    def reference(self, resource: str) -> Any:
        record = self._record(resource)
        if record.action is Action.INIT:
            return resource  # Heat: the logical name before the resource exists
        return self._plugin(record).reference_id(view_of(record))

    def attribute(self, resource: str, attribute: str, path: tuple[Any, ...]) -> Any:
        record = self._record(resource)
        if not self._readable(record):
            return None
        plugin = self._plugin(record)
        name = str(attribute)
        if name == "show":
            value: Any = self._show(record)
        elif name in plugin.attributes_schema or plugin.dynamic_attributes:
            value = plugin.attribute(view_of(record), name)
        else:
            raise FunctionError(f"The Referenced Attribute ({resource} {name}) is incorrect.")
        try:
            return navigate(value, path, index_from_strings=False)
        except (LookupError, TypeError, ValueError):
            return None

    def all_attributes(self, resource: str) -> Any:
        record = self._record(resource)
        if record.action is Action.ROLLBACK or record.status is Status.FAILED:
            return None
        if not self._readable(record):
            return None
        plugin = self._plugin(record)
        view = view_of(record)
        return {
            name: plugin.attribute(view, name)
            for name in plugin.attributes_schema
            if name != "show"
        }

    @staticmethod
    def _readable(record: ResourceRecord) -> bool:
        return record.action in _READABLE

    @staticmethod
    def _show(record: ResourceRecord) -> dict[str, Any]:
        return {"id": record.physical_id, "name": record.name, **record.properties}
