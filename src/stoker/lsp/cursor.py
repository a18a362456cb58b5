"""Where the cursor is in a YAML buffer, read from its text (which may not parse while
it is being typed): the keys above it by indentation, and what is written before it.

    resources:
      server:
        properties:
          fla|          -> path (resources, server, properties), key position, word "fla"
"""

from __future__ import annotations

import re
from typing import NamedTuple

_WORD = re.compile(r"[\w:.\-/]*$")
_KEY = re.compile(r"^(\s*)(?:-\s+)?([^\s:#'\"][^:#]*?|'[^']*'|\"[^\"]*\")\s*:(\s|$)")


class Cursor(NamedTuple):
    """``path``: the keys of the block mappings above the cursor's line; ``key``: the key
    the cursor's value belongs to (None at a key position); ``before``: the line's text
    before the cursor; ``word``: the part of a name the cursor is at the end of."""

    path: tuple[str, ...]
    key: str | None
    before: str
    word: str
    indent: int
    #: when the cursor's line is an item of a block sequence (``- ...``): the earlier
    #: items of that sequence, as written (``get_attr:`` then ``- server``, ``- |``)
    items: tuple[str, ...] | None = None


def _key_of(line: str) -> tuple[int, str] | None:
    match = _KEY.match(line)
    if match is None:
        return None
    indent = len(match[1])
    if line[indent:].startswith("- "):  # a mapping item of a list: its key is deeper
        indent += 2
    return indent, match[2].strip("'\"")


def cursor_at(lines: list[str], line: int, column: int) -> Cursor:
    text = lines[line] if 0 <= line < len(lines) else ""
    before = text[:column]
    word_match = _WORD.search(before)
    word = word_match[0] if word_match else ""
    stripped = before.lstrip()
    indent = len(before) - len(stripped)
    items: tuple[str, ...] | None = None
    if stripped.startswith("- "):
        items = _earlier_items(lines, line, indent)
        indent += 2
    own = _key_of(text)
    key: str | None = None
    if own is not None and ":" in before[own[0] :]:
        key = own[1]  # the cursor is after this line's "key:"
    path: list[str] = []
    limit = indent
    for number in range(line - 1, -1, -1):
        found = _key_of(lines[number])
        if found is None:
            continue
        depth, name = found
        if depth < limit:
            path.append(name)
            limit = depth
            if depth == 0:
                break
    return Cursor(tuple(reversed(path)), key, before, word, indent, items)


def _earlier_items(lines: list[str], line: int, dash: int) -> tuple[str, ...]:
    """The items above ``line`` of the block sequence whose dashes are at column ``dash``:
    back to the first line indented less (the key the sequence belongs to)."""
    found: list[str] = []
    for number in range(line - 1, -1, -1):
        text = lines[number]
        content = text.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        depth = len(text) - len(content)
        if depth < dash or (depth == dash and not content.startswith("-")):
            break
        if depth == dash:
            found.append(content[1:].split("#", 1)[0].strip())
    return tuple(reversed(found))
