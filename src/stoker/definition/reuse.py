"""Results of per-resource checks carried from one check of a template to the next.

An editor checks the same template again at every change, and a change usually touches
one resource of many. What parsing, validation and the linter find about one resource
(its entry parsed, its calls checked, its literal values computed, its properties
against its type's schema) depends on that resource's text and on its surroundings: the
other sections, the other resources' names and types, which resources are disabled, the
environment. The caller (the language server) says what each resource's results come
from (``sources``: its text and position) and what the rest is (``surroundings``); a
resource is unchanged when both are equal to the last check's. Each stage then names
what it reads of the other resources (its ``context``, `Reuse.start`), and reuses the
results of an unchanged resource only when that context is equal to the last check's.

Everything kept is a finished result (findings, parsed entries, dependency names), never
a check's scope or contexts, so the rest of the previous check is freed when it is
released.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from stoker.definition.relocation import Move
from stoker.diagnostics import Diagnostic


class Placed(NamedTuple):
    """Where a resource's source is (its first and last lines, 1-based) and what it is."""

    first: int
    last: int
    text: Hashable


class Reuse:
    """One check's view: what the previous check kept, and what this check keeps.

    ``sources``: for each resource, where its source is and what it is (its text, as
    the caller sees it); None for a resource never to reuse (one that reads a file,
    say). ``surroundings``: everything else the caller compares (the other sections'
    text, the environment). A resource is unchanged when the surroundings and its
    source's text are equal to ``previous``'s; when its lines moved (a line inserted
    above it), a stage reuses its results only if it can move them (`relocated`).
    ``file``: the name positions in this file carry. ``shared``: parts of the rest that
    only some resources read (a parameter's text, say; name -> value), and ``reads``:
    whether a resource reads one of the given parts. A resource reading a part that is
    not as in ``previous`` is not unchanged.
    """

    __slots__ = (
        "sources",
        "surroundings",
        "file",
        "unchanged",
        "moved",
        "_before",
        "_contexts_before",
        "kept",
        "contexts",
        "relocated",
        "shared",
        "written",
        "_own",
    )

    def __init__(
        self,
        sources: Mapping[str, Placed | None] | None = None,
        surroundings: Hashable = None,
        previous: Reuse | None = None,
        file: str | None = None,
        shared: Mapping[str, Hashable] | None = None,
        reads: Callable[[str, frozenset[str]], bool] | None = None,
    ) -> None:
        self.sources = dict(sources or {})
        self.shared = dict(shared or {})
        self.surroundings = surroundings
        self.file = file
        #: resources whose source's text and surroundings are as in ``previous``, and
        #: that read no shared part that changed
        self.unchanged: frozenset[str] = frozenset()
        #: resources whose source's text and surroundings are as in ``previous``,
        #: whatever shared parts changed (for the stages that read only that text)
        self.written: frozenset[str] = frozenset()
        #: those whose lines moved, and how
        self.moved: dict[str, Move] = {}
        if previous is not None and sources is not None and previous.surroundings == surroundings:
            changed = frozenset(
                part
                for part in self.shared.keys() | previous.shared.keys()
                if self.shared.get(part) != previous.shared.get(part)
            )
            unchanged, written = [], []
            for name, source in self.sources.items():
                before = previous.sources.get(name)
                if source is None or before is None or before.text != source.text:
                    continue
                written.append(name)
                if before.first != source.first:
                    by = source.first - before.first
                    self.moved[name] = Move(file, before.first, before.last, by)
                if not changed or (reads is not None and not reads(name, changed)):
                    unchanged.append(name)
            self.unchanged, self.written = frozenset(unchanged), frozenset(written)
        self._before: dict[tuple[str, str], Any] = previous.kept if previous else {}
        self._contexts_before: dict[str, Hashable] = previous.contexts if previous else {}
        #: (stage, resource) -> what the stage found for the resource in this check
        self.kept: dict[tuple[str, str], Any] = {}
        #: stage -> the context it was run in, in this check
        self.contexts: dict[str, Hashable] = {}
        #: results moved to their resource's new lines (some may have been moved in
        #: place: `Move.entry`), in this check
        self.relocated = 0
        #: the stages whose results depend only on the resource's own text
        self._own: set[str] = set()

    def start(self, stage: str, context: Hashable, *, own_text: bool = False) -> bool:
        """Record the context ``stage`` runs in; whether its previous results may be used.
        ``own_text``: the stage reads nothing of the rest of the template but what its
        context says (parsing a resource's entry, say), so a resource whose text is
        unchanged keeps its results whatever shared part changed (`written`)."""
        self.contexts[stage] = context
        if own_text:
            self._own.add(stage)
        reusable = self.written if own_text else self.unchanged
        return bool(reusable) and self._contexts_before.get(stage) == context

    def reused(
        self, stage: str, resource: str, relocate: Callable[[Any, Move], Any | None] | None = None
    ) -> Any | None:
        """What ``stage`` found for ``resource`` last time, when the resource is unchanged
        (None otherwise: the stage checks it), moved by ``relocate`` when its lines moved
        (without one, or when it cannot, the stage checks it). Kept for the next check."""
        if resource not in (self.written if stage in self._own else self.unchanged):
            return None
        found = self._before.get((stage, resource))
        move = self.moved.get(resource)
        if found is not None and move is not None:
            found = relocate(found, move) if relocate is not None else None
            self.relocated += found is not None
        if found is not None:
            self.kept[(stage, resource)] = found
        return found

    def keep(self, stage: str, resource: str, found: Any) -> None:
        self.kept[(stage, resource)] = found


def relocated(findings: list[Diagnostic], move: Move) -> list[Diagnostic] | None:
    """``findings`` of a resource that moved, at its new lines; None when one of them
    points outside the resource's old lines (that place may have moved otherwise)."""
    moved = []
    for finding in findings:
        span = finding.span
        if span is None:
            moved.append(finding)
            continue
        if span.file != move.file or not move.first <= span.line <= move.last:
            return None
        moved.append(replace(finding, span=span._replace(line=span.line + move.by)))
    return moved
