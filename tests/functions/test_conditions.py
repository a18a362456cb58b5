"""Condition functions (equals, not, and, or; CFN Fn::Equals, Fn::Not, Fn::And, Fn::Or) and
if / Fn::If, including the two-argument form of 2021-04-16."""

from __future__ import annotations

from typing import Any

import pytest

from stoker import codes
from stoker.functions.base import OMIT, Parser, iter_functions
from stoker.functions.tables import table_for
from stoker.template.versions import CFN_AWS, CFN_HEAT

from .conftest import DictContext, case, evaluate, having, hot_range, scope_for


def _dependencies_of(value: Any, scope: Any) -> set[str]:
    """Names of the resources ``value`` needs, via get_resource/get_attr/Ref/Fn::GetAtt."""
    return {
        name for function in iter_functions(value, scope) for name in function.dependencies(scope)
    }


ARGS = codes.FUNCTION_ARGUMENTS
CONDITION = codes.CONDITION
CASE = "data,ctx,expected"
CONDITIONS = {"is_prod": True, "is_test": False}
HOT_CONDITION_VERSIONS = hot_range("2016-10-14")


def _condition(version: Any, data: Any, ctx: dict[str, Any], expected: dict[str, Any]) -> None:
    evaluate(version, data, condition=True, **{"conditions": CONDITIONS, **ctx}).expect(**expected)


def _value(version: Any, data: Any, ctx: dict[str, Any], expected: dict[str, Any]) -> None:
    evaluate(version, data, **{"conditions": CONDITIONS, **ctx}).expect(**expected)


HOT_CONDITION_CASES = [
    case("equals-true", {"equals": ["a", "a"]}, value=True),
    case("equals-false", {"equals": ["a", "b"]}, value=False),
    case("equals-int-float", {"equals": [1, 1.0]}, value=True),
    case("equals-true-one", {"equals": [True, 1]}, value=True),
    case(
        "equals-parameter",
        {"equals": [{"get_param": "env_type"}, "prod"]},
        ctx={"parameters": {"env_type": "prod"}},
        value=True,
    ),
    case(
        "equals-wrong-shape",
        {"equals": ["a"]},
        codes=(ARGS,),
        error='Arguments to "equals" must be of the form: [value_1, value_2]',
    ),
    case("not-true", {"not": True}, value=False),
    case("not-condition-name", {"not": "is_test"}, value=True),
    case("not-inline", {"not": {"equals": [1, 2]}}, value=True),
    case("not-null", {"not": None}, codes=(ARGS,), error='Argument to "not" must be a condition'),
    case(
        "not-unknown-name",
        {"not": "nope"},
        codes=(CONDITION,),
        error='Invalid condition "nope"',
    ),
    case("not-number", {"not": 5}, codes=(ARGS,), error='Invalid condition "5"'),
    case("and-true", {"and": [True, "is_prod", {"equals": [1, 1]}]}, value=True),
    case("and-false", {"and": ["is_prod", "is_test"]}, value=False),
    case("and-null-is-true", {"and": [None, True]}, value=True),
    case(
        "and-one-item",
        {"and": [True]},
        codes=(ARGS,),
        error='The minimum number of condition arguments to "and" is 2.',
    ),
    case(
        "and-not-a-list",
        {"and": True},
        codes=(ARGS,),
        error='Arguments to "and" must be a list of conditions',
    ),
    case(
        "and-stops-at-first-false",
        {"and": [False, "nope"]},
        codes=(CONDITION,),
        value=False,
    ),
    case("or-true", {"or": ["is_test", "is_prod"]}, value=True),
    case("or-false", {"or": [False, {"not": True}]}, value=False),
    case("or-stops-at-first-true", {"or": [True, "nope"]}, codes=(CONDITION,), value=True),
    case(
        "or-one-item",
        {"or": ["is_prod"]},
        codes=(ARGS,),
        error='The minimum number of condition arguments to "or" is 2.',
    ),
    case(
        "or-unknown-name",
        {"or": ["is_test", "nope"]},
        codes=(CONDITION,),
        error='Invalid condition "nope"',
    ),
    case(
        "zone-doc-example",
        {
            "or": [
                {"equals": [{"get_param": "zone"}, "shanghai"]},
                {"equals": [{"get_param": "zone"}, "beijing"]},
            ]
        },
        ctx={"parameters": {"zone": "beijing"}},
        value=True,
    ),
    case(
        "resource-function-not-allowed",
        {"not": {"get_resource": "server"}},
        ctx={"resources": {"server": "id"}},
        codes=(codes.FUNCTION_CONTEXT,),
        error='The function "get_resource" is invalid in this context',
    ),
]


