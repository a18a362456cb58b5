"""yaql (with the safe ``format`` method) and make_url."""

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


def yq(expression: Any, data: Any = None) -> dict[str, Any]:
    args: dict[str, Any] = {"expression": expression}
    if data is not None:
        args["data"] = data
    return {"yaql": args}


YAQL = [
    case("sum", yq("$.data.var1.sum()", {"var1": [3, 2, 1]}), value=6),
    case("no-data", yq("1 + 1"), value=2),
    case("integer-division", yq("7 / 2"), value=3),
    case("map-result", yq("$.data", {"a": [1, {"b": 2}]}), value={"a": [1, {"b": 2}]}),
    case(
        "data-from-parameter",
        yq("$.data.l.select(int($)).max()", {"l": {"get_param": "l"}}),
        ctx={"parameters": {"l": ["1", "3", "2"]}},
        value=3,
    ),
    case(
        "computed-expression",
        yq({"get_param": "e"}, {"x": 2}),
        ctx={"parameters": {"e": "$.data.x * 10"}},
        value=20,
    ),
    case(
        "format-positional",
        yq('"{0}-{1}".format($.data.a, $.data.b)', {"a": "x", "b": 1}),
        value="x-1",
    ),
    case("format-automatic-numbering", yq('"{}/{}".format(a, b)'), value="a/b"),
    case("format-keyword", yq('"{name}!".format(name => $.data)', "hi"), value="hi!"),
    case("format-as-function", yq('format("{0}{foo}", 1, foo => 2)'), value="12"),
    case("format-spec", yq('"{0:>4}|{1:.2f}".format(a, 1.5)'), value="   a|1.50"),
    case(
        "format-attribute-access-rejected",
        yq('"{0.__class__}".format($.data)', "x"),
        codes=(FAILED,),
        error="format field {0.__class__} is not allowed",
    ),
    case(
        "format-index-access-rejected",
        yq('"{0[x]}".format($.data)', {"x": 1}),
        codes=(FAILED,),
        error="format field {0[x]} is not allowed",
    ),
    case(
        "format-huge-width-rejected",
        yq('"{0:>999999999}".format(a)'),
        codes=(FAILED,),
        error="format width or precision above",
    ),
    case("missing-key-is-an-error", yq("$.data.missing", {}), codes=(FAILED,), error="KeyError"),
    case(
        "iterator-limit",
        yq("range(0, 1000).select($)"),
        codes=(FAILED,),
        error="Collection length exceeds 200 elements",
    ),
    case("memory-quota", yq("'x' * 100000"), codes=(FAILED,), error="MemoryQuotaExceeded"),
    case("bad-expression", yq("$.data."), codes=(ARGS,), error="Bad expression Parse error"),
    case(
        "bad-computed-expression",
        yq({"get_param": "e"}),
        ctx={"parameters": {"e": "$.data."}},
        error="Bad expression",
    ),
    case(
        "expression-not-a-string",
        yq(5),
        codes=(ARGS,),
        error='The "expression" argument to yaql must contain a string.',
    ),
    case(
        "extra-key",
        {"yaql": {"expression": "1", "data": {}, "other": 1}},
        codes=(ARGS,),
        error='"yaql" syntax should be',
    ),
    case("not-a-map", {"yaql": "1"}, codes=(ARGS,), error='Arguments to "yaql" must be a map.'),
]


