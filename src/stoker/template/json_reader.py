"""Reading a JSON document into position-keeping nodes (a template or environment whose
first non-blank character is ``{``).

Its own module because most packages hold no JSON: the YAML path does not pay for it.
"""

from __future__ import annotations

import bisect
import codecs
import json
import re
import sys
from typing import TYPE_CHECKING, Any

from stoker.codes import SYNTAX, TOO_DEEP
from stoker.diagnostics import Diagnostic, Span
from stoker.errors import TemplateError
from stoker.template.load_findings import duplicate_key, limit_name
from stoker.template.nodes import MappingNode, SequenceNode, StrNode

if TYPE_CHECKING:
    from stoker.template.loader import LoadLimits

#: how much of a JSON file over the loader's streaming size is read first, to let the
#: limits stop it early (`probe_json`)
JSON_PROBE_BYTES = 16 * 1024 * 1024
_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_LITERALS = {"true": True, "false": False, "null": None}
_MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300  # 0 means unlimited


class JsonReader:
    """A small recursive-descent JSON reader that records the offset of every node.

    The standard library's decoder has no hook for key positions; strings still go through
    its C-accelerated ``scanstring``.
    """

    def __init__(self, text: str, file: str, limits: LoadLimits) -> None:
        self.text = text
        self.file = file
        self.limits = limits
        # Line starts are found as far as positions are asked for, so a document the
        # limits stop early is not scanned to its end.
        self.line_starts = [0]
        self.scanned = 0
        self.diagnostics: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.count = 0

    def span(self, offset: int) -> Span:
        if offset >= self.scanned:
            end = max(offset + 1, self.scanned + 65536)
            text, starts = self.text, self.line_starts
            newline = text.find("\n", self.scanned, end)
            while newline >= 0:
                starts.append(newline + 1)
                newline = text.find("\n", newline + 1, end)
            self.scanned = end
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
                f"nesting deeper than {self.limits.max_depth} levels; flatten the data or "
                f"raise the limit ({limit_name('depth')})",
                offset,
                TOO_DEEP,
            )
        self.count += 1
        if self.count > self.limits.max_nodes:
            raise self.error(
                f"the document has more than {self.limits.max_nodes:,} nodes; raise the "
                f"limit ({limit_name('nodes')})",
                offset,
                TOO_DEEP,
            )
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

    # `object` and `array` run once per container and loop once per member: the text, the
    # whitespace matcher and the containers' tables are local names there, and a member
    # that is a string or a container reuses the span it was made with (it starts where the
    # member does) instead of computing it again (a large part of the reader's time on a
    # 100 MB JSON bomb's 250,000 nodes read before the node limit stops it).

    def object(self, offset: int, depth: int) -> tuple[MappingNode, int]:
        text, space = self.text, _WHITESPACE.match
        result = MappingNode(self.span(offset))
        key_spans, value_spans = result.key_spans, result.value_spans
        offset = space(text, offset + 1).end()  # type: ignore[union-attr]
        if text.startswith("}", offset):
            return result, offset + 1
        while True:
            if not text.startswith('"', offset):
                raise self.error("JSON syntax error: expected a quoted key", offset)
            key, after_key = self.string(offset)
            self.count += 1  # a key costs as much as a value
            colon = space(text, after_key).end()  # type: ignore[union-attr]
            if not text.startswith(":", colon):
                raise self.error("JSON syntax error: expected ':' after a key", colon)
            value_start = space(text, colon + 1).end()  # type: ignore[union-attr]
            value, offset = self.value(value_start, depth + 1)
            if key in result:
                self.warnings.append(duplicate_key(key, key_spans[key], key.span))
            result[key] = value  # the last one wins, as in Heat's (json) loader
            key_spans[key] = key.span  # type: ignore[assignment]
            value_spans[key] = getattr(value, "span", None) or self.span(value_start)
            offset = space(text, offset).end()  # type: ignore[union-attr]
            if text.startswith(",", offset):
                offset = space(text, offset + 1).end()  # type: ignore[union-attr]
                continue
            if text.startswith("}", offset):
                return result, offset + 1
            raise self.error("JSON syntax error: expected ',' or '}'", offset)

    def array(self, offset: int, depth: int) -> tuple[SequenceNode, int]:
        text, space = self.text, _WHITESPACE.match
        result = SequenceNode(self.span(offset))
        item_spans = result.item_spans
        offset = space(text, offset + 1).end()  # type: ignore[union-attr]
        if text.startswith("]", offset):
            return result, offset + 1
        while True:
            value, end = self.value(offset, depth + 1)
            result.append(value)
            item_spans.append(getattr(value, "span", None) or self.span(offset))
            offset = space(text, end).end()  # type: ignore[union-attr]
            if text.startswith(",", offset):
                offset = space(text, offset + 1).end()  # type: ignore[union-attr]
                continue
            if text.startswith("]", offset):
                return result, offset + 1
            raise self.error("JSON syntax error: expected ',' or ']'", offset)


def probe_json(handle: Any, file: str, limits: LoadLimits) -> None:
    """Read the start of a large JSON file first: when the loader's limits stop it there,
    refuse it with that error without holding the whole text beside its nodes.

    The limits a prefix breaks (nodes, depth) the whole document breaks at the same place,
    and positions in the prefix are positions in the file. Any other outcome (the prefix
    ends mid-document, or parses) says nothing, and the whole file is read as usual."""
    try:  # a character cut at the end waits in the decoder; a bad byte is left to the read
        prefix = codecs.getincrementaldecoder("utf-8-sig")().decode(handle.read(JSON_PROBE_BYTES))
    except UnicodeDecodeError:
        return
    try:
        JsonReader(prefix, file, limits).read()
    except TemplateError as error:
        if any(d.code == TOO_DEEP for d in error.diagnostics):
            raise
    finally:
        del prefix
