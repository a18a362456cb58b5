"""A resource type's declared properties as JSON Schema, accepting what Heat accepts.

Each property's value is either a call (any function of the version, `CALL_REF`) or a
literal of its type as Heat coerces it (`stoker.resources.schema`): a string property also
takes an integer or a boolean, an integer one a string of digits, a boolean one the words
``true``/``false`` in any case. Allowed values become ``enum``, ranges and lengths their
JSON Schema bounds; patterns and custom constraints are left to ``template validate`` (a
Python regular expression is not an ECMA one, and a custom constraint asks the cloud).
Unimplemented properties are left out, so setting one is refused like an unknown name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.parameters import Bounds, ConstraintKind
from stoker.resources import (
    LIST_ITEMS,
    PropertySchema,
    PropertyType,
    SupportLevel,
    TypeSchema,
    property_renames,
)
from stoker.schema.functions import CALL_REF

_CALL: dict[str, Any] = {"$ref": CALL_REF}
_BOOLEAN_WORD = "^(?i:true|false)$"
_INTEGER_TEXT = r"^\s*[-+]?[0-9]+\s*$"
_NUMBER_TEXT = r"^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$"

_LITERALS: dict[PropertyType, dict[str, Any]] = {
    PropertyType.STRING: {"type": ["string", "integer", "boolean"]},
    PropertyType.INTEGER: {
        "anyOf": [{"type": "number"}, {"type": "string", "pattern": _INTEGER_TEXT}]
    },
    PropertyType.NUMBER: {
        "anyOf": [{"type": "number"}, {"type": "string", "pattern": _NUMBER_TEXT}]
    },
    PropertyType.BOOLEAN: {
        "anyOf": [{"type": "boolean"}, {"type": "string", "pattern": _BOOLEAN_WORD}]
    },
    PropertyType.MAP: {"type": "object"},
    PropertyType.LIST: {"type": "array"},
    PropertyType.ANY: {},
}


def describe_property(name: str, prop: PropertySchema) -> str:
    """What an editor shows for a property: its description, type and update behaviour."""
    facts = [prop.type.heat_name]
    if prop.required:
        facts.append("required")
    if prop.default is not None:
        facts.append(f"default {prop.default!r}")
    facts.append("updatable" if prop.update_allowed else "replaces on update")
    if prop.immutable:
        facts.append("immutable")
    if prop.support_status.status is not SupportLevel.SUPPORTED:
        facts.append(prop.support_status.status.value.lower())
    text = prop.description.strip() or name
    return f"{text} ({', '.join(facts)})"


#: the ``$defs`` of the plain values (a type, no constraint, no nested schema): a
#: property of one of them refers to it rather than repeating it (201 types' worth)
VALUE_DEFS_PREFIX = "#/$defs/"


def value_defs() -> dict[str, Any]:
    """The shared value schemas, one per property type, keyed ``<type>_value``."""
    return {
        f"{kind.value}_value": {"anyOf": [_CALL, {"type": "null"}, dict(_LITERALS[kind])]}
        for kind in PropertyType
    }


def property_schema(
    name: str, prop: PropertySchema, renames: Renames | None = None, where: tuple[str, ...] = ()
) -> dict[str, Any]:
    """One property's value: a call, null (the default is used), or a literal."""
    schema: dict[str, Any] = {"description": describe_property(name, prop)}
    plain = not prop.constraints and prop.schema is None and not prop.allow_conversion
    if plain:
        schema["$ref"] = f"{VALUE_DEFS_PREFIX}{prop.type.value}_value"
    else:
        schema["anyOf"] = [_CALL, {"type": "null"}, _literal(prop, renames, where)]
    if prop.support_status.status is SupportLevel.DEPRECATED:
        schema["deprecated"] = True
    if prop.default is not None:
        schema["default"] = prop.default
    return schema