@pytest.mark.parametrize("version", having("yaql"))
@pytest.mark.parametrize(CASE, YAQL)
def test_yaql(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


@pytest.mark.parametrize("version", hot_range("2017-09-01"))
@pytest.mark.parametrize(
    "data,value",
    [
        pytest.param(yq("$.data.roles.contains(web)", {"roles": ["web"]}), True, id="yaql"),
        pytest.param({"contains": ["web", ["db"]]}, False, id="contains"),
    ],
)
def test_yaql_and_contains_are_conditions_from_2017_09_01(
    version: Any, data: Any, value: Any
) -> None:
    evaluate(version, data, condition=True).expect(value)


@pytest.mark.parametrize("version", hot_range("2016-10-14", "2017-02-24"))
def test_yaql_is_not_a_condition_before_2017_09_01(version: Any) -> None:
    outcome = evaluate(version, yq("true"), condition=True)
    outcome.expect(codes=(codes.FUNCTION_CONTEXT,), error="is invalid in this context")


# ------------------------------------------------------------------------------- make_url

MAKE_URL = [
    case(
        "all-parts",
        {
            "make_url": {
                "scheme": "https",
                "host": "192.0.2.1",
                "port": 8080,
                "path": "/hello",
                "query": {"recipient": "world"},
                "fragment": "greeting",
            }
        },
        value="https://192.0.2.1:8080/hello?recipient=world#greeting",
    ),
    case(
        "userinfo-fully-encoded",
        {"make_url": {"scheme": "ftp", "username": "us er", "password": "p@ss:w/", "host": "h"}},
        value="ftp://us%20er:p%40ss%3Aw%2F@h",
    ),
    case(
        "password-only",
        {"make_url": {"scheme": "ftp", "password": "pw", "host": "h"}},
        value="ftp://:pw@h",
    ),
    case(
        "ipv6-host",
        {"make_url": {"scheme": "http", "host": "::1", "port": "80"}},
        value="http://[::1]:80",
    ),
    case(
        "bracketed-ipv6-host",
        {"make_url": {"scheme": "http", "host": "[fe80::1]"}},
        value="http://[fe80::1]",
    ),
    case("host-encoded", {"make_url": {"scheme": "http", "host": "a b"}}, value="http://a%20b"),
    case(
        "relative-path-gets-slash",
        {"make_url": {"scheme": "http", "host": "h", "path": "a/b"}},
        value="http://h/a/b",
    ),
    case("path-encoded", {"make_url": {"path": "/a b/ü"}}, value="/a%20b/%C3%BC"),
    case(
        "query-keeps-slashes",
        {"make_url": {"host": "h", "query": {"a": "b/c", "d": "e f&"}}},
        value="//h?a=b/c&d=e+f%26",
    ),
    case(
        "computed-parts",
        {
            "make_url": {
                "scheme": "http",
                "host": {"get_param": "ip"},
                "port": {"get_param": "port"},
            }
        },
        ctx={"parameters": {"ip": "10.0.0.1", "port": 8000}},
        value="http://10.0.0.1:8000",
    ),
    case(
        "port-zero",
        {"make_url": {"host": "h", "port": 0}},
        codes=(ARGS,),
        error="Invalid URL port 0, must be in range 1-65535",
    ),
    case(
        "port-too-large",
        {"make_url": {"host": "h", "port": "70000"}},
        codes=(ARGS,),
        error="Invalid URL port 70000",
    ),
    case(
        "port-not-a-number",
        {"make_url": {"host": "h", "port": "http"}},
        codes=(ARGS,),
        error='Invalid URL port "http" for make_url',
    ),
    case(
        "computed-bad-port",
        {"make_url": {"host": "h", "port": {"get_param": "port"}}},
        ctx={"parameters": {"port": -1}},
        error="Invalid URL port -1",
    ),
    case(
        "unknown-key",
        {"make_url": {"host": "h", "user": "u"}},
        codes=(ARGS,),
        error='Invalid arguments to "make_url": user',
    ),
    case(
        "query-not-a-map",
        {"make_url": {"query": "a=b"}},
        codes=(ARGS,),
        error='The "query" argument to "make_url" must be a map',
    ),
    case(
        "host-not-a-string",
        {"make_url": {"host": 5}},
        codes=(ARGS,),
        error='The "host" argument to "make_url" must be a string',
    ),
    case(
        "scheme-with-colon",
        {"make_url": {"scheme": "http:", "host": "h"}},
        codes=(FAILED,),
        error="URL \"scheme\" should not contain ':'",
    ),
    case(
        "not-a-map",
        {"make_url": ["http"]},
        codes=(ARGS,),
        error='The arguments to "make_url" must be a map',
    ),
]


@pytest.mark.parametrize("version", having("make_url"))
@pytest.mark.parametrize(CASE, MAKE_URL)
def test_make_url(version: Any, data: Any, ctx: Any, expected: Any) -> None:
    _check(version, data, ctx, expected)


def test_a_kept_yaql_result_is_a_new_value_each_time() -> None:
    """yaql's results are kept (the same expression over the same data is evaluated once,
    as TripleO's tree asks for it again per instance and per check); each caller still
    gets its own containers, and other data gets its own result."""
    version = having("yaql")[-1]
    expression = "$.data.m.keys()"
    first = evaluate(version, yq(expression, {"m": {"a": 1, "b": 2}}))
    assert sorted(first.value) == ["a", "b"]  # a set, as a list: in any order
    first.value.append("changed")
    again = evaluate(version, yq(expression, {"m": {"a": 1, "b": 2}}))
    assert sorted(again.value) == ["a", "b"]
    other = evaluate(version, yq(expression, {"m": {"c": 3}}))
    assert other.value == ["c"]


def test_a_kept_yaql_result_is_found_only_for_the_same_data() -> None:
    """A result is kept by the data exactly: ``1``, ``1.0`` and ``true`` look alike but
    yaql tells them apart, as it does a map's key order, and a value changed in place
    since it was evaluated is evaluated again."""
    version = having("yaql")[-1]
    texts = [evaluate(version, yq("str($.data)", value)).value for value in (1, 1.0, True, 1)]
    assert texts == ["1", "1.0", "true", "1"]
    names = "$.data.items().select($[0])"
    assert evaluate(version, yq(names, {"b": 1, "a": 2})).value == ["b", "a"]
    assert evaluate(version, yq(names, {"a": 2, "b": 1})).value == ["a", "b"]
    shared: dict[str, Any] = {"b": 1}
    call = yq(names, {"get_param": "m"})
    assert evaluate(version, call, parameters={"m": shared}).value == ["b"]
    shared["a"] = 2
    assert evaluate(version, call, parameters={"m": shared}).value == ["b", "a"]


class _Text(str):
    """A string of another type than ``str``: its results are not kept."""


def test_yaql_over_data_of_types_json_but_not_a_key_writes() -> None:
    """Data a key cannot be made of (a subclass of a built-in type) is evaluated each time,
    as data JSON writes the same as other data (a tuple as a list) is."""
    version = having("yaql")[-1]
    pairs = "$.data.items().select(list($[0], $[1]))"
    call = yq(pairs, {"get_param": "m"})
    for _ in range(2):
        found = evaluate(version, call, parameters={"m": {_Text("k"): _Text("v")}}).value
        assert found == [["k", "v"]]
        assert evaluate(version, call, parameters={"m": {"k": ("v",)}}).value == [["k", ["v"]]]


@pytest.mark.parametrize(
    "data,expected",
    [
        pytest.param(
            {1: "a", None: "b", 1.5: "c", False: "d", "e": [{2: "f"}]},
            {"1": "a", "null": "b", "1.5": "c", "false": "d", "e": [{"2": "f"}]},
            id="json-data",
        ),
        # JSON refuses these: the data is converted key by key instead
        pytest.param({float("nan"): 1, "l": (1, 2)}, {"nan": 1, "l": [1, 2]}, id="non-finite-key"),
        pytest.param({"s": {1, 2}}, {"s": [1, 2]}, id="value-json-cannot-write"),
    ],
)
def test_yaql_sees_every_key_as_json_writes_it(data: Any, expected: Any) -> None:
    """Heat's engine gets the template as JSON: yaql's data has the keys JSON writes,
    whether or not the data as a whole can be written as JSON."""
    version = having("yaql")[-1]
    assert evaluate(version, yq("$.data", data)).value == expected
