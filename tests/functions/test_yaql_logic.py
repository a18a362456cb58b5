"""yaql's operators, scopes and picks (`stoker.functions.yaql_logic`, ``first``/``last``/
``any``/``orderBy`` of `stoker.functions.yaql_queries`) against yaql itself.

The parser reads the operators (``->``, ``or``, ``and``, comparisons, ``in``, unary ``-``/
``+``) with yaql's precedence and associativity, and quoted strings with yaql's escapes;
the evaluator gives yaql's value of the same types or declines, under Heat's limits,
TripleO's and tight ones.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stoker.limits import Limits

from .test_yaql_queries import KEYS, LIMITS, ROLES, VALUES, check, check_parse, grammar

pytestmark = pytest.mark.heavy

FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))

OPERATORS = ["->", "or", "and", "in", ">", "<", ">=", "<=", "=", "!=", "+", "-", "*", "=>"]


@st.composite
def operations(draw: st.DrawFn, depth: int = 0) -> str:
    """Operands joined by the operators, some negated, some in keyword arguments."""
    if depth > 2 or draw(st.integers(0, 3)) == 0:
        operand = draw(grammar(2))
        return draw(st.sampled_from(["", "-", "+", "- ", "--"])) + operand
    left, right = draw(operations(depth + 1)), draw(operations(depth + 1))
    joined = f"{left} {draw(st.sampled_from(OPERATORS))} {right}"
    shape = draw(st.integers(0, 3))
    if shape == 0:
        return f"let({draw(st.sampled_from(['a', 'root', '$x']))} => {joined}) -> {right}"
    if shape == 1:
        return f"switch({joined}, {right} => {left})"
    return joined


@FAST
@given(operations())
def test_operators_parse_as_yaql_parses_them(expression: str) -> None:
    check_parse(expression)


STRING_ALPHABET = st.sampled_from(list("ab\\'\"`nrtx0u1N{}_ é"))


@FAST
@given(st.text(alphabet=STRING_ALPHABET, max_size=8), st.sampled_from(["'", '"', "`"]))
def test_quoted_strings_decode_as_yaql_decodes_them(text: str, quote: str) -> None:
    check_parse(f"{quote}{text}{quote}")
    check_parse(f"[{quote}{text}{quote}, 1]")


SOURCES = ["$.data", "$.data.a"]
FAMILIES = [
    "{src}.where($ != null and len($) > 0)",
    "list({src}.where($ != null and len($) > 0)).flatten()",
    "{src}.select($ or 'none')",
    "{src}.select($ and $.get('{key}'))",
    "{src}.select($ > 1)",
    "{src}.select($ <= 'x')",
    "{src}.select(-$)",
    "{src}.select($ in [1, 'x', null])",
    "{src}.select($ in 'xyz')",
    "let(root => $) -> {src}.where($ in $root.data.b)",
    "let(root => $) -> $.data.items().where($[0] in coalesce($root.data.b, [])).select($[1])",
    "let(root => $) -> $.data.items().where($[0] in $root.data.b).select($[1]).flatten()"
    " + $root.data.b",
    "let(root => $) -> distinct({src}.where($ != null).flatten() + coalesce($root.data.b, []))",
    "let(root => $) -> dict($.data.items().where($[0] in $root.data.b))",
    "let(x => {src}, y => 1) -> [$x, $y]",
    "let(servers => switch(isDict({src}) => {src}, true => {{}})) -> "
    "$servers.deleteAll($servers.keys().where($servers[$] = null))",
    "switch($.data = {{}} => 'empty', $.data != {{}} => $.data.items().orderBy($[0]).first()[1])",
    "switch({src} => 1, true => 2)",
    "isDict({src})",
    "{src}.first(null)",
    "coalesce({src}, []).first(null)",
    "{src}.first()",
    "{src}.last()",
    "$.data.items().first().last()",
    "{src}.any($ = 1)",
    "$.data.values().any($.get('{key}', '') = 'x')",
    "{src}.orderBy($)",
    "{src}.orderBy($.get('{key}'))",
    "$.data.items().orderBy($[0]).select($[0])",
    "{src}.deleteAll(['{key}', 'b'])",
    "{src}[0]['{key}']",
    "{src} + [1]",
    "[1] + {src}",
    "{src}.where($ != null) + {src}",
    "{src}[-1]",
]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, Any]:
    source = draw(st.sampled_from(SOURCES))
    expression = draw(st.sampled_from(FAMILIES)).format(src=source, key=draw(KEYS))
    roles = draw(ROLES | st.lists(st.integers(-2, 3) | st.sampled_from(["x", "y", "ab"])))
    keys = draw(st.lists(KEYS, max_size=4))
    shapes = {
        "$.data": roles,
        "$.data.a": {"a": roles, "b": draw(st.sampled_from([keys, None]) | VALUES)},
    }
    data = shapes[draw(st.sampled_from([source] * 3 + SOURCES))]
    if draw(st.integers(0, 3)) == 0:  # a map, as items()/values()/deleteAll read
        data = draw(st.dictionaries(KEYS, VALUES, max_size=4))
        if draw(st.booleans()):
            data = {"a": data, "b": keys}
    return expression, data


@FAST
@given(cases(), st.sampled_from(LIMITS))
def test_operators_scopes_and_picks_agree_with_yaql(case: tuple[str, Any], limits: Limits) -> None:
    check(*case, limits, arithmetic=True)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases(), st.sampled_from(LIMITS))
def test_many_more_operators_scopes_and_picks_agree_with_yaql(
    case: tuple[str, Any], limits: Limits
) -> None:
    check(*case, limits, arithmetic=True)


@pytest.mark.parametrize("escape", list("\\'\"abfnrtv") + ["x41", "101", "u0041", "N{DASH}", "d"])
@pytest.mark.parametrize("quote", ["'", '"', "`"])
def test_each_escape_decodes_as_yaql_decodes_it(escape: str, quote: str) -> None:
    """yaql's single-character escapes are read here, the rest left to yaql."""
    check_parse(f"{quote}a\\{escape}b{quote}")


@pytest.mark.parametrize(
    "expression,twice",
    [
        ("[$.data.where($ != null)].select([$, $])", True),
        ("let(x => $.data.where($ != null)) -> [$x, $x]", True),
        ("let(x => [$.data.where($ != null)]) -> [$x, $x]", True),
        ("let(x => $.data.where($ != null)) -> $x.zip($x)", True),
        ("[$.data.where($ != null)].select([$])", False),
        ("let(x => $.data.where($ != null)) -> [$x]", False),
    ],
)
def test_an_iterator_is_read_once(expression: str, twice: bool) -> None:
    """yaql's iterators are read once: a second reader sees what the first left (here,
    nothing), so an expression reading one twice is yaql's; read once, it is native."""
    assert check(expression, [1, None, 2], Limits(), arithmetic=True) is not twice
