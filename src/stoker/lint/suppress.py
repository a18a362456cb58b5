"""Turning findings off: ignored ids, per-path ignores, and inline comments.

An inline comment ``# stoker-lint: ignore=W2001,I2002`` silences those ids for findings on
its own line, or on the line of the finding's parent: the nearest enclosing key (or list
item) that starts on another line, so a comment on a resource's name covers what is
reported inside that resource's first level. Comments are read from the raw text by line
number; the template itself is never parsed again.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from typing import Any

from stoker.diagnostics import Diagnostic, Path
from stoker.lint.inputs import ZIP_SEPARATOR
from stoker.patterns import LazyPattern
from stoker.template.nodes import MappingNode, SequenceNode

_DIRECTIVE = LazyPattern(
    r"#\s*stoker-lint:\s*ignore\s*=\s*([A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*)"
)
_MARKER = b"stoker-lint"

Directives = dict[int, frozenset[str]]


def matches(rule_id: str, patterns: Iterable[str]) -> bool:
    """An id matches a pattern equal to it or a prefix of it (``W2`` covers ``W2001``)."""
    return any(rule_id.startswith(pattern) for pattern in patterns if pattern)


def read_directives(raw: bytes) -> Directives:
    """Line number (1-based) -> ids ignored by a comment on that line."""
    if _MARKER not in raw:
        return {}
    found: Directives = {}
    text = raw.decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if "stoker-lint" not in line:
            continue
        match = _DIRECTIVE.search(line)
        if match:
            ids = frozenset(part.strip() for part in match.group(1).split(","))
            found[number] = found.get(number, frozenset()) | ids
    return found


def node_lines(root: Any, path: Path) -> list[int]:
    """The line each node along ``path`` is written on (a key's line for map entries)."""
    lines: list[int] = []
    node = root
    for part in path:
        if isinstance(node, MappingNode) and part in node:
            span = node.key_spans.get(part)
        elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node):
            span = node.item_spans[part]
        else:
            break
        if span is not None:
            lines.append(span.line)
        node = node[part]
    return lines


def inline_suppressed(finding: Diagnostic, directives: Directives, root: Any) -> bool:
    """Is ``finding`` silenced by a comment on its line or its parent's line?"""
    if not directives or finding.span is None:
        return False
    line = finding.span.line
    candidates = [line]
    ancestors = [n for n in node_lines(root, finding.path) if n < line]
    if ancestors:
        candidates.append(ancestors[-1])
    return any(matches(finding.code, directives.get(number, ())) for number in candidates)


def path_suppressed(
    finding: Diagnostic, per_path: tuple[tuple[str, tuple[str, ...]], ...], base_dir: str
) -> bool:
    """Is ``finding`` in a file a per-path glob of the config ignores its id for?"""
    if not per_path or finding.span is None:
        return False
    names = _names_for_matching(finding.span.file, base_dir)
    return any(
        matches(finding.code, ids) and any(fnmatch.fnmatchcase(name, pattern) for name in names)
        for pattern, ids in per_path
    )


def _names_for_matching(file: str, base_dir: str) -> list[str]:
    """A file as globs may name it: relative to the config's directory, and as displayed."""
    outer, separator, inner = file.partition(ZIP_SEPARATOR)
    relative = os.path.relpath(os.path.abspath(outer), base_dir).replace(os.sep, "/")
    names = [file.replace(os.sep, "/"), relative + separator + inner]
    if separator:
        names.append(inner)
    return names
