"""Container and string types that remember where they came from in the source file.

Mappings and sequences are ``dict``/``list`` subclasses, so every later stage treats them as
plain data; only code that reports a problem asks them for a `Span`. Scalars other than
strings cannot carry attributes (``bool`` and ``None`` are final), so a container also keeps
the span of each of its values.
"""

from __future__ import annotations

from typing import Any

from stoker.diagnostics import Path, Span


class StrNode(str):
    """A string scalar with its source position."""

    span: Span | None

    def __new__(cls, value: str, span: Span | None = None) -> StrNode:
        node = super().__new__(cls, value)
        node.span = span
        return node


class MappingNode(dict[Any, Any]):
    """A mapping with the position of itself, of each key and of each value."""

    def __init__(self, span: Span | None = None) -> None:
        super().__init__()
        self.span = span
        self.key_spans: dict[Any, Span] = {}
        self.value_spans: dict[Any, Span] = {}


class SequenceNode(list[Any]):
    """A sequence with the position of itself and of each item."""

    def __init__(self, span: Span | None = None) -> None:
        super().__init__()
        self.span = span
        self.item_spans: list[Span | None] = []


def span_of(value: Any) -> Span | None:
    """The span a node carries itself, if any."""
    return getattr(value, "span", None)


def key_span(mapping: Any, key: Any) -> Span | None:
    if isinstance(mapping, MappingNode):
        return mapping.key_spans.get(key)
    return None


def value_span(container: Any, key: Any) -> Span | None:
    """Span of ``container[key]``: the value's own, else the one its container recorded."""
    if isinstance(container, MappingNode):
        value = container.get(key)
        return span_of(value) or container.value_spans.get(key) or container.key_spans.get(key)
    if isinstance(container, SequenceNode) and isinstance(key, int) and 0 <= key < len(container):
        return span_of(container[key]) or container.item_spans[key]
    return None


def locate(root: Any, path: Path) -> Span | None:
    """The most precise span known for ``path`` below ``root``.

    Walks as far as the data goes and returns the deepest position found, so a path into a
    value computed at run time still points at the function call that produced it.
    """
    best = span_of(root)
    node = root
    for part in path:
        in_mapping = isinstance(node, dict) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if not (in_mapping or in_list):
            break
        best = value_span(node, part) or best
        node = node[part]
    return best


#: types `plain` returns as they are (a loaded template's keys and most of its scalars)
_PLAIN_AS_IS = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """Strip position information: nodes become ordinary dicts, lists and strs.

    A stack create makes a plain copy of its whole template (~10^5 nodes for 1,000
    resources using functions): the types a loader makes are told apart by ``type`` first,
    and a scalar item or key is copied without a call.
    """
    kind = type(value)
    if kind in _PLAIN_AS_IS:
        return value
    if kind is MappingNode or kind is dict:
        as_is = _PLAIN_AS_IS
        return {
            (k if type(k) in as_is else plain(k)): (
                v if type(v) in as_is else str(v) if type(v) is StrNode else plain(v)
            )
            for k, v in value.items()
        }
    if kind is SequenceNode or kind is list:
        as_is = _PLAIN_AS_IS
        return [
            v if type(v) in as_is else str(v) if type(v) is StrNode else plain(v) for v in value
        ]
    if kind is StrNode:
        return str(value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value
