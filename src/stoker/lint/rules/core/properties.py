"""Resource properties against the type's schema in Heat's catalog."""

from __future__ import annotations

from stoker.lint.rule import Source, SourceKind
from stoker.lint.rules.core.base import PropertyCodeRule

_PROPERTIES = Source(SourceKind.HEAT, "heat/engine/properties.py (Properties.validate)")


class PropertyValue(PropertyCodeRule):
    id = "E1080"
    summary = "A property value of the wrong type, out of its allowed values, or missing"
    explanation = (
        "Each property of every resource whose type is in Heat's catalog (after the "
        "environment's resource_registry and Heat's stock aliases) is checked against the "
        "type's schema: its type (string, integer, number, boolean, map, list), required "
        "properties, allowed values, ranges, lengths and patterns, and the same for nested "
        "maps and list items. Values computed by functions are not known before create and "
        "are skipped, as Heat skips them at validation. Heat fails the resource at create: "
        "'Property <name> not assigned', '\"x\" is not a valid boolean', ..."
    )
    source = _PROPERTIES


class PropertyUnknown(PropertyCodeRule):
    id = "E1081"
    summary = "A property the resource type does not declare"
    explanation = (
        "Heat rejects a property its type's schema does not declare: 'Unknown Property "
        "<name>'. The finding lists the properties the type has. OS::Heat::None takes any "
        "property; provider templates are not checked here."
    )
    source = _PROPERTIES
