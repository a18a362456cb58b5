"""Both syntaxes of each seed example give one model; shape errors are located."""

from __future__ import annotations

from typing import Any

import pytest

from stoker.blueprint import codes, is_blueprint
from stoker.blueprint.model import Blueprint
from stoker.blueprint.parse import parse_blueprint
from stoker.template.loader import load_document, read_file

from .conftest import PAIRS, example


def shape(blueprint: Blueprint) -> dict[str, Any]:
    """The model without positions and paths (which differ between syntaxes)."""
    return {
        "name": blueprint.name,
        "requires": [(r.type, r.attributes, r.value) for r in blueprint.requires],
        "components": {
            c.id: {
                "type": c.type,
                "content": c.content,
                "attributes": c.attributes,
                "origin": c.origin,
                "requires": sorted(
                    (str(r.type), repr(r.attributes), repr(r.value), tuple(r.fulfillment))
                    for r in c.requires
                ),
            }
            for c in blueprint.components.values()
        },
    }


def parsed(name: str) -> Blueprint:
    document = read_file(example(name))
    assert is_blueprint(document.data)
    blueprint, found = parse_blueprint(document.data, name)
    assert not found and blueprint is not None
    return blueprint


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_map_and_list_syntax_give_one_model(pair: str) -> None:
    first, second = PAIRS[pair]
    assert shape(parsed(first)) == shape(parsed(second))


def test_map_syntax_reads_ids_types_abbreviations_and_in_line_components() -> None:
    blueprint = parsed("3-elastic-php.map.yaml")
    tier = blueprint.components["my_tier"]
    assert tier.attributes == {"initialSize": 3, "nodespec": "my_tier_nodespec"}
    node = blueprint.components["my_tier_nodespec"]
    assert node.origin == "in-line" and node.type == "server"
    by_type = {r.type: r for r in node.requires}
    assert by_type["os"].abbreviated and by_type["os"].value == "rhel"
    assert by_type["run"].fulfillment == ["my_tier_nodespec_run"]
    assert blueprint.components["my_tier_nodespec_run"].attributes["rpms"] == ["php"]
    (lb,) = tier.requires
    assert lb.type == "loadbalancer" and lb.fulfillment == ["my_lb"]
    assert lb.attributes == {"publicPort": 80, "membersPort": 80}
    assert lb.span is not None and lb.span.line == 16


def test_list_syntax_without_ids_makes_them_from_the_content() -> None:
    blueprint = parsed("2-war-jetty.list.yaml")
    assert list(blueprint.components) == ["hello_war"]
    assert not blueprint.components["hello_war"].id_given
    assert [r.type for r in blueprint.requires] == ["providers", "jurisdiction"]


def test_a_template_is_not_a_blueprint() -> None:
    assert not is_blueprint({"heat_template_version": "2018-08-31", "components": {}})
    assert not is_blueprint({"resources": {}})
    assert is_blueprint({"components": []})


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("components: 3\n", 1, "components must be a list"),
        ("components:\n  a: [1]\n", 2, 'component "a" must be a mapping'),
        ("components:\n  a:\n    requires:\n      run: {fulfillment: 3}\n", 4, "must name"),
        ("name: x\ncomponents: {}\nextra: 1\n", 3, 'unknown blueprint key "extra"'),
        ("components:\n- id: a\n- id: a\n", 3, 'two components have the id "a"'),
    ],
)
def test_shape_errors_are_located(text: str, line: int, words: str) -> None:
    document = load_document(text, "bp.yaml")
    _, found = parse_blueprint(document.data, "bp.yaml")
    assert found, text
    assert found[0].code == codes.BLUEPRINT_SHAPE
    assert words in found[0].message
    assert found[0].span is not None and found[0].span.line == line
