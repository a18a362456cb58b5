"""One ``resource_registry`` section, read and checked into typed entries.

The registry is a small language of its own (aliases, provider templates, globs, per-resource
blocks with hooks and restricted actions, nested blocks for nested stacks). Heat accepts
almost any shape here and fails later, often with a bare exception; reading the section into
`RegistryBlock` values first lets every mistake be reported once, with its position, before
any type is resolved. `applied` layers the sections of an environment's registries in
Heat's order.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from stoker.codes import ENVIRONMENT, ENVIRONMENT_NONPORTABLE
from stoker.diagnostics import Diagnostic, Path, Severity, Span
from stoker.template.nodes import key_span, plain, span_of, value_span

HOOK_TYPES = (
    "pre-create",
    "pre-update",
    "pre-delete",
    "post-create",
    "post-update",
    "post-delete",
)
RESTRICTED_ACTIONS = ("update", "replace")

RESOURCES_KEY = "resources"
HOOKS_KEY = "hooks"
RESTRICTED_ACTIONS_KEY = "restricted_actions"
TEMPLATE_SUFFIXES = (".yaml", ".template")
#: each per-resource setting: what Heat's message calls one, and what it is for, and the
#: values it takes
_SETTINGS = {
    HOOKS_KEY: ("hook", "resource breakpoint", HOOK_TYPES),
    RESTRICTED_ACTIONS_KEY: ("restricted_action", "resource", RESTRICTED_ACTIONS),
}


def is_template_name(name: str) -> bool:
    """Heat's test for "this names a provider template": the suffix, nothing else."""
    return name.endswith(TEMPLATE_SUFFIXES)


def is_glob(name: str) -> bool:
    """Only a trailing ``*`` makes a registry key a wildcard (Heat ignores others)."""
    return name.endswith("*")


@dataclass(slots=True, frozen=True)
class RegistryEntry:
    """``key: value`` mapping a type (or glob) to a type or template; ``value`` None deletes.

    ``base_dir`` is the directory of the environment file the entry was read from (None when
    it did not come from a file), so a relative provider template path can be found later.

    A tuple ``value`` is a list of provider templates to choose from by the environment's
    ``requires`` and each template's ``capabilities`` (stoker's reading of the capabilities
    spec; Heat has no such entry); ``item_spans`` are the positions of its items. Immutable,
    compared and hashed by value.
    """

    key: str
    value: str | tuple[str, ...] | None
    span: Span | None = None
    base_dir: str | None = None
    file: str | None = None
    item_spans: tuple[Span | None, ...] = ()

    @property
    def options(self) -> tuple[str, ...]:
        """The templates a list entry offers (empty for every other entry)."""
        return self.value if isinstance(self.value, tuple) else ()

    @property
    def is_choice(self) -> bool:
        """True when resolving this entry means choosing one of several templates.

        A key naming a template always means that template, so its list is not a choice.
        """
        return bool(self.options) and not is_template_name(self.key)

    @property
    def template(self) -> str | None:
        """The template path this entry names: the key itself wins, as in Heat.

        None for a list entry: which template it means is decided by ``requires``.
        """
        if is_template_name(self.key):
            return self.key
        if isinstance(self.value, str) and is_template_name(self.value):
            return self.value
        return None

    def describe_value(self) -> str:
        """The value as written, a list shown as ``[a.yaml, b.yaml]`` (for messages)."""
        if isinstance(self.value, tuple):
            return "[" + ", ".join(self.value) + "]"
        return "null" if self.value is None else self.value


@dataclass(slots=True, frozen=True)
class RuleSetting:
    """``hooks`` or ``restricted_actions`` in a per-resource block; ``values`` None deletes."""

    key: str
    values: frozenset[str] | None
    span: Span | None = None


