"""The native query chains (`yaql_syntax`, `yaql_queries`) against yaql itself.

Two claims are checked. The parser: every expression it reads, yaql parses to the same
tree (generated expressions of the grammar and random strings over its alphabet). The
evaluator: on every expression and data it evaluates, its value is yaql's as the yaql
function hands it on, of the same types all the way down; everything else it leaves to
yaql. The data holds what it must decline or get right: nulls, booleans next to numbers,
duplicates, nested maps that merge or clash, lists longer than the iterator limit, long
strings against the memory quota; each case runs under Heat's limits, TripleO's and tight
ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stoker.functions import yaql_function, yaql_queries, yaql_subset, yaql_syntax
from stoker.limits import Limits, applied

from .test_yaql_subset import created

pytestmark = pytest.mark.heavy

LIMITS = [
    Limits(),  # Heat's defaults: 200 items, 10000 bytes
    Limits(yaql_iterators=9000, yaql_memory=900000),  # TripleO's client
    Limits(yaql_iterators=4, yaql_memory=4500),
]


def shown(expression: Any) -> str:
    """yaql's parsed expression in `yaql_syntax.render`'s notation."""
    from yaql.language import expressions as e

    if isinstance(expression, e.Statement):
        return shown(expression.expression)
    if isinstance(expression, e.Constant):
        return f"{type(expression).__name__}({expression.value!r})"
    if isinstance(expression, e.GetContextValue):
        return f"Get({expression.path.value!r})"
    if isinstance(expression, e.Wrap):
        return f"Wrap({shown(expression.expr)})"
    if isinstance(expression, e.Function):
        inner = ", ".join(shown(argument) for argument in expression.args)
        return f"{type(expression).__name__}:{expression.name}({inner})"
    return f"<{type(expression).__name__}>"


def check_parse(expression: str) -> None:
    from yaql.language.exceptions import YaqlException

    tree = yaql_syntax.parse(expression)
    if tree is None:
        return
    try:
        parsed = yaql_function.parse_expression(expression)
    except YaqlException:
        pytest.fail(f"the native parser reads {expression!r}, yaql does not")
    assert yaql_syntax.render(tree) == shown(parsed), expression


def by_yaql(expression: str, data: Any) -> tuple[str, Any]:
    """What the yaql function gives without the native paths: a value or an error."""
    statement = yaql_function.parse_expression(expression)
    context = yaql_function.active_engine().context.create_child_context()
    try:
        # the data as the yaql function gets it: JSON, keys strings
        result = statement.evaluate({"data": json.loads(json.dumps(data))}, context)
        return ("value", yaql_function._primitive(result))
    except Exception as exc:  # noqa: BLE001 - any error is an answer to compare
        return ("error", type(exc).__name__)


def typed(value: Any) -> Any:
    """``value`` with each scalar's type beside it: ``1``, ``1.0`` and ``True`` differ."""
    if isinstance(value, dict):
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    return (type(value).__name__, value)


def check(expression: str, data: Any, limits: Limits) -> bool:
    """Native and yaql agree on ``expression`` over ``data`` (or native declines);
    whether native evaluated it."""
    with applied(limits):
        tree = yaql_syntax.parse(expression)
        assert tree is not None, expression
        decoded = json.loads(json.dumps(data))
        try:
            native = yaql_queries.evaluate(tree, decoded)
        except yaql_subset.Unsupported:
            return False
        assert decoded == json.loads(json.dumps(data)), "the evaluator changed its data"
        kind, reference = by_yaql(expression, data)
        assert kind == "value", f"{expression!r} over {data!r}: yaql fails ({reference})"
        assert typed(native) == typed(reference), f"{expression!r} over {data!r}"
        return True


FAST = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))

# -- the parser ------------------------------------------------------------------------

NAMES = st.sampled_from(["data", "a", "get", "where", "x_1", "null", "true", "in", "__x", "f"])
SPACE = st.sampled_from(["", "", " ", "\t", "  "])


@st.composite
def grammar(draw: st.DrawFn, depth: int = 0) -> str:
    """An expression of the native grammar, or near it."""
    kind = draw(st.integers(0, 9 if depth < 3 else 3))
    if kind == 0:
        return draw(st.sampled_from(["$", "$1", "$2", "$root", "null", "true", "1", "2.5"]))
    if kind == 1:
        return draw(st.sampled_from(["'x'", '"y z"', "'a\\'b'", "``", "'é'", "[]", "{}"]))
    if kind in (2, 3):
        return f"{draw(grammar(depth + 1))}{draw(SPACE)}.{draw(SPACE)}{draw(NAMES)}"
    if kind in (4, 5):
        arguments = draw(st.lists(grammar(depth + 1), max_size=3))
        receiver = draw(grammar(depth + 1)) + "." if kind == 4 else ""
        return f"{receiver}{draw(NAMES)}({', '.join(arguments)})"
    if kind == 6:
        operator = draw(st.sampled_from(["!=", "=", "+", "-", "*", "/", "and", "->", "=>", "<"]))
        left, right = draw(grammar(depth + 1)), draw(grammar(depth + 1))
        return f"{left}{draw(SPACE)}{operator}{draw(SPACE)}{right}"
    if kind == 7:
        return f"{draw(grammar(depth + 1))}[{draw(grammar(depth + 1))}]"
    if kind == 8:
        return f"[{', '.join(draw(st.lists(grammar(depth + 1), max_size=3)))}]"
    return f"({draw(grammar(depth + 1))})"


