"""Combining two values of one parameter under the ``merge``/``deep_merge`` strategies.

Heat decides how to combine by the parameter's declared type: json maps are updated (deep
merge recursing into nested maps, concatenating nested lists and strings), lists are
extended, strings concatenated, numbers and booleans refused. When the declared type is not
known the value's own shape stands in for it. Where Heat would crash on mismatched shapes
(a list merged into a string, a map into a list), the later value wins, or both are read
as lists, and the docstrings below say which.
"""

from __future__ import annotations

from typing import Any

from stoker.environment.environment import MergeStrategy
from stoker.errors import MergeRejected as MergeRejected
from stoker.limits import json_value
from stoker.template.versions import cfn_spelling

STRING = "string"
NUMBER = "number"
LIST = "comma_delimited_list"
JSON = "json"
BOOLEAN = "boolean"

#: a type's HOT and CFN spellings -> its HOT name
_TYPE_NAMES = {
    spelling: kind
    for kind in (STRING, NUMBER, LIST, JSON, BOOLEAN)
    for spelling in (kind, cfn_spelling(kind))
}

MISSING: Any = object()


def normalise_type(type_name: str | None) -> str | None:
    """HOT or CFN parameter type name → the HOT name; None when not a known type."""
    if type_name is None:
        return None
    return _TYPE_NAMES.get(type_name)


def infer_type(old: Any, new: Any) -> str:
    """The parameter type the values look like, the later value first."""
    for value in (new, old):
        if isinstance(value, dict):
            return JSON
        if isinstance(value, list):
            return LIST
        if isinstance(value, bool):
            return BOOLEAN
        if isinstance(value, int | float):
            return NUMBER
    return STRING


def merge_parameter(
    name: str,
    old: Any,
    new: Any,
    strategy: MergeStrategy,
    declared_type: str | None = None,
) -> Any:
    """Combine ``old`` (or `MISSING`) with ``new`` under ``merge`` or ``deep_merge``.

    ``declared_type`` is the parameter's type when the template that declares it is known.
    Raises `MergeRejected` for numbers and booleans (as Heat does) and for values that do
    not fit the type at all.
    """
    present = old is not MISSING and old is not None
    kind = normalise_type(declared_type) or infer_type(old if present else None, new)
    if kind in (NUMBER, BOOLEAN):
        raise MergeRejected(
            f"Invalid merge strategy '{strategy.value}' for parameter '{name}': "
            f"{'a number' if kind == NUMBER else 'a boolean'} cannot be merged; give it the "
            "overwrite strategy in parameter_merge_strategies"
        )
    if kind == JSON:
        new_value = _json(name, new)
        if new_value == "":
            return old if present else new
        old_value = _json(name, old) if present else {}
        return merge_json(old_value, new_value, deep=strategy is MergeStrategy.DEEP_MERGE)
    if kind == LIST:
        if not isinstance(new, str | list):
            raise MergeRejected(
                f"Invalid parameter in environment: '{name}' is a comma_delimited_list, "
                "so its value must be a list or a comma-separated string"
            )
        if not present or not old:
            return new
        return merge_list(old, new)
    if not isinstance(new, str):
        raise MergeRejected(
            f"Invalid parameter in environment: '{name}' is a string, so its value must be "
            f"a string to be merged"
        )
    return (old if present and isinstance(old, str) else "") + str(new)


def merge_list(old: Any, new: Any) -> list[Any]:
    """Extend a list parameter.

    Two lists are concatenated (Heat). Two comma-delimited strings follow what Heat 24 was
    measured to do: ``"a,b"`` merged with ``"c"`` gave ``["a", "c"]`` — the earlier value's
    first item, then the later value's items (see heat-semantics §0; Heat's source would
    give ``"a,b,c"``). A list and a string, which crash Heat, are both read as items and
    concatenated.
    """
    if isinstance(old, list) and isinstance(new, list):
        return [*old, *new]
    if isinstance(old, str) and isinstance(new, str):
        return [*_items(old)[:1], *_items(new)]
    return [*_items(old), *_items(new)]


def merge_json(old: Any, new: Any, *, deep: bool) -> Any:
    """Heat's map merge: ``merge`` updates the top level, ``deep_merge`` recurses.

    Deep merging concatenates nested lists and nested strings and replaces anything else.
    ``null`` values in the later map are skipped, so they cannot remove a key. A later
    value of another shape than the earlier one (Heat crashes) replaces it.
    """
    if not isinstance(new, dict):
        if isinstance(old, list) and isinstance(new, list):
            return [*old, *new]
        return new
    if not isinstance(old, dict) or not old:
        return dict(new)
    result = dict(old)
    for key, value in new.items():
        if value is None:
            continue
        if not deep:
            result[key] = value
            continue
        previous = result.get(key)
        if isinstance(value, dict):
            result[key] = merge_json(previous, value, deep=True) if previous else value
        elif isinstance(value, list):
            result[key] = [*previous, *value] if isinstance(previous, list) else value
        elif isinstance(value, str):
            result[key] = (previous if isinstance(previous, str) else "") + value
        else:
            result[key] = value
    return result


def _items(value: Any) -> list[Any]:
    if isinstance(value, list):
        return list(value)
    if value is None or value == "":
        return []
    return str(value).split(",")


def _json(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if value == "":
        return ""
    try:
        return json_value(value)
    except ValueError as error:
        raise MergeRejected(
            f"Invalid parameter in environment: '{name}' is json, and its value is not "
            f"valid JSON ({error})"
        ) from None
