"""A template's text cut into its resources' blocks, to tell which resources a change left
as they were (`stoker.definition.Reuse`).

In block-style YAML each resource of the ``resources:`` section is the run of lines from
its name, at the section's indentation, to the next name (comments and blank lines
included). Two checks whose block for a resource has the same text at the same line
parse that resource into the same values at the same positions; the rest of the text
(every other section, and the ``resources:`` line itself) is compared as a whole.

Anything this reading cannot be sure of gives no blocks, and the whole template is
checked again: a flow-style section, a line at an unexpected indentation, a quoted or
complex key, YAML anchors or aliases (one block could read another's value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from stoker.definition import Move
from stoker.diagnostics import Diagnostic, Span
from stoker.errors import TemplateError
from stoker.template.loader import Document, LoadLimits, load_document
from stoker.template.nodes import MappingNode

_NAME = re.compile(r"([A-Za-z0-9_][^\s:#'\"{}\[\],]*):(?:[ \t]|$)")
#: an anchor or an alias, or what looks like one (a false alarm only costs the reuse)
_ANCHOR_OR_ALIAS = re.compile(r"(?:^|[\s\[{,])[&*][^\s,\]}]")


class Blocks(NamedTuple):
    """``resources``: name -> (first line, the block's text), 0-based; ``outside``: the
    rest; ``section``: the line of ``resources:``."""

    resources: dict[str, tuple[int, str]]
    outside: str
    section: int


def resource_blocks(text: str) -> Blocks | None:
    if ("&" in text or "*" in text) and _ANCHOR_OR_ALIAS.search(text):
        return None
    found = _SECTION_LINE.search(text)
    if found is None:
        return None
    body = found.end() + 1  # the line after ``resources:``
    after = _TOP_LEVEL.search(text, body)  # the next top-level key, or the end
    stop = after.start() if after is not None else len(text)
    names = block_names(text, body, stop)
    if not names:
        return None
    section = text.count("\n", 0, found.start())
    resources: dict[str, tuple[int, str]] = {}
    for index, (name, where, number) in enumerate(names):
        # to the next name, with the line break that ends its last line when there is
        # one (a literal scalar at the end of the text has none)
        until = names[index + 1][1] if index + 1 < len(names) else stop
        resources[name] = (section + 1 + number, text[where:until])
    outside = text[: names[0][1]] + text[stop:]
    return Blocks(resources, outside, section)


def block_names(text: str, start: int, stop: int) -> list[tuple[str, int, int]] | None:
    """The names of the block mapping written in ``text[start:stop]`` (which starts a
    line), each with where its line starts and that line's number (0 for ``start``'s);
    None when it is not read here: a line indented less than the names or by a tab, a
    line at their indentation that is not a plain name, or a name given twice (the last
    one wins, which a block cannot say)."""
    first = _CONTENT.search(text, start, stop)
    if first is None:
        return []
    indent = len(first[1])
    if indent == 0 or _TAB.search(text, start, stop):
        return None
    if indent > 1 and re.compile(rf"^ {{0,{indent - 1}}}[^ \n#]", re.M).search(text, start, stop):
        return None
    names: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    number, counted = 0, start
    for line in re.compile(rf"^ {{{indent}}}([^ \n#][^\n]*)", re.M).finditer(text, start, stop):
        match = _NAME.match(line[1])
        if match is None or match[1] in seen:
            return None
        seen.add(match[1])
        number += text.count("\n", counted, line.start())
        counted = line.start()
        names.append((match[1], counted, number))
    return names


_SECTION_LINE = re.compile(r"^resources:[ \t]*(#[^\n]*)?$", re.M)
#: a line that starts with neither whitespace nor a comment
_TOP_LEVEL = re.compile(r"^[^\s#]", re.M)
#: a line with content (not blank, not a comment), and its indentation
_CONTENT = re.compile(r"^( *)[^ \n#]", re.M)
_TAB = re.compile(r"^ *\t", re.M)


class LoadedBlock(NamedTuple):
    """One resource's block as loaded: what it was loaded from, and its nodes."""

    source: tuple[int, str]
    key_span: Span
    value_span: Span
    value: Any
    warnings: tuple[Diagnostic, ...]


class Loaded(NamedTuple):
    """A document loaded by blocks: the document, its blocks for the next change, and
    whether blocks of the last change were moved to new lines (they belong to this
    document now: see `stoker.definition.Move`)."""

    document: Document
    blocks: dict[str, LoadedBlock]
    moved: bool