@FAST
@given(grammar())
def test_what_the_parser_reads_yaql_parses_to_the_same_tree(expression: str) -> None:
    check_parse(expression)


@FAST
@given(st.text(alphabet="$.()[]{},'\"!=+-*/ 01adgt_lnu", max_size=20))
def test_random_strings_parse_as_yaql_parses_them(expression: str) -> None:
    check_parse(expression)


# -- the evaluator ---------------------------------------------------------------------

KEYS = st.sampled_from(["tasks", "name", "config", "a", "b"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([1.0, 0.0, 2**70])
    | st.sampled_from(["x", "y", "", "z" * 6000])
)
VALUES = st.recursive(
    SCALARS | st.lists(st.integers(0, 2), min_size=5, max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=10,
)
ROLE = st.dictionaries(KEYS, VALUES, max_size=4)
ROLES = st.lists(ROLE | st.none() | SCALARS, max_size=5) | st.lists(ROLE | st.none(), max_size=4)

# TripleO's families, over ``$.data`` (a list of role data) or ``$.data.role_data``
SOURCES = ["$.data", "$.data.role_data", "$.data.a"]
FAMILIES = [
    "coalesce({src}, []).where($ != null).select($.get('{key}')).where($ != null)"
    ".flatten().distinct()",
    "list(coalesce({src}, []).where($ != null).select($.get('{key}')).where($ != null)).flatten()",
    "coalesce({src}, []).where($ != null).select($.get('{key}')).where($ != null)"
    ".reduce($1.mergeWith($2), {{}})",
    "coalesce({src}, []).where($ != null).select($.get('{key}')).where($ != null).distinct()",
    "{src}.where($ != null).reduce($1.mergeWith($2), {{}})",
    "{src}.where($ != null).reduce($1.mergeWith($2))",
    "coalesce({src}, []).zip(coalesce($.data.b, [])).where($[1] != null).select($[1])"
    ".reduce($1.mergeWith($2), {{}})",
    "coalesce({src}, []).zip({src}, [1, 2]).select($[0] = $[1])",
    "list({src}, {src}.where($ = 1), [$.data.a]).flatten().distinct()",
    "{src}.select($.get('{key}', 'none')).where($ != '')",
    "{src}.select([$, {{}}])[0]",
    "{src}[1].get('{key}')",
    "coalesce(null, {src}[0].{key}, 'no')",
    "{src}.flatten().select($ = 1)",
]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, Any]:
    family = draw(st.sampled_from(FAMILIES))
    source = draw(st.sampled_from(SOURCES))
    expression = family.format(src=source, key=draw(KEYS))
    roles = draw(ROLES)
    shapes = {
        "$.data": roles,
        "$.data.role_data": {"role_data": roles, "b": draw(ROLES)},
        "$.data.a": {"a": roles, "b": draw(VALUES)},
    }
    # mostly the shape the expression reads, now and then another one
    data = shapes[draw(st.sampled_from([source] * 4 + SOURCES))]
    return expression, data


@FAST
@given(cases(), st.sampled_from(LIMITS))
def test_generated_queries_agree_with_yaql(case: tuple[str, Any], limits: Limits) -> None:
    check(*case, limits)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases(), st.sampled_from(LIMITS))
def test_many_more_queries_agree_with_yaql(case: tuple[str, Any], limits: Limits) -> None:
    check(*case, limits)


def service(name: str, number: int) -> dict[str, Any]:
    """One service's role data, shaped as TripleO's templates give it."""
    return {
        "service_name": name,
        "config_settings": {f"{name}::port": 8000 + number, "debug": number},
        "upgrade_tasks": [{"name": f"upgrade {name}", "when": "step|int == 1"}],
        "host_prep_tasks": [{"name": "shared", "file": {"path": "/var/log"}}]
        + [{"name": f"prep {name}", "command": ["a", number]}],
        "firewall_rules": {f"{number}0 {name}": {"dport": [8000 + number, 13000]}},
        "kolla_config": {f"/var/lib/kolla/{name}.json": {"command": name}},
        "docker_config": {"step_2": {name: {"image": "x", "net": "host"}}},
        "puppet_config": {"step_config": "", "config_volume": name},
        "monitoring_subscription": None if number % 2 else f"overcloud-{name}",
        "service_config_settings": {"haproxy": {"tripleo::ports": [number, 1.5]}},
    }


