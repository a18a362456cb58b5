"""A resource's results moved to new lines, in place: what an unchanged resource's text
loads and parses into when a line is inserted or deleted above it (`stoker.definition.Reuse`).

A block of text that moved by some lines and kept its text loads and parses into the same
values, each position the same but for its line. So the last check's nodes and parsed
entry of the block are moved to the new lines instead of being made again from the text;
moving them in place is what makes this cheaper than loading the block again (a copy
allocates as many objects as the loader does). They therefore belong to the new check
from then on: a caller hands the last check's results over (`stoker.lsp.analysis`) and
reads the last check no more.

Only what this module knows to carry no position other than its spans is moved: the
loader's nodes (`stoker.template.nodes`), function calls (`Function`, whose attributes
are walked), named tuples (a resource's definition), findings, and plain containers and
scalars. A parse result with anything else in it, or with a span outside the block's old
lines or in another file (a place that may have moved otherwise), is left as it was and
`entry` says so: the stage makes its results again. Objects the results share (a
mapping's positions are shared by the loaded node and the parsed one; a call is both in
its tree and in the template's list of calls) are moved once.
"""

from __future__ import annotations

from dataclasses import replace
from operator import setitem
from typing import Any

from stoker.definition.template import ResourceDefinition
from stoker.diagnostics import Diagnostic, Span
from stoker.functions.base import Function
from stoker.template.nodes import MappingNode, SequenceNode, StrNode

#: what holds no position
_AS_IS = frozenset({str, int, float, bool, type(None)})
#: a call's attributes that hold no position: its name, its path in the template (names
#: and indexes) and its template version
_POSITIONLESS = frozenset({"name", "path", "version"})

_new_tuple = tuple.__new__


class _Elsewhere(Exception):  # noqa: N818 - a signal, not an error
    """A position outside the block's old lines, or a value this module cannot move."""


class Move:
    """An unchanged block of ``file`` that was at lines ``first`` to ``last`` (1-based)
    and moved by ``by`` lines: `nodes` and `entry` move what was made of it."""

    __slots__ = ("file", "first", "last", "by", "_moved")

    def __init__(self, file: str | None, first: int, last: int, by: int) -> None:
        self.file = file
        self.first = first
        self.last = last
        self.by = by
        #: ids of the objects moved (they stay alive: the new check holds them)
        self._moved: set[int] = set()

    def __repr__(self) -> str:
        return f"Move({self.file!r}, {self.first}, {self.last}, {self.by})"

    def at(self, span: Span) -> Span:
        """A position in the block's loaded nodes, at its new line (see `nodes`)."""
        return _new_tuple(Span, (span[0], span[1] + self.by, span[2]))

    def nodes(self, value: Any) -> None:
        """Move the block's loaded nodes to its new lines. The loader makes only these
        three kinds of node, and every position in them is the block's own (they were
        loaded from its lines), so none is checked."""
        kind = type(value)
        if kind is not StrNode and kind is not MappingNode and kind is not SequenceNode:
            return
        by, moved, nodes = self.by, self._moved, self.nodes
        moved.add(id(value))
        span = value.span
        if span is not None:
            value.span = _new_tuple(Span, (span[0], span[1] + by, span[2]))
        if kind is MappingNode:
            for spans in (value.key_spans, value.value_spans):
                if id(spans) not in moved:
                    moved.add(id(spans))
                    for key, span in spans.items():
                        spans[key] = _new_tuple(Span, (span[0], span[1] + by, span[2]))
            items: Any = value.values()
        elif kind is SequenceNode:
            spans = value.item_spans
            if id(spans) not in moved:
                moved.add(id(spans))
                spans[:] = [
                    None if span is None else _new_tuple(Span, (span[0], span[1] + by, span[2]))
                    for span in spans
                ]
            items = value
        else:
            return
        for item in items:  # a string, most of them: moved here, without a call
            if type(item) is StrNode:
                moved.add(id(item))
                span = item.span
                if span is not None:
                    item.span = _new_tuple(Span, (span[0], span[1] + by, span[2]))
            elif type(item) not in _AS_IS:
                nodes(item)

    def entry(self, value: Any) -> Any | None:
        """What was parsed from the block (its definition, findings and calls), moved to
        its new lines: mutable objects in place, the others made anew. None, and
        nothing moved, when something in it cannot be (see the module's docstring)."""
        plan = _Plan(self)
        try:
            found = plan.moved(value)
        except _Elsewhere:
            return None
        for change, target, key, item in plan.changes:
            change(target, key, item)
        self._moved |= plan.seen
        return found


