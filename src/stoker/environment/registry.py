"""The resource registry: which implementation a resource type name stands for.

An environment can alias one type to another, point a type at a provider template, swap
type-name prefixes with globs, and give single resources (or resources of nested stacks)
their own mappings, hooks and restricted actions. `ResourceRegistry.resolve` follows those
rules to the end and reports the chain it took, so a later error can say *why* a resource
became a given template.

Two layers exist, as in Heat: the user's environment and a global one (Heat's
``/etc/heat/environment.d``). Every user entry outranks every global one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from fnmatch import fnmatchcase
from typing import NamedTuple

from stoker.codes import ENVIRONMENT
from stoker.diagnostics import Diagnostic, Path
from stoker.environment.registry_section import (
    HOOKS_KEY,
    RESOURCES_KEY,
    RESTRICTED_ACTIONS_KEY,
    RegistryBlock,
    RegistryEntry,
    RuleSetting,
    applied,
    is_glob,
    is_template_name,
)
from stoker.environment.resolved import RegistryStep, ResolvedType, TemplateRef
from stoker.errors import RegistryLoopError as RegistryLoopError

MAX_CHAIN = 64  # a glob that swaps a prefix for a longer one can grow a name forever


class _Match(NamedTuple):
    """A registry entry that applies to a type, where it was found (a named tuple: cheaper
    to create at import than a frozen dataclass, see `merge._Chosen`)."""

    entry: RegistryEntry
    scope: tuple[str, ...]
    user: bool


class ResourceRegistry:
    """Resolves resource types, hooks and restricted actions from registry sections.

    Sections are applied in order with Heat's loading rules: a later entry replaces an
    earlier one, blocks under ``resources:`` merge key by key, and a ``null`` entry deletes
    (``"X*": null`` deletes every entry at its level whose key starts with ``X``).
    """

    def __init__(
        self,
        sections: Iterable[RegistryBlock] = (),
        *,
        global_sections: Iterable[RegistryBlock] = (),
    ) -> None:
        users, globals_ = tuple(sections), tuple(global_sections)
        self._build(users, globals_, applied(users), applied(globals_))

    def _build(
        self,
        sections: tuple[RegistryBlock, ...],
        global_sections: tuple[RegistryBlock, ...],
        user: RegistryBlock,
        global_: RegistryBlock,
    ) -> None:
        """Set up a registry of these sections, given them applied (`applied`)."""
        self._sections = sections
        self._global_sections = global_sections
        self._user = user
        self._global = global_
        # Without per-resource blocks a type resolves the same for every resource: a
        # stack of 10,000 resources of a few types resolves a few times, not 10,000.
        per_resource = any(_has_resource_blocks(b) for b in (self._user, self._global))
        self._by_type: dict[str, ResolvedType] | None = None if per_resource else {}
        #: the glob entries of each block searched, by the block's id (the blocks are not
        #: changed once built, and are kept by this registry): a type is matched against
        #: them and its own key, not against each of the hundreds of entries TripleO has
        self._globs: dict[int, list[RegistryEntry]] = {}
        #: the keys of the user block's globs, in its order (`agrees_on`), once listed
        self._glob_keys: list[str] | None = None
        #: a nested stack's registry: the registry it was made from and the key it
        #: dropped (`for_child`), so its stored form is that one's less the key
        self._derived: tuple[ResourceRegistry, str | None] | None = None
        #: the stored form (`to_data`), by ``absolute_paths``, once made
        self._data: dict[bool, dict[str, object]] = {}
        #: the registries `for_child` made of this one, by what they differ in
        self._children: dict[tuple[str | None, tuple[str, ...]], ResourceRegistry] = {}

    # ------------------------------------------------------------------ construction

    @property
    def sections(self) -> tuple[RegistryBlock, ...]:
        return self._sections

    @property
    def global_sections(self) -> tuple[RegistryBlock, ...]:
        return self._global_sections

    @property
    def user_block(self) -> RegistryBlock:
        """The user's registry after every section was applied (a copy)."""
        return self._user.copy()

    def to_data(self, *, absolute_paths: bool = False) -> dict[str, object]:
        """The user registry in environment-file shape (a new mapping, whose values may be
        shared with the stored forms of the registries of the same tree: a stored
        environment is not changed in place)."""
        return dict(self._stored(absolute_paths))

    def _stored(self, absolute_paths: bool) -> dict[str, object]:
        """The stored form, made once. A nested stack's registry is its parent's entries
        less the one dropped, ``resources:`` narrowed (`for_child`): its form is the
        parent's less that key, ``resources:`` at the same place (where the parent's
        stands, or last, where the parent's form adds an empty one), rather than every
        entry of TripleO's hundreds converted again for each nested stack."""
        data = self._data.get(absolute_paths)
        if data is not None:
            return data
        if self._derived is None:
            data = self._user.to_data(absolute_paths=absolute_paths)
            data.setdefault(RESOURCES_KEY, {})
        else:
            parent, dropped = self._derived
            data = {k: v for k, v in parent._stored(absolute_paths).items() if k != dropped}
            narrowed = self._user.items[RESOURCES_KEY]
            assert isinstance(narrowed, RegistryBlock)
            data[RESOURCES_KEY] = narrowed.to_data(absolute_paths=absolute_paths)
        self._data[absolute_paths] = data
        return data

    def __bool__(self) -> bool:
        return bool(self._user.items or self._global.items)

    def __repr__(self) -> str:
        return f"ResourceRegistry({self.to_data()!r})"

    # ------------------------------------------------------------------ queries

    def resolve(
        self,
        type_name: str,
        resource_name: str | None = None,
        nested_path: tuple[str, ...] = (),
        *,
        known: Callable[[str], bool] | None = None,
    ) -> ResolvedType:
        """Follow the registry from ``type_name`` to a final type or a provider template.

        ``nested_path`` names the parent resources of the stack ``resource_name`` lives in,
        outermost first. Candidates are tried in Heat's order: user entries before global
        ones; per-resource blocks before general entries (exact resource names before
        fnmatch patterns, then the block written later); within one block, the exact entry
        and every matching glob in the order of their keys as strings, which is Heat's
        sort (``*`` sorts before letters, so ``"OS::*"`` is tried before ``"OS::Nova::*"``
        and before ``"OS::Nova::Server"``).

        ``known`` says whether a type name has an implementation. With it, a candidate
        whose chain ends at an unknown type is skipped for the next one, as Heat does;
        without it every name counts as known. When nothing leads to a known type the
        first chain is returned, so the caller can say where it led. Raises
        `RegistryLoopError` when mappings loop.
        """
        by_type = self._by_type if known is None else None
        if by_type is not None:
            cached = by_type.get(type_name)
            if cached is not None:
                return cached
        names = (*nested_path, resource_name) if resource_name is not None else None
        start = frozenset({(type_name, True)})
        found = _Search(self._candidates, type_name, names, known).run(type_name, True, start, ())
        if found is None:
            found = _Search(self._candidates, type_name, names, None).run(
                type_name, True, start, ()
            )
        assert found is not None  # without ``known`` the first candidate always succeeds
        if by_type is not None:
            by_type[type_name] = found
        return found

    def agrees_on(self, other: ResourceRegistry, type_names: Iterable[str]) -> bool:
        """Whether ``other`` resolves each of ``type_names`` as this registry does, for any
        resource, and so does every registry `for_child` makes of each for those names.

        A resolution without ``known`` follows the first candidate of each name it passes
        through (`ResolvedType.mapped_types`); the candidates of a name are the entries under
        that key, the globs and the ``resources:`` blocks, in the user's layer and the
        global one. Those are compared, with their positions (messages quote them); entries
        under other keys are not. `for_child` drops an entry a resolution reached (the same
        in both, when they agree on its name) and narrows ``resources:`` (the same blocks),
        so the registries below agree on those names too. TripleO's registry differs from
        one service's children to another's by the mapping that made each service, which
        the templates below seldom look up."""
        if self is other:
            return True
        if self._global_sections != other._global_sections:
            return False
        mine, theirs = self._user, other._user
        if mine.items.get(RESOURCES_KEY) != theirs.items.get(RESOURCES_KEY):
            return False
        own, others = mine.items, theirs.items
        globs = self._user_glob_keys()
        if globs != other._user_glob_keys():
            return False
        return all(own[key] == others[key] for key in globs) and all(
            own.get(name) == others.get(name) for name in type_names
        )

    def hooks(self, resource_name: str, nested_path: tuple[str, ...] = ()) -> frozenset[str]:
        """Every hook set for this resource by any block whose patterns match its path."""
        return self._settings(HOOKS_KEY, (*nested_path, resource_name))

    def restricted_actions(
        self, resource_name: str, nested_path: tuple[str, ...] = ()
    ) -> frozenset[str]:
        """Actions (``update``, ``replace``) this resource may not take."""
        return self._settings(RESTRICTED_ACTIONS_KEY, (*nested_path, resource_name))

    def template_paths(self) -> tuple[TemplateRef, ...]:
        """Every provider template the registry names (user and global), once each."""
        found: dict[tuple[str, str | None], TemplateRef] = {}
        for user, block in ((True, self._user), (False, self._global)):
            for entry in _walk_entries(block):
                for ref in _templates_of(entry, user):
                    found.setdefault((ref.path, ref.base_dir), ref)
        return tuple(found.values())

    def check(self) -> list[Diagnostic]:
        """Resolve every literal type the registry names, reporting each mapping loop once."""
        found: list[Diagnostic] = []
        seen: set[frozenset[str]] = set()
        for block in (self._user, self._global):
            for names, entry in _literal_entries(block):
                if is_glob(entry.key) or is_template_name(entry.key):
                    continue
                try:
                    if names:
                        self.resolve(entry.key, names[-1], names[:-1])
                    else:
                        self.resolve(entry.key)
                except RegistryLoopError as error:
                    cycle = frozenset(error.cycle)
                    if cycle not in seen:
                        seen.add(cycle)
                        found.extend(error.diagnostics)
        return found

    def for_child(
        self, resource_name: str, expanded: ResolvedType | None = None
    ) -> ResourceRegistry:
        """The registry a nested stack created by ``resource_name`` sees.

        As in Heat: the mapping that turned the resource into its template is dropped (so a
        template standing in for ``OS::Nova::Server`` can itself use ``OS::Nova::Server``),
        and ``resources:`` is narrowed to the nested blocks of the blocks matching the
        resource (pattern matches first, the exact name last, so it wins).
        """
        dropped = None
        if expanded is not None and expanded.chain:
            last = expanded.chain[-1]
            if last.user and not last.scope:
                dropped = last.key
        resources = self._user.items.get(RESOURCES_KEY)
        matching: list[tuple[str, RegistryBlock]] = []
        if isinstance(resources, RegistryBlock):
            matching = [
                (pattern, block)
                for pattern, block in resources.blocks()
                if fnmatchcase(resource_name, pattern)
            ]
            matching.sort(key=lambda item: item[0] == resource_name)
        # the child's registry is a function of this (unchanged) registry, the entry
        # dropped and the blocks narrowed to, in their order: the resources of one type
        # that no ``resources:`` block tells apart (a group's members, a service
        # template's nested stacks) share one, and the lookups it has cached
        key = (dropped, tuple(pattern for pattern, _ in matching))
        registry = self._children.get(key)
        if registry is not None:
            return registry
        user = self._user.copy()
        if dropped is not None:
            user.items.pop(dropped, None)
        narrowed = RegistryBlock()
        for _, block in matching:
            for child_name, child in block.blocks():
                narrowed.items.pop(child_name, None)
                narrowed.items[child_name] = child.copy()
        user.items[RESOURCES_KEY] = narrowed
        # ``user`` is this registry's applied tree less what the child does not see, each
        # block in it a copy of an applied one: applying it again would copy it unchanged,
        # and the global layer is this one's (a nested stack's registry is made for each
        # of a tree's nested stacks, and TripleO's has hundreds of entries)
        registry = ResourceRegistry.__new__(ResourceRegistry)
        registry._build((user,), self._global_sections, user, self._global)
        registry._derived = (self, dropped)
        # the child's globs are this registry's less the one dropped (its user block is
        # this one's, less that key, in the same order; its global block is this one's):
        # listed once for the tree, not again by each of its registries
        registry._glob_keys = [k for k in self._user_glob_keys() if k != dropped]
        registry._globs[id(user)] = [e for e in self._glob_entries(self._user) if e.key != dropped]
        registry._globs[id(self._global)] = self._glob_entries(self._global)
        self._children[key] = registry
        return registry

    # ------------------------------------------------------------------ internals

    def _matches_in(self, block: RegistryBlock, type_name: str) -> list[RegistryEntry]:
        """The entries of one block that apply to ``type_name``, in the order Heat tries
        them: its own key's, and the globs that match it."""
        globs = self._glob_entries(block)
        found = [
            entry
            for entry in globs
            if entry.value is not None and entry.key != type_name and _applies(entry, type_name)
        ]
        own = block.items.get(type_name)
        if isinstance(own, RegistryEntry) and own.value is not None:
            found.append(own)
        found.sort(key=lambda entry: entry.key)
        return found

    def _glob_entries(self, block: RegistryBlock) -> list[RegistryEntry]:
        """The glob entries of a block this registry searches, listed once."""
        globs = self._globs.get(id(block))
        if globs is None:
            globs = self._globs[id(block)] = [e for e in block.entries() if is_glob(e.key)]
        return globs

    def _user_glob_keys(self) -> list[str]:
        """The keys of the user block's globs, in its order (whatever their items)."""
        keys = self._glob_keys
        if keys is None:
            keys = self._glob_keys = [key for key in self._user.items if is_glob(key)]
        return keys

    def _candidates(
        self, type_name: str, names: tuple[str, ...] | None, allow_user: bool
    ) -> Iterator[_Match]:
        layers = (
            ((True, self._user), (False, self._global)) if allow_user else ((False, self._global),)
        )
        for user, block in layers:
            if names:
                for scope, rule in _matching_blocks(block, names, exact_last=True):
                    for entry in self._matches_in(rule, type_name):
                        yield _Match(entry, scope, user)
            for entry in self._matches_in(block, type_name):
                yield _Match(entry, (), user)

    def _settings(self, key: str, names: tuple[str, ...]) -> frozenset[str]:
        values: set[str] = set()
        for block in (self._user, self._global):
            for _, rule in _matching_blocks(block, names):
                setting = rule.items.get(key)
                if isinstance(setting, RuleSetting) and setting.values:
                    values |= setting.values
        return frozenset(values)


