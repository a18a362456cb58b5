"""The engine's memo of provider subtrees' checks (`stoker.resolution.subtrees`): a check
that takes kept subtrees finds what a check without the memo finds, leaves its
`TreeCheck` as that one does, and makes a subtree's check again where the result would
differ (the depth limit, a loop through the templates above it, another environment)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

from stoker.definition.loading import LoadOptions, load_definition
from stoker.resolution import ProviderCache, ProviderTemplates, SubtreeMemo, TreeCheck
from stoker.resources.registry import default_registry

HEADER = "heat_template_version: 2018-08-31\n"

FILES = {
    # a leaf whose parameter has a constraint: a bad value handed down is found in it
    "leaf.yaml": """
        parameters:
          size: {type: number, default: 1, constraints: [{range: {max: 5}}]}
        resources:
          v: {type: OS::Heat::Value, properties: {value: {get_param: size}}}
    """,
    "b.yaml": """
        parameters:
          size: {type: number, default: 1}
        resources:
          leaf: {type: leaf.yaml, properties: {size: {get_param: size}}}
    """,
    "a.yaml": """
        parameters:
          size: {type: number, default: 1}
        resources:
          b: {type: b.yaml, properties: {size: {get_param: size}}}
    """,
    # a reaches a.yaml one level deeper than the top stack's resources do
    "c.yaml": """
        resources:
          a: {type: a.yaml, properties: {size: 2}}
    """,
    # p.yaml and q.yaml include each other: which loop is reported depends on the chain
    "p.yaml": """
        resources:
          q: {type: q.yaml}
    """,
    "q.yaml": """
        resources:
          p: {type: p.yaml}
    """,
}

TOP = """
    resources:
      first: {type: a.yaml, properties: {size: 2}}
      second: {type: a.yaml, properties: {size: 2}}
      bad: {type: a.yaml, properties: {size: 9}}
      deeper: {type: c.yaml}
      p: {type: p.yaml}
      q: {type: q.yaml}
"""


def write(tmp_path: Path, top: str) -> Path:
    for name, text in {**FILES, "top.yaml": top}.items():
        (tmp_path / name).write_text(HEADER + textwrap.dedent(text))
    return tmp_path / "top.yaml"


def check(path: Path, max_depth: int, memo: SubtreeMemo | None, templates: ProviderTemplates):
    """What a check finds and leaves in its `TreeCheck`."""
    result = load_definition(str(path), [], {}, LoadOptions(require_all_parameters=True))
    assert result.definition is not None
    cache = ProviderCache(templates=templates)
    tree = TreeCheck(default_registry(), max_depth, cache=cache, memo=memo)
    found = tree.check(result.definition, str(path.parent), (str(path),))
    return summary(tree, found)


def summary(tree: TreeCheck, found: list[Any]) -> dict[str, Any]:
    return {
        "found": [d.render() for d in found],
        "nested": [(names, location, child.parameters) for names, location, child in tree.nested],
        "resolutions": {names: dict(r.types) for names, r in tree.resolutions.items()},
        "resources": tree.resources,
    }


def test_kept_subtrees_give_what_a_new_check_gives(tmp_path: Path) -> None:
    path = write(tmp_path, TOP)
    for max_depth in (2, 3, 4, 6):
        expected = check(path, max_depth, None, ProviderTemplates())
        memo, templates = SubtreeMemo(), ProviderTemplates()
        first = check(path, max_depth, memo, templates)
        again = check(path, max_depth, memo, templates)  # every subtree kept
        assert first == expected
        assert again == expected


def test_what_depends_on_the_place_is_found_again(tmp_path: Path) -> None:
    path = write(tmp_path, TOP)
    found = check(path, 3, SubtreeMemo(), ProviderTemplates())["found"]
    # a.yaml's subtree is kept from `first` (three levels) and is one too deep under `deeper`
    assert any("Recursion depth exceeds 3" in f and "c.yaml" in f for f in found), found
    assert not any("Recursion depth" in f and "c.yaml" not in f for f in found), found
    # each of p.yaml's and q.yaml's loops is named from where it was entered
    assert any("p.yaml -> q.yaml -> p.yaml" in f for f in found), found
    assert any("q.yaml -> p.yaml -> q.yaml" in f for f in found), found
    # the value handed down to leaf.yaml: refused under `bad` only
    assert sum("size" in f and "9" in f for f in found) >= 1, found


def test_another_environment_is_not_taken_for_a_kept_one(tmp_path: Path) -> None:
    """The same template handed another value is checked with that value."""
    memo, templates = SubtreeMemo(), ProviderTemplates()
    good = write(tmp_path, "resources:\n  one: {type: a.yaml, properties: {size: 2}}\n")
    assert not [f for f in check(good, 6, memo, templates)["found"] if "size" in f]
    bad = write(tmp_path, "resources:\n  one: {type: a.yaml, properties: {size: 9}}\n")
    expected = check(bad, 6, None, ProviderTemplates())
    assert check(bad, 6, memo, templates) == expected
    assert [f for f in expected["found"] if "9" in f]


#: two services mapped to one template: each one's child sees the registry less the
#: mapping that made it (as in Heat); ``w.yaml`` never looks either up, ``v.yaml`` looks
#: up ``My::X`` (known under ``y``, dropped under ``x``)
REGISTRY = """
resource_registry:
  My::X: {template}
  My::Y: {template}
