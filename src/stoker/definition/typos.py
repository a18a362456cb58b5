"""Misspelled function names: ``{get_parm: x}`` is data to Heat, and almost never meant.

Heat reads a one-key mapping whose key is not a function of the template's version as a
plain mapping, so a typo surfaces far from its cause ("Value must be a string", a Python
``int()`` message) or not at all. Acceptance stays Heat's: this only adds a warning at
the key, with the function it is closest to, and the same hint as a note on any error
reported at or under that mapping.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from stoker.codes import UNKNOWN_FUNCTION
from stoker.definition.reuse import Reuse, relocated
from stoker.diagnostics import Diagnostic, Path, Severity
from stoker.functions.base import FunctionTable
from stoker.nearest import nearest
from stoker.template.nodes import key_span, span_of

if TYPE_CHECKING:
    from stoker.definition.template import Template

#: sections whose values may hold function calls
_SECTIONS = ("resources", "outputs", "conditions", "Resources", "Outputs", "Conditions")
#: how alike a key and a function name must be (difflib's ratio) to call it a typo
_CUTOFF = 0.8


def misspelled_functions(
    data: Any, table: FunctionTable, reuse: Reuse | None = None
) -> list[Diagnostic]:
    """A warning for each one-key mapping whose key looks like a misspelled function.
    ``reuse``: the last check's warnings of each resource it says is unchanged."""
    if not isinstance(data, dict):
        return []
    names = tuple(sorted({*table.functions, *table.conditions}))
    known = table.functions.keys() | table.conditions.keys()
    reuse = reuse or Reuse()
    reusing = reuse.start(_CHECKED, str(table.version), own_text=True)
    found: list[Diagnostic] = []
    for section in _SECTIONS:
        entries = data.get(section)
        if section not in _RESOURCES or not isinstance(entries, dict):
            found += _warnings(_unknown_one_key_mappings_in(section, entries, known), names)
            continue
        for name, entry in entries.items():  # resource by resource: each may be reused
            kept = reuse.reused(_CHECKED, name, relocated) if reusing else None
            if kept is None:
                kept = _warnings(_unknown_one_key_mappings_in(section, {name: entry}, known), names)
                reuse.keep(_CHECKED, str(name), kept)
            found += kept
    return found


#: the `Reuse` stage of a resource's misspelled functions
_CHECKED = "misspelled functions"
_RESOURCES = ("resources", "Resources")


def _warnings(
    mappings: Iterator[tuple[Path, Any, str]], names: tuple[str, ...]
) -> list[Diagnostic]:
    found = []
    for path, mapping, key in mappings:
        close = _closest(key, names)
        if close:
            found.append(
                Diagnostic(
                    UNKNOWN_FUNCTION,
                    f'unknown function "{key}" (did you mean `{close[0]}`?); Heat '
                    "reads this mapping as data",
                    path,
                    key_span(mapping, key) or span_of(mapping),
                    Severity.WARNING,
                    (f'"{key}" is not a function; did you mean `{close[0]}`?',),
                )
            )
    return found


@functools.lru_cache(maxsize=4096)
def _closest(key: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """The function name ``key`` is a likely typo of, if any. Most one-key mappings share a
    few keys (``{type: ...}`` in every resource, ``{get_param: ...}``), across the
    templates of a package too: the answer is cached per distinct key and version."""
    return tuple(nearest(key, names, 1, _CUTOFF))


def _unknown_one_key_mappings_in(
    section: str, entries: Any, known: Collection[str]
) -> Iterator[tuple[Path, Any, str]]:
    """`_unknown_one_key_mappings` where a call may stand in ``section``: the keys of the
    section are names and those of a resource's or output's definition are its keywords,
    so a template with one resource named ``rand`` is not a typo of ``and``; a condition's
    value is a call (or a literal) itself."""
    if not isinstance(entries, dict):
        return
    for name, entry in entries.items():
        if section in ("conditions", "Conditions"):
            yield from _unknown_one_key_mappings(entry, [section, name], known)
        elif isinstance(entry, dict):
            for keyword, value in entry.items():
                yield from _unknown_one_key_mappings(value, [section, name, keyword], known)


def _unknown_one_key_mappings(
    value: Any, path: list[Any], known: Collection[str]
) -> Iterator[tuple[Path, Any, str]]:
    """Each one-key mapping under ``value`` whose key is a string but no function name,
    with its path. ``path`` is one list extended and trimmed along the walk: the path
    tuple is built only for a mapping found, not for each of the template's nodes (the
    walk visits every node of every template, and nearly none is such a mapping). The
    walk is a plain recursion into a list, not a chain of generators: a node deep in a
    tree is then not passed up through a ``yield from`` per level."""
    found: list[tuple[Path, Any, str]] = []
    _collect_one_key_mappings(value, path, known, found)
    return iter(found)


def _collect_one_key_mappings(
    value: Any, path: list[Any], known: Collection[str], found: list[tuple[Path, Any, str]]
) -> None:
    if isinstance(value, dict):
        if len(value) == 1:
            key = next(iter(value))
            if isinstance(key, str) and key not in known:
                found.append((tuple(path), value, key))
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                path.append(key)
                _collect_one_key_mappings(item, path, known, found)
                path.pop()
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                path.append(index)
                _collect_one_key_mappings(item, path, known, found)
                path.pop()


def template_misspelled(template: Template, reuse: Reuse | None) -> list[Diagnostic]:
    """The template's misspelled functions: kept on the template unless a previous check's
    are to be reused (which then also keeps this check's for the next)."""
    if reuse is not None:
        return misspelled_functions(template.document.data, template.table, reuse)
    return list(_kept(template))


def _kept(template: Template) -> tuple[Diagnostic, ...]:
    """The template's misspelled functions, found on the first ask and kept on it."""
    if template.misspelled is None:
        template.misspelled = tuple(misspelled_functions(template.document.data, template.table))
    return template.misspelled


def share_misspelled(copy: Template, model: Template) -> None:
    """Give ``copy``, parsed from a plain copy of ``model``'s data (a provider template's
    child stacks run from one: `stoker.resolution.providers`), ``model``'s misspelled
    functions instead of walking the same tree again: the same mappings at the same
    paths, without the positions a plain copy no longer has."""
    copy.misspelled = tuple(replace(d, span=None) for d in _kept(model))


def with_hints(found: list[Diagnostic], hints: list[Diagnostic]) -> list[Diagnostic]:
    """``found`` with each hint's note on the errors at or under its mapping; a hint that
    explains no error is kept as its own warning."""
    result = list(found)
    for hint in hints:
        size = len(hint.path)
        explained = False
        for index, diagnostic in enumerate(result):
            if diagnostic.is_error and diagnostic.path[:size] == hint.path:
                notes = (*diagnostic.notes, *(n for n in hint.notes if n not in diagnostic.notes))
                result[index] = replace(diagnostic, notes=notes)
                explained = True
        if not explained:
            result.append(replace(hint, notes=()))
    return result
