"""stoker's yaql context finalizes results as yaql's default context does: the same values
(of the same types) and the same errors, under the limits stoker runs with (Heat's
defaults, TripleO's undercloud and its client's Heat) and under limits small enough that
results meet them (``CollectionTooLargeException``, ``MemoryQuotaExceededException``).

Both contexts evaluate the same parsed statement, so the finalizer is the only
difference: yaql's own (``yaql.create_context()``, whose ``#finalize`` calls its ``#iter``
limiter through yaql's function lookup) and the one stoker registers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
import yaql
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaql.language.exceptions import YaqlException

from stoker.functions import yaql_function

#: (limit_iterators, memory_quota): Heat's defaults, TripleO's undercloud, TripleO's
#: client's Heat, and small ones that results meet
LIMITS = [(200, 10000), (1000, 100000), (9000, 900000), (3, 100000), (150, 1000), (5, 150)]

#: expressions whose results hold every kind of container the finalizer converts: maps,
#: lists, tuples, sets, generators and yaql's frozen input, nested
EXPRESSIONS = [
    "$.data",
    "$.data.a",
    "[$.data, $.data]",
    "{x => $.data, y => [$.data]}",
    "$.data.keys()",
    "$.data.values()",
    "$.data.items()",
    "$.data.items().toSet()",
    "$.data.a.toSet()",
    "$.data.a.select($)",
    "$.data.a.select([$, $])",
    "$.data.a.distinct()",
    "$.data.a.where(true)",
    "$.data.a.flatten()",
    "$.data.a.enumerate()",
    "$.data.a.select(dict(k => $))",
    "$.data.a.groupBy($)",
    "range(0, $.data.n)",
    "range(0, $.data.n).select([$])",
    "list(range(0, $.data.n))",
    "set(range(0, $.data.n))",
    "dict(range(0, $.data.n).select([$, $]))",
    "$.data.a.zip($.data.a)",
    "$.data.a.len()",
    "$.data.s",
    "$.data.s * 2",
    "$.data.a.sum()",
]

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False)
    | st.text(max_size=3)
    | st.just("x" * 400)
)
LISTS = st.lists(st.integers(0, 3), max_size=8) | st.lists(
    st.integers(0, 3), min_size=198, max_size=202
)
VALUES = st.recursive(
    SCALARS | LISTS,
    lambda inner: (
        st.dictionaries(st.sampled_from("abc"), inner, max_size=3) | st.lists(inner, max_size=4)
    ),
    max_leaves=10,
)
DATA = st.fixed_dictionaries(
    {"a": VALUES, "n": st.sampled_from([0, 2, 4, 6, 250, 1200]), "s": SCALARS | LISTS}
)


def _typed(value: Any) -> Any:
    """The value with the type of every part, so ``1``, ``1.0`` and ``True`` differ, as do
    a list, a tuple and a set."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(v) for v in value])
    if isinstance(value, set | frozenset):
        return (type(value).__name__, frozenset(_typed(v) for v in value))
    return (type(value).__name__, value)


def _outcome(statement: Any, context: Any, data: Any) -> Any:
    try:
        return ("value", _typed(statement.evaluate(data={"data": data}, context=context)))
    except (YaqlException, TypeError, ValueError) as exc:
        return ("error", type(exc).__name__, str(exc))


@cache
def _yaql_context() -> Any:
    """yaql's default context, with its own finalizer."""
    return yaql.create_context()


def _both(expression: str, data: Any, limits: tuple[int, int]) -> tuple[Any, Any]:
    """yaql's outcome and stoker's, of one statement under these limits."""
    engine = yaql_function.engine(*limits)
    statement = engine.parse(expression)
    theirs = _outcome(statement, _yaql_context().create_child_context(), data)
    ours = _outcome(statement, engine.context.create_child_context(), data)
    return theirs, ours


#: data for the table: scalars of look-alike values, nested maps and sequences, and a
#: list nested deep enough that only the finalizer meets it, over one limit or both
TABLE_DATA = [
    {"a": [1, [2, {"b": (3, 4)}], {"c": "x" * 50}, 1, True, 1.0], "n": 5, "s": "text"},
    {"a": {"b": list(range(8)), "c": {"d": list(range(200))}}, "n": 2, "s": ["x"] * 8},
]


@pytest.mark.parametrize("data", TABLE_DATA)
@pytest.mark.parametrize("limits", LIMITS)
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_table_finalizes_as_yaql_does(
    expression: str, limits: tuple[int, int], data: dict[str, Any]
) -> None:
    theirs, ours = _both(expression, data, limits)
    assert ours == theirs


def test_the_table_meets_each_limit() -> None:
    """The table reaches both of yaql's limit errors and plain results (so the comparison
    covers them)."""
    kinds = set()
    for limits in LIMITS:
        for n in (5, 250):
            for expression in EXPRESSIONS:
                _, ours = _both(expression, {"a": list(range(n)), "n": n, "s": "t"}, limits)
                kinds.add(ours[1] if ours[0] == "error" else ours[0])
    assert {"value", "CollectionTooLargeException", "MemoryQuotaExceededException"} <= kinds


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=DATA,
    expression=st.sampled_from(EXPRESSIONS),
    limits=st.sampled_from(LIMITS),
)
def test_any_data_finalizes_as_yaql_does(
    data: dict[str, Any], expression: str, limits: tuple[int, int]
) -> None:
    theirs, ours = _both(expression, data, limits)
    assert ours == theirs


def test_without_output_conversion_the_result_is_yaql_s_own() -> None:
    """``yaql.convertOutputData`` off: the finalizer hands the result back as it is, as
    yaql's does (a generator stays a generator)."""
    parse = yaql.YaqlFactory().create(options={"yaql.convertOutputData": False})
    statement = parse("$.data.select($ + 1)")
    ours = statement.evaluate(
        data={"data": [1, 2]},
        context=yaql_function.engine(200, 10000).context.create_child_context(),
    )
    theirs = statement.evaluate(
        data={"data": [1, 2]}, context=_yaql_context().create_child_context()
    )
    assert not isinstance(ours, list) and not isinstance(theirs, list)
    assert list(ours) == list(theirs) == [2, 3]