"""

SHARED = {
    "w.yaml": """
        resources:
          leaf: {type: leaf.yaml, properties: {size: 2}}
    """,
    "v.yaml": """
        resources:
          again: {type: My::X}
          leaf: {type: leaf.yaml, properties: {size: 2}}
    """,
}


def check_with_registry(
    tmp_path: Path, template: str, memo: SubtreeMemo | None, max_depth: int = 4
) -> dict[str, Any]:
    path = write(tmp_path, "resources:\n  x: {type: My::X}\n  y: {type: My::Y}\n")
    for name, text in SHARED.items():
        (tmp_path / name).write_text(HEADER + textwrap.dedent(text))
    environment = tmp_path / "registry.yaml"
    environment.write_text(REGISTRY.format(template=template))
    options = LoadOptions(require_all_parameters=True)
    result = load_definition(str(path), [str(environment)], {}, options)
    assert result.definition is not None
    cache = ProviderCache(templates=ProviderTemplates())
    tree = TreeCheck(default_registry(), max_depth, cache=cache, memo=memo)
    found = tree.check(result.definition, str(path.parent), (str(path),))
    return summary(tree, found)


def test_a_registry_differing_where_the_subtree_never_looks_is_the_same_check(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A kept check is reused under a registry that differs only in entries its lookups
    did not read; one that differs in an entry it read is checked again."""
    checked: list[str] = []
    made = TreeCheck._check_subtree

    def counting(self: TreeCheck, model: Any, plugin: Any, *args: Any) -> Any:
        checked.append(os.path.basename(plugin.location))
        return made(self, model, plugin, *args)

    expected = {name: check_with_registry(tmp_path, name, None) for name in SHARED}
    monkeypatch.setattr(TreeCheck, "_check_subtree", counting)
    assert check_with_registry(tmp_path, "w.yaml", SubtreeMemo()) == expected["w.yaml"]
    assert checked.count("w.yaml") == 1  # y's child takes x's check
    checked.clear()
    assert check_with_registry(tmp_path, "v.yaml", SubtreeMemo()) == expected["v.yaml"]
    assert checked.count("v.yaml") >= 2  # My::X resolves otherwise under y
    found = expected["v.yaml"]["found"]
    assert any("My::X" in f for f in found), found


def check_with_defaults(
    tmp_path: Path, size: int, memo: SubtreeMemo | None, templates: ProviderTemplates
) -> dict[str, Any]:
    """``b.yaml`` given no value: its ``size`` comes from ``parameter_defaults``, which
    each child's environment copies from its parent's."""
    path = write(tmp_path, "resources:\n  one: {type: b.yaml}\n")
    environment = tmp_path / f"defaults-{size}.yaml"
    environment.write_text(f"parameter_defaults:\n  size: {size}\n")
    options = LoadOptions(require_all_parameters=True)
    result = load_definition(str(path), [str(environment)], {}, options)
    assert result.definition is not None
    tree = TreeCheck(default_registry(), 6, cache=ProviderCache(templates=templates), memo=memo)
    return summary(tree, tree.check(result.definition, str(path.parent), (str(path),)))