@dataclass(slots=True)
class RegistryBlock:
    """One mapping level: the section itself, its ``resources:`` or one resource's block.

    Items keep the order they were written in, because Heat applies a registry in order
    (a ``"X*": null`` deletes only what came before it).
    """

    items: dict[str, RegistryEntry | RuleSetting | RegistryBlock] = field(default_factory=dict)
    span: Span | None = None

    def entries(self) -> Iterator[RegistryEntry]:
        for item in self.items.values():
            if isinstance(item, RegistryEntry):
                yield item

    def blocks(self) -> Iterator[tuple[str, RegistryBlock]]:
        for key, item in self.items.items():
            if isinstance(item, RegistryBlock):
                yield key, item

    def copy(self) -> RegistryBlock:
        """A copy deep enough that applying another section never changes this one."""
        items: dict[str, RegistryEntry | RuleSetting | RegistryBlock] = {
            key: item.copy() if isinstance(item, RegistryBlock) else item
            for key, item in self.items.items()
        }
        return RegistryBlock(items, self.span)

    def to_data(self, *, absolute_paths: bool = False) -> dict[str, Any]:
        """Plain data in the environment-file shape (what ``GET .../environment`` shows).

        With ``absolute_paths``, provider template paths that were relative to their
        environment file are written as locations that mean the same thing anywhere, which
        is what a stored stack needs to find its templates again when it is resumed.
        """
        data: dict[str, Any] = {}
        for key, item in self.items.items():
            if isinstance(item, RegistryEntry):
                value: Any = item.value
                if isinstance(value, str):
                    if absolute_paths and is_template_name(value):
                        value = _stored_path(value, item.base_dir)
                elif isinstance(value, tuple):
                    value = [_stored_path(v, item.base_dir) if absolute_paths else v for v in value]
                data[key] = value
            elif isinstance(item, RegistryBlock):
                data[key] = item.to_data(absolute_paths=absolute_paths)
            else:
                data[key] = None if item.values is None else sorted(item.values)
        return data


def _stored_path(path: str, base_dir: str | None) -> str:
    """``path``, written in a registry read from ``base_dir``, as a stack stores it."""
    if base_dir is None:
        return path
    if os.path.isabs(base_dir):
        return _under(base_dir, path)
    if "://" in path or os.path.isabs(path):
        return path
    return os.path.abspath(os.path.join(base_dir, path))  # from the working directory


@lru_cache(maxsize=4096)
def _under(base_dir: str, path: str) -> str:
    """``path`` below the absolute ``base_dir``, normalised (what `os.path.abspath` gives
    it), or as it is when it is a URL or absolute: a stack stores its registry, and each
    of a tree's nested stacks stores the same hundreds of entries again (TripleO's)."""
    if "://" in path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(base_dir, path))


