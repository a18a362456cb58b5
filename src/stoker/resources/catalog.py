"""Heat's catalog of resource types as schemas: facts about all 201 types Heat 24.1.2 ships.

stoker runs only the cloud-free types; the catalog lets the linter and ``resource-type show``
speak about every other type too (its properties, attributes and support status). The data
is ``data/resource-types.json`` (see the reference notes), read once on first use.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from stoker.resources.schema import AttributeSchema, PropertySchema, SupportStatus

DATA_FILE = "resource-types.json"


@dataclass(slots=True, frozen=True)
class TypeSchema:
    """Everything declared about one resource type."""

    name: str
    properties: Mapping[str, PropertySchema]
    attributes: Mapping[str, AttributeSchema]
    support_status: SupportStatus = field(default_factory=SupportStatus)
    #: false for HIDDEN types: Heat's API does not list them, but templates may use them
    listed: bool = True
    #: the cloud service the type talks to (``nova``); None when it needs none
    service: str | None = None
    #: the type is a nested stack (ResourceGroup, AutoScalingGroup, ...)
    nested_stack: bool = False
    #: the keys its ``update_policy`` may hold (Heat refuses others at validate)
    update_policy: Mapping[str, PropertySchema] = field(default_factory=dict)

    def to_api_dict(self) -> dict[str, Any]:
        """Heat's ``GET /resource_types/{type}`` view: hidden or unimplemented top-level
        properties and hidden attributes are left out, nested ones are kept."""
        return {
            "resource_type": self.name,
            "properties": {
                name: prop.to_dict(descriptions=True)
                for name, prop in self.properties.items()
                if prop.implemented and not prop.support_status.hidden
            },
            "attributes": {
                name: attribute.to_dict(descriptions=True)
                for name, attribute in self.attributes.items()
                if not attribute.support_status.hidden
            },
            "support_status": self.support_status.to_dict(),
        }


class Catalog(NamedTuple):
    """The catalog: ``types`` by name, and the Heat release it describes. Made once per
    process: a named tuple, as a frozen, slotted dataclass is costlier to create at
    import (Python compiles its generated methods)."""

    heat_version: str
    types: Mapping[str, TypeSchema]
    #: the stock environment's aliases (``OS::Metering::Alarm`` -> ``OS::Aodh::Alarm``)
    aliases: Mapping[str, str]

    def get(self, name: str) -> TypeSchema | None:
        return self.types.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self.types

    def names(self) -> list[str]:
        return sorted(self.types)


def type_schema_from_entry(name: str, entry: Mapping[str, Any]) -> TypeSchema:
    """One ``types[<name>]`` entry of the catalog as a `TypeSchema`."""
    return TypeSchema(
        name=name,
        properties={
            key: PropertySchema.from_dict(prop) for key, prop in entry["properties"].items()
        },
        attributes={
            key: AttributeSchema.from_dict(attribute)
            for key, attribute in entry["attributes"].items()
        },
        support_status=SupportStatus.from_dict(entry.get("support_status")),
        listed=bool(entry.get("listed", True)),
        service=entry.get("service"),
        nested_stack=bool(entry.get("nested_stack", False)),
        update_policy={
            key: PropertySchema.from_dict(prop)
            for key, prop in (entry.get("update_policy") or {}).items()
        },
    )


@cache
def load_document() -> Mapping[str, Any]:
    """The raw catalog document, as shipped with the package: read once per process and
    shared; callers read it, never change it. Its ``types`` are parsed one by one, the
    first time each is read (`_lazy_types`): a process that reads five of the 201 types
    does not pay for the JSON of all of them."""
    # beside this module, read directly: importlib.resources would cost imports
    path = os.path.join(os.path.dirname(__file__), "data", DATA_FILE)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    lazy = _lazy_types(text)
    if lazy is not None:
        return lazy
    document: dict[str, Any] = json.loads(text)
    return document


#: the document as the catalog dump writes it (``json.dumps(..., indent=1,
#: sort_keys=True)``): ``types`` is the last top-level key, and each type's name starts a
#: line indented by two spaces (deeper keys are indented more; JSON strings hold no
#: newline, so every line start is the document's structure)
_TYPES_START = '\n "types": {\n'
_TYPES_END = "\n }\n}"
_TYPE_NAME = re.compile(r'\n  "((?:[^"\\]|\\.)*)": ')


def _lazy_types(text: str) -> dict[str, Any] | None:
    """The document with ``types`` split into each type's JSON text, parsed when read;
    None when the text is not laid out as the dump writes it (then it is parsed whole)."""
    start = text.find(_TYPES_START)
    end = text.rfind(_TYPES_END)
    if start < 0 or end < start or text[end + len(_TYPES_END) :].strip():
        return None
    body = text[start + len(_TYPES_START) - 1 : end]  # from the newline before the first
    names = list(_TYPE_NAME.finditer(body))
    raw: dict[str, str] = {}
    for number, match in enumerate(names):
        stop = names[number + 1].start() if number + 1 < len(names) else len(body)
        name = match[1] if "\\" not in match[1] else json.loads(f'"{match[1]}"')
        raw[name] = body[match.end() : stop].rstrip().rstrip(",")
    head: dict[str, Any] = json.loads(text[:start].rstrip().rstrip(",") + "\n}")
    if "types" in head:
        return None
    head["types"] = _RawTypes(raw)
    return head


class _RawTypes(Mapping[str, Any]):
    """Each type's entry of the catalog document, parsed from its JSON text when first
    read (iterating the names parses nothing)."""

    def __init__(self, raw: dict[str, str]) -> None:
        self._raw = raw
        self._parsed: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._parsed:
            self._parsed[name] = json.loads(self._raw[name])
        return self._parsed[name]

    def __contains__(self, name: object) -> bool:
        return name in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


class _Types(Mapping[str, TypeSchema]):
    """The catalog's types by name, each made a `TypeSchema` the first time it is asked
    for: a run that reads a handful of types does not build all 201."""

    def __init__(self, entries: Mapping[str, Mapping[str, Any]]) -> None:
        self._entries = entries
        self._built: dict[str, TypeSchema] = {}

    def __getitem__(self, name: str) -> TypeSchema:
        schema = self._built.get(name)
        if schema is None:
            schema = self._built[name] = type_schema_from_entry(name, self._entries[name])
        return schema

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


@cache
def heat_catalog() -> Catalog:
    """The catalog, read on first use and shared afterwards (it is immutable data)."""
    document = load_document()
    aliases = {
        alias: info["target"]
        for alias, info in document.get("default_environment", {}).get("aliases", {}).items()
    }
    return Catalog(
        heat_version=document["heat_version"], types=_Types(document["types"]), aliases=aliases
    )


@cache
def stock_template_types() -> frozenset[str]:
    """Types Heat's stock environment implements with a provider template of its own."""
    stock = load_document().get("default_environment", {})
    return frozenset(stock.get("template_types", {}))


