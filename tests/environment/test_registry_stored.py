"""A registry's stored form (`ResourceRegistry.to_data`): a nested stack's is made from
its parent's, and is what converting its own entries gives, key order included."""

from __future__ import annotations

import json

from stoker.environment import ResourceRegistry, parse_environment
from stoker.template.loader import load_document

REGISTRY = """
resource_registry:
  My::Server: /abs/server.yaml
  OS::Nova::Server: my_nova.yaml
  My::Alias: OS::Heat::Value
  "Glob::*": "Other::"
  resources:
    web:
      nested: {OS::Nova::Server: inner_nova.yaml}
      inner: {hooks: pre-update}
    "w*":
      nested: {My::Server: glob_server.yaml}
    db:
      hooks: pre-create
  Last::Thing: last.yaml
  My::Choice: [a.yaml, b.yaml]
"""

NO_RESOURCES = """
resource_registry:
  OS::Nova::Server: my_nova.yaml
  My::Alias: OS::Heat::Value
"""


def _registry(text: str) -> ResourceRegistry:
    environment, found = parse_environment(load_document(text, "/envs/env.yaml"))
    assert not [d for d in found if d.is_error]
    return environment.resource_registry


def _converted(registry: ResourceRegistry, absolute_paths: bool) -> str:
    """The stored form converted from the registry's own entries, as JSON (ordered)."""
    fresh = ResourceRegistry([registry.user_block])
    return json.dumps(fresh.to_data(absolute_paths=absolute_paths))


def _children(registry: ResourceRegistry):
    for name, type_name in (
        ("web", "OS::Nova::Server"),  # its mapping dropped, resources narrowed
        ("web", "My::Alias"),  # a mapping to a plugin: nothing dropped
        ("db", "My::Server"),
        ("other", None),
        ("resources", "resources"),
    ):
        expanded = registry.resolve(type_name, name) if type_name else None
        yield registry.for_child(name, expanded)


def test_a_nested_stacks_stored_registry_is_its_own_entries_converted():
    for text in (REGISTRY, NO_RESOURCES):
        top = _registry(text)
        for absolute in (False, True):
            for child in _children(top):
                assert json.dumps(child.to_data(absolute_paths=absolute)) == _converted(
                    child, absolute
                )
                for grandchild in _children(child):
                    assert json.dumps(grandchild.to_data(absolute_paths=absolute)) == _converted(
                        grandchild, absolute
                    )
            assert json.dumps(top.to_data(absolute_paths=absolute)) == _converted(top, absolute)


def test_what_a_nested_registry_drops_and_narrows_differs_by_resource():
    top = _registry(REGISTRY)
    web = top.for_child("web", top.resolve("OS::Nova::Server", "web"))
    db = top.for_child("db", top.resolve("OS::Nova::Server", "db"))
    kept = top.for_child("web")
    data = web.to_data()
    assert "OS::Nova::Server" not in data
    assert data["resources"] == {
        "nested": {"OS::Nova::Server": "inner_nova.yaml"},
        "inner": {"hooks": ["pre-update"]},
    }
    assert kept.to_data()["OS::Nova::Server"] == "my_nova.yaml"
    assert db.to_data()["resources"] == {}
    assert list(data) == [k for k in top.to_data() if k != "OS::Nova::Server"]


def test_a_stored_registry_is_a_new_mapping_each_time():
    top = _registry(REGISTRY)
    first = top.to_data()
    first.pop("My::Alias")
    assert "My::Alias" in top.to_data()
    child = top.for_child("web")
    assert child.to_data() is not child.to_data()


def test_a_nested_registrys_stored_form_is_made_from_its_parents():
    top = _registry(REGISTRY)
    child = top.for_child("web", top.resolve("OS::Nova::Server", "web"))
    grandchild = child.for_child("inner")
    choice = top.to_data(absolute_paths=True)["My::Choice"]
    assert choice == ["/envs/a.yaml", "/envs/b.yaml"]
    assert child.to_data(absolute_paths=True)["My::Choice"] is choice
    assert grandchild.to_data(absolute_paths=True)["My::Choice"] is choice
    assert top.to_data()["My::Choice"] == ["a.yaml", "b.yaml"]


def test_nested_registries_that_cannot_differ_are_one():
    top = _registry(REGISTRY)
    nova = top.resolve("OS::Nova::Server", "wa")
    first = top.for_child("wa", nova)
    assert top.for_child("wa", nova) is first
    # another resource of the type that the same resources: blocks match
    assert top.for_child("wb", top.resolve("OS::Nova::Server", "wb")) is first
    # the key's parts: the entry dropped, the blocks matched (and their order)
    alias = top.for_child("wa", top.resolve("My::Alias", "wa"))
    assert alias is not first
    assert "OS::Nova::Server" in alias.to_data() and "OS::Nova::Server" not in first.to_data()
    web = top.for_child("web", top.resolve("OS::Nova::Server", "web"))
    assert web is not first
    assert web.to_data()["resources"] != first.to_data()["resources"]
    other = top.for_child("other", top.resolve("OS::Nova::Server", "other"))
    assert other is not first and other.to_data()["resources"] == {}
    assert first.to_data()["resources"] == {"nested": {"My::Server": "glob_server.yaml"}}
    # what each resolves is its own
    assert web.resolve("OS::Nova::Server", "nested").template == "inner_nova.yaml"
    assert first.resolve("OS::Nova::Server", "nested").template is None
    assert first.resolve("My::Server", "nested").template == "glob_server.yaml"
