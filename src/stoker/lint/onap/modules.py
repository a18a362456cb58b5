"""How ONAP sees a package: base, incremental, volume and nested modules, and env pairs.

Files are classified by name, as ONAP's validation does: every ``.yaml``/``.yml`` file is
a Heat template and every ``.env`` file an environment, whatever it holds (a ``.yaml``
without heat_template_version is a template breaking R-27078, not something to skip).
Among the templates:

* nested: a template another template of the package uses as a type (``type: x.yaml``, a
  group's member type, or a registry mapping);
* volume: otherwise, a file whose name ends in ``_volume`` (R-82732's naming);
* base: otherwise, a file named ``base``, ``base_<text>``, ``<text>_base`` or
  ``<text>_base_<text>`` (R-81339's naming, case-insensitive);
* incremental: every other template.

Each module pairs with the environment file of the same base name in the same directory
(``base.yaml`` with ``base.env``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, Generic, TypeVar

from stoker.environment.registry_section import is_template_name
from stoker.lint.memo import memoized
from stoker.lint.references import TypeReference, type_references
from stoker.patterns import LazyPattern

if TYPE_CHECKING:
    from stoker.lint.context import (
        EnvironmentContext,
        FileContext,
        PackageContext,
        TemplateContext,
    )
    from stoker.lint.inputs import SourceFile

Unit = TypeVar("Unit", bound="FileContext")

#: suffixes that make a file a template or an environment in ONAP's reading (lower case)
TEMPLATE_SUFFIXES = (".yaml", ".yml")
ENVIRONMENT_SUFFIXES = (".env",)

_BASE_NAME = LazyPattern(r"^(base|base_.+|.+_base|.+_base_.+)$", re.IGNORECASE)
VOLUME_NAME = LazyPattern(r"_volume$", re.IGNORECASE)


def kind_by_name(path: str) -> str | None:
    """ "template" or "environment" by the file's suffix; None for any other file (which
    is then classified by content)."""
    lowered = path.lower()
    if lowered.endswith(TEMPLATE_SUFFIXES):
        return "template"
    if lowered.endswith(ENVIRONMENT_SUFFIXES):
        return "environment"
    return None


class ModuleRole(StrEnum):
    BASE = "base"
    INCREMENTAL = "incremental"
    VOLUME = "volume"
    NESTED = "nested"


class Pairing(Generic[Unit]):
    """ONAP's pairing of modules with environment files, by name: the environment files
    of the module's name beside it, else the one of that name elsewhere in the package
    when it is the only one."""

    def __init__(self, environments: Iterable[Unit]) -> None:
        self.beside: dict[tuple[str, str], list[Unit]] = {}
        self.by_stem: dict[str, list[Unit]] = {}
        for environment in environments:
            source = environment.source
            self.beside.setdefault((source.directory, source.stem), []).append(environment)
            self.by_stem.setdefault(source.stem, []).append(environment)

    def of(self, source: SourceFile) -> list[Unit]:
        found = self.beside.get((source.directory, source.stem))
        if found is None:
            found = self.by_stem.get(source.stem, [])
            found = found if len(found) == 1 else []
        return found


class PackageLayout:
    """Each template's role (by file name) and each module's environment files."""

    __slots__ = ("pairs", "roles")

    def __init__(self) -> None:
        self.roles: dict[str, ModuleRole] = {}
        self.pairs: dict[str, list[EnvironmentContext]] = {}

    def role(self, ctx: TemplateContext) -> ModuleRole:
        return self.roles.get(ctx.name, ModuleRole.INCREMENTAL)

    def environments_of(self, ctx: TemplateContext) -> list[EnvironmentContext]:
        return self.pairs.get(ctx.name, [])

    @classmethod
    def of(cls, package: PackageContext) -> PackageLayout:
        nested = _nested_names(package)
        layout = cls()
        pairing = Pairing(package.environments)
        for template in package.templates:
            source = template.source
            if template.name in nested:
                role = ModuleRole.NESTED
            elif VOLUME_NAME.search(source.stem):
                role = ModuleRole.VOLUME
            elif _BASE_NAME.match(source.stem):
                role = ModuleRole.BASE
            else:
                role = ModuleRole.INCREMENTAL
            layout.roles[template.name] = role
            layout.pairs[template.name] = pairing.of(source)
        return layout


@memoized
def references(ctx: TemplateContext) -> list[TypeReference]:
    """The template's type references, found once for the layout and R-71699."""
    return list(type_references(ctx))


@memoized
def type_users(package: PackageContext) -> dict[str, list[TemplateContext]]:
    """Each file of the package some template of it uses as a type, with the templates
    that use it, in path order."""
    users: dict[str, list[TemplateContext]] = {}
    for template in package.templates:
        if template.template is None:
            continue
        for reference in references(template):
            if is_template_name(reference.type):
                target = package.package.resolve(template.source, reference.type)
                if target is not None:
                    found = users.setdefault(target.name, [])
                    if not found or found[-1] is not template:
                        found.append(template)
    return users


def _nested_names(package: PackageContext) -> set[str]:
    """Files of the package some template of it uses as a type."""
    names = set(type_users(package))
    for template in package.templates:
        if template.template is None:
            continue
        if not any(_has_registry(env) for env in template.environments):
            continue  # only an environment's registry can map a type to a template
        for resolved in template.resource_types.values():
            provider = resolved.provider
            if provider is not None and provider.source is not None:
                names.add(provider.source.name)
    return names


def _has_registry(environment: EnvironmentContext) -> bool:
    data = environment.data
    return isinstance(data, dict) and bool(data.get("resource_registry"))