class _Reader:
    """Walks one section, building blocks and collecting every finding. A plain class:
    nothing compares or prints a reader, and a dataclass costs more to create at import
    (Python compiles its generated methods), paid by every process."""

    __slots__ = ("base_dir", "file", "found")

    def __init__(self, file: str | None, base_dir: str | None) -> None:
        self.file = file
        self.base_dir = base_dir
        self.found: list[Diagnostic] = []

    def error(self, message: str, path: Path, span: Span | None) -> None:
        self.found.append(Diagnostic(ENVIRONMENT, message, path, span))

    def warn(self, message: str, path: Path, span: Span | None, code: str = ENVIRONMENT) -> None:
        self.found.append(Diagnostic(code, message, path, span, Severity.WARNING))

    def section(self, data: Any, path: Path, span: Span | None) -> RegistryBlock:
        block = RegistryBlock(span=span_of(data) or span)
        if not isinstance(data, dict):
            self.error(
                "resource_registry must be a mapping of resource types "
                f"(got {describe_kind(data)})",
                path,
                span_of(data) or span,
            )
            return block
        return self.block(data, path, block, top=True)

    def resources(self, data: dict[Any, Any], path: Path) -> RegistryBlock:
        block = RegistryBlock(span=span_of(data))
        for pattern, value in data.items():
            item_path = (*path, str(pattern))
            k_span = key_span(data, pattern)
            if not isinstance(pattern, str):
                self.error(f"resource name {pattern!r} must be a string", item_path, k_span)
                continue
            if value is None:
                block.items[pattern] = self._deletion(pattern, k_span)
            elif isinstance(value, dict):
                block.items[pattern] = self.rule(value, item_path)
            else:
                self.error(
                    f'the block for resource "{pattern}" must be a mapping of types, '
                    f"hooks and restricted_actions (got {describe_kind(value)})",
                    item_path,
                    value_span(data, pattern) or k_span,
                )
        return block

    def rule(self, data: dict[Any, Any], path: Path) -> RegistryBlock:
        return self.block(data, path, RegistryBlock(span=span_of(data)), top=False)

    def block(
        self, data: dict[Any, Any], path: Path, block: RegistryBlock, *, top: bool
    ) -> RegistryBlock:
        """The entries of the registry's ``top`` or of a block under ``resources:`` (where
        hooks and restricted actions apply and a mapping is a nested stack's block)."""
        for key, value in data.items():
            item_path = (*path, str(key))
            k_span = key_span(data, key)
            v_span = value_span(data, key)
            if not isinstance(key, str):
                self.error(f"resource_registry key {key!r} must be a string", item_path, k_span)
            elif top and key == RESOURCES_KEY:
                if isinstance(value, dict):
                    block.items[key] = self.resources(value, item_path)
                else:
                    self.error(
                        "resource_registry resources must be a mapping of resource names "
                        f"(or fnmatch patterns) to blocks (got {describe_kind(value)})",
                        item_path,
                        k_span if value is None else v_span or k_span,
                    )
            elif key in (HOOKS_KEY, RESTRICTED_ACTIONS_KEY):
                setting = self.setting(key, value, item_path, v_span or k_span)
                if setting is not None and not top:
                    block.items[key] = setting
                elif setting is not None:
                    self.warn(
                        f"{key} has no effect at the top of resource_registry; put it in a "
                        "block under resources: (resources: {<name>: {" + key + ": ...}})",
                        item_path,
                        k_span,
                    )
            elif not top and isinstance(value, dict):
                # A nested block: entries for resources of the nested stack this one creates.
                block.items[key] = self.rule(value, item_path)
            else:
                entry = self.entry(key, value, item_path, k_span, v_span)
                if entry is not None:
                    block.items[key] = entry
        self._check_shadowed(block, path)
        return block

    def setting(self, key: str, value: Any, path: Path, span: Span | None) -> RuleSetting | None:
        if value is None:
            return RuleSetting(key, None, span)
        kind, subject, allowed = _SETTINGS[key]
        values: list[Any] | None = None
        if isinstance(value, str):
            values = [value]
        elif isinstance(value, list):
            values = list(value)
        if values is None or not all(isinstance(v, str) and v in allowed for v in values):
            self.error(
                f'Invalid {kind} type "{plain(value)}" for {subject}, '
                f"acceptable {kind} types are: {allowed}",
                path,
                span,
            )
            return None
        return RuleSetting(key, frozenset(str(v) for v in values), span)

    def entry(
        self, key: str, value: Any, path: Path, k_span: Span | None, v_span: Span | None
    ) -> RegistryEntry | None:
        if value is None:
            return self._deletion(key, k_span)
        if isinstance(value, dict):
            self.error(
                f'resource_registry entry "{key}" must map to a resource type or a template '
                "path, not a mapping (only resources: holds per-resource blocks)",
                path,
                v_span or k_span,
            )
            return None
        if isinstance(value, list):
            return self.choice(key, value, path, k_span, v_span)
        if not isinstance(value, str):
            self.error(
                f'resource_registry entry "{key}" must map to a resource type or a template '
                f"path, or list template paths (got {describe_kind(value)})",
                path,
                v_span or k_span,
            )
            return None
        if not value.strip():
            self.error(f'resource_registry entry "{key}" maps to an empty type name', path, v_span)
            return None
        self._check_forms(key, value, path, k_span, v_span)
        return RegistryEntry(key, str(value), k_span, self.base_dir, self.file)

    def choice(
        self, key: str, value: list[Any], path: Path, k_span: Span | None, v_span: Span | None
    ) -> RegistryEntry | None:
        """A list of provider templates, one of which ``requires`` will choose.

        Every item must name a template: only templates declare capabilities, so a type
        name in the list could never be chosen. Bad items are reported at their own
        position; the good ones still form the entry so later checks see the rest.
        """
        self.warn(
            f'"{key}" maps to a list: Heat accepts only one type or template here (it reads '
            "a list as a plugin class and fails); stoker chooses one of the templates by the "
            "environment's requires and each template's capabilities",
            path,
            v_span or k_span,
            ENVIRONMENT_NONPORTABLE,
        )
        if not value:
            self.error(
                f'resource_registry entry "{key}" is an empty list; list the templates to '
                "choose from, or map the type to one type or template",
                path,
                v_span or k_span,
            )
            return None
        items: list[str] = []
        spans: list[Span | None] = []
        for index, item in enumerate(value):
            item_span = value_span(value, index) or v_span
            number = index + 1
            if not isinstance(item, str):
                self.error(
                    f'resource_registry entry "{key}": item {number} must be a template path '
                    f"(got {describe_kind(item)})",
                    (*path, index),
                    item_span,
                )
            elif not is_template_name(item):
                self.error(
                    f'resource_registry entry "{key}": item {number} "{item}" is not a template '
                    "path; a list offers provider templates to choose from by their "
                    "capabilities, so each item must end .yaml or .template",
                    (*path, index),
                    item_span,
                )
            elif item in items:
                self.warn(
                    f'resource_registry entry "{key}": "{item}" is listed twice; the repeat '
                    "is ignored",
                    (*path, index),
                    item_span,
                )
            else:
                items.append(str(item))
                spans.append(item_span)
        if is_template_name(key):
            self.warn(
                f'"{key}": a key naming a template always means that template; the list is ignored',
                path,
                v_span,
            )
        if not items:
            return None
        return RegistryEntry(key, tuple(items), k_span, self.base_dir, self.file, tuple(spans))

    def _check_forms(
        self, key: str, value: str, path: Path, k_span: Span | None, v_span: Span | None
    ) -> None:
        """Warn about entries that parse but do not do what they look like in Heat."""
        if "*" in key[:-1]:
            self.warn(
                f'"{key}": only a trailing * is a wildcard in resource_registry; this key '
                "matches only a type of exactly that name",
                path,
                k_span,
            )
        if is_glob(key) and is_template_name(value):
            self.warn(
                f'"{key}": Heat never matches a wildcard key whose value is a template, so '
                f'types matching it are not mapped to "{value}" there; stoker maps them',
                path,
                k_span,
                ENVIRONMENT_NONPORTABLE,
            )
        if is_template_name(key) and value != key and not is_template_name(value):
            self.warn(
                f'"{key}": a key naming a template always means that template; the value '
                f'"{value}" is ignored',
                path,
                v_span,
            )
        if value.endswith(".yml") or key.endswith(".yml"):
            self.warn(
                f'"{value if value.endswith(".yml") else key}" is read as a type name, not a '
                "template: Heat only recognises templates ending .yaml or .template",
                path,
                v_span if value.endswith(".yml") else k_span,
            )

    def _check_shadowed(self, block: RegistryBlock, path: Path) -> None:
        """Warn about entries a glob of the same block is always tried before.

        Heat tries the matching keys of one level in string order and ``*`` sorts before
        letters, so ``"OS::*"`` comes before ``"OS::Nova::Server"`` and ``"OS::Nova::*"``.
        """
        live = [entry for entry in block.entries() if entry.value is not None]
        globs = [entry for entry in live if is_glob(entry.key)]
        for entry in live:
            prefix = entry.key[:-1] if is_glob(entry.key) else entry.key
            for glob in globs:
                if glob.key >= entry.key or not prefix.startswith(glob.key[:-1]):
                    continue
                if not is_glob(entry.key) and entry.key == glob.value:
                    continue
                self.warn(
                    f'"{entry.key}" is shadowed by "{glob.key}", which also matches it and '
                    "which Heat tries first (keys are tried in string order, * before "
                    f'letters); it is used only where "{glob.key}" leads to an unknown type',
                    (*path, entry.key),
                    entry.span,
                )
                break

    def _deletion(self, key: str, span: Span | None) -> RegistryEntry:
        return RegistryEntry(key, None, span, self.base_dir, self.file)