ROLE_DATA = [service(name, number) for number, name in enumerate(["nova", "neutron", "heat"])]
ROLE_DATA.insert(1, None)  # type: ignore[arg-type]
TRIPLEO = [
    "coalesce($.data, []).where($ != null).select($.get('host_prep_tasks'))"
    ".where($ != null).flatten().distinct()",
    "coalesce($.data, []).where($ != null).select($.get('upgrade_tasks'))"
    ".where($ != null).flatten().distinct()",
    "coalesce($.data, []).where($ != null).select($.get('puppet_config'))"
    ".where($ != null).distinct()",
    "list(coalesce($.data.role_data, []).where($ != null).select($.get('firewall_rules'))"
    ".where($ != null)).flatten()",
    "list(coalesce($.data.role_data, []).where($ != null)"
    ".select($.get('monitoring_subscription')).where($ != null)).flatten()",
    "coalesce($.data.role_data, []).where($ != null).select($.get('kolla_config'))"
    ".where($ != null).reduce($1.mergeWith($2), {})",
    "coalesce($.data.role_data, []).where($ != null).select($.get('service_config_settings'))"
    ".where($ != null).reduce($1.mergeWith($2), {})",
    "coalesce($.data.service_names, []).zip(coalesce($.data.docker_config, []))"
    ".where($[1] != null).select($[1]).reduce($1.mergeWith($2), {})",
    "$.data.where($ != null).reduce($1.mergeWith($2), {})",
]


@pytest.mark.parametrize("expression", TRIPLEO)
@pytest.mark.parametrize("limits", LIMITS[:2], ids=["heat", "tripleo"])
def test_tripleo_expressions_are_evaluated_natively_as_yaql_does(
    expression: str, limits: Limits
) -> None:
    roles = [role for role in ROLE_DATA if role is not None]
    data: Any = ROLE_DATA  # the list of each role's data, a null among them
    if "role_data" in expression:
        data = {"role_data": ROLE_DATA}
    elif "service_names" in expression:
        data = {
            "service_names": [role["service_name"] for role in roles] + ["extra"],
            "docker_config": [role["docker_config"] for role in roles] + [None],
        }
    elif expression.startswith("$.data.where"):
        data = [role["config_settings"] for role in roles] + [None]
    assert check(expression, data, limits), f"{expression!r} was left to yaql"


@pytest.mark.parametrize(
    "expression,data",
    [
        ("$.data.a.where($ != null)", {"a": list(range(201))}),  # over the iterator limit
        ("$.data.a.flatten()", {"a": [[1] * 150, [2] * 60]}),  # the flattened list is
        ("$.data.missing", {}),  # yaql: KeyError
        ("$.data.a.get('x')", {"a": [1]}),  # no mapping
        ("$.data.a.reduce($1.mergeWith($2))", {"a": [{"k": 1}, {"k": {"x": 1}}]}),  # a clash
        ("$.data.a.reduce($1.mergeWith($2))", {"a": []}),  # reduce of nothing
        ("$.data.a.select($)", {"a": ["x" * 9990]}),  # a string over the memory quota
        ("$.data.a[5]", {"a": [1]}),  # out of range
        ("$.data.a.select($.where($ != null))", {"a": [[1]]}),  # an iterator in a list
        ("$.data.a.select($2)", {"a": [1]}),  # an unbound variable
        ("$.data.a.first()", {"a": [1]}),  # a method outside the subset
        ("$.data.a + 1", {"a": 1}),  # arithmetic: yaql_subset's
    ],
)
def test_the_evaluator_declines_what_yaql_decides(expression: str, data: Any) -> None:
    tree = yaql_syntax.parse(expression)
    assert tree is not None
    with applied(Limits()), pytest.raises(yaql_subset.Unsupported):
        yaql_queries.evaluate(tree, json.loads(json.dumps(data)))


def test_a_merged_list_at_the_iterator_limit_is_still_native() -> None:
    """Both sides of yaql's limit: 200 distinct items merge, 201 are yaql's (it fails)."""
    expression = "$.data.where($ != null).reduce($1.mergeWith($2), {})"
    fits = [{"l": list(range(100))}, {"l": list(range(100, 200))}]
    assert check(expression, fits, Limits())
    over = [{"l": list(range(100))}, {"l": list(range(100, 201))}]
    assert not check(expression, over, Limits())
    assert by_yaql(expression, over)[0] == "error"


def test_a_stack_of_queries_never_imports_yaql(tmp_path: Path) -> None:
    """Validating and evaluating expressions the native parser reads costs no yaql import."""
    imported, output = created(
        tmp_path,
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  v:\n"
        "    type: OS::Heat::Value\n"
        "    properties:\n"
        "      value:\n"
        "        yaql:\n"
        "          expression: coalesce($.data, []).where($ != null).select($.get('a')).flatten()\n"
        "          data: [{a: [7, 8]}, null, {a: [9]}]\n"
        "outputs:\n"
        "  out: {value: {get_attr: [v, value]}}\n",
    )
    assert "stoker.functions.yaql_queries" in imported
    assert not [name for name in imported if name.split(".")[0] == "yaql"]
    assert re.findall(r"\b[789]\b", output) == ["7", "8", "9"]
