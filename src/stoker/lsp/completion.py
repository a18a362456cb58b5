"""Completion: what may be written where the cursor is, from the parsed template (the last
one that parsed) and stoker's tables.

Sections, resource keys, resource types, property names and allowed values, names of
resources (``get_resource``, ``depends_on``, ``get_attr``), attributes (``get_attr``'s
second item), parameters (``get_param``), conditions, and the functions of the version.
"""

from __future__ import annotations

import os
import re

from lsprotocol import types

from stoker.functions.tables import table_for
from stoker.lint.context import TemplateContext
from stoker.lsp.cursor import Cursor
from stoker.lsp.knowledge import (
    allowed_values,
    attributes_of,
    properties_of,
    property_schema,
    type_names,
)
from stoker.schema import signature
from stoker.template.versions import LATEST_HOT, TemplateVersion

Items = list[types.CompletionItem]

_GET_ATTR_FIRST = re.compile(r"get_attr:\s*\[\s*([\w\-]*)$")
_GET_ATTR_SECOND = re.compile(r"get_attr:\s*\[\s*([\w\-]+)\s*,\s*([\w\-]*)$")
_GET_RESOURCE = re.compile(r"get_resource:\s*([\w\-]*)$")
_GET_PARAM = re.compile(r"get_param:\s*\[?\s*([\w\-]*)$")
_DEPENDS_ON = re.compile(r"depends_on:\s*\[?(?:\s*[\w\-]+\s*,)*\s*([\w\-]*)$")
_CONDITION = re.compile(r"(?:condition:|if:\s*\[)\s*([\w\-]*)$")


def _items(names: dict[str, str] | list[str], kind: types.CompletionItemKind) -> Items:
    if isinstance(names, list):
        names = {name: "" for name in names}
    return [
        types.CompletionItem(label=name, kind=kind, detail=detail.split("\n")[0][:120] or None)
        for name, detail in sorted(names.items())
    ]


def complete(unit: TemplateContext | None, cursor: Cursor, path: str) -> Items:
    """The completions at ``cursor`` in the file at ``path``."""
    version = unit.parsed.version if unit is not None else LATEST_HOT
    before = cursor.before
    parsed = unit.parsed if unit is not None else None
    resources = sorted(parsed.resources) if parsed is not None else []
    reference = types.CompletionItemKind.Reference
    if match := _GET_ATTR_SECOND.search(before):
        return _items(attributes_of(unit, match[1]), types.CompletionItemKind.Field)
    block = _in_block(unit, cursor)
    if block is not None:
        return block
    if _GET_ATTR_FIRST.search(before) or _GET_RESOURCE.search(before):
        return _items(resources, reference)
    if _DEPENDS_ON.search(before) or (cursor.path[-1:] == ("depends_on",) and "- " in before):
        return _items(resources, reference)
    if _GET_PARAM.search(before):
        return _items(sorted(parsed.parameters) if parsed is not None else [], reference)
    if _CONDITION.search(before):
        return _items(sorted(parsed.conditions) if parsed is not None else [], reference)
    return _by_place(unit, cursor, path, version)


#: functions whose arguments name a resource: the first item of a list, or the value
_NAMES_A_RESOURCE = frozenset({"get_attr", "get_resource", "depends_on", "Fn::GetAtt", "Ref"})


def _in_block(unit: TemplateContext | None, cursor: Cursor) -> Items | None:
    """Completions of an argument written in block style, on a line of its own:

    get_attr:          get_param:        depends_on:      get_resource:
      - server           - flavor          - network        server
      - |                                  - |
    """
    if cursor.key is not None or not cursor.path:
        return None
    parent = cursor.path[-1]
    parsed = unit.parsed if unit is not None else None
    reference = types.CompletionItemKind.Reference
    items = cursor.items
    if items is None and cursor.before.lstrip(" ") != cursor.word:
        return None  # more than a word on the line: not an argument being typed
    position = len(items) if items is not None else 0
    if parent in ("get_attr", "Fn::GetAtt") and items is not None and position == 1:
        return _items(attributes_of(unit, items[0]), types.CompletionItemKind.Field)
    if parent in _NAMES_A_RESOURCE and (position == 0 or parent == "depends_on"):
        return _items(sorted(parsed.resources) if parsed is not None else [], reference)
    if parent == "get_param" and position == 0:
        return _items(sorted(parsed.parameters) if parsed is not None else [], reference)
    if parent == "condition" and items is None:
        return _items(sorted(parsed.conditions) if parsed is not None else [], reference)
    return None


def _by_place(
    unit: TemplateContext | None, cursor: Cursor, path: str, version: TemplateVersion
) -> Items:
    where = cursor.path
    key = cursor.key
    keyword = types.CompletionItemKind.Keyword
    if not where and key is None:
        return _items(sorted(version.sections), keyword)
    if len(where) == 2 and where[0] == "resources":
        if key == "type":
            directory = os.path.dirname(path)
            return _items(type_names(unit, directory), types.CompletionItemKind.Class)
        if key is None:
            return _items(sorted(version.resource_keys), keyword)
        if key == "deletion_policy":
            return _items(["Delete", "Retain", "Snapshot"], types.CompletionItemKind.EnumMember)
    if len(where) == 3 and where[0] == "resources" and where[2] == "properties":
        if key is None:
            return _items(properties_of(unit, where[1]), types.CompletionItemKind.Property)
        values = allowed_values(property_schema(unit, where[1], key))
        return _items(values, types.CompletionItemKind.EnumMember) + _functions(version)
    if key is not None or len(where) > 3:
        return _functions(version)
    return []


def _functions(version: TemplateVersion) -> Items:
    table = table_for(version)
    return [
        types.CompletionItem(
            label=name,
            kind=types.CompletionItemKind.Function,
            detail=signature(name, table)[:120],
        )
        for name in sorted(table.functions)
    ]