class _Search:
    """One resolution: a depth-first walk over candidates, backing off from dead ends."""

    def __init__(
        self,
        candidates: Callable[[str, tuple[str, ...] | None, bool], Iterator[_Match]],
        requested: str,
        names: tuple[str, ...] | None,
        known: Callable[[str], bool] | None,
    ) -> None:
        self.candidates = candidates
        self.requested = requested
        self.names = names
        self.known = known
        self.dead_ends: set[tuple[str, bool]] = set()  # keeps the back-off search linear

    def run(
        self,
        current: str,
        allow_user: bool,
        seen: frozenset[tuple[str, bool]],
        chain: tuple[RegistryStep, ...],
    ) -> ResolvedType | None:
        if is_template_name(current):
            # A type named like a template is that template (Heat registers it on the fly
            # in user environments); its path is relative to the template naming it.
            return ResolvedType(self.requested, current, current, None, chain, True)
        if (current, allow_user) in self.dead_ends:
            return None
        for match in self.candidates(current, self.names, allow_user):
            entry = match.entry
            if entry.is_choice:
                return self._choice(current, chain, match)
            target = _target_of(match.entry, current)
            step = RegistryStep(
                current, entry.key, target, match.scope, match.user, entry.span, entry.file
            )
            steps = (*chain, step)
            if is_template_name(target):
                return ResolvedType(
                    self.requested, current, target, entry.base_dir, steps, match.user
                )
            # Heat resolves a global entry's target in the global registry only.
            following = allow_user and match.user
            if (target, following) in seen or len(steps) >= MAX_CHAIN:
                raise _loop_error(self.requested, list(steps), match)
            found = self.run(target, following, seen | {(target, following)}, steps)
            if found is not None:
                return found
        if self.known is None or self.known(current):
            return ResolvedType(self.requested, current, chain=chain, user=allow_user)
        self.dead_ends.add((current, allow_user))
        return None

    def _choice(self, current: str, chain: tuple[RegistryStep, ...], match: _Match) -> ResolvedType:
        """A list entry ends the walk like a template does, with nothing chosen yet."""
        entry = match.entry
        step = RegistryStep(
            current,
            entry.key,
            entry.describe_value(),
            match.scope,
            match.user,
            entry.span,
            entry.file,
        )
        candidates = _templates_of(entry, match.user)
        return ResolvedType(
            self.requested, current, None, None, (*chain, step), match.user, candidates
        )


