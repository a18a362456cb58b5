"""``OS::Heat::Value``: a named, typed value computed from other parts of the template.

It lets a template compute something once (a joined string, a list built from other
resources) and read it with ``get_attr: [name, value]``. When ``type`` is given, Heat
retypes the ``value`` *property* (not a parameter): ``json`` needs a map, and
``comma_delimited_list`` a list (a JSON or comma-separated string is refused at create),
and the attribute is the value as given (``"5"`` stays ``"5"``), as recorded from Heat
24.1.2. Both properties update in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.parameters import ParameterType
from stoker.resources.base import (
    ResourceContext,
    ResourceFailure,
    ResourcePlugin,
    ResourceView,
    Traits,
)
from stoker.resources.constraints import allowed_values
from stoker.resources.schema import (
    PARAMETER_PROPERTY_TYPES,
    SHOW,
    AttributeSchema,
    PropertySchema,
    PropertyType,
    validate_properties,
)

#: the schema ``value`` is checked against, by ``type`` (made once: each create checks
#: its value twice)
_VALUE_SCHEMAS = {
    name.value: {"value": PropertySchema(kind, "The value.", required=True)}
    for name, kind in PARAMETER_PROPERTY_TYPES.items()
}


class Value(ResourcePlugin):
    """Exposes its ``value`` property, read as ``type``, as attribute ``value``."""

    type_name = "OS::Heat::Value"
    traits = Traits(external_effect=False)
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
        # Heat retypes the ``value`` property by ``type``: a property, not a parameter,
        # so a JSON string is no map and a comma-separated string no list.
        schema = _VALUE_SCHEMAS.get(str(properties.get("type")))
        if schema is None:
            return []
        _, found = validate_properties(
            schema, {"value": properties.get("value")}, path=("value",), type_name=self.type_name
        )
        return [f"value: {d.message}" for d in found if d.is_error]

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
        return view.properties.get("value") if name == "value" else None
