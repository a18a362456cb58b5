"""str_replace (+ strict forms), list_join, str_split, digest and the CFN string functions."""

from __future__ import annotations

from typing import Any

import pytest

from stoker import codes

from .conftest import case, evaluate, having, hot_range

ARGS = codes.FUNCTION_ARGUMENTS
FAILED = codes.FUNCTION_FAILED
CASE = "data,ctx,expected"


def _check(version: Any, data: Any, ctx: dict[str, Any], expected: dict[str, Any]) -> None:
    evaluate(version, data, **ctx).expect(**expected)


def sr(template: Any, params: Any, name: str = "str_replace") -> dict[str, Any]:
    return {name: {"template": template, "params": params}}


# ---------------------------------------------------------------------------- str_replace

STR_REPLACE = [
    case("basic", sr("Hello $name!", {"$name": "World"}), value="Hello World!"),
    case("longest-key-first", sr("$var1 $var10", {"$var1": "a", "$var10": "b"}), value="a b"),
    case("ties-lexicographic", sr("abc", {"bc": "Y", "ab": "X"}), value="Xc"),
    case("replaced-text-not-rescanned", sr("$a", {"$a": "$b", "$b": "no"}), value="$b"),
    case(
        "scalar-values",
        sr("a b c d", {"a": None, "b": 5, "c": 1.5, "d": True}),
        value=" 5 1.5 True",
    ),
    case("integer-key", sr("1 + 1", {1: "one"}), value="one + one"),
    case("key-absent-is-fine", sr("nothing", {"$x": "y"}), value="nothing"),
    case(
        "nested-calls",
        sr({"get_param": "tmpl"}, {"$who": {"get_param": "who"}}),
        ctx={"parameters": {"tmpl": "hi $who", "who": "bob"}},
        value="hi bob",
    ),
    case(
        "params-from-a-call",
        sr("$x!", {"get_param": "p"}),
        ctx={"parameters": {"p": {"$x": "X"}}},
        value="X!",
    ),
    case(
        "params-call-not-a-map",
        sr("$x!", {"get_param": "p"}),
        ctx={"parameters": {"p": "text"}},
        error='"str_replace" params must be a map',
    ),
    case("template-not-a-string", sr(5, {}), codes=(ARGS,), error="template must be a string"),
    case("params-not-a-map", sr("x", ["a"]), codes=(ARGS,), error="must be a map"),
    case("arguments-not-a-map", {"str_replace": ["x"]}, codes=(ARGS,), error="must be a map"),
    case(
        "missing-params",
        {"str_replace": {"template": "x"}},
        codes=(ARGS,),
        error='"str_replace" syntax should be',
    ),
]