def _literal(
    prop: PropertySchema, renames: Renames | None, where: tuple[str, ...]
) -> dict[str, Any]:
    kind = prop.type
    if kind is PropertyType.ANY:
        return {}
    shape = dict(_LITERALS[kind])
    if kind is PropertyType.MAP and prop.allow_conversion:
        shape = {"type": ["object", "string", "array"]}
    elif kind is PropertyType.MAP and prop.schema is not None:
        shape.update(properties_object(prop.schema, renames, where))
    elif kind is PropertyType.LIST:
        item = (prop.schema or {}).get(LIST_ITEMS)
        if item is not None:
            shape["items"] = property_schema(LIST_ITEMS, item, renames, where)
    return _constrained(shape, prop)


def _constrained(shape: dict[str, Any], prop: PropertySchema) -> dict[str, Any]:
    """The declared allowed values and bounds, where JSON Schema says the same as Heat."""
    kind = prop.type
    for constraint in prop.constraints:
        definition = constraint.definition
        allowed = constraint.kind is ConstraintKind.ALLOWED_VALUES
        if allowed and kind is PropertyType.STRING and isinstance(definition, tuple):
            values = [str(value) for value in definition]
            shape = {"type": "string", "enum": values}
        elif constraint.kind is ConstraintKind.RANGE and isinstance(definition, Bounds):
            numeric: dict[str, Any] = {"type": "number"}
            if definition.min is not None:
                numeric["minimum"] = definition.min
            if definition.max is not None:
                numeric["maximum"] = definition.max
            # a numeric string escapes the bounds (JSON Schema cannot read it as a number)
            shape = {"anyOf": [numeric, {"type": "string"}]} if "anyOf" in shape else numeric
        elif constraint.kind is ConstraintKind.LENGTH and isinstance(definition, Bounds):
            low, high = _LENGTH_KEYS.get(kind, (None, None))
            if low is not None and definition.min is not None:
                shape[low] = int(definition.min)
            if high is not None and definition.max is not None:
                shape[high] = int(definition.max)
    return shape


_LENGTH_KEYS: dict[PropertyType, tuple[str, str]] = {
    PropertyType.LIST: ("minItems", "maxItems"),
    PropertyType.MAP: ("minProperties", "maxProperties"),
}


Renames = Mapping[tuple[str, ...], Mapping[str, list[str]]]


def properties_object(
    schema: Mapping[str, PropertySchema],
    renames: Renames | None = None,
    where: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A properties mapping: its known names (no other), and which ones must be there
    (a required one renamed from an older name is there when the old name is)."""
    renames = renames or {}
    here = renames.get(where, {})
    shown = {name: prop for name, prop in schema.items() if prop.implemented}
    body: dict[str, Any] = {
        "properties": {
            name: property_schema(name, prop, renames, (*where, name))
            for name, prop in shown.items()
        },
        "additionalProperties": False,
    }
    required = sorted(name for name, prop in shown.items() if prop.required)
    plain = [name for name in required if name not in here]
    if plain:
        body["required"] = plain
    either = [
        {"anyOf": [{"required": [name]}, *({"required": [old]} for old in here[name])]}
        for name in required
        if name in here
    ]
    if either:
        body["allOf"] = either
    return body


def resource_properties(type_schema: TypeSchema) -> dict[str, Any]:
    """The ``properties`` of a resource of this type: a call, null, or the mapping."""
    body = properties_object(type_schema.properties, property_renames(type_schema.name))
    return {"anyOf": [_CALL, {"type": "null"}, {"type": "object", **body}]}


def describe_type(type_schema: TypeSchema) -> str:
    """A resource type's one-paragraph description: its status and its properties."""
    status = type_schema.support_status
    since = f" since {status.version}" if status.version else ""
    names = ", ".join(
        name for name, prop in type_schema.properties.items() if not prop.support_status.hidden
    )
    return f"{type_schema.name} ({status.status.value.lower()}{since}). Properties: {names or '-'}"
