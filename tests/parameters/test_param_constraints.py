"""Checking coerced values against each constraint kind (heat-semantics §3 constraints table)."""

from __future__ import annotations

from typing import Any

import pytest

from stoker.parameters import (
    MASK,
    Bounds,
    Constraint,
    ConstraintKind,
    Modulus,
    Parameter,
    ParameterType,
    check_constraints,
    coerce,
    default_constraints,
)

RANGE = Constraint(ConstraintKind.RANGE, Bounds(1, 10))
RANGE_MIN = Constraint(ConstraintKind.RANGE, Bounds(5, None))
LENGTH = Constraint(ConstraintKind.LENGTH, Bounds(2, 4))
MODULO = Constraint(ConstraintKind.MODULO, Modulus(2, 1))
MODULO_NEGATIVE = Constraint(ConstraintKind.MODULO, Modulus(-3, -1))
VALUES = Constraint(ConstraintKind.ALLOWED_VALUES, ("a", "b"))
NUMBER_VALUES = Constraint(ConstraintKind.ALLOWED_VALUES, ("1", 2.0))
STRING_FROM_NUMBERS = Constraint(ConstraintKind.ALLOWED_VALUES, (1, 2))
BOOL_VALUES = Constraint(ConstraintKind.ALLOWED_VALUES, ("yes",))
LIST_VALUES = Constraint(ConstraintKind.ALLOWED_VALUES, ("a", "b", 1))
PATTERN = Constraint(ConstraintKind.ALLOWED_PATTERN, "[a-z]+")
ALTERNATION = Constraint(ConstraintKind.ALLOWED_PATTERN, "a|ab")

S, N, L, J, B = (
    ParameterType.STRING,
    ParameterType.NUMBER,
    ParameterType.COMMA_DELIMITED_LIST,
    ParameterType.JSON,
    ParameterType.BOOLEAN,
)

CASES: list[tuple[str, ParameterType, Constraint, Any, str | None]] = [
    ("range-inside", N, RANGE, "5", None),
    ("range-bounds-inclusive-low", N, RANGE, 1, None),
    ("range-bounds-inclusive-high", N, RANGE, 10, None),
    ("range-below", N, RANGE, 0, "0 is out of range (min: 1, max: 10)"),
    ("range-above-float", N, RANGE, "10.5", "10.5 is out of range (min: 1, max: 10)"),
    ("range-open-max", N, RANGE_MIN, 500, None),
    ("range-open-max-fails", N, RANGE_MIN, 4, "4 is out of range (min: 5, max: None)"),
    ("length-string", S, LENGTH, "abc", None),
    ("length-string-short", S, LENGTH, "a", "length (1) is out of range (min: 2, max: 4)"),
    ("length-list", L, LENGTH, "a,b", None),
    ("length-list-long", L, LENGTH, "a,b,c,d,e", "length (5) is out of range (min: 2, max: 4)"),
    ("length-json-map", J, LENGTH, {"a": 1, "b": 2}, None),
    ("length-json-empty", J, LENGTH, "{}", "length (0) is out of range (min: 2, max: 4)"),
    ("modulo-odd", N, MODULO, 7, None),
    ("modulo-even", N, MODULO, 8, "8 is not a multiple of 2 with an offset of 1"),
    ("modulo-negative-step", N, MODULO_NEGATIVE, -4, None),
    (
        "modulo-negative-step-fails",
        N,
        MODULO_NEGATIVE,
        -3,
        "-3 is not a multiple of -3 with an offset of -1",
    ),
    ("allowed-string", S, VALUES, "a", None),
    ("allowed-string-fails", S, VALUES, "c", '"c" is not an allowed value ["a", "b"]'),
    ("allowed-string-compares-as-strings", S, STRING_FROM_NUMBERS, "1", None),
    ("allowed-number-compares-as-numbers", N, NUMBER_VALUES, "2", None),
    ("allowed-number-from-string-entry", N, NUMBER_VALUES, 1.0, None),
    ("allowed-number-fails", N, NUMBER_VALUES, 3, '3 is not an allowed value ["1", 2.0]'),
    ("allowed-boolean-compares-as-booleans", B, BOOL_VALUES, "true", None),
    ("allowed-boolean-fails", B, BOOL_VALUES, "off", 'false is not an allowed value ["yes"]'),
    ("allowed-list-items", L, LIST_VALUES, "a,b,a", None),
    (
        "allowed-list-items-raw",
        L,
        LIST_VALUES,
        "a,1",
        '["a", "1"] is not an allowed value ["a", "b", 1]',
    ),
    ("allowed-list-empty", L, LIST_VALUES, "", None),
    ("pattern-whole-match", S, PATTERN, "abc", None),
    ("pattern-partial-match", S, PATTERN, "abc1", '"abc1" does not match pattern "[a-z]+"'),
    ("pattern-no-match", S, PATTERN, "1abc", '"1abc" does not match pattern "[a-z]+"'),
    ("pattern-first-alternative-wins", S, ALTERNATION, "ab", '"ab" does not match pattern "a|ab"'),
    ("pattern-alternative", S, ALTERNATION, "a", None),
]


