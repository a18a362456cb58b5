"""The built-in types declare exactly Heat's schemas, and the catalog loads all of Heat's."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import stoker.resources.catalog
from stoker.resources.builtin import BUILTIN_TYPES
from stoker.resources.catalog import DATA_FILE, _lazy_types, heat_catalog, load_document
from stoker.resources.schema import PropertySchema, PropertyType, SupportLevel

#: SHA-256 of the reference dump of Heat 24.1.2's resource types (the team's
#: ``reference/resource-types.json``, outside the repository), which the packaged file copies
REFERENCE_SHA256 = "1fa157bba25aadfb9223f68ed186797f5418133ffa435c6c08bcbf97858649b3"
PACKAGED = Path(stoker.resources.catalog.__file__).parent / "data" / DATA_FILE
CATALOG: dict[str, Any] = load_document()
FLAGS = ("type", "required", "default", "constraints", "update_allowed", "immutable")


def _compare(declared: dict[str, PropertySchema], expected: dict[str, Any], where: str) -> None:
    assert set(declared) == set(expected), where
    for name, prop in declared.items():
        heat = expected[name]
        mine = prop.to_dict()
        here = f"{where}.{name}"
        for flag in FLAGS:
            assert mine.get(flag) == heat.get(flag), f"{here}: {flag}"
        assert ("schema" in mine) == ("schema" in heat), f"{here}: schema"
        if prop.schema is not None:
            _compare(dict(prop.schema), heat["schema"], here)


@pytest.mark.parametrize("plugin", BUILTIN_TYPES, ids=lambda p: p.type_name)
def test_builtin_properties_match_heat_exactly(plugin):
    expected = CATALOG["types"][plugin.type_name]["properties"]
    _compare(dict(plugin.properties_schema), expected, plugin.type_name)


@pytest.mark.parametrize("plugin", BUILTIN_TYPES, ids=lambda p: p.type_name)
def test_builtin_attributes_match_heat_exactly(plugin):
    expected = CATALOG["types"][plugin.type_name]["attributes"]
    assert set(plugin.attributes_schema) == set(expected)
    for name, attribute in plugin.attributes_schema.items():
        kind = attribute.type.value if attribute.type else None
        assert kind == expected[name].get("type"), name
        assert attribute.cache_none == (expected[name].get("cache_mode") == "cache_none"), name


@pytest.mark.parametrize("plugin", BUILTIN_TYPES, ids=lambda p: p.type_name)
def test_builtin_hidden_properties_are_marked_hidden(plugin):
    expected = CATALOG["types"][plugin.type_name]["properties"]
    for name, prop in plugin.properties_schema.items():
        hidden = expected[name]["support_status"]["status"] == "HIDDEN"
        assert prop.support_status.hidden == hidden, name


@pytest.mark.parametrize("plugin", BUILTIN_TYPES, ids=lambda p: p.type_name)
def test_builtin_update_allowed_matches_heats_update_behaviour(plugin):
    update = CATALOG["types"][plugin.type_name]["update"]
    allowed = sorted(n for n, p in plugin.properties_schema.items() if p.update_allowed)
    assert allowed == sorted(update["update_allowed_properties"])


def test_builtin_types_are_the_cloud_free_ones_heat_lists():
    names = {plugin.type_name for plugin in BUILTIN_TYPES}
    # the 11 cloud-free types, OS::Heat::DeployedServer (cloud-free in stoker, see
    # docs/heat-differences.md) and the 3 nested-stack ones
    assert len(names) == 15
    for name in names:
        assert CATALOG["types"][name]["listed"] is True


def test_packaged_catalog_is_the_reference_copy():
    """Byte for byte the reference dump (an edit by hand would make it Heat's no longer)."""
    assert hashlib.sha256(PACKAGED.read_bytes()).hexdigest() == REFERENCE_SHA256


def test_types_are_parsed_one_by_one_and_read_as_the_whole_document_would():
    text = PACKAGED.read_text("utf-8")
    lazy = _lazy_types(text)
    assert lazy is not None, "the packaged catalog is no longer laid out as the dump writes it"
    whole = json.loads(text)
    assert list(lazy) == list(whole)
    assert list(lazy["types"]) == list(whole["types"])
    for name, entry in whole["types"].items():
        assert lazy["types"][name] == entry, name
    assert lazy == whole


def test_a_catalog_laid_out_otherwise_is_parsed_whole():
    document = {"heat_version": "x", "types": {"A::B": {"properties": {}}}}
    assert _lazy_types(json.dumps(document)) is None  # one line: not the dump's layout
    assert _lazy_types(json.dumps(document, indent=1, sort_keys=True)) == document


def _without_status(properties: dict[str, Any]) -> dict[str, Any]:
    result = {}
    for name, prop in properties.items():
        prop = {k: v for k, v in prop.items() if k not in ("support_status", "implemented")}
        if "schema" in prop:
            prop["schema"] = _without_status(prop["schema"])
        result[name] = prop
    return result


def test_catalog_round_trips_every_type():
    catalog = heat_catalog()
    assert catalog.heat_version == "24.1.2"
    assert len(catalog.types) == len(CATALOG["types"]) == 201
    for name, schema in catalog.types.items():
        entry = CATALOG["types"][name]
        mine = {key: prop.to_dict() for key, prop in schema.properties.items()}
        assert mine == _without_status(entry["properties"]), name
        assert set(schema.attributes) == set(entry["attributes"]), name
        assert schema.listed == entry["listed"], name


def test_catalog_is_loaded_once_and_shared():
    assert heat_catalog() is heat_catalog()


def test_catalog_keeps_support_status_and_implemented_flags():
    catalog = heat_catalog()
    sequence = catalog.types["OS::Heat::RandomString"].properties["sequence"]
    assert sequence.support_status.status is SupportLevel.HIDDEN
    assert sequence.support_status.previous is not None
    assert sequence.support_status.previous.status is SupportLevel.DEPRECATED
    unimplemented = [
        (type_name, name)
        for type_name, schema in catalog.types.items()
        for name, prop in schema.properties.items()
        if not prop.implemented
    ]
    assert len(unimplemented) == 20  # the 20 AWS properties the notes name
    assert catalog.types["OS::Nova::Server"].service == "nova"
    assert catalog.types["OS::Heat::ResourceGroup"].nested_stack is True
    assert catalog.aliases["OS::Metering::Alarm"] == "OS::Aodh::Alarm"


def test_api_view_drops_hidden_properties_and_attributes():
    catalog = heat_catalog()
    view = catalog.types["OS::Heat::RandomString"].to_api_dict()
    assert view["resource_type"] == "OS::Heat::RandomString"
    assert "sequence" not in view["properties"]
    assert view["properties"]["length"]["constraints"] == [{"range": {"min": 1, "max": 512}}]
    assert view["support_status"]["version"] == "2014.1"
    hidden_type = next(s for s in catalog.types.values() if not s.listed)
    assert hidden_type.support_status.hidden


def test_types_come_with_heat_spellings():
    assert PropertyType.INTEGER.heat_name == "Integer"