def load_blocks(
    text: str,
    path: str,
    blocks: Blocks,
    previous: dict[str, LoadedBlock],
    limits: LoadLimits,
    moves: Mapping[str, Move] | None = None,
) -> Loaded | None:
    """The document of ``text``, loaded again only where it changed: the text outside the
    resources' blocks (each block blanked, so every line keeps its number), and each
    block whose text differs from ``previous`` (alone, below as many blank lines as
    precede it). The unchanged blocks' nodes are ``previous``'s, positions included; a
    block whose text is unchanged but whose lines moved (a line inserted or deleted above
    it) has ``previous``'s nodes moved to its new lines, in place, once everything else
    loaded (`stoker.definition.Move`: the one ``moves`` has for it, which moves what was
    parsed from the nodes too), unless its loading warned (a duplicate key's message
    names a line).

    When most blocks changed, the whole text is loaded at once (faster), and cut into
    blocks for the next change. None when this cannot give what loading the whole text
    gives: a syntax error anywhere (the whole text's error is the one to report), a text
    that could hold more nodes than the limit allows (a block's nodes are not counted
    with the others'; a node takes at least a character), JSON, a byte-order mark."""
    if len(text) >= limits.max_nodes or text.startswith("\ufeff") or text.lstrip()[:1] == "{":
        return None
    kept: dict[str, LoadedBlock] = {}  # the last change's blocks this one has
    moving: dict[str, Move] = {}  # those of them that moved
    for name, source in blocks.resources.items():
        last = previous.get(name)
        if last is None or last.source[1] != source[1]:
            continue
        if last.source[0] != source[0]:
            move = _move_of(name, last, source, path, moves or {})
            if move is None:
                continue
            moving[name] = move
        kept[name] = last
    changed = len(blocks.resources) - len(kept)
    if changed > max(_FEW, len(blocks.resources) // 10):
        # loading many blocks one by one costs more than the whole text at once
        try:
            document = load_document(text, path, limits)
        except TemplateError:
            return None
        return Loaded(document, _blocks_of(document, blocks), False)
    lines = text.split("\n")
    for first, text_of in blocks.resources.values():
        count = text_of.count("\n") + (not text_of.endswith("\n"))
        lines[first : first + count] = [""] * count
    try:
        outside = load_document("\n".join(lines), path, limits)
        data = outside.data
        if not isinstance(data, MappingNode) or data.get("resources", False) is not None:
            return None
        at = data.key_spans["resources"]
        if at.line != blocks.section + 1 or at.column != 1:
            return None  # the section read is not the one the blocks are cut from
        resources = MappingNode()
        loaded: dict[str, LoadedBlock] = {}
        warnings = list(outside.warnings)
        for name, source in blocks.resources.items():
            block: LoadedBlock | None = kept.get(name)
            if block is None:
                block = _load_block(name, source, path, limits)
                if block is None:
                    return None
            elif name in moving:
                move = moving[name]
                block = LoadedBlock(
                    source, move.at(block.key_span), move.at(block.value_span), block.value, ()
                )
            loaded[name] = block
            resources[name] = block.value
            resources.key_spans[name] = block.key_span
            resources.value_spans[name] = block.value_span
            warnings.extend(block.warnings)
    except TemplateError:
        return None
    for name, move in moving.items():  # everything loaded: the moved blocks are this one's
        move.nodes(loaded[name].value)
    resources.span = next(iter(loaded.values())).key_span
    data["resources"] = resources
    data.value_spans["resources"] = resources.span
    return Loaded(Document(data, "yaml", path, tuple(warnings)), loaded, bool(moving))


def _move_of(
    name: str, block: LoadedBlock, source: tuple[int, str], path: str, moves: Mapping[str, Move]
) -> Move | None:
    """How ``block`` (its text unchanged) moved to the line of ``source``: the move
    ``moves`` has for it, which its parsed entry is moved by too; None when its loading
    warned, or when that move is not this one (the nodes and the entry share objects,
    which can move only once)."""
    if block.warnings:
        return None
    first, text = block.source
    by = source[0] - first
    move = moves.get(name)
    if move is None:
        last = first + text.count("\n") + (not text.endswith("\n"))
        return Move(path, first + 1, last, by)
    return move if (move.file, move.first, move.by) == (path, first + 1, by) else None


#: blocks loaded one by one at most, whatever the template's size
_FEW = 10


def resources_as_cut(data: Any, blocks: Blocks) -> MappingNode | None:
    """The resources section of the parsed ``data`` when it has exactly the resources the
    blocks name, each at its block's first line; else None."""
    section = data.get("resources") if isinstance(data, dict) else None
    if not isinstance(section, MappingNode) or len(section) != len(blocks.resources):
        return None
    for name, (first, _) in blocks.resources.items():
        span = section.key_spans.get(name)
        if span is None or span.line != first + 1:
            return None
    return section


def _blocks_of(document: Document, blocks: Blocks) -> dict[str, LoadedBlock]:
    """The blocks of a document loaded whole, for the next change (none when its
    resources are not the blocks')."""
    section = resources_as_cut(document.data, blocks)
    if section is None:
        return {}
    loaded = {}
    for name, (first, block) in blocks.resources.items():
        key = section.key_spans[name]
        last = first + block.count("\n") + (not block.endswith("\n"))
        warnings = tuple(
            warning
            for warning in document.warnings
            if warning.span is not None and first < warning.span.line <= last
        )
        value = section[name]
        loaded[name] = LoadedBlock((first, block), key, section.value_spans[name], value, warnings)
    return loaded


def _load_block(
    name: str, source: tuple[int, str], path: str, limits: LoadLimits
) -> LoadedBlock | None:
    first, block = source
    holder = load_document("\n" * (first - 1) + "r:\n" + block, path, limits)
    section = holder.data["r"] if isinstance(holder.data, dict) else None
    if not isinstance(section, MappingNode) or list(section) != [name]:
        return None
    return LoadedBlock(
        source, section.key_spans[name], section.value_spans[name], section[name], holder.warnings
    )
