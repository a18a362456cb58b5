"""repeat, map_merge, map_replace, list_concat(_unique), filter, contains and the CFN
Fn::Select, Fn::MemberListToMap and Fn::FindInMap."""

from __future__ import annotations

from typing import Any

import pytest

from stoker import codes
from stoker.template.versions import CFN_AWS, CFN_HEAT

from .conftest import case, evaluate, having, hot_range

ARGS = codes.FUNCTION_ARGUMENTS
FAILED = codes.FUNCTION_FAILED
CASE = "data,ctx,expected"


def _check(version: Any, data: Any, ctx: dict[str, Any], expected: dict[str, Any]) -> None:
    evaluate(version, data, **ctx).expect(**expected)


def rep(template: Any, for_each: Any, **extra: Any) -> dict[str, Any]:
    return {"repeat": {"template": template, "for_each": for_each, **extra}}


# --------------------------------------------------------------------------------- repeat

REPEAT = [
    case("one-list", rep("port-%p%", {"%p%": ["80", "443"]}), value=["port-80", "port-443"]),
    case(
        "every-combination-in-map-order",
        rep("%a%%b%", {"%a%": ["1", "2"], "%b%": ["x", "y"]}),
        value=["1x", "1y", "2x", "2y"],
    ),
    case(
        "keys-and-values-substituted",
        rep({"name_%x%": ["%x%", 5]}, {"%x%": ["a"]}),
        value=[{"name_a": ["a", 5]}],
    ),
    case(
        "list-from-parameter",
        rep({"port": "%p%"}, {"%p%": {"get_param": "ports"}}),
        ctx={"parameters": {"ports": ["22", "80"]}},
        value=[{"port": "22"}, {"port": "80"}],
    ),
    case(
        "null-list-gives-nothing",
        rep("%p%", {"%p%": {"get_param": "ports"}}),
        ctx={"parameters": {"ports": None}},
        value=[],
    ),
    case(
        "template-calls-resolve-first",
        rep({"get_param": "t"}, {"%p%": ["1"]}),
        ctx={"parameters": {"t": "v%p%"}},
        value=["v1"],
    ),
    case("no-strings-no-substitution", rep(5, {"%x%": [1, 2]}), value=[5, 5]),
    case("extra-keys-ignored", rep("%x%", {"%x%": ["a"]}, other=1), value=["a"]),
    case(
        "number-substituted-into-string",
        rep("v%x%", {"%x%": [1]}),
        codes=(FAILED,),
        error="can only substitute strings",
    ),
    case(
        "for-each-not-a-map",
        rep("x", ["a"]),
        codes=(ARGS,),
        error='The "for_each" argument to "repeat" must contain a map',
    ),
    case(
        "for-each-value-a-string",
        rep("x", {"%x%": "abc"}),
        codes=(ARGS,),
        error='The values of the "for_each" argument to "repeat" must be lists',
    ),
    case("missing-template", {"repeat": {"for_each": {}}}, codes=(ARGS,), error="syntax should be"),
    case("arguments-not-a-map", {"repeat": ["x"]}, codes=(ARGS,), error="must be a map"),
]