def test_inherited_defaults_differing_are_another_check(tmp_path: Path) -> None:
    """The same template handed the same values under other ``parameter_defaults`` (a
    field the child's environment copies from its parent's) is checked again."""
    memo, templates = SubtreeMemo(), ProviderTemplates()
    good = check_with_defaults(tmp_path, 2, memo, templates)
    assert not [f for f in good["found"] if "size" in f]
    expected = check_with_defaults(tmp_path, 9, None, ProviderTemplates())
    assert [f for f in expected["found"] if "9" in f]
    assert check_with_defaults(tmp_path, 9, memo, templates) == expected
    assert check_with_defaults(tmp_path, 2, memo, templates) == good


def test_a_kept_check_is_found_without_making_the_childs_environment(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A subtree's environment is made only when its check runs: the lookup compares what
    it is made of (values handed down, registry, the parent's inherited fields)."""
    from stoker.resolution import subtrees

    made: list[Any] = []
    below = subtrees.environment_below

    def counting(*args: Any) -> Any:
        made.append(args)
        return below(*args)

    monkeypatch.setattr(subtrees, "environment_below", counting)
    twice = """
        resources:
          first: {type: a.yaml, properties: {size: 2}}
          second: {type: a.yaml, properties: {size: 2}}
    """
    path = write(tmp_path, textwrap.dedent(twice))
    expected = check(path, 6, None, ProviderTemplates())
    assert len(made) == 6  # a.yaml, b.yaml and leaf.yaml under each resource
    made.clear()
    assert check(path, 6, SubtreeMemo(), ProviderTemplates()) == expected
    assert len(made) == 3  # second's subtree is first's kept check


def test_a_providers_known_properties_are_validated_once(tmp_path: Path, monkeypatch: Any) -> None:
    """A provider's known properties are validated once per check: what the check finds
    of them and what the facade hands down come from the one validation."""
    from stoker.resolution import resource_checks, tree

    validated: list[str] = []

    def counting(real: Any) -> Any:
        def validate(schema: Any, values: Any, **kwargs: Any) -> Any:
            if not kwargs["type_name"].startswith("OS::"):
                validated.append(kwargs["type_name"])
            return real(schema, values, **kwargs)

        return validate

    for module in (resource_checks, tree):
        monkeypatch.setattr(module, "validate_properties", counting(module.validate_properties))
    path = write(tmp_path, "resources:\n  one: {type: a.yaml, properties: {size: 9}}\n")
    found = check(path, 6, None, ProviderTemplates())["found"]
    assert [f for f in found if "9" in f], found  # handed down to leaf.yaml: refused there
    assert len(validated) == 3, validated  # a.yaml's, b.yaml's and leaf.yaml's facades


#: a property known only at create that the provider does not declare, beside known ones
PENDING = """
    resources:
      r: {type: OS::Heat::RandomString}
      one:
        type: a.yaml
        properties: {size: SIZE, bogus: {get_attr: [r, value]}}
"""


def test_a_pending_undeclared_property_leaves_the_known_ones_handed_down(
    tmp_path: Path,
) -> None:
    """The pending property is reported as unknown and the known ones still reach the
    subtree (a bad one is found below); a known value the facade refuses stops there."""
    found = check(write(tmp_path, PENDING.replace("SIZE", "9")), 6, None, ProviderTemplates())
    assert any("Unknown Property bogus" in f for f in found["found"]), found
    assert any("leaf" in f and "9" in f for f in found["found"]), found
    refused = write(tmp_path, PENDING.replace("SIZE", "[1]"))
    found = check(refused, 6, None, ProviderTemplates())
    assert any("Unknown Property bogus" in f for f in found["found"]), found
    assert any("size: int() argument" in f for f in found["found"]), found
    # the facade's values as written reach the subtree
    assert [names for names, _, _ in found["nested"]] == [
        ("one",),
        ("one", "b"),
        ("one", "b", "leaf"),
    ]