@pytest.mark.parametrize("version", having("str_replace"))
@pytest.mark.parametrize(CASE, STR_REPLACE)
def test_str_replace(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


@pytest.mark.parametrize("version", hot_range("2013-05-23", "2015-04-30"))
@pytest.mark.parametrize(
    CASE,
    [
        case(
            "list-value",
            sr("v=$x", {"$x": ["a", "b"]}),
            codes=(ARGS,),
            error='"str_replace" params must be strings or numbers, param $x is not valid',
        ),
        case(
            "map-value-from-parameter",
            sr("v=$x", {"$x": {"get_param": "p"}}),
            ctx={"parameters": {"p": {"a": 1}}},
            error="param $x is not valid",
        ),
    ],
)
def test_str_replace_scalar_values_only_before_2015_10_15(
    version: Any, data: Any, ctx: Any, expected: Any
) -> None:
    _check(version, data, ctx, expected)


@pytest.mark.parametrize("version", hot_range("2015-10-15"))
@pytest.mark.parametrize(
    CASE,
    [
        case("list-value-is-json", sr("v=$x", {"$x": ["a", "b"]}), value='v=["a", "b"]'),
        case(
            "map-value-is-sorted-json",
            sr("v=$x", {"$x": {"get_param": "p"}}),
            ctx={"parameters": {"p": {"b": [1, 2], "a": None}}},
            value='v={"a": null, "b": [1, 2]}',
        ),
    ],
)
def test_str_replace_json_values_from_2015_10_15(
    version: Any, data: Any, ctx: Any, expected: Any
) -> None:
    _check(version, data, ctx, expected)


STRICT = [
    case("all-found", sr("$a-$b", {"$a": 1, "$b": 2}, "str_replace_strict"), value="1-2"),
    case(
        "missing-key",
        sr("$a", {"$a": 1, "$b": 2}, "str_replace_strict"),
        codes=(FAILED,),
        error="The following params were not found in the template: $b",
    ),
    case(
        "key-swallowed-by-longer-key",
        sr("$var10", {"$var1": "a", "$var10": "b"}, "str_replace_strict"),
        codes=(FAILED,),
        error="not found in the template: $var1",
    ),
    case(
        "missing-keys-listed-longest-first",
        sr("x", {"$a": 1, "$bb": 2}, "str_replace_strict"),
        codes=(FAILED,),
        error="not found in the template: $bb,$a",
    ),
    case(
        "missing-key-in-computed-template",
        sr({"get_param": "t"}, {"$a": 1}, "str_replace_strict"),
        ctx={"parameters": {"t": "none here"}},
        error="not found in the template: $a",
    ),
    case("empty-value-allowed", sr("[$a]", {"$a": ""}, "str_replace_strict"), value="[]"),
]


@pytest.mark.parametrize("version", having("str_replace_strict"))
@pytest.mark.parametrize(CASE, STRICT)
def test_str_replace_strict(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


def _empty(value: Any) -> Any:
    return sr("[$a]", {"$a": value}, "str_replace_vstrict")


VSTRICT = [
    case("zero-is-a-value", _empty(0), value="[0]"),
    case("false-is-a-value", _empty(False), value="[False]"),
    case("list-value", _empty(["x"]), value='[["x"]]'),
    *[
        case(
            f"empty-{label}",
            _empty(value),
            codes=(ARGS,),
            error="str_replace_vstrict has an undefined or empty value for param $a, must be a "
            "defined non-empty value",
        )
        for label, value in [("null", None), ("string", ""), ("list", []), ("map", {})]
    ],
    case(
        "empty-from-parameter",
        sr("[$a]", {"$a": {"get_param": "p"}}, "str_replace_vstrict"),
        ctx={"parameters": {"p": ""}},
        error="undefined or empty value for param $a",
    ),
    case(
        "still-strict",
        sr("x", {"$a": 1}, "str_replace_vstrict"),
        codes=(FAILED,),
        error="not found in the template: $a",
    ),
]


@pytest.mark.parametrize("version", having("str_replace_vstrict"))
@pytest.mark.parametrize(CASE, VSTRICT)
def test_str_replace_vstrict(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


FN_REPLACE = [
    case(
        "doc-example",
        {"Fn::Replace": [{"$var1": "foo", "%var2%": "bar"}, "$var1 is %var2%"]},
        value="foo is bar",
    ),
    case(
        "list-value",
        {"Fn::Replace": [{"$x": ["a"]}, "$x"]},
        codes=(ARGS,),
        error="params must be strings or numbers",
    ),
    case(
        "wrong-shape",
        {"Fn::Replace": {"$x": "a"}},
        codes=(ARGS,),
        error='Incorrect arguments to "Fn::Replace"',
    ),
]


@pytest.mark.parametrize("version", having("Fn::Replace"))
@pytest.mark.parametrize(CASE, FN_REPLACE)
def test_fn_replace(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# ------------------------------------------------------------------------------ list_join

LIST_JOIN = [
    case(
        "one-list", {"list_join": [", ", ["one", "two", "and three"]]}, value="one, two, and three"
    ),
    case("null-item", {"list_join": [",", ["a", None, "b"]]}, value="a,,b"),
    case("null-list", {"list_join": [",", None]}, value=""),
    case(
        "list-from-parameter",
        {"list_join": ["-", {"get_param": "l"}]},
        ctx={"parameters": {"l": ["x", "y"]}},
        value="x-y",
    ),
    case(
        "number-item",
        {"list_join": [",", ["a", 1]]},
        codes=(ARGS,),
        error="Items to join must be string",
    ),
    case(
        "boolean-item-from-parameter",
        {"list_join": [",", {"get_param": "l"}]},
        ctx={"parameters": {"l": [True]}},
        error="Items to join must be string",
    ),
    case(
        "delimiter-not-a-string",
        {"list_join": [1, ["a"]]},
        codes=(ARGS,),
        error='"list_join" delimiter must be a string',
    ),
    case(
        "string-instead-of-list",
        {"list_join": [",", "abc"]},
        codes=(ARGS,),
        error='"list_join" must operate on a list',
    ),
    case(
        "arguments-not-a-list",
        {"list_join": "abc"},
        codes=(ARGS,),
        error='Incorrect arguments to "list_join"',
    ),
    case("only-delimiter", {"list_join": [","]}, codes=(ARGS,), error="Incorrect arguments"),
]


@pytest.mark.parametrize("version", having("list_join"))
@pytest.mark.parametrize(CASE, LIST_JOIN)
def test_list_join(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


@pytest.mark.parametrize("version", hot_range("2013-05-23", "2015-04-30"))
@pytest.mark.parametrize(
    CASE,
    [
        case(
            "several-lists",
            {"list_join": [", ", ["one", "two"], ["three", "four"]]},
            codes=(ARGS,),
            error='Incorrect arguments to "list_join"',
        ),
        case(
            "list-item",
            {"list_join": [",", [["x"]]]},
            codes=(ARGS,),
            error="Items to join must be strings not ['x']",
        ),
    ],
)
def test_list_join_one_list_before_2015_10_15(
    version: Any, data: Any, ctx: Any, expected: Any
) -> None:
    _check(version, data, ctx, expected)


@pytest.mark.parametrize("version", hot_range("2015-10-15"))
@pytest.mark.parametrize(
    CASE,
    [
        case(
            "several-lists",
            {"list_join": [", ", ["one", "two"], ["three", "four"]]},
            value="one, two, three, four",
        ),
        case("empty-lists-skipped", {"list_join": [",", [], ["a"], None, ["b"]]}, value="a,b"),
        case("list-item-is-json", {"list_join": [",", [["x"], "y"]]}, value='["x"],y'),
        case(
            "map-item-is-sorted-json",
            {"list_join": [" ", [{"b": 1, "a": 2}]]},
            value='{"a": 2, "b": 1}',
        ),
        case(
            "number-item",
            {"list_join": [",", [1]]},
            codes=(ARGS,),
            error="Items to join must be string, map or list not 1",
        ),
    ],
)
def test_list_join_several_lists_from_2015_10_15(
    version: Any, data: Any, ctx: Any, expected: Any
) -> None:
    _check(version, data, ctx, expected)


FN_JOIN = [
    case(
        "doc-example",
        {"Fn::Join": [",", ["beer", "wine", "more beer"]]},
        value="beer,wine,more beer",
    ),
    case(
        "several-lists",
        {"Fn::Join": [",", ["a"], ["b"]]},
        codes=(ARGS,),
        error='Incorrect arguments to "Fn::Join"',
    ),
]


@pytest.mark.parametrize("version", having("Fn::Join"))
@pytest.mark.parametrize(CASE, FN_JOIN)
def test_fn_join(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# ------------------------------------------------------------------------------ str_split

STR_SPLIT = [
    case("whole-list", {"str_split": [",", "string,to,split"]}, value=["string", "to", "split"]),
    case("index", {"str_split": [",", "string,to,split", 0]}, value="string"),
    case("string-index", {"str_split": [",", "a,b,c", "1"]}, value="b"),
    case("negative-index", {"str_split": [",", "a,b,c", -1]}, value="c"),
    case("multi-character-delimiter", {"str_split": ["::", "a::b"]}, value=["a", "b"]),
    case(
        "null-string",
        {"str_split": [",", {"get_param": "s"}]},
        ctx={"parameters": {"s": None}},
        value=None,
    ),
    case(
        "index-out-of-range",
        {"str_split": [",", "a,b,c", 3]},
        codes=(FAILED,),
        error='Incorrect index to "str_split" should be between 0 and 2',
    ),
    case(
        "index-not-a-number",
        {"str_split": [",", "a,b", "x"]},
        codes=(FAILED,),
        error='Incorrect index to "str_split" should be: "str_split" : [ ",", "apples,pears", '
        "<index>]",
    ),
    case(
        "out-of-range-from-parameter",
        {"str_split": [",", {"get_param": "s"}, 5]},
        ctx={"parameters": {"s": "a"}},
        error="should be between 0 and 0",
    ),
    case("arguments-a-string", {"str_split": "a,b"}, codes=(ARGS,), error="Incorrect arguments"),
    case("one-argument", {"str_split": [","]}, codes=(ARGS,), error="Incorrect arguments"),
    case("not-a-string", {"str_split": [",", 5]}, codes=(FAILED,), error="must be a string"),
]


@pytest.mark.parametrize("version", having("str_split"))
@pytest.mark.parametrize(CASE, STR_SPLIT)
def test_str_split(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# --------------------------------------------------------------------------------- digest

DIGEST = [
    case("md5", {"digest": ["md5", "abc"]}, value="900150983cd24fb0d6963f7d28e17f72"),
    case(
        "sha256-uppercase-name",
        {"digest": ["SHA256", "abc"]},
        value="ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    case(
        "value-from-parameter",
        {"digest": ["sha1", {"get_param": "pw"}]},
        ctx={"parameters": {"pw": "abc"}},
        value="a9993e364706816aba3e25717850c26c9cd0d89d",
    ),
    case("latin-1-bytes", {"digest": ["md5", "é"]}, value="3406877694691ddd1dfb0aca54681407"),
    case(
        "unknown-algorithm",
        {"digest": ["sha3000", "x"]},
        codes=(ARGS,),
        error="Algorithm must be one of",
    ),
    case(
        "shake-has-no-fixed-length",
        {"digest": ["shake_128", "x"]},
        codes=(FAILED,),
        error="cannot be used",
    ),
    case("not-latin-1", {"digest": ["md5", "€"]}, codes=(FAILED,), error="latin-1"),
    case("not-a-list", {"digest": "md5"}, codes=(ARGS,), error="must be a list of strings"),
    case("three-arguments", {"digest": ["md5", "a", "b"]}, codes=(ARGS,), error="usage"),
]


@pytest.mark.parametrize("version", having("digest"))
@pytest.mark.parametrize(CASE, DIGEST)
def test_digest(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


# ------------------------------------------------------------------ Fn::Split, Fn::Base64

CFN_STRINGS = [
    case(
        "split-doc-example",
        {"Fn::Split": [",", "str1,str2,str3,str4"]},
        value=["str1", "str2", "str3", "str4"],
    ),
    case(
        "split-computed-string",
        {"Fn::Split": [",", {"Ref": "p"}]},
        ctx={"parameters": {"p": "a,b"}},
        value=["a", "b"],
    ),
    case(
        "split-computed-delimiter",
        {"Fn::Split": [{"Ref": "p"}, "a,b"]},
        ctx={"parameters": {"p": ","}},
        codes=(ARGS,),
        error="Delimiter for Fn::Split must be string",
    ),
    case(
        "split-not-a-string",
        {"Fn::Split": [",", 5]},
        codes=(FAILED,),
        error="String to split must be string",
    ),
    case(
        "split-wrong-shape",
        {"Fn::Split": [","]},
        codes=(ARGS,),
        error='Incorrect arguments to "Fn::Split"',
    ),
    case(
        "base64-is-identity",
        {"Fn::Base64": "convert this string please."},
        value="convert this string please.",
    ),
    case(
        "base64-not-a-string",
        {"Fn::Base64": ["x"]},
        codes=(FAILED,),
        error='"Fn::Base64" argument must be a string',
    ),
]


@pytest.mark.parametrize("version", having("Fn::Split"))
@pytest.mark.parametrize(CASE, CFN_STRINGS)
def test_cfn_split_and_base64(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)