def describe_kind(value: Any) -> str:
    """How a value's shape is named in messages ("a list", "a mapping", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def base_dir_of(file: str | None) -> str | None:
    """The directory relative template paths in ``file`` are taken from.

    Names like ``<environment>`` are not files, so they have none.
    """
    if file is None or file.startswith("<"):
        return None
    return os.path.dirname(file)


def read_registry_section(
    data: Any,
    *,
    file: str | None = None,
    span: Span | None = None,
) -> tuple[RegistryBlock, list[Diagnostic]]:
    """Check one ``resource_registry`` mapping and turn it into a `RegistryBlock`.

    ``span``: where the section's value is, for a value that keeps no position itself
    (a number, ``null``), so even that finding names its place."""
    reader = _Reader(file, base_dir_of(file))
    block = reader.section(data, ("resource_registry",), span_of(data) or span)
    return block, reader.found


def applied(sections: Iterable[RegistryBlock]) -> RegistryBlock:
    """The sections applied in order, each over the ones before, as Heat layers a
    registry: a ``null`` deletes what came before it (a ``"X*": null`` every entry its
    prefix matches), a block merges into the block of that name, and anything else
    replaces its key and moves it last."""
    tree = RegistryBlock()
    for section in sections:
        _apply(tree, section)
    return tree


def _apply(target: RegistryBlock, source: RegistryBlock) -> None:
    for key, item in source.items.items():
        deleting = (isinstance(item, RegistryEntry) and item.value is None) or (
            isinstance(item, RuleSetting) and item.values is None
        )
        if deleting:
            if is_glob(key) and isinstance(item, RegistryEntry):
                prefix = key[:-1]
                for existing in list(target.items):
                    if isinstance(target.items[existing], RegistryEntry) and existing.startswith(
                        prefix
                    ):
                        del target.items[existing]
            else:
                target.items.pop(key, None)
        elif isinstance(item, RegistryBlock):
            existing_block = target.items.get(key)
            if not isinstance(existing_block, RegistryBlock):
                existing_block = RegistryBlock(span=item.span)
                target.items.pop(key, None)
                target.items[key] = existing_block
            _apply(existing_block, item)
        else:
            # Re-inserting moves the key last: "the later glob wins a tie" means later in
            # the order the entries were applied.
            target.items.pop(key, None)
            target.items[key] = item
