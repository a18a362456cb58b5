"""The native yaql subset against yaql itself: on every expression and data the subset
accepts, its value is yaql's, of the same type; everything else it leaves to yaql.

The expressions are generated from the subset's grammar with varied spacing, plus random
strings over its alphabet (to find anything it parses that yaql reads otherwise); the data
holds the cases the subset must decline: missing keys, booleans, strings, nested maps,
numbers too large for the memory quota, empty lists and lists over the iterator limit.
The slow set runs many more examples (``pytest -m slow``).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stoker.functions import yaql_function, yaql_subset
from stoker.functions.base import json_keys

pytestmark = pytest.mark.heavy

# a few names, so that paths meet keys often (some are method names); now and then a word
# yaql reads as a constant or an operator, or any other name
KEYS = st.one_of(
    *[st.sampled_from(["a", "b", "data", "x_1", "len", "sum"])] * 6,
    st.sampled_from(["mod", "true", "in", "__c"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,3}", fullmatch=True),
)

NUMBERS = (
    st.integers(-(10**6), 10**6)
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, 0.0, -0.0, 10**3000, 2**63, 1e308])
)
SCALARS = st.none() | st.booleans() | NUMBERS | st.text(max_size=8) | st.just("x" * 5000)
LONG_LISTS = st.lists(st.integers(0, 9), min_size=198, max_size=202) | st.lists(
    st.integers(0, 9), min_size=1248, max_size=1252
)
NUMERIC = NUMBERS | st.lists(NUMBERS, max_size=5)
VALUES = st.recursive(
    NUMERIC | NUMERIC | SCALARS | LONG_LISTS,
    lambda inner: st.dictionaries(KEYS, inner, max_size=4) | st.lists(inner, max_size=3),
    max_leaves=8,
)
DATA = st.dictionaries(KEYS, VALUES, min_size=1, max_size=5) | VALUES

SPACE = st.sampled_from(["", "", " ", "  "])
LITERALS = st.integers(0, 10**6).map(str) | st.sampled_from(["0", "007", "1.5", "0.0", "2.50"])
METHODS = st.sampled_from(["", "", "", "", "sum()", "max()", "min()", "len()", "sum()", "count()"])


def key_paths(value: Any, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every path of keys into ``value``'s maps, ``prefix`` first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += key_paths(item, (*prefix, key))
    return found


def value_at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path[1:]:
        data = data[key]
    return data


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, Any]:
    """An expression of the subset's grammar and data for it: most paths lead to the data's
    numbers and lists, the rest anywhere (into maps, missing keys, reserved words)."""
    data = json_keys(draw(DATA))
    known = key_paths(data, ("data",))
    leaves = [p for p in known if not isinstance(value_at(data, p), dict)] or known
    names = st.one_of(
        *[st.sampled_from(leaves)] * 4,
        st.sampled_from(known),
        st.lists(KEYS, max_size=3).map(lambda keys: ("data", *keys)),
        st.lists(KEYS, min_size=1, max_size=3).map(tuple),
    )

    def operand(depth: int) -> str:
        kind = draw(st.integers(0, 9))
        if kind < 6:
            path, method = draw(names), draw(METHODS)
            return "$." + ".".join([*path, method] if method else path)
        if kind < 8 or depth > 2:
            return draw(LITERALS)
        return f"({expression(depth + 1)})"

    def expression(depth: int) -> str:
        text = operand(depth)
        for _ in range(draw(st.integers(0, 2))):
            operator = draw(st.sampled_from("+-*/"))
            text += f"{draw(SPACE)}{operator}{draw(SPACE)}{operand(depth)}"
        return text

    return expression(0), data


JUNK = st.text(alphabet="$.()+-*/ 0123456789adtsumx_", max_size=16)


def by_yaql(expression: str, data: Any) -> tuple[str, Any]:
    """What the yaql function gives without the subset: a value, a parse error or an
    evaluation error (by exception type)."""
    from yaql.language.exceptions import YaqlException

    try:
        statement = yaql_function.parse_expression(expression)
    except YaqlException:
        return ("bad expression", None)
    context = yaql_function.active_engine().context.create_child_context()
    try:
        result = statement.evaluate({"data": data}, context)
    except Exception as exc:  # noqa: BLE001 - any error is an answer to compare
        return ("error", type(exc).__name__)
    return ("value", yaql_function._primitive(result))


def same(native: Any, reference: Any) -> bool:
    if type(native) is not type(reference):
        return False
    if isinstance(native, float) and math.isnan(native):
        return math.isnan(reference)
    if isinstance(native, float):  # 0.0 and -0.0 are ==; their signs must agree too
        return native == reference and math.copysign(1, native) == math.copysign(1, reference)
    return bool(native == reference)


def check(expression: str, data: Any) -> None:
    data = json_keys(data)
    tree = yaql_subset.parse(expression)
    if tree is None:
        return
    kind, reference = by_yaql(expression, data)
    assert kind != "bad expression", f"the subset parses {expression!r}, yaql does not"
    try:
        native = yaql_subset.evaluate(tree, data)
    except yaql_subset.Unsupported:
        return
    assert kind == "value", f"{expression!r} over {data!r}: yaql fails ({reference})"
    assert same(native, reference), f"{expression!r} over {data!r}: {native!r} != {reference!r}"


FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
# 2,000 generated cases in four tests of 500: the slow tests run on two workers, and one
# test of minutes would set the end of the run (four functions, not a parameter, so that
# a derandomized run, as on CI, draws different cases in each)
SLOW = settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))


@FAST
@given(cases())
def test_generated_expressions_agree_with_yaql(case: tuple[str, Any]) -> None:
    check(*case)


@FAST
@given(JUNK, st.dictionaries(KEYS, NUMBERS | st.lists(NUMBERS, max_size=3), max_size=3))
def test_random_strings_agree_with_yaql(expression: str, data: Any) -> None:
    check(expression, data)


@pytest.mark.slow
@SLOW
@given(cases())
def test_many_more_expressions_agree_with_yaql_first_quarter(case: tuple[str, Any]) -> None:
    check(*case)


@pytest.mark.slow
@SLOW
@given(cases())
def test_many_more_expressions_agree_with_yaql_second_quarter(case: tuple[str, Any]) -> None:
    check(*case)


@pytest.mark.slow
@SLOW
@given(cases())
def test_many_more_expressions_agree_with_yaql_third_quarter(case: tuple[str, Any]) -> None:
    check(*case)


@pytest.mark.slow
@SLOW
@given(cases())
def test_many_more_expressions_agree_with_yaql_fourth_quarter(case: tuple[str, Any]) -> None:
    check(*case)


# Every value and every operator of the subset, and the edges of yaql's limits: the
# deterministic complement of the generated cases above
EDGES: list[Any] = [
    0,
    1,
    -7,
    3,
    2**63,
    10**2900,
    10**20000,
    2.5,
    -0.0,
    1e308,
    float("nan"),
    float("inf"),
    True,
    None,
    "ab",
    "x" * 20000,
    [1, 2.5, 3],
    [],
    [True, 1],
    [2.5, 1, 2.5],
    [1, 1.0],
    [1.0, 1],
    [0.0, -0.0],
    [float("nan"), 1],
    [1, float("nan")],  # ties: which one wins
    list(range(200)),
    list(range(201)),
    list(range(1300)),
    [1e308, 1e308],
    [10**2900] * 5,
    {"k": 1},
    {},
    [[1]],
]
NUMERIC_EDGES = [0, 1, -7, 3, 2**63, 10**2900, 2.5, -0.0, 1e308, float("nan"), True, "ab"]
UNARY = [
    "$.data.a",
    "$.data.a.sum()",
    "$.data.a.max()",
    "$.data.a.min()",
    "$.data.a.len()",
    "$.data.a + 1",
    "2 * $.data.a",
    "1 / $.data.a",
    "$.data.a.k",
    "$.data.a.sum() / 2",
]


@pytest.mark.parametrize(
    "value", EDGES, ids=[f"{type(v).__name__}{i}" for i, v in enumerate(EDGES)]
)
def test_edges_of_one_value_agree_with_yaql(value: Any) -> None:
    for expression in UNARY:
        check(expression, {"a": value})


@pytest.mark.parametrize("operator", "+-*/")
def test_edges_of_each_operator_agree_with_yaql(operator: str) -> None:
    for left in NUMERIC_EDGES:
        for right in NUMERIC_EDGES:
            check(f"$.data.a {operator} $.data.b", {"a": left, "b": right})


@pytest.mark.parametrize(
    "expression,data,expected",
    [
        ("$.data.sizes.sum() + $.data.extra", {"sizes": [1, 2, 3], "extra": 4}, 10),
        ("7 / 2", {}, 3),
        ("7.0 / 2", {}, 3.5),
        ("1 + 2 * 3 - 4 / 2", {}, 5),
        ("(1 + 2) * 3", {}, 9),
        ("10 - 2 - 3", {}, 5),
        ("$.data.s.len() + $.data.m.len() + $.data.l.len()", {"s": "ab", "m": {}, "l": [1]}, 3),
        ("$.data.l.max() - $.data.l.min()", {"l": [3, 9.5, 1]}, 8.5),
        ("$.data.a.b", {"a": {"b": "text"}}, "text"),
        ("$.data.flag", {"flag": True}, True),
        ("$.data.nothing", {"nothing": None}, None),
    ],
)
def test_the_subset_evaluates_without_yaql(expression: str, data: Any, expected: Any) -> None:
    tree = yaql_subset.parse(expression)
    assert tree is not None
    assert same(yaql_subset.evaluate(tree, data), expected)
    check(expression, data)


@pytest.mark.parametrize(
    "expression,data",
    [
        ("$.data.missing", {}),  # yaql: KeyError
        ("$.data.l.sum()", {"l": []}),  # yaql: reduce of an empty sequence
        ("$.data.l.sum()", {"l": list(range(201))}),  # over the iterator limit
        ("$.data.l.sum()", {"l": [True, 1]}),  # yaql's numbers exclude booleans
        ("$.data.s + 1", {"s": "x"}),  # another overload of +
        ("$.data.big", {"big": "x" * 20000}),  # over the memory quota
        ("$.data.n * $.data.n", {"n": 10**20000}),  # the product is
        ("1 / 0", {}),
        ("$.data", {}),  # collections go through yaql's output conversion
        ("$.data.l", {"l": [1]}),
        ("$.data.m.sum()", {"m": {"a": 1}}),
    ],
)
def test_the_subset_declines_what_yaql_decides(expression: str, data: Any) -> None:
    tree = yaql_subset.parse(expression)
    assert tree is not None
    with pytest.raises(yaql_subset.Unsupported):
        yaql_subset.evaluate(tree, data)
    check(expression, data)


@pytest.mark.parametrize(
    "expression",
    [
        "",
        " ",
        "$data.x",
        "$.data.",
        "-1",
        "+1",
        "$.data.true",
        "$.data.mod",
        "$.data.__x",
        "$.data.x(",
        "$.data.other()",
        "$.data.sum ()",
        "$ .data",
        "1.",
        "1 2",
        "(1",
        "1)",
        "$.data[0]",
        "$.data.é",
        "1mod 2",
        "$.data.x\t+ 1",
    ],
)
def test_the_subset_leaves_other_syntax_to_yaql(expression: str) -> None:
    assert yaql_subset.parse(expression) is None


TEMPLATE = """\
heat_template_version: wallaby
resources:
  v:
    type: OS::Heat::Value
    properties:
      value: {yaql: {expression: $.data.l.sum() * $.data.x, data: {l: [1, 2], x: 4}}}
outputs:
  out: {value: {get_attr: [v, value]}}
"""


def test_a_stack_of_subset_expressions_never_imports_yaql(tmp_path: Path) -> None:
    """The point of the subset: validating and evaluating these costs no yaql import (~0.15 s
    with its parser tables) and none of its overload resolution."""
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    env = {**os.environ, "STOKER_DB_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    command = [sys.executable, "-X", "importtime", "-m", "stoker", "stack", "create", "s"]
    done = subprocess.run(
        [*command, "-t", str(template)], env=env, capture_output=True, text=True, check=True
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "stoker.functions.yaql_subset" in imported
    assert not [name for name in imported if name.split(".")[0] == "yaql"]
    shown = [sys.executable, "-m", "stoker", "stack", "output", "show", "s", "out"]
    assert "12" in subprocess.run(shown, env=env, capture_output=True, text=True).stdout
