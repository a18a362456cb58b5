"""``OS::Heat::Value``: a named, typed value computed from other parts of the template.

It lets a template compute something once (a joined string, a list built from other
resources) and read it with ``get_attr: [name, value]``. When ``type`` is given, the value
is read as that HOT parameter type, with the parameters' coercion rules (``"5"`` becomes
``5`` for ``number``, ``"a,b"`` a list for ``comma_delimited_list``). Both properties
update in place, and the attribute is computed from the current properties.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.parameters import ParameterType, ParameterValueError, coerce_to
from stoker.resources.base import ResourceContext, ResourceFailure, ResourcePlugin, ResourceView
from stoker.resources.constraints import allowed_values
from stoker.resources.schema import SHOW, AttributeSchema, PropertySchema, PropertyType


class Value(ResourcePlugin):
    """Exposes its ``value`` property, read as ``type``, as attribute ``value``."""

    type_name = "OS::Heat::Value"
    properties_schema = {
        "value": PropertySchema(
            PropertyType.ANY, "The value to expose.", required=True, update_allowed=True
        ),
        "type": PropertySchema(
            PropertyType.STRING,
            "The HOT parameter type to read the value as; as given when unset.",
            constraints=(allowed_values(*(kind.value for kind in ParameterType)),),
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "value": AttributeSchema(description="The value, read as the declared type."),
        "show": SHOW,
    }

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        try:
            typed_value(properties)
        except ParameterValueError as error:
            return [f"Property value is not a valid {properties.get('type')}: {error}"]
        return []

    async def create(self, context: ResourceContext) -> None:
        problems = self.validate(context.properties)
        if problems:
            raise ResourceFailure(problems[0])
        context.physical_id = context.physical_name

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        problems = self.validate(context.properties)
        if problems:
            raise ResourceFailure(problems[0])

    def attribute(self, view: ResourceView, name: str) -> Any:
        if name != "value":
            return None
        try:
            return typed_value(view.properties)
        except ParameterValueError:
            return view.properties.get("value")


def typed_value(properties: Mapping[str, Any]) -> Any:
    """The ``value`` property read as its ``type`` (unchanged when there is no type)."""
    value = properties.get("value")
    try:
        kind = ParameterType(str(properties.get("type")))
    except ValueError:  # no type (or one the schema already rejected)
        return value
    return coerce_to(kind, value)
