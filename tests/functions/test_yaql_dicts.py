"""yaql's dict building and grouping (`stoker.functions.yaql_dicts`) against yaql itself.

Keyword arguments parse to yaql's tree; ``dict``, ``keys``/``values``/``items``,
``repeat``, ``selectMany`` and ``groupBy`` give yaql's value of the same types (groups are
lists, pairs tuples, a keys view a set yaql's output would reorder) or are declined, under
Heat's limits, TripleO's and tight ones; TripleO's own expressions are native.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stoker.functions import yaql_queries, yaql_subset, yaql_syntax
from stoker.limits import Limits, applied

from .test_yaql_queries import KEYS, LIMITS, ROLES, VALUES, by_yaql, check, check_parse, grammar

pytestmark = pytest.mark.heavy

FAST = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def keyword_calls(draw: st.DrawFn) -> str:
    """A call with positional and keyword arguments, or near one."""
    positional = draw(st.lists(grammar(2), max_size=2))
    names = draw(st.lists(st.sampled_from(["a", "b", "null", "$x", "in", "f()"]), max_size=2))
    keywords = [
        f"{name}{draw(st.sampled_from(['=>', ' => ', '=']))}{draw(grammar(2))}" for name in names
    ]
    arguments = positional + keywords
    if draw(st.booleans()):
        arguments.reverse()
    receiver = draw(st.sampled_from(["", "$.", "$.data.f(1)."]))
    return f"{receiver}{draw(st.sampled_from(['dict', 'f']))}({', '.join(arguments)})"


@FAST
@given(keyword_calls())
def test_keyword_arguments_parse_as_yaql_parses_them(expression: str) -> None:
    check_parse(expression)


SOURCES = ["$.data", "$.data.a"]
FAMILIES = [
    "dict({src}.where($ != null).selectMany($.items()).groupBy($[0], $[1]))",
    "dict({src}.where($ != null).flatten().selectMany($.items()).groupBy($[0], $[1])"
    ".select([$[0], $[1].flatten()]))",
    "dict(coalesce({src}, []).where($ != null).select([$.get('{key}'), $.get('name')])"
    ".where($[0] != null).select([$[0], dict($[0].keys().zip(dict(service_name=>$[1])"
    ".repeat(len($[0].keys()))))]).select($[0].mergeWith($[1])).selectMany($.items())"
    ".groupBy($[0], $[1]))",
    "{src}.selectMany($)",
    "{src}.selectMany($.get('{key}'))",
    "{src}.groupBy($)",
    "{src}.groupBy($.get('{key}'), $)",
    "{src}.groupBy($.get('{key}')).select($[1])",
    "dict({src}.select([$, $]))",
    "dict({src}.select([$.get('{key}'), $]))",
    "dict({src})",
    "dict({key} => {src}, b => 1, {key} => 2)",
    "{src}.repeat(3)",
    "{src}.repeat(len({src}))",
    "$.data.keys()",
    "$.data.values().select($)",
    "$.data.items().where($[1] != null)",
    "$.data.items().select($[0])",
    "len($.data.items())",
    "len($.data.keys())",
    "len($.data.values())",
    "$.data.keys().zip({src})",
    "{src}.where($ != null).select($.keys().distinct())",
    "list($.data.values())",
    "$.data.values().flatten()",
]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, Any]:
    source = draw(st.sampled_from(SOURCES))
    expression = draw(st.sampled_from(FAMILIES)).format(src=source, key=draw(KEYS))
    roles = draw(ROLES)
    shapes = {"$.data": roles, "$.data.a": {"a": roles, "b": draw(VALUES)}}
    data = shapes[draw(st.sampled_from([source] * 3 + SOURCES))]
    if draw(st.integers(0, 4)) == 0:  # a map of each role's data, as $.data.keys() reads
        data = {str(number): role for number, role in enumerate(roles)}
    return expression, data


@FAST
@given(cases(), st.sampled_from(LIMITS))
def test_dict_and_group_queries_agree_with_yaql(case: tuple[str, Any], limits: Limits) -> None:
    check(*case, limits)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases(), st.sampled_from(LIMITS))
def test_many_more_dict_and_group_queries_agree_with_yaql(
    case: tuple[str, Any], limits: Limits
) -> None:
    check(*case, limits)


@pytest.mark.parametrize("expression", ["$.data.groupBy($)", "dict($.data.select([$, $]))"])
def test_a_growing_dict_is_held_to_the_quota_after_each_item(expression: str) -> None:
    """Both sides of yaql's check of the dict ``groupBy`` and ``dict`` build: 170 keys fit
    5000 bytes, the 171st grows it past them (yaql fails)."""
    limits = Limits(yaql_iterators=9000, yaql_memory=5000)
    fits = [str(number) for number in range(170)]
    assert check(expression, fits, limits)
    over = [*fits, "170"]
    assert not check(expression, over, limits)
    with applied(limits):
        assert by_yaql(expression, over)[0] == "error"


def test_a_group_is_a_list_and_a_pair_a_tuple() -> None:
    """Groups are Python lists to yaql: never equal to a tuple of the same items, so such a
    comparison is declined; a pair from ``items()`` is a tuple and compares as one."""
    with applied(Limits()):
        grouped = yaql_syntax.parse("$.data.groupBy($).select($[1] = [$[0]])")
        assert grouped is not None
        with pytest.raises(yaql_subset.Unsupported):
            yaql_queries.evaluate(grouped, [1, 2])
    assert check("$.data.items().select($ = ['a', 1])", {"a": 1, "b": 2}, Limits())


def puppet_tasks(name: str, number: int) -> dict[str, Any]:
    """One service's data as TripleO's role templates give ``container_puppet_tasks``."""
    return {
        "service_name": name,
        "container_puppet_tasks": {
            "step_3": {"config_volume": name, "puppet_tags": f"{name}_config", "number": number},
            f"step_{4 + number % 2}": {"config_image": "image", "volumes": ["/a:/a", number]},
        },
    }


TRIPLEO = [
    "dict(coalesce($.data, []).where($ != null).select([$.get('container_puppet_tasks'), "
    "$.get('service_name')]).where($[0] != null).select([$[0], dict($[0].keys().zip("
    "dict(service_name=>$[1]).repeat(len($[0].keys()))))]).select($[0].mergeWith($[1]))"
    ".selectMany($.items()).groupBy($[0], $[1]))",
    "dict($.data.where($ != null).flatten().selectMany($.items()).groupBy($[0], $[1])"
    ".select([$[0], $[1].flatten()]))",
]


@pytest.mark.parametrize("limits", LIMITS[:2], ids=["heat", "tripleo"])
def test_tripleo_dict_and_group_expressions_are_native(limits: Limits) -> None:
    services = [puppet_tasks(name, number) for number, name in enumerate(["nova", "heat", "x"])]
    services[2].pop("container_puppet_tasks")
    assert check(TRIPLEO[0], [services[0], None, *services[1:]], limits)
    # each role's per-step lists of deployment tasks, as the roles' outputs give them
    steps = [[{"step1": [{"name": "a"}], "step2": [[{"name": "b"}]]}], None, [{"step1": []}]]
    assert check(TRIPLEO[1], steps, limits)
