"""The yaql function's kept results: keyed by the data's exact content (`marshal` bytes),
so data that differ in anything an expression can see never share a result."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from stoker.functions import yaql_function
from stoker.template.versions import HOT_VERSIONS

from .conftest import evaluate
from .test_yaql_queries import typed

VERSION = HOT_VERSIONS[-1]


def value_of(expression: str, data: Any) -> Any:
    outcome = evaluate(VERSION, {"yaql": {"expression": expression, "data": data}})
    assert outcome.error is None, outcome.error
    return outcome.value


# each group: data that differ only where a key less exact than the content could miss it
# (a type, a key's order, a nested item, a string), evaluated one after another
GROUPS = [
    ("[$.data.a]", [{"a": 1}, {"a": True}, {"a": 1.0}, {"a": "1"}, {"a": None}]),
    ("$.data", [{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": [1]}, {"a": (1,)}]),
    ("$.data.l.flatten()", [{"l": [[1, 2]]}, {"l": [[1, 3]]}, {"l": [[1, 2.0]]}]),
    ("$.data.s.toUpper()", [{"s": "x"}, {"s": "y"}, {"s": "x "}]),  # yaql's own path
    ("[$.data.a]", [{"a": 0.0}, {"a": -0.0}, {"a": 0}, {"a": False}]),
]


@pytest.mark.parametrize("expression,variants", GROUPS)
def test_data_that_differ_never_share_a_result(expression: str, variants: list[Any]) -> None:
    alone = []  # each variant's value with nothing kept
    for data in variants:
        yaql_function._RESULTS.kept.clear()
        yaql_function._inputs.clear()
        alone.append(typed(value_of(expression, copy.deepcopy(data))))
    together = [typed(value_of(expression, copy.deepcopy(data))) for data in variants]
    assert together == alone
    together = [typed(value_of(expression, copy.deepcopy(data))) for data in variants]
    assert together == alone  # now from what is kept


def test_keys_as_json_writes_them_give_the_same_result_as_strings() -> None:
    """``{1: x}`` reaches yaql as ``{"1": x}`` (Heat's engine reads JSON): a different
    fingerprint, the same value."""
    assert value_of("$.data", {1: "x"}) == value_of("$.data", {"1": "x"}) == {"1": "x"}


def test_equal_data_in_new_objects_is_kept_by_its_content() -> None:
    """A tree resolves a fresh copy of its data for each evaluation: the result is kept by
    the data's marshal bytes, which a fresh copy shares."""
    data = {"roles": [{"name": "a", "tasks": [1, 2]}, None], "x": 1.5}
    expression = "$.data.roles.where($ != null).select($.name)"
    assert value_of(expression, data) == ["a"]
    key = (expression, yaql_function._fingerprint(copy.deepcopy(data)), 200, 10000)
    assert yaql_function._RESULTS.get(key) == ["a"]
