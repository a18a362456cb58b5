"""The registry: explicit registration, no duplicates, one stateless plugin per type."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.resources.base import ResourcePlugin
from stoker.resources.builtin import BUILTIN_TYPES, register
from stoker.resources.builtin.value import Value
from stoker.resources.registry import RegistrationError, ResourceTypeRegistry, default_registry
from stoker.resources.schema import PropertySchema, PropertyType, SupportLevel


class Custom(ResourcePlugin):
    type_name = "My::Custom"
    properties_schema = {"size": PropertySchema(PropertyType.INTEGER)}


class Nameless(ResourcePlugin):
    pass


def test_default_registry_has_every_builtin():
    registry = default_registry()
    assert registry.names() == sorted(p.type_name for p in BUILTIN_TYPES)
    assert "OS::Heat::Value" in registry and "OS::Nova::Server" not in registry
    assert registry.get("OS::Nova::Server") is None


def test_each_call_builds_a_new_registry_with_one_instance_per_type():
    first, second = default_registry(), default_registry()
    assert first is not second
    plugin = first.get("OS::Heat::Value")
    assert isinstance(plugin, Value) and first.get("OS::Heat::Value") is plugin
    assert second.get("OS::Heat::Value") is not plugin


def test_plugins_are_stateless():
    for plugin_class in BUILTIN_TYPES:
        assert vars(plugin_class()) == {}, plugin_class.type_name


def test_registering_is_explicit_and_refuses_duplicates():
    registry = ResourceTypeRegistry()
    assert registry.names() == []
    registry.register(Custom)
    assert registry.names() == ["My::Custom"]
    with pytest.raises(RegistrationError, match="My::Custom is already registered"):
        registry.register(Custom)
    register(registry)
    with pytest.raises(RegistrationError, match="OS::Heat::None is already registered"):
        register(registry)


@pytest.mark.parametrize(
    ("candidate", "message"),
    [(Nameless, "declares no type_name"), (dict, "not a ResourcePlugin"), (Custom(), "not a")],
)
def test_registering_refuses_what_is_not_a_plugin_class(candidate, message):
    with pytest.raises(RegistrationError, match=message):
        ResourceTypeRegistry().register(candidate)


def test_schema_is_the_plugins_declaration_with_heats_support_status():
    registry = default_registry()
    schema = registry.schema("OS::Heat::Value")
    assert schema.properties == Value.properties_schema
    assert schema.support_status.status is SupportLevel.SUPPORTED
    assert schema.support_status.version == "7.0.0"
    assert registry.schema("OS::Nova::Server") is None
    registry.register(Custom)
    custom = registry.schema("My::Custom")
    assert custom.support_status.version is None and custom.attributes == {}


# --------------------------------------------------------------------------- the CLI


def invoke(*args: str):
    return CliRunner().invoke(cli, ["resource-type", *args], catch_exceptions=False)


def test_list_shows_the_types_stoker_runs():
    result = invoke("list", "-f", "json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [row["resource_type"] for row in rows] == default_registry().names()
    assert all(row["support_status"] == "SUPPORTED" and row["description"] for row in rows)
    table = invoke("list")
    assert table.exit_code == 0 and "OS::Heat::WaitConditionHandle" in table.stdout


def test_show_prints_heats_resource_type_view():
    result = invoke("show", "OS::Heat::RandomString", "-f", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["resource_type"] == "OS::Heat::RandomString"
    assert "sequence" not in data["properties"]  # hidden, as in Heat's API
    length = data["properties"]["length"]
    assert length["default"] == 32 and length["constraints"] == [{"range": {"min": 1, "max": 512}}]
    assert length["description"] and length["update_allowed"] is False
    item = data["properties"]["character_classes"]["schema"]["*"]["schema"]["class"]
    assert item["default"] == "lettersdigits"
    assert data["attributes"]["value"]["type"] == "string"
    assert data["support_status"]["version"] == "2014.1"


@pytest.mark.parametrize("fmt", ["table", "yaml"])
def test_show_formats(fmt):
    result = invoke("show", "OS::Heat::MultipartMime", "-f", fmt)
    assert result.exit_code == 0
    assert "parts" in result.stdout and "subtype" in result.stdout


def test_show_table_lists_nested_properties_and_constraints():
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(cli, ["resource-type", "show", "OS::Heat::WaitCondition"])
    assert result.exit_code == 0
    assert "range: min=1, max=43200" in result.stdout
    assert "Attributes" in result.stdout and "data" in result.stdout


def test_show_a_type_stoker_cannot_run_comes_from_heats_catalog():
    result = invoke("show", "OS::Nova::KeyPair", "-f", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["properties"]["name"]["required"] is True
    assert "stoker cannot run OS::Nova::KeyPair" in result.stderr


def test_show_an_unknown_type_fails():
    result = invoke("show", "OS::Nope::Nothing")
    assert result.exit_code == 1
    assert "The Resource Type (OS::Nope::Nothing) could not be found." in result.stderr


def test_a_lazy_registry_answers_as_a_whole_one():
    """`default_registry(lazily=True)` (the ONAP lint's) holds the same types, gives the
    same plugins and schemas, refuses the same duplicates, and checks a type's class when
    it first imports it."""
    whole, lazy = default_registry(), default_registry(lazily=True)
    assert lazy.names() == whole.names()
    assert "OS::Heat::Value" in lazy and "OS::Nova::Server" not in lazy
    for name in whole.names():
        assert type(lazy.get(name)) is type(whole.get(name))
        assert lazy.schema(name) == whole.schema(name)
    with pytest.raises(RegistrationError, match="OS::Heat::None is already registered"):
        register(default_registry(lazily=True), lazily=True)
    wrong = ResourceTypeRegistry()
    wrong.register_lazily("OS::Heat::Delay", ("stoker.resources.builtin.value", "Value"))
    assert "OS::Heat::Delay" in wrong
    with pytest.raises(RegistrationError, match="Value is not the type OS::Heat::Delay"):
        wrong.get("OS::Heat::Delay")
