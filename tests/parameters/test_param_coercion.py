"""Coercion of raw values to each parameter type (heat-semantics §3 coercion table)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from stoker.parameters import MASK, Parameter, ParameterType, ParameterValueError, coerce
from stoker.template.nodes import SequenceNode, StrNode


def param(kind: ParameterType, *, hidden: bool = False) -> Parameter:
    return Parameter(name="p", type=kind, hidden=hidden)


GOOD: list[tuple[str, ParameterType, Any, Any]] = [
    # string: anything becomes str(v)
    ("string-plain", ParameterType.STRING, "abc", "abc"),
    ("string-int", ParameterType.STRING, 5, "5"),
    ("string-float", ParameterType.STRING, 1.5, "1.5"),
    ("string-bool", ParameterType.STRING, True, "True"),
    ("string-list-repr", ParameterType.STRING, ["a", 1], "['a', 1]"),
    ("string-empty", ParameterType.STRING, "", ""),
    ("string-node", ParameterType.STRING, StrNode("x"), "x"),
    # number: int first, then float; numbers and booleans pass through
    ("number-int", ParameterType.NUMBER, 5, 5),
    ("number-float", ParameterType.NUMBER, 2.5, 2.5),
    ("number-int-string", ParameterType.NUMBER, "42", 42),
    ("number-spaces", ParameterType.NUMBER, " 7 ", 7),
    ("number-float-string", ParameterType.NUMBER, "1.5", 1.5),
    ("number-exponent", ParameterType.NUMBER, "1e3", 1000.0),
    ("number-negative", ParameterType.NUMBER, "-3", -3),
    ("number-bool", ParameterType.NUMBER, True, True),
    # comma_delimited_list: split on ',' without trimming
    ("list-simple", ParameterType.COMMA_DELIMITED_LIST, "a,b,c", ["a", "b", "c"]),
    ("list-untrimmed", ParameterType.COMMA_DELIMITED_LIST, "a, b", ["a", " b"]),
    ("list-empty-string", ParameterType.COMMA_DELIMITED_LIST, "", []),
    ("list-single", ParameterType.COMMA_DELIMITED_LIST, "a", ["a"]),
    ("list-empty-items", ParameterType.COMMA_DELIMITED_LIST, "a,,b", ["a", "", "b"]),
    ("list-from-list", ParameterType.COMMA_DELIMITED_LIST, ["a", 1, True], ["a", "1", "True"]),
    ("list-from-node", ParameterType.COMMA_DELIMITED_LIST, SequenceNode(), []),
    # json: maps, lists and JSON strings; '' stays ''
    ("json-map", ParameterType.JSON, {"a": 1}, {"a": 1}),
    ("json-list", ParameterType.JSON, [1, "x"], [1, "x"]),
    ("json-string-map", ParameterType.JSON, '{"a": [1, 2]}', {"a": [1, 2]}),
    ("json-string-list", ParameterType.JSON, "[1, 2]", [1, 2]),
    ("json-empty", ParameterType.JSON, "", ""),
    # boolean: strict word list, any case, surrounding spaces ignored
    ("bool-true", ParameterType.BOOLEAN, True, True),
    ("bool-false", ParameterType.BOOLEAN, False, False),
    ("bool-word-true", ParameterType.BOOLEAN, "true", True),
    ("bool-word-TRUE", ParameterType.BOOLEAN, "TRUE", True),
    ("bool-t", ParameterType.BOOLEAN, "t", True),
    ("bool-yes", ParameterType.BOOLEAN, "Yes", True),
    ("bool-y", ParameterType.BOOLEAN, "y", True),
    ("bool-on", ParameterType.BOOLEAN, "on", True),
    ("bool-one", ParameterType.BOOLEAN, "1", True),
    ("bool-int-one", ParameterType.BOOLEAN, 1, True),
    ("bool-word-false", ParameterType.BOOLEAN, "False", False),
    ("bool-f", ParameterType.BOOLEAN, "f", False),
    ("bool-no", ParameterType.BOOLEAN, "no", False),
    ("bool-n", ParameterType.BOOLEAN, "N", False),
    ("bool-off", ParameterType.BOOLEAN, "off", False),
    ("bool-zero", ParameterType.BOOLEAN, "0", False),
    ("bool-int-zero", ParameterType.BOOLEAN, 0, False),
    ("bool-spaces", ParameterType.BOOLEAN, " true ", True),
]


@pytest.mark.parametrize(
    ("kind", "raw", "expected"), [case[1:] for case in GOOD], ids=[case[0] for case in GOOD]
)
def test_coerce_accepts(kind: ParameterType, raw: Any, expected: Any) -> None:
    value = coerce(param(kind), raw)
    assert value == expected
    assert type(value) is type(expected)


BAD: list[tuple[str, ParameterType, Any, str]] = [
    ("number-word", ParameterType.NUMBER, "abc", "could not convert string to float: 'abc'"),
    ("number-hex", ParameterType.NUMBER, "0x10", "could not convert string to float: '0x10'"),
    ("number-empty", ParameterType.NUMBER, "", "could not convert string to float: ''"),
    (
        "number-list",
        ParameterType.NUMBER,
        [1],
        "int() argument must be a string, a bytes-like object or a real number, not 'list'",
    ),
    (
        "list-number",
        ParameterType.COMMA_DELIMITED_LIST,
        5,
        "Value must be a comma-delimited list string: 'int' object has no attribute 'split'",
    ),
    (
        "list-map",
        ParameterType.COMMA_DELIMITED_LIST,
        {"a": 1},
        "Value must be a comma-delimited list string: 'dict' object has no attribute 'split'",
    ),
    ("json-garbage", ParameterType.JSON, "{not json", "Value must be valid JSON: "),
    ("json-trailing", ParameterType.JSON, '{"a": 1} x', "Value must be valid JSON: Extra data"),
    ("bool-maybe", ParameterType.BOOLEAN, "maybe", "Unrecognized value 'maybe', acceptable"),
    ("bool-two", ParameterType.BOOLEAN, 2, "Unrecognized value '2', acceptable values are: "),
    ("bool-empty", ParameterType.BOOLEAN, "", "Unrecognized value '', acceptable values are"),
]


@pytest.mark.parametrize(
    ("kind", "raw", "message"), [case[1:] for case in BAD], ids=[case[0] for case in BAD]
)
def test_coerce_rejects_with_heat_wording(kind: ParameterType, raw: Any, message: str) -> None:
    with pytest.raises(ParameterValueError) as caught:
        coerce(param(kind), raw)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, ValueError)


def test_boolean_message_lists_every_accepted_word() -> None:
    with pytest.raises(ParameterValueError) as caught:
        coerce(param(ParameterType.BOOLEAN), "maybe")
    assert str(caught.value) == (
        "Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', "
        "'no', 'off', 'on', 't', 'true', 'y', 'yes'"
    )


def test_number_keeps_python_float_semantics() -> None:
    assert math.isinf(coerce(param(ParameterType.NUMBER), "inf"))


@pytest.mark.parametrize(
    ("kind", "secret"),
    [
        (ParameterType.NUMBER, "s3cr3t-number"),
        (ParameterType.BOOLEAN, "s3cr3t-bool"),
    ],
    ids=["number", "boolean"],
)
def test_hidden_values_are_masked_in_coercion_errors(kind: ParameterType, secret: str) -> None:
    with pytest.raises(ParameterValueError) as caught:
        coerce(param(kind, hidden=True), secret)
    assert secret not in str(caught.value)
    assert MASK in str(caught.value)


def _node_document():
    """A loaded document's json value: nodes with positions, nested."""
    from stoker.template.loader import load_document

    text = 'v:\n  a: [1, x, {b: "", c: null}]\n  "1": true\n  d: "{\\"e\\": 2}"\n  "": []\n'
    return load_document(text, "env.yaml").data["v"]


def test_a_json_value_of_nodes_decodes_to_plain_data():
    from stoker.template.nodes import MappingNode, plain

    raw = _node_document()
    assert type(raw) is MappingNode
    value = coerce(param(ParameterType.JSON), raw)
    assert value == plain(raw)
    kinds = set()

    def walk(item: Any) -> None:
        kinds.add(type(item))
        children = (
            item.items() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        for child in children:
            walk(child)

    walk(value)
    assert kinds <= {dict, list, tuple, str, int, bool, type(None)}
    assert (
        coerce(param(ParameterType.JSON), StrNode("")) == ""
        and type(coerce(param(ParameterType.JSON), StrNode(""))) is str
    )
    assert coerce(param(ParameterType.JSON), StrNode('{"a": [1]}')) == {"a": [1]}
