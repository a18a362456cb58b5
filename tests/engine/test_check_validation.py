"""`StackEngine.check` validates each resource's properties once: the values it validated
are what the type's own checks take (a second validation would give the same values)."""

from __future__ import annotations

from typing import Any

import pytest
from test_operations import definition

from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import StackEngine
from stoker.resolution import resource_checks
from stoker.resources.registry import default_registry

TEXT = """
heat_template_version: wallaby
resources:
  short:
    type: OS::Heat::RandomString
    properties:
      length: 2
      character_classes: [{class: digits, min: 3}]
  number: {type: OS::Heat::Value, properties: {value: 8}}
  later: {type: OS::Heat::RandomString, properties: {length: {get_attr: [number, value]}}}
  bare: {type: OS::Heat::None}
"""


def test_each_resource_is_validated_once_and_the_types_checks_still_run(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    validated: list[tuple[str, ...]] = []
    original = resource_checks.validate_properties

    def validate_properties(*args: Any, **kwargs: Any) -> Any:
        validated.append(kwargs["path"])
        return original(*args, **kwargs)

    monkeypatch.setattr(resource_checks, "validate_properties", validate_properties)
    engine = StackEngine(store, default_registry(), EngineSettings())
    messages = [d.render() for d in engine.check(definition(TEXT)) if d.is_error]
    # ``bare`` has no property and a type that takes any: nothing to validate at all
    assert sorted(validated) == sorted(
        ("resources", name, "properties") for name in ("short", "number", "later")
    )
    assert len(messages) == 1, messages
    assert "resources.short.properties" in messages[0]
    assert "character class and character sequence minimums" in messages[0]


def test_a_type_taking_any_property_given_none_still_runs_its_own_checks(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stoker.resources.builtin.none_resource import NoneResource

    monkeypatch.setattr(NoneResource, "validate", lambda self, properties: ["refused"])
    engine = StackEngine(store, default_registry(), EngineSettings())
    messages = [d.render() for d in engine.check(definition(TEXT)) if d.is_error]
    assert any("resources.bare.properties" in m and "refused" in m for m in messages), messages