def stock_alias(name: str) -> str | None:
    """What Heat's stock environment maps ``name`` to (keys ending in ``*`` are globs)."""
    aliases = heat_catalog().aliases
    if name in aliases:
        return aliases[name]
    for key, target in aliases.items():
        if key.endswith("*") and name.startswith(key[:-1]):
            return target[:-1] + name[len(key) - 1 :] if target.endswith("*") else target
    return None


def property_renames(type_name: str) -> dict[tuple[str, ...], dict[str, list[str]]]:
    """The type's renaming translation rules (Heat renames a deprecated property before
    it validates: a port's ``network_id`` stands for its required ``network``), as where
    (``()`` the top level, ``(list property,)`` its items) -> new name -> old names."""
    entry = load_document()["types"].get(type_name) or {}
    found: dict[tuple[str, ...], dict[str, list[str]]] = {}
    for rule in entry.get("translation_rules", ()):
        if rule["rule"] != "Replace" or "custom_value_path" in rule:
            continue
        path = list(rule["path"])
        if "value_path" in rule and len(path) == 1 and len(rule["value_path"]) == 1:
            found.setdefault((), {}).setdefault(path[0], []).append(rule["value_path"][0])
        elif "value_name" in rule and len(path) == 2:
            where = found.setdefault((path[0],), {})
            where.setdefault(path[1], []).append(rule["value_name"])
    return found


def catalog_schema(name: str) -> TypeSchema | None:
    """The catalog's schema of ``name``, following the stock aliases."""
    catalog = heat_catalog()
    return catalog.get(name) or catalog.get(stock_alias(name) or "")


def heat_knows(name: str) -> bool:
    """Would Heat's own registry find a type of this name (without the user's registry)?"""
    return catalog_schema(name) is not None or name in stock_template_types()
