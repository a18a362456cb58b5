"""Where a template defines and uses its names: resources, parameters, conditions, outputs.

Built from the parsed template the linter already made (its nodes keep their positions,
its function calls are listed with their arguments), never by parsing the text again.
A `Mark` is a name at an exact place: the definitions are the section's keys; the uses
are ``get_resource``, the first item of ``get_attr``, ``depends_on``, ``get_param`` and
``condition`` values. Renaming edits every mark of a name.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from stoker.definition import Template
from stoker.diagnostics import Span
from stoker.functions.base import Function
from stoker.template.nodes import MappingNode, SequenceNode, span_of

RESOURCE = "resource"
PARAMETER = "parameter"
CONDITION = "condition"
OUTPUT = "output"

#: the section each kind of name is defined in (HOT spelling)
SECTIONS = {
    RESOURCE: "resources",
    PARAMETER: "parameters",
    CONDITION: "conditions",
    OUTPUT: "outputs",
}


class Mark(NamedTuple):
    """A name written at a place: 0-based line and column of its first character."""

    kind: str
    name: str
    line: int
    column: int
    definition: bool

    @property
    def end(self) -> int:
        return self.column + len(self.name)

    def covers(self, line: int, column: int) -> bool:
        return line == self.line and self.column <= column <= self.end


class Index:
    """Every definition and use of the template's names, in the buffer's coordinates."""

    def __init__(self, template: Template, lines: list[str]) -> None:
        self.template = template
        self.lines = lines
        self.marks: list[Mark] = []
        data = template.document.data
        if isinstance(data, MappingNode):
            for kind, section in SECTIONS.items():
                body = data.get(getattr(template.names, section))
                if isinstance(body, MappingNode):
                    for name, key in body.key_spans.items():
                        self._add(kind, str(name), key, True)
        for call in template.calls:
            self._call(call)
        for resource in template.resources.values():
            spans = resource.depends_on_spans
            for name, where in zip(resource.depends_on, spans, strict=False):
                self._add(RESOURCE, name, where, False)
            if isinstance(resource.condition, str):
                self._add(CONDITION, resource.condition, span_of(resource.condition), False)
        for output in template.outputs.values():
            if isinstance(output.condition, str):
                self._add(CONDITION, output.condition, span_of(output.condition), False)

    def _call(self, call: Function) -> None:
        args = call.args
        if call.name == "get_resource":
            self._add(RESOURCE, args, span_of(args), False)
        elif call.name in ("get_param", "get_attr"):
            kind = PARAMETER if call.name == "get_param" else RESOURCE
            if isinstance(args, SequenceNode) and args:
                self._add(kind, args[0], span_of(args[0]) or args.item_spans[0], False)
            elif kind is PARAMETER:
                self._add(kind, args, span_of(args), False)
        elif call.name == "if" and isinstance(args, SequenceNode) and args:
            self._add(CONDITION, args[0], span_of(args[0]) or args.item_spans[0], False)

    def _add(self, kind: str, name: Any, span: Span | None, definition: bool) -> None:
        """Record ``name`` where it is written: at the span, or just after it (a quoted
        scalar's span is its quote; a flow item's may be its separator)."""
        if not isinstance(name, str) or span is None or not name:
            return
        line = span.line - 1
        if not 0 <= line < len(self.lines):
            return
        column = self.lines[line].find(name, max(span.column - 1, 0))
        if column < 0:
            return
        self.marks.append(Mark(kind, str(name), line, column, definition))

    def at(self, line: int, column: int) -> Mark | None:
        """The mark under the cursor, if any."""
        return next((mark for mark in self.marks if mark.covers(line, column)), None)

    def of(self, kind: str, name: str) -> list[Mark]:
        """Every mark of one name, its definition first."""
        found = [mark for mark in self.marks if mark.kind == kind and mark.name == name]
        return sorted(found, key=lambda mark: (not mark.definition, mark.line, mark.column))

    def definition(self, kind: str, name: str) -> Mark | None:
        return next((m for m in self.of(kind, name) if m.definition), None)

    def definitions(self, kind: str) -> list[Mark]:
        return [mark for mark in self.marks if mark.kind == kind and mark.definition]

    def extent(self, mark: Mark) -> int:
        """The last line of a definition's entry: the line before the next key at its
        indentation or less (or the end of the buffer)."""
        indent = mark.column
        for number in range(mark.line + 1, len(self.lines)):
            text = self.lines[number]
            stripped = text.lstrip()
            if stripped and not stripped.startswith("#") and len(text) - len(stripped) <= indent:
                return max(number - 1, mark.line)
        return max(len(self.lines) - 1, mark.line)
