"""The YAML half of `stoker.template.loader`: libyaml's events turned into
position-keeping nodes, with the loader's limits checked as they arrive.

Its own module so that PyYAML (~1 MB of a process's memory) is imported with the first
YAML document read, not by everything that imports the loader: ``stoker serve`` driven
by the OpenStack clients receives templates already parsed, in JSON bodies.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import yaml
from yaml.constructor import SafeConstructor

from stoker.codes import SYNTAX, TOO_DEEP, TOO_LARGE
from stoker.diagnostics import Diagnostic, Span
from stoker.errors import TemplateError
from stoker.template.load_findings import duplicate_key, limit_name
from stoker.template.nodes import MappingNode, SequenceNode, StrNode

if TYPE_CHECKING:
    from stoker.template.loader import LoadLimits

try:  # libyaml's composer is several times faster than the pure-Python one
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


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
_new_str = str.__new__
_ScalarEvent = yaml.ScalarEvent
_AliasEvent = yaml.AliasEvent
_SequenceEndEvent = yaml.SequenceEndEvent
_MappingEndEvent = yaml.MappingEndEvent
_new_dict = dict.__new__
_new_list = list.__new__
_new_tuple = tuple.__new__


def _tab_indent(lines: list[str], error_line: int) -> tuple[int, int] | None:
    """Where a tab indents a line, for a syntax error at ``error_line``: YAML forbids tabs
    in indentation, and PyYAML's own message ("found character that cannot start any
    token") does not say so. The error line itself first, else the nearest line above."""
    lines = lines[:error_line]
    for number in range(len(lines), 0, -1):
        line = lines[number - 1]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent and line.strip():
            return number, indent.index("\t") + 1
    return None


def _first_lines(source: Any, count: int) -> list[str]:
    """The first ``count`` lines of the text or binary stream being loaded."""
    if isinstance(source, str):
        return source.splitlines()[:count]
    source.seek(0)
    lines = []
    for number, line in enumerate(source, 1):
        if number > count:
            break
        lines.append(line.decode("utf-8", "replace").rstrip("\r\n"))
    return lines


def load_yaml(source: Any, file: str, limits: LoadLimits, warnings: list[Diagnostic]) -> Any:
    """Nodes from YAML ``source``: text, or a binary file that libyaml reads in pieces."""
    loader = _Loader(source)
    try:
        builder = _YamlBuilder(loader, file, limits)
        value = builder.document()
        warnings.extend(builder.warnings)
        return value
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        span = Span(file, mark.line + 1, mark.column + 1) if mark else Span(file, 1, 1)
        problem = f"YAML syntax error: {error.problem or error.context or 'invalid YAML'}"
        tab = _tab_indent(_first_lines(source, span.line), span.line)
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
                    span=_offset_span(_text_of(source), error.position, file),
                )
            ]
        ) from None
    except yaml.YAMLError as error:
        raise TemplateError(
            [Diagnostic(SYNTAX, f"YAML error: {error}", span=Span(file, 1, 1))]
        ) from None
    finally:
        loader.dispose()


