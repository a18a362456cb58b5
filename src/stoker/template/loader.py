"""Reading template and environment documents: format detection, limits, positions.

A document whose first non-blank character is ``{`` is JSON, anything else YAML (the rule
of Heat's YAML-template design). YAML is composed by libyaml when available, then turned
into position-keeping nodes here, so duplicate keys, alias bombs and excessive nesting are
caught before any value is built. Date-like scalars stay the strings the author wrote
(``heat_template_version: 2013-05-23`` must not become a ``date``).
"""

from __future__ import annotations

import bisect
import gc
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from stoker.codes import DUPLICATE_KEY, ENCODING, SYNTAX, TOO_DEEP, TOO_LARGE
from stoker.diagnostics import Diagnostic, Span
from stoker.errors import TemplateError
from stoker.template.nodes import MappingNode, SequenceNode, StrNode

try:  # libyaml's composer is several times faster than the pure-Python one
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

DEFAULT_MAX_BYTES = 512 * 1024


@dataclass(frozen=True, slots=True)
class LoadLimits:
    """Bounds that protect the loader from hostile or runaway input."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = 100
    max_nodes: int = 1_000_000


@dataclass(frozen=True, slots=True)
class Document:
    """A loaded document: its data (position-keeping nodes), its format and its file name."""

    data: Any
    format: str  # "json" | "yaml"
    file: str


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building a large acyclic tree.

    A big template allocates hundreds of thousands of nodes, and every few hundred
    allocations trigger a collection pass over all of them; none of them can be garbage
    yet. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_file(path: str, limits: LoadLimits | None = None) -> Document:
    """Load a document from disk (bytes, so encoding errors get a position)."""
    with open(path, "rb") as handle:
        raw = handle.read()
    return load_document(raw, path, limits)


def load_document(
    source: bytes | str, file: str = "<template>", limits: LoadLimits | None = None
) -> Document:
    """Parse ``source`` into nodes; raise `TemplateError` with every loader finding."""
    limits = limits or LoadLimits()
    size = len(source.encode("utf-8")) if isinstance(source, str) else len(source)
    if size > limits.max_bytes:
        raise TemplateError(
            [
                Diagnostic(
                    TOO_LARGE,
                    f"Template size ({size} bytes) exceeds maximum allowed size "
                    f"({limits.max_bytes} bytes); split it into nested templates or raise "
                    "the limit (--max-template-size)",
                    span=Span(file, 1, 1),
                )
            ]
        )
    text = _decode(source, file) if isinstance(source, bytes) else source
    with paused_gc():
        if text.lstrip().startswith("{"):
            # The YAML-template design's rule: a leading brace means JSON, strictly, so
            # a JSON typo is reported as one instead of being reread as YAML flow style.
            return Document(_JsonReader(text, file, limits).read(), "json", file)
        return Document(_load_yaml(text, file, limits), "yaml", file)


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise TemplateError(
            [
                Diagnostic(
                    ENCODING,
                    f"the file is not valid UTF-8 (byte 0x{raw[error.start]:02x}); "
                    "save it as UTF-8",
                    span=Span(file, line, column),
                )
            ]
        ) from None


# --------------------------------------------------------------------------- YAML

_SCALAR_CONSTRUCTOR = SafeConstructor()
_STR_TAG = "tag:yaml.org,2002:str"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers
_WILDCARD = _IMPLICIT.get(None, [])
_KEEP_AS_STRING = frozenset({_STR_TAG, _TIMESTAMP_TAG, "!"})
# The tags a scalar may carry explicitly (``!!int 5``): the plain YAML types, which are
# all Heat's loader accepts. ``!!seq abc`` and the like are refused, not half-built.
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "timestamp")
)
_COLLECTION_TAGS = {
    yaml.SequenceStartEvent: frozenset({None, "!", "tag:yaml.org,2002:seq"}),
    yaml.MappingStartEvent: frozenset({None, "!", "tag:yaml.org,2002:map"}),
}
_QUOTED_STYLES = frozenset({"'", '"', "|", ">"})


def _tab_indent(text: str, error_line: int) -> tuple[int, int] | None:
    """Where a tab indents a line, for a syntax error at ``error_line``: YAML forbids tabs
    in indentation, and PyYAML's own message ("found character that cannot start any
    token") does not say so. The error line itself first, else the nearest line above."""
    lines = text.splitlines()[:error_line]
    for number in range(len(lines), 0, -1):
        line = lines[number - 1]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent and line.strip():
            return number, indent.index("\t") + 1
    return None