def _templates_of(entry: RegistryEntry, user: bool) -> tuple[TemplateRef, ...]:
    """The provider templates an entry names: the one it maps to, or those a list entry
    offers, each where its item is (entries built in code may carry no item positions:
    the entry's then)."""
    if not entry.is_choice:
        template = entry.template
        if template is None:
            return ()
        return (TemplateRef(template, entry.base_dir, entry.span, user),)
    spans = entry.item_spans
    if len(spans) != len(entry.options):
        spans = tuple(entry.span for _ in entry.options)
    return tuple(
        TemplateRef(option, entry.base_dir, span, user)
        for option, span in zip(entry.options, spans, strict=True)
    )


def _target_of(entry: RegistryEntry, type_name: str) -> str:
    template = entry.template
    if template is not None:
        return template
    value = entry.value if isinstance(entry.value, str) else ""
    if is_glob(entry.key) and is_glob(value):
        return value[:-1] + type_name[len(entry.key) - 1 :]
    return value


def _applies(entry: RegistryEntry, type_name: str) -> bool:
    """Whether a glob entry (not ``type_name``'s own) maps ``type_name``."""
    # A many-to-one glob must not match its own target, or it would map it forever.
    return type_name.startswith(entry.key[:-1]) and type_name != entry.value


def _has_resource_blocks(block: RegistryBlock) -> bool:
    """Whether ``resources:`` holds any block (a rule for some resources only)."""
    resources = block.items.get(RESOURCES_KEY)
    return isinstance(resources, RegistryBlock) and any(True for _ in resources.blocks())


