"""Hover, go to definition, references, rename and the outline of a template.

Names come from the `Index` of the parsed template (exact positions of every definition
and use); what is said about them from `stoker.lsp.knowledge` and the function tables.
"""

from __future__ import annotations

import os
import re

from lsprotocol import types
from pygls.uris import from_fs_path

from stoker.functions.tables import table_for
from stoker.lint.context import TemplateContext
from stoker.lsp.cursor import cursor_at
from stoker.lsp.knowledge import (
    attributes_of,
    parameter_text,
    property_schema,
    provider_file,
    resource_type,
    type_description,
)
from stoker.lsp.symbols import CONDITION, OUTPUT, PARAMETER, RESOURCE, SECTIONS, Index, Mark
from stoker.schema import describe_property, signature

_TOKEN = re.compile(r"[\w:.\-/]+")
#: ``get_attr: [resource, `` before an attribute's name
_GET_ATTR_BEFORE = re.compile(r"get_attr:\s*\[\s*([\w\-]+)\s*,\s*$")


def word_at(line: str, column: int) -> tuple[str, int] | None:
    """The name under the cursor (letters, digits, ``_:.-/``) and where it starts."""
    for match in _TOKEN.finditer(line):
        if match.start() <= column <= match.end():
            return match[0].rstrip(":") or match[0], match.start()  # a key without its colon
    return None


def to_range(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))


def mark_range(mark: Mark) -> types.Range:
    return to_range(mark.line, mark.column, mark.end)


def hover(unit: TemplateContext, index: Index, line: int, column: int) -> str | None:
    """Markdown about the thing under the cursor: a resource type, a property, a
    parameter, a resource, a condition, or a function of the template's version."""
    text = index.lines[line] if line < len(index.lines) else ""
    found = word_at(text, column)
    if found is None:
        return None
    word, start = found
    mark = index.at(line, column)
    if mark is not None:
        if mark.kind == PARAMETER:
            return parameter_text(unit, mark.name)
        if mark.kind == RESOURCE:
            kind = resource_type(unit, mark.name)
            described = type_description(unit, kind) if kind else None
            return f"resource {mark.name}: {kind}" + (f"\n\n{described}" if described else "")
        if mark.kind == CONDITION:
            return f"condition {mark.name}"
        return f"output {mark.name}"
    name = word.rstrip(":")
    attribute = _GET_ATTR_BEFORE.search(text[:start])
    if attribute is not None:
        described = attributes_of(unit, attribute[1]).get(name)
        return None if described is None else f"attribute {name} of {attribute[1]}: {described}"
    table = table_for(unit.parsed.version)
    after = text[start + len(name) :].lstrip()
    if after.startswith(":") and (name in table.functions or name in table.conditions):
        return f"`{signature(name, table)}`"
    cursor = cursor_at(index.lines, line, start)
    where = cursor.path
    if cursor.key == "type" and len(where) == 2 and where[0] == "resources":
        return type_description(unit, name)
    if len(where) == 3 and where[0] == "resources" and where[2] == "properties":
        prop = property_schema(unit, where[1], name)
        if prop is not None and after.startswith(":"):
            return f"**{name}**: {describe_property(name, prop)}"
    return None


def definition(
    unit: TemplateContext, index: Index, line: int, column: int, path: str
) -> types.Location | None:
    """Where the name under the cursor is defined; a provider type: its file."""
    mark = index.at(line, column)
    uri = _uri(path)
    if mark is not None:
        target = index.definition(mark.kind, mark.name)
        return types.Location(uri, mark_range(target)) if target is not None else None
    cursor = cursor_at(index.lines, line, column)
    if cursor.key == "type" and len(cursor.path) == 2 and cursor.path[0] == "resources":
        file = provider_file(unit, cursor.path[1], os.path.dirname(path))
        if file is not None:
            return types.Location(_uri(file), to_range(0, 0, 0))
    return None


def references(
    index: Index, line: int, column: int, path: str, declaration: bool
) -> list[types.Location]:
    mark = index.at(line, column)
    if mark is None:
        return []
    uri = _uri(path)
    return [
        types.Location(uri, mark_range(found))
        for found in index.of(mark.kind, mark.name)
        if declaration or not found.definition
    ]


def rename(index: Index, line: int, column: int, new: str, path: str) -> types.WorkspaceEdit | None:
    """Every definition and use of a resource or parameter, renamed."""
    mark = index.at(line, column)
    if mark is None or mark.kind not in (RESOURCE, PARAMETER) or not new:
        return None
    edits = [types.TextEdit(mark_range(found), new) for found in index.of(mark.kind, mark.name)]
    return types.WorkspaceEdit(changes={_uri(path): edits})


def can_rename(index: Index, line: int, column: int) -> types.Range | None:
    mark = index.at(line, column)
    if mark is None or mark.kind not in (RESOURCE, PARAMETER):
        return None
    return mark_range(mark)


_SYMBOL_KINDS = {
    PARAMETER: types.SymbolKind.Variable,
    RESOURCE: types.SymbolKind.Object,
    OUTPUT: types.SymbolKind.Property,
    CONDITION: types.SymbolKind.Boolean,
}


def symbols(unit: TemplateContext, index: Index) -> list[types.DocumentSymbol]:
    """The outline: one symbol per section, with its parameters, resources, outputs."""
    outline = []
    for kind in (PARAMETER, CONDITION, RESOURCE, OUTPUT):
        marks = index.definitions(kind)
        if not marks:
            continue
        children = []
        for mark in marks:
            end = index.extent(mark)
            detail = resource_type(unit, mark.name) if kind == RESOURCE else None
            children.append(
                types.DocumentSymbol(
                    name=mark.name,
                    kind=_SYMBOL_KINDS[kind],
                    range=to_range(mark.line, 0, 0)
                    if end == mark.line
                    else types.Range(
                        types.Position(mark.line, 0), types.Position(end, len(index.lines[end]))
                    ),
                    selection_range=mark_range(mark),
                    detail=detail,
                )
            )
        first, last = children[0].range.start.line, children[-1].range.end
        section = SECTIONS[kind]
        start = max(first - 1, 0)
        outline.append(
            types.DocumentSymbol(
                name=section,
                kind=types.SymbolKind.Namespace,
                range=types.Range(types.Position(start, 0), last),
                selection_range=to_range(start, 0, len(section)),
                children=children,
            )
        )
    return outline


def _uri(path: str) -> str:
    return from_fs_path(path) or f"file://{path}"
