"""The checks of provider templates' subtrees (`TreeCheck`), kept per engine by their exact
inputs.

An engine checks a tree before its create, then each nested stack's subtree again as that
stack is created (as Heat validates each nested stack it creates, subtree included). The
same provider template, handed the same values with the same inherited environment, is
then checked several times over: TripleO's service templates are each checked at every
level above them. A subtree's check is a function of its inputs: the template (the very
object its provider cache parsed), the environment the child sees (handed-down parameter
values, inherited ``parameter_defaults`` and registry, with every position, as messages
quote them), its files, its taint, where its ``get_file`` paths start, the registry of
types, the limits and where providers are read from. What it depends on otherwise is
kept with the result and checked before it is reused:

- of the resource registry, only the entries the subtree's lookups read, at any level
  (`stoker.environment.ResourceRegistry.agrees_on`): TripleO's service templates hand
  their children registries that differ by the mapping that made each service, which
  the templates below seldom look up;
- the chain of templates above it, through the provider locations the subtree compared
  with that chain (a loop found through a template above it is not reused);
- its depth, through the deepest level the subtree compared with ``--max-nested-depth``;
- the command's budget of built values (`stoker.limits`): what the check spent is spent
  again, and a check that would no longer fit is made again (its error is then the one a
  first check gives).

What the check did to its `TreeCheck` (resources counted, nested definitions and
resolutions found, refusals) is recorded and replayed, so a reused check leaves the
`TreeCheck` as a new one would, except that a replayed nested definition's registry is the
kept check's (the same in every entry the check read; the engine, the memo's one user,
keeps only the findings and the top stack's resolution)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import fields
from operator import is_
from typing import Any

from stoker.definition import StackDefinition, Taint
from stoker.diagnostics import Diagnostic
from stoker.environment import (
    INHERITED,
    Environment,
    RegistryBlock,
    ResourceRegistry,
    environment_below,
)
from stoker.limits import Budget
from stoker.template.nodes import MappingNode, SequenceNode, StrNode

#: what one check did to its `TreeCheck`, in order: ``("count", added, what, path, span)``,
#: ``("nested", names, location, definition)``, ``("resolution", names, resolution)``,
#: ``("refused", diagnostic)``; names are relative to the recorded subtree's root
Event = tuple[Any, ...]


class Recording:
    """What a subtree's check did and compared, while it runs (`TreeCheck` notes into every
    recording open around it)."""

    __slots__ = ("base", "events", "locations", "height", "looked_up")

    def __init__(self, base: tuple[str, ...]) -> None:
        #: the names of the subtree's root (its facade names from the top)
        self.base = base
        self.events: list[Event] = []
        #: provider locations compared with the chain of templates
        self.locations: set[str] = set()
        #: the deepest level compared with the depth limit, relative to the root
        self.height = 0
        #: the type names looked up in the registry at any level of the subtree (None:
        #: not known, the whole registry counts)
        self.looked_up: set[str] | None = set()

    def looked(self, names: set[str] | None) -> None:
        """Note the type names a resolution in the subtree looked up."""
        if names is None:
            self.looked_up = None
        elif self.looked_up is not None:
            self.looked_up |= names


class Inputs:
    """What a subtree's check is a function of, besides its `SubtreeMemo` key: the values
    handed down, the child's registry, the parent's environment (of which the child's
    copies only the `INHERITED` fields), files and taint. The child's environment is
    made only when the check runs: a kept check is found without it."""

    __slots__ = ("parent", "parameters", "registry", "files", "taint", "_environment")

    def __init__(
        self,
        parent: Environment,
        parameters: Mapping[str, Any],
        registry: ResourceRegistry,
        files: Mapping[str, str],
        taint: Taint,
    ) -> None:
        self.parent = parent
        self.parameters = parameters
        self.registry = registry
        self.files = files
        self.taint = taint
        self._environment: Environment | None = None

    @property
    def environment(self) -> Environment:
        """The child's environment (`stoker.environment.environment_below`), made once."""
        if self._environment is None:
            self._environment = environment_below(self.parent, self.parameters, self.registry)
        return self._environment

    def fingerprint(self) -> Hashable:
        """A part of the inputs that is quick to hash, for the memo's key: the names of
        the parameters handed down and of the global registry's entries (not the user's:
        the registries of two templates' children most often differ by the mapping that
        made each template, which Heat drops, and a subtree that never looks it up is
        the same check under both)."""
        return (
            tuple(self.parameters),
            tuple(tuple(block.items) for block in self.registry.global_sections),
        )

    def same(self, other: Inputs, looked_up: set[str] | None) -> bool:
        """Whether a check of ``other`` is this one's: the registries compared on the
        type names the check looked up (``looked_up``; None: on all of them), the rest
        in full (of the parents' environments, what the children's copy)."""
        registry = self.registry
        mine, theirs = self.parent, other.parent
        return (
            # what most often differs first: the values handed down, the registry (less
            # the mapping that made each template)
            same_value(self.parameters, other.parameters)
            and (
                same_value(registry, other.registry)
                if looked_up is None
                else registry.agrees_on(other.registry, looked_up)
            )
            and same_value(self.taint, other.taint)
            and same_value(self.files, other.files)
            and (
                mine is theirs
                or all(same_value(getattr(mine, name), getattr(theirs, name)) for name in INHERITED)
            )
        )