def _matching_blocks(
    block: RegistryBlock, names: tuple[str, ...], *, exact_last: bool = False
) -> list[tuple[tuple[str, ...], RegistryBlock]]:
    """Blocks under ``resources:`` whose patterns match ``names`` level by level, best first.

    Better means exact names before patterns, compared from the outermost level, and at
    equal exactness the block written later. With ``exact_last`` the resource's own name
    (the last) must be written out: Heat maps a type for one resource only by its exact
    name (``resources: {"r*": {My::Thing: ...}}`` maps nothing; measured on 24.1.2),
    while hooks and the blocks a nested stack inherits match patterns.
    """
    resources = block.items.get(RESOURCES_KEY)
    if not isinstance(resources, RegistryBlock):
        return []
    level: list[tuple[tuple[str, ...], RegistryBlock, tuple[tuple[bool, int], ...]]] = [
        ((), resources, ())
    ]
    last = len(names) - 1
    for depth, name in enumerate(names):
        following = []
        for scope, parent, rank in level:
            for index, (pattern, child) in enumerate(parent.blocks()):
                if (
                    (pattern == name)
                    if exact_last and depth == last
                    else fnmatchcase(name, pattern)
                ):
                    following.append(((*scope, pattern), child, (*rank, (pattern == name, index))))
        level = following
        if not level:
            return []
    level.sort(key=lambda item: item[2], reverse=True)
    return [(scope, child) for scope, child, _ in level]


