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
from typing import Any, NamedTuple

from stoker.diagnostics import Diagnostic, Span
from stoker.errors import TemplateError
from stoker.template.loader import Document, LoadLimits, load_document
from stoker.template.nodes import MappingNode

_SECTION = re.compile(r"resources:[ \t]*(#.*)?$")
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
    if _ANCHOR_OR_ALIAS.search(text):
        return None
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines) if _SECTION.match(line)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and (not lines[end][:1].strip() or lines[end].startswith("#")):
        end += 1  # to the next top-level key (or the end)
    indent: int | None = None
    names: list[tuple[str, int]] = []
    for number in range(start + 1, end):
        line = lines[number]
        content = line.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        depth = len(line) - len(content)
        if indent is None:
            indent = depth
        if depth < indent or content.startswith("\t"):
            return None
        if depth == indent:
            match = _NAME.match(content)
            if match is None:
                return None
            names.append((match[1], number))
    if not names:
        return None
    resources: dict[str, tuple[int, str]] = {}
    for index, (name, first) in enumerate(names):
        last = names[index + 1][1] if index + 1 < len(names) else end
        if name in resources:
            return None  # a duplicate key: the last one wins, which a block cannot say
        # with the line break that ends its last line, when there is one (a literal
        # scalar at the end of the text has none)
        ending = "\n" if last < len(lines) else ""
        resources[name] = (first, "\n".join(lines[first:last]) + ending)
    outside = "\n".join([*lines[: names[0][1]], *lines[end:]])
    return Blocks(resources, outside, start)


class LoadedBlock(NamedTuple):
    """One resource's block as loaded: what it was loaded from, and its nodes."""

    source: tuple[int, str]
    key_span: Span
    value_span: Span
    value: Any
    warnings: tuple[Diagnostic, ...]


def load_blocks(
    text: str, path: str, blocks: Blocks, previous: dict[str, LoadedBlock], limits: LoadLimits
) -> tuple[Document, dict[str, LoadedBlock]] | None:
    """The document of ``text``, loaded again only where it changed: the text outside the
    resources' blocks (each block blanked, so every line keeps its number), and each
    block whose text or line differs from ``previous`` (alone, below as many blank lines
    as precede it). The unchanged blocks' nodes are ``previous``'s, positions included.

    When most blocks changed, the whole text is loaded at once (faster), and cut into
    blocks for the next change. None when this cannot give what loading the whole text
    gives: a syntax error
    anywhere (the whole text's error is the one to report), a text that could hold more
    nodes than the limit allows (a block's nodes are not counted with the others'; a
    node takes at least a character), JSON, a byte-order mark."""
    if len(text) >= limits.max_nodes or text.startswith("\ufeff") or text.lstrip()[:1] == "{":
        return None
    changed = sum(
        1 for name, source in blocks.resources.items() if _source_of(previous.get(name)) != source
    )
    if changed > max(_FEW, len(blocks.resources) // 10):
        # loading many blocks one by one costs more than the whole text at once
        try:
            document = load_document(text, path, limits)
        except TemplateError:
            return None
        return document, _blocks_of(document, blocks)
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
            block: LoadedBlock | None = previous.get(name)
            if block is None or block.source != source:
                block = _load_block(name, source, path, limits)
                if block is None:
                    return None
            loaded[name] = block
            resources[name] = block.value
            resources.key_spans[name] = block.key_span
            resources.value_spans[name] = block.value_span
            warnings.extend(block.warnings)
    except TemplateError:
        return None
    resources.span = next(iter(loaded.values())).key_span
    data["resources"] = resources
    data.value_spans["resources"] = resources.span
    return Document(data, "yaml", path, tuple(warnings)), loaded


#: blocks loaded one by one at most, whatever the template's size
_FEW = 10


def _blocks_of(document: Document, blocks: Blocks) -> dict[str, LoadedBlock]:
    """The blocks of a document loaded whole, for the next change (none when its
    resources are not the blocks')."""
    data = document.data
    section = data.get("resources") if isinstance(data, MappingNode) else None
    if not isinstance(section, MappingNode) or len(section) != len(blocks.resources):
        return {}
    loaded = {}
    for name, (first, block) in blocks.resources.items():
        key = section.key_spans.get(name)
        if key is None or key.line != first + 1:
            return {}
        last = first + block.count("\n") + (not block.endswith("\n"))
        warnings = tuple(
            warning
            for warning in document.warnings
            if warning.span is not None and first < warning.span.line <= last
        )
        value = section[name]
        loaded[name] = LoadedBlock((first, block), key, section.value_spans[name], value, warnings)
    return loaded


def _source_of(block: LoadedBlock | None) -> tuple[int, str] | None:
    return block.source if block is not None else None


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