def _load_yaml(text: str, file: str, limits: LoadLimits) -> Any:
    loader = _Loader(text)
    try:
        return _YamlBuilder(loader, file, limits).document()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        span = Span(file, mark.line + 1, mark.column + 1) if mark else Span(file, 1, 1)
        problem = f"YAML syntax error: {error.problem or error.context or 'invalid YAML'}"
        tab = _tab_indent(text, span.line)
        if tab is not None:
            span = Span(file, *tab)
            problem = "a tab character indents this line; YAML allows only spaces"
        raise TemplateError([Diagnostic(SYNTAX, problem, span=span)]) from None
    except yaml.reader.ReaderError as error:
        # a character YAML does not allow: PyYAML gives its offset, not a line
        character = error.character
        shown = f"#x{character:04x}" if isinstance(character, int) else repr(character)
        raise TemplateError(
            [
                Diagnostic(
                    SYNTAX,
                    f"YAML error: unacceptable character {shown}: {error.reason}",
                    span=_offset_span(text, error.position, file),
                )
            ]
        ) from None
    except yaml.YAMLError as error:
        raise TemplateError(
            [Diagnostic(SYNTAX, f"YAML error: {error}", span=Span(file, 1, 1))]
        ) from None
    finally:
        loader.dispose()


def _offset_span(text: str, offset: int, file: str) -> Span:
    """The line and column of character ``offset`` of ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    return Span(file, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


class _YamlBuilder:
    """Builds position-keeping nodes straight from libyaml's event stream.

    Skipping PyYAML's composer and its Python tag resolver (which walks a path-resolver
    machinery for every node) makes loading several times faster; the scalar typing rules
    are PyYAML's own (its implicit resolvers and SafeConstructor), except that date-like
    scalars stay strings. Limits are checked as events arrive, so duplicate keys, alias
    bombs and runaway nesting never build a large value.
    """

    def __init__(self, loader: Any, file: str, limits: LoadLimits) -> None:
        self.next_event = loader.get_event
        self.file = file
        self.limits = limits
        self.diagnostics: list[Diagnostic] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.open_anchors: set[str] = set()
        self.total = 0

    def span(self, event: Any) -> Span:
        mark = event.start_mark
        return Span(self.file, mark.line + 1, mark.column + 1)

    def fail(self, code: str, message: str, event: Any) -> TemplateError:
        return TemplateError([*self.diagnostics, Diagnostic(code, message, span=self.span(event))])

    def document(self) -> Any:
        event = self.next_event()  # StreamStartEvent
        event = self.next_event()
        if isinstance(event, yaml.StreamEndEvent):
            return None
        value = self.value(self.next_event(), 0)  # after DocumentStartEvent
        self.next_event()  # DocumentEndEvent
        event = self.next_event()
        if not isinstance(event, yaml.StreamEndEvent):
            raise self.fail(
                SYNTAX,
                "YAML syntax error: expected a single document, found another one; a "
                "template is one document",
                event,
            )
        if self.diagnostics:
            raise TemplateError(self.diagnostics)
        return value

    def value(self, event: Any, depth: int) -> Any:
        if depth > self.limits.max_depth:
            raise self.fail(
                TOO_DEEP,
                f"nesting deeper than {self.limits.max_depth} levels; flatten the data",
                event,
            )
        kind = type(event)
        if kind is yaml.AliasEvent:
            return self.alias(event)
        anchor = event.anchor
        before = self.total
        if anchor is not None:
            self.open_anchors.add(anchor)
        if kind is yaml.ScalarEvent:
            result = self.scalar(event)
        elif event.tag not in _COLLECTION_TAGS[kind]:
            raise self.unsupported_tag(event.tag, event)
        elif kind is yaml.SequenceStartEvent:
            result = self.sequence(event, depth)
        else:
            result = self.mapping(event, depth)
        self.total += 1
        if self.total > self.limits.max_nodes:
            raise self.too_many(event)
        if anchor is not None:
            self.open_anchors.discard(anchor)
            self.anchors[anchor] = (result, self.total - before)
        return result

    def too_many(self, event: Any) -> TemplateError:
        return self.fail(
            TOO_DEEP,
            f"the document expands to more than {self.limits.max_nodes} nodes "
            "(YAML aliases used as an expansion bomb?)",
            event,
        )

    def alias(self, event: Any) -> Any:
        name = event.anchor
        if name in self.open_anchors:
            raise self.fail(TOO_DEEP, "recursive YAML alias: an anchor refers to itself", event)
        if name not in self.anchors:
            raise self.fail(SYNTAX, f"YAML syntax error: found undefined alias {name!r}", event)
        # The shared value counts again for every place it is used, which is what stops
        # "billion laughs" documents.
        value, size = self.anchors[name]
        self.total += size
        if self.total > self.limits.max_nodes:
            raise self.too_many(event)
        return value

    def scalar(self, event: Any) -> Any:
        tag, text = event.tag, event.value
        if tag is None:
            if event.style in _QUOTED_STYLES or not event.implicit[0]:
                tag = _STR_TAG
            else:
                tag = _resolve(text)
        if tag in _KEEP_AS_STRING:
            mark = event.start_mark
            return StrNode(text, Span(self.file, mark.line + 1, mark.column + 1))
        constructor = _SCALAR_CONSTRUCTOR.yaml_constructors.get(tag)
        if constructor is None or tag not in _SCALAR_TAGS:
            raise self.unsupported_tag(tag, event)
        node = yaml.ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)
        try:
            return constructor(_SCALAR_CONSTRUCTOR, node)
        except (ValueError, KeyError, IndexError, TypeError) as error:
            # ``!!int abc``, ``!!bool maybe``, ``!!int ""``, or more digits than Python
            # converts (sys.get_int_max_str_digits).
            why = "too many digits" if "digits" in str(error) else "not that type"
            short = text if len(text) <= 40 else text[:37] + "..."
            raise self.fail(
                SYNTAX,
                f"YAML value {short!r} cannot be read as {_short_tag(tag)} ({why})",
                event,
            ) from None

    def unsupported_tag(self, tag: str, event: Any) -> TemplateError:
        return self.fail(
            SYNTAX,
            f"unsupported YAML tag {_short_tag(tag)!r}; Heat templates use plain YAML "
            "(write intrinsic functions as mappings, e.g. {get_param: name})",
            event,
        )

    def sequence(self, event: Any, depth: int) -> SequenceNode:
        result = SequenceNode(self.span(event))
        spans, file, next_event, value = result.item_spans, self.file, self.next_event, self.value
        while True:
            item = next_event()
            if type(item) is yaml.SequenceEndEvent:
                return result
            node = value(item, depth + 1)
            span = getattr(node, "span", None)
            if span is None or type(item) is yaml.AliasEvent:
                mark = item.start_mark
                span = Span(file, mark.line + 1, mark.column + 1)
            spans.append(span)
            result.append(node)

    def mapping(self, event: Any, depth: int) -> MappingNode:
        result = MappingNode(self.span(event))
        key_spans, value_spans = result.key_spans, result.value_spans
        merged: list[tuple[Any, Any, Span]] = []
        file, next_event, value_of = self.file, self.next_event, self.value
        while True:
            key_event = next_event()
            if type(key_event) is yaml.MappingEndEvent:
                break
            if type(key_event) is not yaml.ScalarEvent:
                if type(key_event) is yaml.AliasEvent:
                    raise self.fail(SYNTAX, "an alias cannot be a mapping key here", key_event)
                raise self.fail(SYNTAX, "a mapping key must be a scalar", key_event)
            if key_event.value == "<<" and not key_event.style and key_event.tag is None:
                merged.extend(self.merge_sources(self.next_event(), depth))
                continue
            key = self.scalar(key_event)
            # A node's own span and the one its container records for it are equal: share
            # one object (a large template holds hundreds of thousands of them).
            key_span = getattr(key, "span", None)
            if key_span is None:
                mark = key_event.start_mark
                key_span = Span(file, mark.line + 1, mark.column + 1)  # type: ignore[union-attr]
            elif type(key) is StrNode:
                # The mapping keeps its keys' positions (key_spans): a key needs none of its
                # own, and the few distinct keys of a template are then shared.
                key = sys.intern(str(key))
            value_event = next_event()
            value = value_of(value_event, depth + 1)
            value_span = getattr(value, "span", None)
            if value_span is None or type(value_event) is yaml.AliasEvent:
                mark = value_event.start_mark
                value_span = Span(file, mark.line + 1, mark.column + 1)
            if key in result:
                first = key_spans[key]
                self.diagnostics.append(
                    Diagnostic(
                        DUPLICATE_KEY,
                        f"duplicate key {str(key)!r} (first defined at line {first.line}, "
                        f"column {first.column}); remove one of them",
                        span=key_span,
                    )
                )
                continue
            result[key] = value
            key_spans[key] = key_span
            value_spans[key] = value_span
        for key, value, span in merged:
            if key not in result:
                result[key] = value
                key_spans[key] = span
                value_spans[key] = span
        return result

    def merge_sources(self, event: Any, depth: int) -> list[tuple[Any, Any, Span]]:
        """Entries a YAML merge key (``<<: *base``) brings in; explicit keys win."""
        source = self.value(event, depth + 1)
        sources = source if isinstance(source, SequenceNode) else [source]
        entries: list[tuple[Any, Any, Span]] = []
        for item in sources:
            if not isinstance(item, MappingNode):
                raise self.fail(SYNTAX, "a YAML merge key (<<) needs a mapping", event)
            for key, value in item.items():
                entries.append((key, value, item.key_spans.get(key, self.span(event))))
        return entries


def _short_tag(tag: str) -> str:
    """``tag:yaml.org,2002:int`` as the author wrote it: ``!!int``."""
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix) :] if tag.startswith(prefix) else tag


@lru_cache(maxsize=65536)  # templates repeat their words (keys above all)
def _resolve(text: str) -> str:
    """The implicit tag of a plain scalar, by PyYAML's YAML 1.1 rules."""
    for tag, pattern in (*_IMPLICIT.get(text[0] if text else "", ()), *_WILDCARD):
        if pattern.match(text):
            return str(tag)
    return _STR_TAG