@pytest.mark.parametrize("version", having("repeat"))
@pytest.mark.parametrize(CASE, REPEAT)
def test_repeat(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


MAP_FOR_EACH = rep("%k%", {"%k%": {"a": 1, "b": 2}})
ZIPPED = rep("%a%%b%", {"%a%": ["1", "2"], "%b%": ["x", "y"]}, permutations=False)


@pytest.mark.parametrize(
    "version,data,expected",
    [
        *[
            pytest.param(
                v, MAP_FOR_EACH, {"codes": (ARGS,), "error": "must be lists"}, id=f"map-{v.value}"
            )
            for v in hot_range("2015-04-30", "2016-04-08")
        ],
        *[
            pytest.param(v, MAP_FOR_EACH, {"value": ["a", "b"]}, id=f"map-{v.value}")
            for v in hot_range("2016-10-14")
        ],
        *[
            pytest.param(
                v, ZIPPED, {"value": ["1x", "1y", "2x", "2y"]}, id=f"permutations-ignored-{v.value}"
            )
            for v in hot_range("2015-04-30", "2017-02-24")
        ],
        *[
            pytest.param(v, ZIPPED, {"value": ["1x", "2y"]}, id=f"permutations-false-{v.value}")
            for v in hot_range("2017-09-01")
        ],
    ],
)
def test_repeat_version_differences(version: Any, data: Any, expected: Any) -> None:
    evaluate(version, data).expect(**expected)


PERMUTATIONS = [
    case(
        "unequal-lengths",
        rep("%a%%b%", {"%a%": ["1"], "%b%": ["x", "y"]}, permutations=False),
        codes=(FAILED,),
        error="For repeat, the length of for_each values should be equal if no nested loop.",
    ),
    case(
        "zip-needs-lists",
        rep("%a%", {"%a%": {"k": 1}}, permutations=False),
        codes=(ARGS,),
        error='The values of the "for_each" argument to "repeat" must be lists',
    ),
    case("explicit-true", rep("%a%", {"%a%": ["1"]}, permutations=True), value=["1"]),
    case(
        "not-a-boolean",
        rep("%a%", {"%a%": ["1"]}, permutations="false"),
        codes=(ARGS,),
        error='"permutations" should be boolean type for repeat function.',
    ),
    case(
        "computed-is-not-a-boolean",
        rep("%a%", {"%a%": ["1"]}, permutations={"get_param": "p"}),
        ctx={"parameters": {"p": False}},
        codes=(ARGS,),
        error='"permutations" should be boolean type',
    ),
]


@pytest.mark.parametrize("version", hot_range("2017-09-01"))
@pytest.mark.parametrize(CASE, PERMUTATIONS)
def test_repeat_permutations(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# ------------------------------------------------------------------ map_merge, map_replace

MAP_MERGE = [
    case(
        "later-wins",
        {"map_merge": [{"k1": "v1", "k2": "v2"}, {"k1": "v2"}]},
        value={"k1": "v2", "k2": "v2"},
    ),
    case("null-skipped", {"map_merge": [None, {"a": 1}]}, value={"a": 1}),
    case("shallow", {"map_merge": [{"a": {"x": 1}}, {"a": {"y": 2}}]}, value={"a": {"y": 2}}),
    case(
        "maps-from-parameter",
        {"map_merge": [{"a": 1}, {"get_param": "m"}]},
        ctx={"parameters": {"m": {"a": 2}}},
        value={"a": 2},
    ),
    case(
        "item-not-a-map",
        {"map_merge": [{"a": 1}, ["b"]]},
        codes=(ARGS,),
        error="Items to merge must be maps.",
    ),
    case(
        "computed-item-not-a-map",
        {"map_merge": [{"get_param": "m"}]},
        ctx={"parameters": {"m": "text"}},
        error="Items to merge must be maps.",
    ),
    case(
        "not-a-list",
        {"map_merge": "abc"},
        codes=(ARGS,),
        error='Incorrect arguments to "map_merge"',
    ),
]


@pytest.mark.parametrize("version", having("map_merge"))
@pytest.mark.parametrize(CASE, MAP_MERGE)
def test_map_merge(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


def mr(in_map: Any, spec: Any) -> dict[str, Any]:
    return {"map_replace": [in_map, spec]}


MAP_REPLACE = [
    case(
        "doc-example",
        mr({"k1": "v1", "k2": "v2"}, {"keys": {"k1": "K1"}, "values": {"v2": "V2"}}),
        value={"K1": "v1", "k2": "V2"},
    ),
    case("whole-values-only", mr({"a": "xv1x"}, {"values": {"v1": "V"}}), value={"a": "xv1x"}),
    case("unhashable-value-kept", mr({"a": ["v"]}, {"values": {"v": "V"}}), value={"a": ["v"]}),
    case("same-key-is-no-collision", mr({"a": 1}, {"keys": {"a": "a"}}), value={"a": 1}),
    case("null-map", mr(None, {"keys": {"a": "b"}}), value={}),
    case(
        "collides-with-input",
        mr({"a": 1, "b": 2}, {"keys": {"a": "b"}}),
        codes=(FAILED,),
        error="key replacement b collides with a key in the input map",
    ),
    case(
        "collides-with-output",
        mr({"a": 1, "b": 2}, {"keys": {"a": "c", "b": "c"}}),
        codes=(FAILED,),
        error="key replacement c collides with a key in the output map",
    ),
    case(
        "unknown-spec-key",
        mr({"a": 1}, {"key": {}}),
        codes=(ARGS,),
        error='Incorrect arguments to "map_replace"',
    ),
    case(
        "three-arguments", {"map_replace": [{}, {}, {}]}, codes=(ARGS,), error="Incorrect arguments"
    ),
    case("input-not-a-map", mr(["a"], {}), codes=(ARGS,), error="arguments must be a list of maps"),
    case(
        "computed-input",
        mr({"get_param": "m"}, {"values": {"1": "one"}}),
        ctx={"parameters": {"m": {"x": "1"}}},
        value={"x": "one"},
    ),
]


@pytest.mark.parametrize("version", having("map_replace"))
@pytest.mark.parametrize(CASE, MAP_REPLACE)
def test_map_replace(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# ----------------------------------------------------------------- list_concat(_unique)

LIST_CONCAT = [
    case(
        "doc-example", {"list_concat": [["v1", "v2"], ["v3", "v4"]]}, value=["v1", "v2", "v3", "v4"]
    ),
    case("keeps-repeats", {"list_concat": [["a"], ["a"]]}, value=["a", "a"]),
    case("null-is-empty", {"list_concat": [None, ["a"]]}, value=["a"]),
    case(
        "lists-from-parameters",
        {"list_concat": [{"get_param": "l"}, ["c"]]},
        ctx={"parameters": {"l": ["a", "b"]}},
        value=["a", "b", "c"],
    ),
    case(
        "string-item",
        {"list_concat": [["a"], "bc"]},
        codes=(ARGS,),
        error="Incorrect arguments: Items to concat must be lists.",
    ),
    case(
        "computed-string-item",
        {"list_concat": [{"get_param": "l"}]},
        ctx={"parameters": {"l": "ab"}},
        error='Items to concat must be lists. ["ab"] contains an item that is not a list: "ab"',
    ),
    case(
        "not-a-list",
        {"list_concat": "abc"},
        codes=(ARGS,),
        error='Incorrect arguments to "list_concat"',
    ),
]


@pytest.mark.parametrize("version", having("list_concat"))
@pytest.mark.parametrize(CASE, LIST_CONCAT)
def test_list_concat(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


LIST_CONCAT_UNIQUE = [
    case(
        "doc-example",
        {"list_concat_unique": [["v1", "v2"], ["v2", "v3"]]},
        value=["v1", "v2", "v3"],
    ),
    case(
        "first-occurrence-kept",
        {"list_concat_unique": [["a", "b"], ["c", "a"]]},
        value=["a", "b", "c"],
    ),
    case(
        "maps-compared-by-value", {"list_concat_unique": [[{"a": 1}], [{"a": 1}]]}, value=[{"a": 1}]
    ),
    case("repeats-within-one-list", {"list_concat_unique": [["a", "a"]]}, value=["a"]),
]


@pytest.mark.parametrize("version", having("list_concat_unique"))
@pytest.mark.parametrize(CASE, LIST_CONCAT_UNIQUE)
def test_list_concat_unique(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# -------------------------------------------------------------------- filter, contains

FILTER = [
    case("removes-values", {"filter": [[3], [1, 2, 3]]}, value=[1, 2]),
    case(
        "removes-every-occurrence", {"filter": [[None, ""], ["a", None, "", "a"]]}, value=["a", "a"]
    ),
    case("no-values", {"filter": [[], [1]]}, value=[1]),
    case("null-values", {"filter": [None, [1]]}, value=[1]),
    case("empty-list", {"filter": [[1], []]}, value=[]),
    case(
        "null-list-returned-as-is",
        {"filter": [[1], {"get_param": "l"}]},
        ctx={"parameters": {"l": None}},
        value=None,
    ),
    case(
        "list-not-a-list",
        {"filter": [[1], "abc"]},
        codes=(FAILED,),
        error='"filter" only works with lists',
    ),
    case(
        "values-not-a-list",
        {"filter": ["a", [1]]},
        codes=(FAILED,),
        error='"filter" filters a list of values',
    ),
    case(
        "one-argument",
        {"filter": [[1]]},
        codes=(ARGS,),
        error='"filter" expected 2 arguments of the form [values, sequence] but got 1 arguments',
    ),
    case(
        "not-a-list", {"filter": "abc"}, codes=(ARGS,), error='Argument to "filter" must be a list'
    ),
]


@pytest.mark.parametrize("version", having("filter"))
@pytest.mark.parametrize(CASE, FILTER)
def test_filter(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


CONTAINS = [
    case("in-list", {"contains": ["v1", ["v1", "v2", "v3"]]}, value=True),
    case("not-in-list", {"contains": ["v4", ["v1"]]}, value=False),
    case("python-equality", {"contains": [1, [1.0]]}, value=True),
    case("substring", {"contains": ["ab", "xaby"]}, value=True),
    case(
        "sequence-from-parameter",
        {"contains": ["b", {"get_param": "l"}]},
        ctx={"parameters": {"l": ["a", "b"]}},
        value=True,
    ),
    case(
        "map-rejected",
        {"contains": ["a", {"a": 1}]},
        codes=(FAILED,),
        error='Second argument to "contains" should be a sequence.',
    ),
    case("number-in-string", {"contains": [1, "123"]}, codes=(FAILED,), error="string"),
    case(
        "one-argument",
        {"contains": ["a"]},
        codes=(ARGS,),
        error='Arguments to "contains" must be of the form',
    ),
    case("not-a-list", {"contains": "a"}, codes=(ARGS,), error='Incorrect arguments to "contains"'),
]


@pytest.mark.parametrize("version", having("contains"))
@pytest.mark.parametrize(CASE, CONTAINS)
def test_contains(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# -------------------------------------------------------------------------- Fn::Select

SELECT = [
    case(
        "doc-example-list", {"Fn::Select": ["2", ["apples", "grapes", "mangoes"]]}, value="mangoes"
    ),
    case("doc-example-map", {"Fn::Select": ["red", {"red": "a", "flu": "b"}]}, value="a"),
    case("integer-index", {"Fn::Select": [0, ["a"]]}, value="a"),
    case("out-of-range", {"Fn::Select": [5, ["a"]]}, value=""),
    case("missing-key", {"Fn::Select": ["x", {"a": 1}]}, value=""),
    case("empty-string", {"Fn::Select": [0, ""]}, value=""),
    case(
        "null-collection",
        {"Fn::Select": [0, None]},
        value="",
    ),
    case("json-string", {"Fn::Select": [1, '["a", "b"]']}, value="b"),
    case("bad-json", {"Fn::Select": [1, "[a"]}, codes=(FAILED,), error='"Fn::Select": '),
    case(
        "json-nested-past-the-depth-limit",  # was a RecursionError (issue 28)
        {"Fn::Select": [0, "[" * 1_000 + "]" * 1_000]},
        codes=(FAILED,),
        error='"Fn::Select": nested more than 100 levels deep',
    ),
    case(
        "map-needs-string-index",
        {"Fn::Select": [1, {"1": "a"}]},
        codes=(FAILED,),
        error='Index to "Fn::Select" must be a string',
    ),
    case(
        "list-needs-integer-index",
        {"Fn::Select": ["x", ["a"]]},
        codes=(FAILED,),
        error='Index to "Fn::Select" must be an integer',
    ),
    case(
        "wrong-shape",
        {"Fn::Select": [1]},
        codes=(ARGS,),
        error='Arguments to "Fn::Select" must be of the form [index, collection]',
    ),
]


@pytest.mark.parametrize("version", having("Fn::Select"))
@pytest.mark.parametrize(CASE, SELECT)
def test_fn_select(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# -------------------------------------------------------------- Fn::MemberListToMap

MEMBERS = [
    ".member.0.Name=key",
    ".member.0.Value=door",
    ".member.1.Name=colour",
    ".member.1.Value=green",
]

MEMBER_LIST = [
    case(
        "doc-example",
        {"Fn::MemberListToMap": ["Name", "Value", MEMBERS]},
        value={"key": "door", "colour": "green"},
    ),
    case(
        "value-with-equals-sign",
        {"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=k", ".member.0.Value=a=b"]]},
        value={"k": "a=b"},
    ),
    case(
        "incomplete-member-ignored",
        {"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=k"]]},
        value={},
    ),
    case(
        "names-not-strings",
        {"Fn::MemberListToMap": [1, "Value", []]},
        codes=(ARGS,),
        error="Key Name must be a string",
    ),
    case(
        "items-not-strings",
        {"Fn::MemberListToMap": ["Name", "Value", [1]]},
        codes=(FAILED,),
        error="Member list items must be strings",
    ),
    case(
        "wrong-shape",
        {"Fn::MemberListToMap": ["Name", "Value"]},
        codes=(ARGS,),
        error="Wrong Arguments try",
    ),
]


@pytest.mark.parametrize("version", having("Fn::MemberListToMap"))
@pytest.mark.parametrize(CASE, MEMBER_LIST)
def test_fn_member_list_to_map(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# ----------------------------------------------------------------------- Fn::FindInMap

REGIONS = {"RegionMap": {"us-east-1": {"AMI": "ami-1"}, "eu-west-1": {"AMI": "ami-2"}}}

FIND_IN_MAP = [
    case("literal", {"Fn::FindInMap": ["RegionMap", "us-east-1", "AMI"]}, value="ami-1"),
    case(
        "computed-key",
        {"Fn::FindInMap": ["RegionMap", {"Ref": "region"}, "AMI"]},
        ctx={"parameters": {"region": "eu-west-1"}},
        value="ami-2",
    ),
    case(
        "unknown-mapping",
        {"Fn::FindInMap": ["Nope", "us-east-1", "AMI"]},
        codes=(FAILED,),
        error='no mapping "Nope"',
    ),
    case(
        "unknown-key",
        {"Fn::FindInMap": ["RegionMap", "mars", "AMI"]},
        codes=(FAILED,),
        error="there is no key 'mars' in Mappings.RegionMap",
    ),
    case(
        "unknown-computed-key",
        {"Fn::FindInMap": ["RegionMap", {"Ref": "region"}, "AMI"]},
        ctx={"parameters": {"region": "mars"}},
        error="there is no key 'mars'",
    ),
    case(
        "name-not-a-string",
        {"Fn::FindInMap": [["RegionMap"], "us-east-1", "AMI"]},
        codes=(ARGS,),
        error='The names given to "Fn::FindInMap" must be strings',
    ),
    case(
        "wrong-shape",
        {"Fn::FindInMap": ["RegionMap", "us-east-1"]},
        codes=(ARGS,),
        error="must be of the form",
    ),
]


@pytest.mark.parametrize("version", having("Fn::FindInMap"))
@pytest.mark.parametrize(CASE, FIND_IN_MAP)
def test_fn_find_in_map(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, {"mappings": REGIONS, **ctx}, expected)


def test_fn_find_in_map_in_cfn_conditions() -> None:
    data = {"Fn::Equals": [{"Fn::FindInMap": ["RegionMap", "us-east-1", "AMI"]}, "ami-1"]}
    evaluate(CFN_AWS, data, condition=True, mappings=REGIONS).expect(True)


def test_cfn_heat_has_no_conditions_table() -> None:
    outcome = evaluate(CFN_HEAT, {"Fn::Equals": [1, 1]}, condition=True)
    outcome.expect({"Fn::Equals": [1, 1]})
