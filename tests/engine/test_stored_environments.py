"""A nested stack's stored environment (`StoredEnvironments`): what
`Environment.to_data` gives, its ``parameter_defaults`` converted once for the children
whose mapping holds the same keys and values."""

from __future__ import annotations

import json

from stoker.engine.stored_environments import KEPT, StoredEnvironments
from stoker.environment import child_environment, parse_environment
from stoker.template.loader import load_document

ENV = """
parameters: {top: 1}
parameter_defaults:
  Shared: {nested: [1, 2, {a: b}]}
  Name: value
  Number: 3
resource_registry:
  My::Thing: thing.yaml
  OS::Other: OS::Heat::Value
  resources:
    member:
      nested: {My::Thing: other.yaml}
event_sinks:
  - {type: zaqar-queue, target: q}
"""


def _parent(text: str = ENV):
    environment, found = parse_environment(load_document(text, "/tmp/env.yaml"))
    assert not [d for d in found if d.is_error]
    return environment


def test_a_stored_child_environment_is_what_to_data_gives():
    parent = _parent()
    stored = StoredEnvironments()
    for name, parameters in (("member", {"p": [1, "x"]}), ("other", None)):
        child = child_environment(parent, name, parameters)
        expected = child.to_data(absolute_paths=True)
        data = stored.to_data(child)
        assert json.dumps(data) == json.dumps(expected)  # the same keys in the same order


def test_children_of_one_tree_share_their_parameter_defaults_data():
    parent = _parent()
    stored = StoredEnvironments()
    first = stored.to_data(child_environment(parent, "a", {"x": 1}))
    child = child_environment(parent, "b", {"y": 2})
    second = stored.to_data(child)
    assert second["parameter_defaults"] is first["parameter_defaults"]
    assert second["parameters"] == {"y": 2}
    # a grandchild's mapping is a copy of its parent's, holding the same objects
    grandchild = stored.to_data(child_environment(child, "c"))
    assert grandchild["parameter_defaults"] is first["parameter_defaults"]


def test_other_keys_or_values_are_converted_again():
    stored = StoredEnvironments()
    first = stored.to_data(child_environment(_parent(), "a"))
    # the same text read again: equal values, other objects
    again = stored.to_data(child_environment(_parent(), "a"))
    assert again["parameter_defaults"] == first["parameter_defaults"]
    assert again["parameter_defaults"] is not first["parameter_defaults"]
    other = _parent(ENV.replace("Name: value", "Name: changed"))
    changed = stored.to_data(child_environment(other, "a"))
    assert changed["parameter_defaults"]["Name"] == "changed"
    fewer = child_environment(other, "a")
    del fewer.parameter_defaults["Number"]
    assert "Number" not in stored.to_data(fewer)["parameter_defaults"]


def test_the_oldest_parameter_defaults_go_first():
    stored = StoredEnvironments()
    parents = [_parent() for _ in range(KEPT + 1)]
    first = stored.to_data(child_environment(parents[0], "a"))["parameter_defaults"]
    for parent in parents[1:]:
        stored.to_data(child_environment(parent, "a"))
    assert stored.to_data(child_environment(parents[0], "a"))["parameter_defaults"] is not first
