"""Resolving parameter values: precedence, missing and unknown names, masking, display."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from stoker import codes
from stoker.diagnostics import Diagnostic, Severity
from stoker.parameters import (
    MASK,
    Parameter,
    ParameterType,
    default_constraints,
    display_value,
    parse_parameters,
    resolve_values,
)
from stoker.template.loader import load_document
from stoker.template.versions import hot

TEMPLATE = """\
heat_template_version: 2021-04-16
parameters:
  flavor:
    type: string
    default: m1.small
  count:
    type: number
    default: 1
    constraints:
      - range: {min: 1, max: 5}
  key_name:
    type: string
  password:
    type: string
    hidden: true
    constraints:
      - length: {min: 8}
      - allowed_pattern: '[a-z]+'
  zones:
    type: comma_delimited_list
    default: 'az1,az2'
  image:
    type: string
    default: cirros
    constraints:
      - custom_constraint: glance.image
"""


def declared(text: str = TEMPLATE) -> dict[str, Parameter]:
    document = load_document(text, "t.yaml")
    parameters, diagnostics = parse_parameters(document.data["parameters"], hot("2021-04-16"))
    assert [d for d in diagnostics if d.is_error] == []
    return parameters


def env(text: str) -> Any:
    return load_document(textwrap.dedent(text), "env.yaml").data


def resolve(
    supplied: Any = None, defaults: Any = None, **options: Any
) -> tuple[dict[str, Any], list[Diagnostic]]:
    return resolve_values(declared(), supplied, defaults, registry=default_constraints(), **options)


def errors(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.message for d in diagnostics if d.severity is Severity.ERROR]


PRECEDENCE = [
    ("template-default", None, None, "m1.small"),
    ("parameter-defaults-beat-template", None, {"flavor": "m1.large"}, "m1.large"),
    ("supplied-beats-parameter-defaults", {"flavor": "m1.tiny"}, {"flavor": "m1.large"}, "m1.tiny"),
    ("supplied-beats-template", {"flavor": "m1.tiny"}, None, "m1.tiny"),
    ("supplied-null-is-not-supplied", {"flavor": None}, {"flavor": "m1.large"}, "m1.large"),
    ("empty-string-is-a-value", {"flavor": ""}, None, ""),
]


@pytest.mark.parametrize(
    ("supplied", "defaults", "expected"),
    [case[1:] for case in PRECEDENCE],
    ids=[case[0] for case in PRECEDENCE],
)
def test_precedence(supplied: Any, defaults: Any, expected: str) -> None:
    base = {"key_name": "k", "password": "abcdefghij"}
    values, diagnostics = resolve({**base, **(supplied or {})}, defaults)
    assert errors(diagnostics) == []
    assert values["flavor"] == expected


def test_values_are_typed() -> None:
    values, _ = resolve({"key_name": "k", "password": "abcdefghij", "count": "3"})
    assert values == {
        "flavor": "m1.small",
        "count": 3,
        "key_name": "k",
        "password": "abcdefghij",
        "zones": ["az1", "az2"],
        "image": "cirros",
    }


def test_missing_and_unknown_are_reported_together() -> None:
    values, diagnostics = resolve({"flavour": "x", "count": 9, "extra": 1})
    assert errors(diagnostics) == [
        "The Parameter (flavour) was not defined in template.",
        "The Parameter (extra) was not defined in template.",
        "Parameter 'count' is invalid: 9 is out of range (min: 1, max: 5)",
        "The Parameter (key_name) was not provided.",
        "The Parameter (password) was not provided.",
    ]
    unknown = [d for d in diagnostics if d.code == codes.PARAMETER_UNKNOWN]
    assert len(unknown) == 2
    assert {"count", "key_name", "password"}.isdisjoint(values)
    assert values["flavor"] == "m1.small"


def test_unknown_names_in_parameter_defaults_are_ignored() -> None:
    _, diagnostics = resolve({"key_name": "k", "password": "abcdefghij"}, {"other_stack": 1})
    assert errors(diagnostics) == []


def test_unknown_check_can_be_turned_off_or_told_about_rejected_declarations() -> None:
    supplied = {"key_name": "k", "password": "abcdefghij", "broken": 1}
    _, diagnostics = resolve(supplied, check_unknown=False)
    assert errors(diagnostics) == []
    _, diagnostics = resolve(supplied, declared=["broken"])
    assert errors(diagnostics) == []


def test_null_in_parameter_defaults_keeps_the_template_default() -> None:
    """As Heat 24.1.2 does (tests/fidelity env_matrix/values.null_default)."""
    values, diagnostics = resolve({"key_name": "k", "password": "abcdefghij"}, {"flavor": None})
    assert errors(diagnostics) == []
    assert values["flavor"] == "m1.small"
    _, diagnostics = resolve({"password": "abcdefghij"}, {"key_name": None})
    assert errors(diagnostics) == ["The Parameter (key_name) was not provided."]
    assert "gives it no value" in diagnostics[0].notes[0]


def test_cloud_custom_constraints_are_reported_as_not_checked() -> None:
    values, diagnostics = resolve({"key_name": "k", "password": "abcdefghij"})
    info = [d for d in diagnostics if d.severity is Severity.INFO]
    assert len(info) == 1
    assert info[0].code == codes.CONSTRAINT_NOT_CHECKED
    assert info[0].message == (
        "Parameter 'image': custom constraint glance.image was not checked offline "
        "(it asks the cloud's glance service)"
    )
    assert values["image"] == "cirros"  # not checked is not a failure


def test_diagnostics_point_at_the_declaration_and_at_the_env_file() -> None:
    environment = env(
        """\
        parameters:
          count: 12
          key_name: k
          password: abcdefghij
          stray: 1
        parameter_defaults:
          zones: 5
        """
    )
    _, diagnostics = resolve(environment["parameters"], environment["parameter_defaults"])
    by_message = {d.message: d for d in diagnostics if d.is_error}
    count = by_message["Parameter 'count' is invalid: 12 is out of range (min: 1, max: 5)"]
    assert str(count.span) == "t.yaml:6:3"
    assert count.path == ("parameters", "count")
    assert count.notes == ("value from env.yaml:2:10",)
    stray = by_message["The Parameter (stray) was not defined in template."]
    assert str(stray.span) == "env.yaml:5:3"
    zones = by_message[
        "Parameter 'zones' is invalid: Value must be a comma-delimited list string: "
        "'int' object has no attribute 'split'"
    ]
    assert str(zones.span) == "t.yaml:19:3"
    assert zones.notes == ("value from env.yaml:7:10 (parameter_defaults)",)


def test_parameter_defaults_failing_a_constraint_read_as_invalid_default() -> None:
    _, diagnostics = resolve({"key_name": "k", "password": "abcdefghij"}, {"count": 7})
    assert errors(diagnostics) == [
        "Parameter 'count' is invalid: Invalid default 7 (7 is out of range (min: 1, max: 5))"
    ]


def test_a_bad_template_default_is_not_reported_twice() -> None:
    text = (
        "heat_template_version: 2021-04-16\nparameters:\n  n:\n    type: number\n    default: x\n"
        "    constraints: [{range: {min: 1}}]\n"
    )
    document = load_document(text, "t.yaml")
    parameters, parse_problems = parse_parameters(document.data["parameters"], hot("2021-04-16"))
    assert len(parse_problems) == 1
    values, diagnostics = resolve_values(parameters, {}, {}, registry=default_constraints())
    assert (values, diagnostics) == ({}, [])
    values, diagnostics = resolve_values(parameters, {"n": 4}, {}, registry=default_constraints())
    assert (values, diagnostics) == ({"n": 4}, [])


SECRET = "Sup3r-Secret!"


@pytest.mark.parametrize(
    ("type_name", "constraints"),
    [
        ("string", "[{length: {max: 3}}, {allowed_pattern: '[a-z]+'}, {allowed_values: [x]}]"),
        ("string", "[{custom_constraint: ip_addr}, {custom_constraint: dns_name}]"),
        ("string", "[{custom_constraint: net_cidr}, {custom_constraint: expiration}]"),
        ("string", "[{custom_constraint: cron_expression}, {custom_constraint: nova.flavor}]"),
        ("number", "[{range: {min: 1}}]"),
        ("boolean", "[{allowed_values: [true]}]"),
        ("comma_delimited_list", "[{allowed_values: [a]}, {length: {max: 0}}]"),
        ("json", "[{length: {max: 0}}]"),
    ],
    ids=[
        "string",
        "custom-net",
        "custom-more",
        "custom-cloud",
        "number",
        "boolean",
        "list",
        "json",
    ],
)
def test_hidden_values_never_appear_in_any_message(type_name: str, constraints: str) -> None:
    text = (
        "heat_template_version: 2021-04-16\nparameters:\n  secret:\n"
        f"    type: {type_name}\n    hidden: true\n    default: '{SECRET}'\n"
        f"    constraints: {constraints}\n"
    )
    document = load_document(text, "t.yaml")
    parameters, parse_problems = parse_parameters(document.data["parameters"], hot("2021-04-16"))
    supplied = env(f"parameters:\n  secret: '{SECRET}'\n")["parameters"]
    _, diagnostics = resolve_values(
        parameters, supplied, {"secret": SECRET}, registry=default_constraints()
    )
    found = parse_problems + diagnostics
    assert found, "the secret should break something"
    for diagnostic in found:
        text = diagnostic.render() + " ".join(diagnostic.notes)
        for fragment in (SECRET, "Sup3r", "Secret!"):
            assert fragment not in text


DISPLAY = [
    ("string", ParameterType.STRING, "abc", "abc"),
    ("number-int", ParameterType.NUMBER, 5, "5"),
    ("number-float", ParameterType.NUMBER, 2.5, "2.5"),
    ("list", ParameterType.COMMA_DELIMITED_LIST, ["a", " b"], "a, b"),
    ("empty-list", ParameterType.COMMA_DELIMITED_LIST, [], ""),
    ("json", ParameterType.JSON, {"a": [1, True]}, '{"a": [1, true]}'),
    ("boolean-true", ParameterType.BOOLEAN, True, "True"),
    ("boolean-false", ParameterType.BOOLEAN, False, "False"),
]


@pytest.mark.parametrize(
    ("kind", "value", "shown"), [case[1:] for case in DISPLAY], ids=[case[0] for case in DISPLAY]
)
def test_display_value_matches_stack_show(kind: ParameterType, value: Any, shown: str) -> None:
    assert display_value(Parameter(name="p", type=kind), value) == shown
    assert display_value(Parameter(name="p", type=kind, hidden=True), value) == MASK


def test_value_problems_can_be_deferred_to_create() -> None:
    """Heat's validate does not check values: validate passes ``deferred`` to keep them apart."""
    text = (
        "heat_template_version: 2021-04-16\nparameters:\n"
        "  n: {type: number, constraints: [{range: {max: 3}}]}\n  m: {type: number}\n"
    )
    document = load_document(text, "t.yaml")
    parameters, _ = parse_parameters(document.data["parameters"], hot("2021-04-16"))
    deferred: list = []
    values, diagnostics = resolve_values(
        parameters, {"n": 4, "m": "x"}, {}, registry=default_constraints(), deferred=deferred
    )
    assert values == {} and diagnostics == []
    assert sorted(d.message for d in deferred) == [
        "Parameter 'm' is invalid: could not convert string to float: 'x'",
        "Parameter 'n' is invalid: 4 is out of range (min: None, max: 3)",
    ]
    values, diagnostics = resolve_values(
        parameters, {"n": 4, "m": "x"}, {}, registry=default_constraints()
    )
    assert len(diagnostics) == 2