def _walk_entries(block: RegistryBlock) -> Iterator[RegistryEntry]:
    for item in block.items.values():
        if isinstance(item, RegistryEntry):
            if item.value is not None:
                yield item
        elif isinstance(item, RegistryBlock):
            yield from _walk_entries(item)


def _literal_entries(
    block: RegistryBlock,
) -> Iterator[tuple[tuple[str, ...], RegistryEntry]]:
    """General entries, and per-resource ones whose block path has no patterns."""
    for entry in block.entries():
        if entry.value is not None:
            yield (), entry
    resources = block.items.get(RESOURCES_KEY)
    if isinstance(resources, RegistryBlock):
        yield from _literal_rule_entries(resources, ())


def _literal_rule_entries(
    block: RegistryBlock, names: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], RegistryEntry]]:
    for name, child in block.blocks():
        if any(char in name for char in "*?["):
            continue
        path = (*names, name)
        for entry in child.entries():
            if entry.value is not None:
                yield path, entry
        yield from _literal_rule_entries(child, path)


def _loop_error(requested: str, chain: list[RegistryStep], match: _Match) -> RegistryLoopError:
    names = [chain[0].requested, *(step.target for step in chain)]
    if len(chain) >= MAX_CHAIN:
        shown = " -> ".join([*names[:4], "..."])
        message = (
            f'resource_registry mappings for "{requested}" go on for more than {MAX_CHAIN} '
            f"steps (a glob that keeps growing the name?): {shown}"
        )
        cycle: tuple[str, ...] = (match.entry.key,)
    else:
        start = names.index(names[-1])
        cycle = tuple(names[start:])
        message = f"resource_registry mappings form a loop: {' -> '.join(cycle)}"
        if start:
            message += f' (reached from "{requested}")'
    path: Path = ("resource_registry",)
    if match.scope:
        path = (*path, RESOURCES_KEY, *match.scope)
    diagnostic = Diagnostic(ENVIRONMENT, message, (*path, match.entry.key), match.entry.span)
    return RegistryLoopError(diagnostic, cycle)