@pytest.mark.parametrize("version", HOT_CONDITION_VERSIONS)
@pytest.mark.parametrize(CASE, HOT_CONDITION_CASES)
def test_hot_condition_functions(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _condition(version, data, ctx, expected)


CFN_CONDITION_CASES = [
    case(
        "equals",
        {"Fn::Equals": [{"Ref": "env"}, "prod"]},
        ctx={"parameters": {"env": "prod"}},
        value=True,
    ),
    case("not-takes-a-list", {"Fn::Not": ["is_prod"]}, value=False),
    case(
        "not-without-list",
        {"Fn::Not": "is_prod"},
        codes=(ARGS,),
        error='Arguments to "Fn::Not" must be of the form: [condition]',
    ),
    case(
        "not-two-items",
        {"Fn::Not": [True, False]},
        codes=(ARGS,),
        error='Arguments to "Fn::Not" must be of the form: [condition]',
    ),
    case("and", {"Fn::And": ["is_prod", {"Fn::Not": ["is_test"]}]}, value=True),
    case("or", {"Fn::Or": ["is_test", False]}, value=False),
    case(
        "or-one-item",
        {"Fn::Or": ["is_test"]},
        codes=(ARGS,),
        error='The minimum number of condition arguments to "Fn::Or" is 2.',
    ),
    case("unknown-name", {"Fn::And": [True, "nope"]}, codes=(CONDITION,), error="nope"),
]


@pytest.mark.parametrize(CASE, CFN_CONDITION_CASES)
def test_cfn_condition_functions(data: Any, ctx: Any, expected: Any) -> None:
    _condition(CFN_AWS, data, ctx, expected)


@pytest.mark.parametrize("version", hot_range("2013-05-23"))
@pytest.mark.parametrize("name", ["equals", "not", "and", "or"])
def test_condition_functions_are_data_outside_conditions(version: Any, name: str) -> None:
    outcome = evaluate(version, {name: [True, True]})
    outcome.expect({name: [True, True]})
    assert outcome.warnings == []


# ------------------------------------------------------------------------------------ if

IF_CASES = [
    case("true", {"if": [True, "a", "b"]}, value="a"),
    case("false", {"if": [False, "a", "b"]}, value="b"),
    case("condition-name", {"if": ["is_test", "a", "b"]}, value="b"),
    case(
        "inline-condition",
        {"if": [{"equals": [{"get_param": "env"}, "prod"]}, "s_prod", "s_test"]},
        ctx={"parameters": {"env": "prod"}},
        value="s_prod",
    ),
    case(
        "computed-condition-name",
        {"if": [{"get_param": "which"}, "a", "b"]},
        ctx={"parameters": {"which": "is_prod"}},
        value="a",
    ),
    case(
        "computed-non-condition",
        {"if": [{"get_param": "which"}, "a", "b"]},
        ctx={"parameters": {"which": 5}},
        error='Invalid condition "5"',
    ),
    case("null-condition-is-true", {"if": [None, "a", "b"]}, value="a"),
    case(
        "branches-resolved",
        {"if": ["is_prod", {"get_param": "p"}, "b"]},
        ctx={"parameters": {"p": [1]}},
        value=[1],
    ),
    case("nested", {"if": [False, "a", {"if": [True, "c", "d"]}]}, value="c"),
    case(
        "unknown-condition",
        {"if": ["nope", "a", "b"]},
        codes=(CONDITION,),
        error='Invalid condition "nope"',
    ),
    case(
        "four-arguments",
        {"if": [True, "a", "b", "c"]},
        codes=(ARGS,),
        error='Arguments to "if" must be of the form: [condition_name, value_if_true, '
        "value_if_false]",
    ),
    case("not-a-list", {"if": "is_prod"}, codes=(ARGS,), error='Arguments to "if"'),
    case(
        "not-a-condition-function",
        {"if": [{"get_resource": "server"}, "a", "b"]},
        ctx={"resources": {"server": "id"}},
        codes=(codes.FUNCTION_CONTEXT,),
        error="is invalid in this context",
    ),
]


@pytest.mark.parametrize("version", having("if"))
@pytest.mark.parametrize(CASE, IF_CASES)
def test_if(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _value(version, data, ctx, expected)


@pytest.mark.parametrize("version", hot_range("2016-10-14", "2018-08-31"))
def test_two_argument_if_is_an_error_before_2021_04_16(version: Any) -> None:
    evaluate(version, {"if": [False, "a"]}).expect(codes=(ARGS,), error='Arguments to "if"')


TWO_ARGUMENT_IF = [
    case("true", {"if": [True, "a"]}, value="a"),
    case("drops-list-item", ["a", {"if": ["is_test", "b"]}, "c"], value=["a", "c"]),
    case("keeps-list-item", ["a", {"if": ["is_prod", "b"]}], value=["a", "b"]),
    case("drops-map-entry", {"x": {"if": [False, 1]}, "y": 2}, value={"y": 2}),
    case("top-level-omit", {"if": [False, 1]}, value=OMIT),
    case(
        "omitted-item-in-function-arguments",
        {"list_join": [",", ["a", {"if": [False, "b"]}, "c"]]},
        value="a,c",
    ),
    case("three-arguments-still-work", {"if": [False, "a", "b"]}, value="b"),
]


@pytest.mark.parametrize("version", hot_range("2021-04-16"))
@pytest.mark.parametrize(CASE, TWO_ARGUMENT_IF)
def test_two_argument_if(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _value(version, data, ctx, expected)


UNCHOSEN = {"if": ["is_prod", "ok", {"get_resource": "missing"}]}


@pytest.mark.parametrize("version", having("if"))
def test_if_unchosen_branch_not_validated_when_condition_known(version: Any) -> None:
    known = evaluate(
        version, UNCHOSEN, conditions=CONDITIONS, scope={"condition_values": CONDITIONS}
    )
    known.expect("ok")
    unknown = evaluate(version, UNCHOSEN, conditions=CONDITIONS)
    unknown.expect("ok", codes=(codes.UNKNOWN_RESOURCE,))
    literal = evaluate(version, {"if": [True, "ok", {"get_resource": "missing"}]})
    literal.expect("ok")


@pytest.mark.parametrize("version", having("if"))
def test_if_dependencies_follow_the_chosen_branch(version: Any) -> None:
    context = DictContext(resources={"r1": "id1", "r2": "id2"}, conditions=CONDITIONS)
    data = {"if": ["is_test", {"get_resource": "r1"}, {"get_resource": "r2"}]}
    tree = Parser(table_for(version)).parse(data, ("outputs", "o", "value"))
    known = scope_for(version, context, condition_values=CONDITIONS)
    assert _dependencies_of(tree, known) == {"r2"}
    assert _dependencies_of(tree, scope_for(version, context)) == {"r1", "r2"}


CFN_IF = [
    case("true", {"Fn::If": ["is_prod", "a", "b"]}, value="a"),
    case("inline", {"Fn::If": [{"Fn::Not": ["is_prod"]}, "a", "b"]}, value="b"),
    case("two-arguments", {"Fn::If": ["is_prod", "a"]}, codes=(ARGS,), error="Fn::If"),
    case("unknown-condition", {"Fn::If": ["nope", "a", "b"]}, codes=(CONDITION,), error="nope"),
]


@pytest.mark.parametrize(CASE, CFN_IF)
def test_cfn_if(data: Any, ctx: Any, expected: Any) -> None:
    _value(CFN_AWS, data, ctx, expected)


def test_cfn_if_is_data_in_2012_12_12() -> None:
    outcome = evaluate(CFN_HEAT, {"Fn::If": [True, "a", "b"]})
    outcome.expect({"Fn::If": [True, "a", "b"]})
    assert [w.code for w in outcome.warnings] == [codes.FUNCTION_NOT_IN_VERSION]
    assert "AWSTemplateFormatVersion: 2010-09-09" in outcome.warnings[0].message