def _text_of(source: Any) -> str:
    """The text being loaded: ``source`` itself, or the binary file read again (only on
    the way to an error, so a large file is read whole only then)."""
    if isinstance(source, str):
        return source
    source.seek(0)
    return str(source.read().decode("utf-8", "replace"))


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
        self.warnings: list[Diagnostic] = []
        self.anchors: dict[str, tuple[Any, int, int]] = {}
        self.open_anchors: set[str] = set()
        self.max_depth = limits.max_depth
        self.max_nodes = limits.max_nodes
        self.max_expanded = limits.max_expanded
        self.total = 0  # nodes, aliases expanded
        self.chars = 0  # characters of scalar text, aliases expanded

    def span(self, event: Any) -> Span:
        mark = event.start_mark
        return _new_tuple(Span, (self.file, mark.line + 1, mark.column + 1))

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
        if depth > self.max_depth:
            raise self.fail(
                TOO_DEEP,
                f"nesting deeper than {self.limits.max_depth} levels; flatten the data or "
                f"raise the limit ({limit_name('depth')})",
                event,
            )
        kind = type(event)
        anchor = event.anchor
        if kind is _ScalarEvent and anchor is None:  # most values: no bookkeeping
            result = self.scalar(event)
            self.total += 1
            if self.total > self.max_nodes:
                raise self.too_many(event)
            return result
        if kind is yaml.AliasEvent:
            return self.alias(event)
        before, chars_before = self.total, self.chars
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
            self.anchors[anchor] = (result, self.total - before, self.chars - chars_before)
        return result

    def too_many(self, event: Any) -> TemplateError:
        if self.chars > self.limits.max_expanded:
            return self.fail(
                TOO_LARGE,
                f"the document's text expands to more than {self.limits.max_expanded:,} "
                "characters (YAML aliases used as an expansion bomb?); raise the limit "
                f"({limit_name('expanded_size')})",
                event,
            )
        return self.fail(
            TOO_DEEP,
            f"the document expands to more than {self.limits.max_nodes:,} nodes (YAML "
            f"aliases used as an expansion bomb?); raise the limit ({limit_name('nodes')})",
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
        value, size, chars = self.anchors[name]
        self.total += size
        self.chars += chars
        if self.total > self.limits.max_nodes or self.chars > self.limits.max_expanded:
            raise self.too_many(event)
        return value

    def scalar(self, event: Any) -> Any:
        tag, text = event.tag, event.value
        self.chars += len(text)
        if self.chars > self.limits.max_expanded:
            raise self.too_many(event)
        if tag is None:
            if event.style in _QUOTED_STYLES or not event.implicit[0]:
                tag = _STR_TAG
            else:
                tag = _resolve(text)
        if tag in _KEEP_AS_STRING:
            string = _new_str(StrNode, text)  # StrNode(text, span) without its Python __new__
            string.span = self.span(event)
            return string
        return self.typed(tag, text, event)

    def typed(self, tag: str, text: str, event: Any) -> Any:
        """A scalar of YAML type ``tag`` other than a string: null, bool, int or float."""
        if tag not in _SCALAR_TAGS or tag not in _SCALAR_CONSTRUCTOR.yaml_constructors:
            raise self.unsupported_tag(tag, event)
        try:
            return _construct(tag, text)
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

    def plain(self, event: Any) -> tuple[Any, Span]:
        """A plain scalar (no anchor, no tag, not too deep) and its position: what `value`
        and `scalar` make of it, in one call, with the limits checked as they check them
        at the same event. `mapping` and `sequence` take most of their items this way."""
        text = event.value
        self.chars += len(text)
        if self.chars > self.max_expanded:
            raise self.too_many(event)
        mark = event.start_mark
        span = _new_tuple(Span, (self.file, mark.line + 1, mark.column + 1))
        if event.style in _QUOTED_STYLES or not event.implicit[0]:
            node: Any = _new_str(StrNode, text)
            node.span = span
        else:
            tag = _resolve(text)
            if tag in _KEEP_AS_STRING:
                node = _new_str(StrNode, text)
                node.span = span
            else:
                node = self.typed(tag, text, event)
        self.total += 1
        if self.total > self.max_nodes:
            raise self.too_many(event)
        return node, span

    def sequence(self, event: Any, depth: int) -> SequenceNode:
        result = _new_list(SequenceNode)  # SequenceNode(span) without its Python __init__
        result.span = self.span(event)
        spans: list[Span | None] = []
        result.item_spans = spans
        next_event, value, plain = self.next_event, self.value, self.plain
        append, append_span = result.append, spans.append
        span: Any
        # Items too deep go the slow way (value), which refuses them with its message.
        fast = depth + 1 <= self.max_depth
        while True:
            item = next_event()
            kind = type(item)
            if kind is _ScalarEvent and fast and item.anchor is None and item.tag is None:
                node, span = plain(item)
            elif kind is _SequenceEndEvent:
                return result
            else:
                node = value(item, depth + 1)
                span = getattr(node, "span", None)
                if span is None or kind is _AliasEvent:
                    span = self.span(item)
            append_span(span)
            append(node)

    def mapping(self, event: Any, depth: int) -> MappingNode:
        result = _new_dict(MappingNode)  # MappingNode(span) without its Python __init__
        result.span = self.span(event)
        key_spans: dict[Any, Span] = {}
        value_spans: dict[Any, Span] = {}
        result.key_spans, result.value_spans = key_spans, value_spans
        merged: list[tuple[Any, Any, Span]] = []
        file, next_event, value_of, plain = self.file, self.next_event, self.value, self.plain
        intern, resolve = sys.intern, _resolve
        mark: Any  # libyaml's, never None
        value_span: Any
        # Values too deep go the slow way (value), which refuses them with its message.
        fast = depth + 1 <= self.max_depth
        while True:
            key_event = next_event()
            kind = type(key_event)
            if kind is not _ScalarEvent:
                if kind is _MappingEndEvent:
                    break
                if kind is _AliasEvent:
                    raise self.fail(SYNTAX, "an alias cannot be a mapping key here", key_event)
                raise self.fail(SYNTAX, "a mapping key must be a scalar", key_event)
            text = key_event.value
            tag = key_event.tag
            style = key_event.style
            if text == "<<" and not style and tag is None:
                merged.extend(self.merge_sources(next_event(), depth))
                continue
            mark = key_event.start_mark
            key_span = _new_tuple(Span, (file, mark.line + 1, mark.column + 1))
            if tag is None and (
                style in _QUOTED_STYLES
                or not key_event.implicit[0]
                or resolve(text) in _KEEP_AS_STRING
            ):
                # A string key: the mapping keeps its position (key_spans), so it needs no
                # node of its own, and the few distinct keys of a template are shared.
                self.chars += len(text)
                if self.chars > self.max_expanded:
                    raise self.too_many(key_event)
                key = intern(text)
            else:
                key = self.scalar(key_event)
                if type(key) is StrNode:
                    key = intern(str(key))
            self.total += 1  # a key costs as much as a value
            value_event = next_event()
            if (
                type(value_event) is _ScalarEvent
                and fast
                and value_event.anchor is None
                and value_event.tag is None
            ):
                value, value_span = plain(value_event)
            else:
                value = value_of(value_event, depth + 1)
                value_span = getattr(value, "span", None)
                if value_span is None or type(value_event) is _AliasEvent:
                    value_span = self.span(value_event)
            if key in result:
                self.warnings.append(duplicate_key(key, key_spans[key], key_span))
            result[key] = value  # the last one wins, as in Heat's loader
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


@lru_cache(maxsize=4096)  # templates repeat their numbers and booleans
def _construct(tag: str, text: str) -> Any:
    """The value of a scalar of YAML type ``tag`` (null, bool, int, float: all immutable,
    so one value can stand for every scalar written the same way), by PyYAML's rules."""
    constructor = _SCALAR_CONSTRUCTOR.yaml_constructors[tag]
    return constructor(_SCALAR_CONSTRUCTOR, yaml.ScalarNode(tag, text))


@lru_cache(maxsize=65536)  # templates repeat their words (keys above all)
def _resolve(text: str) -> str:
    """The implicit tag of a plain scalar, by PyYAML's YAML 1.1 rules."""
    for tag, pattern in (*_IMPLICIT.get(text[0] if text else "", ()), *_WILDCARD):
        if pattern.match(text):
            return str(tag)
    return _STR_TAG
