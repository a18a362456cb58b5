"""What a resource registry lookup answers: the steps it took (`RegistryStep`), the type
or provider template it reached (`ResolvedType`), and the templates a registry names
(`TemplateRef`), with where such a template is (`template_location`).

Kept apart from `stoker.environment.registry`, which makes them, so that the lookup's
rules and the records its callers read stay small modules of their own.
"""

from __future__ import annotations

import os
from typing import NamedTuple
from urllib.parse import urlparse

from stoker.diagnostics import Span


class RegistryStep(NamedTuple):
    """One mapping applied while resolving: ``requested`` became ``target`` via ``key``."""

    requested: str
    key: str  # the registry key that matched (the type itself, or a glob)
    target: str  # a type name, or a template path as written
    scope: tuple[str, ...]  # resource-name patterns of the block it came from; () = general
    user: bool  # from the user's environment (False: the global one)
    span: Span | None = None
    file: str | None = None

    def __str__(self) -> str:
        where = f" (resources.{'.'.join(self.scope)})" if self.scope else ""
        return f"{self.requested} -> {self.target}{where}"


def template_location(template: str, base_dir: str | None) -> str:
    """Where a provider template named in an environment is: a URL, or a path on disk.

    Relative paths are taken from the environment file's directory, as heatclient does
    before it uploads the files; ``file://`` URLs become plain paths.
    """
    if "://" in template:
        parsed = urlparse(template)
        return parsed.path if parsed.scheme == "file" else template
    if os.path.isabs(template) or base_dir is None:
        return template
    return os.path.normpath(os.path.join(base_dir, template))


class ResolvedType(NamedTuple):
    """What a resource type resolved to.

    ``type_name`` is the last type name reached (the one a plugin must implement, or the
    type a provider template stands in for); ``template`` the provider template path exactly
    as written, with ``base_dir`` the directory of the environment file that named it (None
    when the template named itself, e.g. ``type: x.yaml``, which is relative to the template
    that uses it).

    When the registry maps the type to a list of templates, ``candidates`` holds them and
    ``template`` stays None until one is chosen (`stoker.resolution.choose_provider`,
    `stoker.resolution.resolve_provider`), because which one applies depends on the
    environment's ``requires`` and on what each template declares.
    """

    requested: str
    type_name: str
    template: str | None = None
    base_dir: str | None = None
    chain: tuple[RegistryStep, ...] = ()
    user: bool = True
    candidates: tuple[TemplateRef, ...] = ()

    @property
    def is_choice(self) -> bool:
        """True when the registry offers several templates (chosen or not yet)."""
        return bool(self.candidates)

    @property
    def mapped_types(self) -> tuple[str, ...]:
        """Every type name the resolution passed through, the requested one first.

        A template declaring ``resource_type`` may stand in for any of them.
        """
        names = [self.requested]
        for step in self.chain:
            if step.requested not in names:
                names.append(step.requested)
        if self.type_name not in names:
            names.append(self.type_name)
        return tuple(names)

    @property
    def template_location(self) -> str | None:
        if self.template is None:
            return None
        return template_location(self.template, self.base_dir)

    def describe(self) -> str:
        """``A -> B -> x.yaml``: the chain for messages."""
        if not self.chain:
            return self.requested
        names = [self.chain[0].requested, *(step.target for step in self.chain)]
        if self.candidates and self.template is not None:
            names.append(self.template)
        return " -> ".join(names)


class TemplateRef(NamedTuple):
    """A provider template a registry mentions, and where it was mentioned."""

    path: str  # as written
    base_dir: str | None
    span: Span | None = None
    user: bool = True

    @property
    def location(self) -> str:
        return template_location(self.path, self.base_dir)