@pytest.mark.parametrize(
    ("kind", "constraint", "raw", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_constraint(
    kind: ParameterType, constraint: Constraint, raw: Any, message: str | None
) -> None:
    parameter = Parameter(name="p", type=kind, constraints=(constraint,))
    violations, unchecked = check_constraints(parameter, coerce(parameter, raw))
    assert unchecked == []
    assert [v.message for v in violations] == ([] if message is None else [message])


@pytest.mark.parametrize(
    ("kind", "constraint", "raw"),
    [case[1:4] for case in CASES if case[4] is not None],
    ids=[case[0] for case in CASES if case[4] is not None],
)
def test_description_replaces_the_message(
    kind: ParameterType, constraint: Constraint, raw: Any
) -> None:
    described = Constraint(constraint.kind, constraint.definition, "Explained by the author.")
    parameter = Parameter(name="p", type=kind, constraints=(described,))
    violations, _ = check_constraints(parameter, coerce(parameter, raw))
    assert [v.message for v in violations] == ["Explained by the author."]


def test_empty_description_keeps_the_default_message() -> None:
    parameter = Parameter(
        name="p", type=N, constraints=(Constraint(ConstraintKind.RANGE, Bounds(1, 2), ""),)
    )
    violations, _ = check_constraints(parameter, 3)
    assert violations[0].message == "3 is out of range (min: 1, max: 2)"


def test_every_failing_constraint_is_reported() -> None:
    parameter = Parameter(name="p", type=N, constraints=(RANGE, MODULO))
    violations, _ = check_constraints(parameter, 12)
    assert [v.constraint.kind for v in violations] == [ConstraintKind.RANGE, ConstraintKind.MODULO]


@pytest.mark.parametrize(
    ("kind", "constraint", "raw"),
    [
        (N, RANGE, "0"),
        (S, LENGTH, "x"),
        (N, MODULO, "4"),
        (S, VALUES, "zzz-secret"),
        (S, PATTERN, "zzz-secret-1"),
        (L, LIST_VALUES, "zzz-secret"),
    ],
    ids=["range", "length", "modulo", "allowed-values", "pattern", "list-values"],
)
def test_hidden_values_never_appear(kind: ParameterType, constraint: Constraint, raw: str) -> None:
    parameter = Parameter(name="p", type=kind, hidden=True, constraints=(constraint,))
    violations, _ = check_constraints(parameter, coerce(parameter, raw))
    assert len(violations) == 1
    message = violations[0].message
    assert MASK in message or message.startswith("length (")
    if len(raw) > 1:
        assert raw not in message


def test_custom_constraints_use_the_registry_or_are_unchecked() -> None:
    constraint = Constraint(ConstraintKind.CUSTOM_CONSTRAINT, "ip_addr")
    parameter = Parameter(name="p", type=S, constraints=(constraint,))
    violations, unchecked = check_constraints(parameter, "1.2.3.4", default_constraints())
    assert (violations, unchecked) == ([], [])
    violations, _ = check_constraints(parameter, "nope", default_constraints())
    assert [v.message for v in violations] == ["Error validating value 'nope': Invalid IP address"]
    _, unchecked = check_constraints(parameter, "nope")
    assert [u.reason for u in unchecked] == ["no custom constraint registry was given"]
    assert check_constraints(parameter, "nope", custom=False) == ([], [])
