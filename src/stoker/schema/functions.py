"""The intrinsic functions of one template version as JSON Schema: one shape per call.

A call is a mapping with exactly one key, the function's name; its argument's shape is
checked only at the top (a string, a list of at least N items, a mapping with its keys),
because each argument may itself be a call. The names come from the version's function
table (`stoker.functions.tables`), so a function the version does not have is no call: a
value that needs a call (a string property, say) refuses it.
"""

from __future__ import annotations

from typing import Any

from stoker.functions.base import FunctionTable
from stoker.functions.tables import describe, table_for
from stoker.template.versions import TemplateVersion

#: where a call is referenced from inside a template's schema
CALL_REF = "#/$defs/call"
CONDITION_REF = "#/$defs/condition"

_STRING: dict[str, Any] = {"type": "string"}


def _array(minimum: int, maximum: int | None = None) -> dict[str, Any]:
    shape: dict[str, Any] = {"type": "array", "minItems": minimum}
    if maximum is not None:
        shape["maxItems"] = maximum
    return shape


def _mapping(required: list[str], allowed: list[str] | None = None) -> dict[str, Any]:
    shape: dict[str, Any] = {"type": "object", "required": required}
    if allowed is not None:
        shape["properties"] = {key: {} for key in allowed}
        shape["additionalProperties"] = False
    return shape


#: the argument of each function (any version), at its top level; None: anything
_ARGUMENTS: dict[str, dict[str, Any] | None] = {
    "get_param": {"anyOf": [_STRING, _array(1)]},
    "get_resource": _STRING,
    "get_attr": _array(1),
    "get_file": _STRING,
    "resource_facade": {"enum": ["metadata", "deletion_policy", "update_policy"]},
    "str_replace": _mapping(["template", "params"], ["template", "params"]),
    "str_replace_strict": _mapping(["template", "params"], ["template", "params"]),
    "str_replace_vstrict": _mapping(["template", "params"], ["template", "params"]),
    "list_join": _array(1),
    "digest": _array(2, 2),
    "repeat": _mapping(["for_each", "template"], ["for_each", "template", "permutations"]),
    "str_split": _array(2, 3),
    "map_merge": {"type": "array"},
    "map_replace": _array(1, 2),
    "yaql": _mapping(["expression"], ["expression", "data"]),
    "if": _array(2, 3),
    "filter": _array(2, 2),
    "make_url": {"type": "object"},
    "list_concat": {"type": "array"},
    "list_concat_unique": {"type": "array"},
    "contains": _array(2, 2),
    "equals": _array(2, 2),
    "not": None,
    "and": _array(2),
    "or": _array(2),
    "Ref": _STRING,
    "Fn::GetAZs": None,
    "Fn::Join": _array(2, 2),
    "Fn::Split": _array(2, 2),
    "Fn::Replace": _array(2, 2),
    "Fn::Select": _array(2, 2),
    "Fn::Base64": None,
    "Fn::MemberListToMap": _array(3, 3),
    "Fn::ResourceFacade": {"enum": ["Metadata", "DeletionPolicy", "UpdatePolicy"]},
    "Fn::FindInMap": _array(3, 3),
    "Fn::GetAtt": _array(2, 2),
    "Fn::If": _array(3, 3),
    "Fn::Equals": _array(2, 2),
    "Fn::Not": _array(1, 1),
    "Fn::And": _array(2),
    "Fn::Or": _array(2),
}


def argument_shape(name: str, version: TemplateVersion) -> dict[str, Any]:
    """The top-level shape of ``name``'s argument in ``version`` (what differs by
    version: ``if`` takes two items from 2021-04-16 on, ``get_attr`` one from 2015-10-15)."""
    if name == "if" and version.value < "2021-04-16":
        return _array(3, 3)
    if name == "get_attr":
        minimum = 1 if version.value >= "2015-10-15" else 2
        return _array(minimum)
    shape = _ARGUMENTS.get(name)
    return {} if shape is None else dict(shape)


def call_schema(names: list[str], version: TemplateVersion, what: str) -> dict[str, Any]:
    """A call of one of ``names``: a one-key mapping whose value has that function's
    argument's shape (one schema, not one per function: quicker to check, and an editor
    completes the names from its ``propertyNames``)."""
    table = table_for(version)
    return {
        "type": "object",
        "description": f"{what} of {version}",
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": {"enum": names},
        "properties": {
            name: {**argument_shape(name, version), "description": signature(name, table)}
            for name in names
        },
    }


def function_names(version: TemplateVersion) -> list[str]:
    """The functions a template of ``version`` may call in its values, sorted."""
    return sorted(table_for(version).functions)


def condition_names(version: TemplateVersion) -> list[str]:
    """The functions a condition of ``version`` may call, sorted."""
    return sorted(table_for(version).conditions)


def signature(name: str, table: FunctionTable) -> str:
    """One line for a function: its name, what it does, and its argument's shape."""
    factory = table.functions.get(name) or table.conditions.get(name)
    summary = describe(factory) if factory is not None else ""
    shape = argument_shape(name, table.version)
    return f"{name}: {summary} (argument: {_shape_words(shape)})".replace(" ()", "")


def _shape_words(shape: dict[str, Any]) -> str:
    if "enum" in shape:
        return "one of " + ", ".join(str(value) for value in shape["enum"])
    if "anyOf" in shape:
        return " or ".join(_shape_words(option) for option in shape["anyOf"])
    kind = shape.get("type")
    if kind == "array":
        low, high = shape.get("minItems", 0), shape.get("maxItems")
        count = f"{low}" if high == low else f"{low}+" if high is None else f"{low}-{high}"
        return f"a list of {count} items"
    if kind == "object":
        keys = list(shape.get("properties", {})) or shape.get("required", [])
        return "a mapping" + (f" of {', '.join(keys)}" if keys else "")
    if kind == "string":
        return "a string"
    return "any value"


def calls_schema(version: TemplateVersion) -> dict[str, Any]:
    """A call of one of ``version``'s value functions."""
    return call_schema(function_names(version), version, "an intrinsic function")


def conditions_schema(version: TemplateVersion) -> dict[str, Any]:
    """A condition: a boolean, a condition's name, or a call of a condition function."""
    names = condition_names(version)
    if not names:
        return {"type": ["boolean", "string"]}
    calls = call_schema(names, version, "a condition function")
    return {"anyOf": [{"type": ["boolean", "string"]}, calls]}
