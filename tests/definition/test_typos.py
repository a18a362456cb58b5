"""The misspelt-function hints: difflib's answer, asked of difflib only when it can differ
from none, and the path of a mapping found deep in lists and mappings."""

from __future__ import annotations

import difflib

import pytest

from stoker.definition.typos import _closest, misspelled_functions
from stoker.functions.tables import table_for
from stoker.template.versions import HOT_VERSIONS

TABLE = table_for(HOT_VERSIONS[-1])
NAMES = tuple(sorted({*TABLE.functions, *TABLE.conditions}))
KEYS = [
    "type",
    "port",
    "network",
    "get_parm",
    "get_prams",
    "get_atr",
    "str_replce",
    "lst_join",
    "yaql_",
    "if_",
    "equal",
    "repeta",
    "Fn::Joni",
    "digets",
    "",
    "g",
    "get_resource_",
    "mpa_merge",
    "conditions",
    "tegs",
]


@pytest.mark.parametrize("key", KEYS)
def test_closest_is_difflibs_answer(key: str) -> None:
    expected = tuple(difflib.get_close_matches(key, NAMES, n=1, cutoff=0.8))
    assert _closest.__wrapped__(key, NAMES) == expected


def test_the_path_of_a_misspelt_call_under_lists_and_mappings() -> None:
    data = {
        "resources": {
            "a": {
                "type": "OS::Heat::Value",
                "properties": {"value": [{"x": 1, "y": [{"get_parm": "n"}]}, {"get_param": "n"}]},
            }
        },
        "outputs": {"o": {"value": {"str_replce": {"template": "x", "params": {}}}}},
    }
    found = misspelled_functions(data, TABLE)
    assert [(d.path, d.message.split('"')[1]) for d in found] == [
        (("resources", "a", "properties", "value", 0, "y", 0), "get_parm"),
        (("outputs", "o", "value"), "str_replce"),
    ]


def test_names_and_definition_keywords_are_not_calls() -> None:
    """A section's keys are names and a definition's keys its keywords: one resource named
    ``rand`` (close to ``and``) or one output named ``nto`` is no typo, while a condition's
    value is a call and is checked."""
    data = {
        "resources": {"rand": {"type": "OS::Heat::RandomString"}},
        "outputs": {"nto": {"value": 1}},
        "conditions": {"c": {"equlas": [1, 1]}, "rand": True},
    }
    found = misspelled_functions(data, TABLE)
    assert [(d.path, d.message.split('"')[1]) for d in found] == [
        (("conditions", "c"), "equlas"),
    ]


_TYPOS = """\
heat_template_version: 2016-10-14
parameters:
  p: {type: string}
conditions:
  c: {equal: [{get_parm: p}, x]}
resources:
  r:
    type: OS::Heat::None
    properties:
      a: {get_prams: p}
      b: [1, {str_replce: {template: x, params: {}}}, [{lst_join: [",", []]}]]
outputs:
  o: {value: {get_atr: [r, x]}}
"""


def test_a_provider_templates_plain_copy_has_its_misspellings_without_positions() -> None:
    """A child stack runs from a plain copy of its provider template: its hints are the
    provider's (`share_misspelled`), as a walk of the copy finds them."""
    from dataclasses import replace

    from stoker.definition import parse_template, share_misspelled
    from stoker.template.loader import Document, load_document
    from stoker.template.nodes import plain

    model = parse_template(load_document(_TYPOS, "provider.yaml"))
    copy = parse_template(Document(plain(model.document.data), "yaml", "provider.yaml"))
    walked = tuple(misspelled_functions(copy.document.data, copy.table))
    share_misspelled(copy, model)
    assert copy.misspelled == walked
    assert len(walked) == 6 and all(d.span is None for d in walked)
    assert model.misspelled is not None and all(d.span is not None for d in model.misspelled)
    assert tuple(replace(d, span=None) for d in model.misspelled) == walked
