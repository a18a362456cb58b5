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

from collections.abc import Hashable, Mapping
from typing import Any


class Reuse:
    """One check's view: what the previous check kept, and what this check keeps.

    ``sources``: for each resource, what its results are computed from as the caller sees
    it (its text and position, say); None for a resource never to reuse (one that reads
    a file, say). ``surroundings``: everything else the caller compares (the other
    sections' text, the environment). A resource is unchanged when the surroundings
    and its source are equal to ``previous``'s.
    """

    __slots__ = (
        "sources",
        "surroundings",
        "unchanged",
        "_before",
        "_contexts_before",
        "kept",
        "contexts",
    )

    def __init__(
        self,
        sources: Mapping[str, Hashable | None] | None = None,
        surroundings: Hashable = None,
        previous: Reuse | None = None,
    ) -> None:
        self.sources = dict(sources or {})
        self.surroundings = surroundings
        #: resources whose source and surroundings are as in ``previous``
        self.unchanged: frozenset[str] = frozenset()
        if previous is not None and sources is not None and previous.surroundings == surroundings:
            before = previous.sources
            self.unchanged = frozenset(
                name
                for name, source in self.sources.items()
                if source is not None and before.get(name) == source
            )
        self._before: dict[tuple[str, str], Any] = previous.kept if previous else {}
        self._contexts_before: dict[str, Hashable] = previous.contexts if previous else {}
        #: (stage, resource) -> what the stage found for the resource in this check
        self.kept: dict[tuple[str, str], Any] = {}
        #: stage -> the context it was run in, in this check
        self.contexts: dict[str, Hashable] = {}

    def start(self, stage: str, context: Hashable) -> bool:
        """Record the context ``stage`` runs in; whether its previous results may be used."""
        self.contexts[stage] = context
        return bool(self.unchanged) and self._contexts_before.get(stage) == context

    def reused(self, stage: str, resource: str) -> Any | None:
        """What ``stage`` found for ``resource`` last time, when the resource is unchanged
        (None otherwise: the stage checks it). Kept again for the next check."""
        if resource not in self.unchanged:
            return None
        found = self._before.get((stage, resource))
        if found is not None:
            self.kept[(stage, resource)] = found
        return found

    def keep(self, stage: str, resource: str, found: Any) -> None:
        self.kept[(stage, resource)] = found