# --------------------------------------------------------------------------- JSON

_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_LITERALS = {"true": True, "false": False, "null": None}
_MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300  # 0 means unlimited


class _JsonReader:
    """A small recursive-descent JSON reader that records the offset of every node.

    The standard library's decoder has no hook for key positions; strings still go through
    its C-accelerated ``scanstring``.
    """

    def __init__(self, text: str, file: str, limits: LoadLimits) -> None:
        self.text = text
        self.file = file
        self.limits = limits
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.diagnostics: list[Diagnostic] = []
        self.count = 0

    def span(self, offset: int) -> Span:
        line = bisect.bisect_right(self.line_starts, offset)
        return Span(self.file, line, offset - self.line_starts[line - 1] + 1)

    def error(self, message: str, offset: int, code: str = SYNTAX) -> TemplateError:
        return TemplateError([*self.diagnostics, Diagnostic(code, message, span=self.span(offset))])

    def skip(self, offset: int) -> int:
        return _WHITESPACE.match(self.text, offset).end()  # type: ignore[union-attr]

    def read(self) -> Any:
        offset = self.skip(0)
        value, offset = self.value(offset, 0)
        offset = self.skip(offset)
        if offset != len(self.text):
            raise self.error("JSON syntax error: extra data after the document", offset)
        if self.diagnostics:
            raise TemplateError(self.diagnostics)
        return value

    def value(self, offset: int, depth: int) -> tuple[Any, int]:
        if depth > self.limits.max_depth:
            raise self.error(
                f"nesting deeper than {self.limits.max_depth} levels; flatten the data",
                offset,
                TOO_DEEP,
            )
        self.count += 1
        if self.count > self.limits.max_nodes:
            raise self.error(f"more than {self.limits.max_nodes} nodes", offset, TOO_DEEP)
        char = self.text[offset : offset + 1]
        if char == "{":
            return self.object(offset, depth)
        if char == "[":
            return self.array(offset, depth)
        if char == '"':
            return self.string(offset)
        for literal, result in _LITERALS.items():
            if self.text.startswith(literal, offset):
                return result, offset + len(literal)
        match = _NUMBER.match(self.text, offset)
        if match:
            integer, fraction, exponent = match.groups()
            if fraction or exponent:
                return float(match.group(0)), match.end()
            if len(integer) > _MAX_INT_DIGITS:
                raise self.error(
                    f"JSON number with {len(integer)} digits: more than {_MAX_INT_DIGITS} "
                    "digits cannot be read as an integer",
                    offset,
                )
            return int(integer), match.end()
        if not char:
            raise self.error("JSON syntax error: unexpected end of document", offset)
        raise self.error(f"JSON syntax error: unexpected character {char!r}", offset)

    def string(self, offset: int) -> tuple[StrNode, int]:
        try:
            text, end = json.decoder.scanstring(  # type: ignore[attr-defined]  # not in stubs
                self.text, offset + 1, True
            )
        except json.JSONDecodeError as error:
            raise self.error(f"JSON syntax error: {error.msg}", error.pos) from None
        return StrNode(text, self.span(offset)), end

    def object(self, offset: int, depth: int) -> tuple[MappingNode, int]:
        result = MappingNode(self.span(offset))
        offset = self.skip(offset + 1)
        if self.text.startswith("}", offset):
            return result, offset + 1
        while True:
            if not self.text.startswith('"', offset):
                raise self.error("JSON syntax error: expected a quoted key", offset)
            key, after_key = self.string(offset)
            colon = self.skip(after_key)
            if not self.text.startswith(":", colon):
                raise self.error("JSON syntax error: expected ':' after a key", colon)
            value_start = self.skip(colon + 1)
            value, offset = self.value(value_start, depth + 1)
            if key in result:
                first = result.key_spans[key]
                self.diagnostics.append(
                    Diagnostic(
                        DUPLICATE_KEY,
                        f"duplicate key {str(key)!r} (first defined at line {first.line}, "
                        f"column {first.column}); remove one of them",
                        span=key.span,
                    )
                )
            else:
                result[key] = value
                result.key_spans[key] = key.span  # type: ignore[assignment]
                result.value_spans[key] = self.span(value_start)
            offset = self.skip(offset)
            if self.text.startswith(",", offset):
                offset = self.skip(offset + 1)
                continue
            if self.text.startswith("}", offset):
                return result, offset + 1
            raise self.error("JSON syntax error: expected ',' or '}'", offset)

    def array(self, offset: int, depth: int) -> tuple[SequenceNode, int]:
        result = SequenceNode(self.span(offset))
        offset = self.skip(offset + 1)
        if self.text.startswith("]", offset):
            return result, offset + 1
        while True:
            value, end = self.value(offset, depth + 1)
            result.append(value)
            result.item_spans.append(self.span(offset))
            offset = self.skip(end)
            if self.text.startswith(",", offset):
                offset = self.skip(offset + 1)
                continue
            if self.text.startswith("]", offset):
                return result, offset + 1
            raise self.error("JSON syntax error: expected ',' or ']'", offset)