class _Plan:
    """The changes that move a parse result, found before any is made (so that a value
    that cannot be moved leaves everything as it was)."""

    def __init__(self, move: Move) -> None:
        self.file, self.first, self.last, self.by = move.file, move.first, move.last, move.by
        self.done = move._moved  # noqa: SLF001 - the plan is part of its Move
        self.seen: set[int] = set()
        #: (setattr or setitem, target, attribute name or key, value)
        self.changes: list[tuple[Any, Any, Any, Any]] = []

    def span(self, span: Span | None) -> Span | None:
        if span is None:
            return None
        file, line, column = span
        if file != self.file or not self.first <= line <= self.last:
            raise _Elsewhere
        return _new_tuple(Span, (file, line + self.by, column))

    def spans(self, spans: Any) -> None:
        """A mapping's key or value positions, or a sequence's item positions, unless
        moved already (the loaded node's, shared by the parsed one)."""
        key = id(spans)
        if key in self.done or key in self.seen:
            return
        self.seen.add(key)
        if type(spans) is dict:
            pairs: Any = spans.items()
        elif type(spans) is list:
            pairs = enumerate(spans)
        else:
            raise _Elsewhere
        for key, span in pairs:
            if span is not None:
                self.changes.append((setitem, spans, key, self.span(span)))

    def moved(self, value: Any) -> Any:
        """``value`` at its new lines: itself (its changes planned) or, when it cannot
        change in place, a new value."""
        kind = type(value)
        if kind in _AS_IS:
            return value
        if kind is Span:
            return self.span(value)
        if kind is ResourceDefinition:
            return self.definition(value)
        if kind is Diagnostic:
            return replace(value, span=self.span(value.span))
        if kind is tuple or (issubclass(kind, tuple) and hasattr(kind, "_fields")):
            items = [self.moved(item) for item in value]
            if all(map(_same, items, value)):
                return value
            return tuple(items) if kind is tuple else kind._make(items)
        key, done = id(value), self.done
        if key in done or key in self.seen:
            return value
        self.seen.add(key)
        changes, moved = self.changes, self.moved
        if kind is StrNode:
            changes.append((setattr, value, "span", self.span(value.span)))
        elif kind is MappingNode or kind is dict:
            if kind is MappingNode:
                changes.append((setattr, value, "span", self.span(value.span)))
                self.spans(value.key_spans)
                self.spans(value.value_spans)
            for name, item in value.items():
                if type(name) not in _AS_IS:
                    raise _Elsewhere  # a key with a position of its own: not made here
                if type(item) not in _AS_IS and id(item) not in done:
                    found = moved(item)
                    if found is not item:
                        changes.append((setitem, value, name, found))
        elif kind is SequenceNode or kind is list:
            if kind is SequenceNode:
                changes.append((setattr, value, "span", self.span(value.span)))
                self.spans(value.item_spans)
            for index, item in enumerate(value):
                if type(item) not in _AS_IS and id(item) not in done:
                    found = moved(item)
                    if found is not item:
                        changes.append((setitem, value, index, found))
        elif isinstance(value, Function):
            for name, item in value.__dict__.items():
                if name in _POSITIONLESS or type(item) in _AS_IS or id(item) in done:
                    continue
                found = self.span(item) if type(item) is Span else moved(item)
                if found is not item:
                    changes.append((setattr, value, name, found))
        else:
            raise _Elsewhere
        return value

    def definition(self, resource: ResourceDefinition) -> ResourceDefinition:
        """A resource's definition anew: its trees moved, its positions made anew (its
        name, type, dependencies' names, description and path hold none)."""
        moved, span = self.moved, self.span
        # most of a definition's trees are absent
        trees = {
            name: moved(tree)
            for name, tree in (
                ("properties", resource.properties),
                ("metadata", resource.metadata),
                ("deletion_policy", resource.deletion_policy),
                ("update_policy", resource.update_policy),
                ("condition", resource.condition),
                ("external_id", resource.external_id),
            )
            if tree is not None
        }
        return resource._replace(
            span=span(resource.span),
            depends_on_spans=tuple(map(span, resource.depends_on_spans)),
            **trees,
        )


def _same(a: Any, b: Any) -> bool:
    return a is b