class Subtree:
    """One kept check: its child definition, its findings and what it did."""

    __slots__ = ("key_objects", "inputs", "child", "found", "recording", "spent")

    def __init__(
        self,
        key_objects: tuple[Any, ...],
        inputs: Inputs,
        child: StackDefinition,
        found: list[Diagnostic],
        recording: Recording,
        spent: int,
    ) -> None:
        #: the objects whose ids the key holds (kept alive, so no id is reused)
        self.key_objects = key_objects
        self.inputs = inputs
        self.child = child
        self.found = found
        self.recording = recording
        self.spent = spent


class SubtreeMemo:
    """Kept subtree checks, by a key of the identities and values that can be hashed, then
    by the rest of their inputs compared in full."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[Hashable, list[Subtree]] = {}

    def find(
        self,
        key: Hashable,
        inputs: Inputs,
        chain: tuple[str, ...],
        depth: int,
        max_depth: int,
        budget: Budget,
    ) -> Subtree | None:
        """The kept check of these inputs that holds at ``chain`` (above the subtree),
        ``depth`` (its root's) and what is left of ``budget``, if any."""
        for kept in self._kept.get(key, ()):
            recording = kept.recording
            if (
                depth + recording.height <= max_depth
                and recording.locations.isdisjoint(chain)
                and budget.spent + kept.spent <= budget.limits.total_value_size
                and kept.inputs.same(inputs, recording.looked_up)
            ):
                return kept
        return None

    def keep(self, key: Hashable, subtree: Subtree) -> None:
        self._kept.setdefault(key, []).append(subtree)


def same_value(a: Any, b: Any) -> bool:
    """Whether two inputs of a check are the same: equal, in the same order, with the same
    positions (a message quotes where a value was written). Values shared by both (most
    of an inherited environment) are the same object and not walked."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is str:  # most leaves of handed-down values: told apart before the node types
        return bool(a == b)
    if kind is StrNode:
        return bool(a == b) and a.span == b.span
    if kind is MappingNode:
        if (a.span, a.key_spans, a.value_spans) != (b.span, b.key_spans, b.value_spans):
            return False
        return _same_items(a, b)
    if kind is SequenceNode:
        return a.span == b.span and a.item_spans == b.item_spans and _same_items(a, b)
    if kind is dict:
        return _same_items(a, b)
    if kind is list or kind is tuple:
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if kind is ResourceRegistry:
        return same_value(a.sections, b.sections) and same_value(
            a.global_sections, b.global_sections
        )
    if kind is RegistryBlock:
        return a.span == b.span and same_value(a.items, b.items)
    if kind is Environment:
        return all(same_value(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return bool(a == b)


def _same_items(a: Any, b: Any) -> bool:
    if len(a) != len(b):
        return False
    if isinstance(a, dict):
        if list(a) != list(b):
            return False
        a, b = a.values(), b.values()
    # the items both share (most of them) are told apart from the others without a call
    # each: an inherited environment is compared many times over
    shared = list(map(is_, a, b))
    return all(shared) or all(
        same_value(x, y) for x, y, same in zip(a, b, shared, strict=True) if not same
    )
