"""The linter's view of resource types: Heat's catalog, its stock aliases and template types.

Heat resolves a type through the user's registry, then through the global environment
that ships with it (``OS::Ceilometer::Alarm`` is an alias of ``OS::Aodh::Alarm``;
``AWS::CloudWatch::Alarm`` is a provider template whose schema the catalog records). The
linter needs all three to say what a type declares.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import NamedTuple

from stoker.resources import (
    TypeSchema,
    default_registry,
    heat_catalog,
    load_document,
    stock_alias,
    type_schema_from_entry,
)

#: Heat classes that answer any attribute name by overriding ``get_attribute`` (the outputs
#: of their software config), so get_attr cannot be checked against a declared list.
_DEPLOYMENT_TYPES = frozenset({"OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment"})


class LintCatalog(NamedTuple):
    types: Mapping[str, TypeSchema]  # Heat's, each built when first asked for
    stock: Mapping[str, TypeSchema]  # the stock environment's template types Heat lacks
    aliases: dict[str, str]  # the stock environment's; keys ending in * are prefix globs
    dynamic_properties: frozenset[str]

    def get(self, name: str) -> TypeSchema | None:
        return self.types.get(name) or self.stock.get(name)

    def knows(self, name: str) -> bool:
        return name in self.types or name in self.stock or stock_alias(name) is not None


@cache
def lint_catalog() -> LintCatalog:
    """Built on first use and shared (the catalog is immutable data). Heat's types stay
    lazy: which are nested stacks is read from the raw entries, not from built schemas."""
    catalog = heat_catalog()
    entries = load_document()["types"]
    stock_entries = load_document().get("default_environment", {}).get("template_types", {})
    stock = {
        name: type_schema_from_entry(name, entry)
        for name, entry in stock_entries.items()
        if name not in entries
    }
    registry = default_registry()
    plugins = [registry.get(name) for name in registry.names()]
    dynamic_properties = frozenset(
        p.type_name for p in plugins if p and p.traits.dynamic_properties
    )
    return LintCatalog(catalog.types, stock, dict(catalog.aliases), dynamic_properties)


@cache
def dynamic_attributes() -> frozenset[str]:
    """Types whose attributes cannot be checked against a declared list: plugins that
    answer any name, nested stacks (their outputs), deployments. Worked out when first
    asked for (the default profile's E1037): it reads every type's entry."""
    registry = default_registry()
    plugins = [registry.get(name) for name in registry.names()]
    entries = load_document()["types"]
    return frozenset(
        {p.type_name for p in plugins if p and p.traits.dynamic_attributes}
        | {name for name, entry in entries.items() if entry.get("nested_stack")}
        | {name for name, schema in lint_catalog().stock.items() if schema.nested_stack}
        | _DEPLOYMENT_TYPES
    )
