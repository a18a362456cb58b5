"""Nested stacks' environments in their stored form, with what a tree's children share
converted once.

Every nested stack stores its environment (`Environment.to_data`), and every one of a
tree inherits the same ``parameter_defaults`` (TripleO hands each of its 238 nested
stacks the hundreds its client and environment files set). A child's
``parameter_defaults`` is a copy of its parent's mapping (`child_environment`), holding
the very key and value objects the top environment was read into, and its plain form is
a function of those objects only. The plain form is kept by the identities of those
keys and values, the mapping that holds them kept with it so that no identity can be
taken by another object while the entry lives; a bounded number are kept, the oldest
going first. A tree's stored environments then share the one plain mapping: nothing
changes a stored environment in place (a store writes it, an operation reads a copy
back).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stoker.environment import Environment, Section
from stoker.template.nodes import MappingNode, plain

#: how many plain ``parameter_defaults`` an engine keeps
KEPT = 64

_EMPTY = MappingNode()


class StoredEnvironments:
    """Child environments' stored form, their ``parameter_defaults`` converted once."""

    __slots__ = ("_defaults",)

    def __init__(self) -> None:
        self._defaults: dict[tuple[int, ...], tuple[MappingNode, dict[str, Any]]] = {}

    def to_data(self, environment: Environment) -> dict[str, Any]:
        """``environment.to_data(absolute_paths=True)``, its ``parameter_defaults``
        shared with the other environments whose mapping holds the same objects."""
        data = replace(environment, parameter_defaults=_EMPTY).to_data(absolute_paths=True)
        data[Section.PARAMETER_DEFAULTS.value] = self.defaults(environment.parameter_defaults)
        return data

    def defaults(self, defaults: MappingNode) -> dict[str, Any]:
        """The plain form of ``defaults`` (`plain`), shared by every mapping of the same
        keys and values."""
        key = (*map(id, defaults), *map(id, defaults.values()))
        kept = self._defaults.get(key)
        if kept is None:
            if len(self._defaults) >= KEPT:
                del self._defaults[next(iter(self._defaults))]
            kept = self._defaults[key] = (defaults, plain(defaults))
        return kept[1]
