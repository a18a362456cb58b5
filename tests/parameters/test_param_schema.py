"""Parsing parameter declarations: HOT and CFN keys, types, constraint definitions, defaults."""

from __future__ import annotations

import textwrap

import pytest

from stoker import codes
from stoker.diagnostics import Diagnostic, Severity
from stoker.parameters import (
    MASK,
    Bounds,
    ConstraintKind,
    Modulus,
    Parameter,
    ParameterType,
    parse_parameters,
)
from stoker.template.loader import load_document
from stoker.template.versions import CFN_AWS, hot


def parse_hot(
    body: str, version: str = "2021-04-16"
) -> tuple[dict[str, Parameter], list[Diagnostic]]:
    """Parse ``body`` (the lines under ``parameters:``, dedented) from a real YAML document."""
    text = f"heat_template_version: {version}\nparameters:\n" + textwrap.indent(
        textwrap.dedent(body).lstrip("\n"), "  "
    )
    document = load_document(text, "t.yaml")
    return parse_parameters(document.data["parameters"], hot(version))


def parse_cfn(body: str) -> tuple[dict[str, Parameter], list[Diagnostic]]:
    text = "AWSTemplateFormatVersion: 2010-09-09\nParameters:\n" + textwrap.indent(
        textwrap.dedent(body).lstrip("\n"), "  "
    )
    document = load_document(text, "t.yaml")
    return parse_parameters(document.data["Parameters"], CFN_AWS, ("Parameters",))


def errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def where(diagnostic: Diagnostic) -> str:
    assert diagnostic.span is not None
    return f"{diagnostic.span.line}:{diagnostic.span.column}"


# --------------------------------------------------------------------------- valid input


def test_hot_declaration_is_read_into_a_parameter() -> None:
    parameters, diagnostics = parse_hot(
        """
        port:
          type: number
          label: Port
          description: The port to listen on
          default: 8080
          immutable: true
          tags: [network, web]
          constraints:
            - range: {min: 1, max: 65535}
              description: A TCP port
            - modulo: {step: 2, offset: 0}
        """
    )
    assert diagnostics == []
    port = parameters["port"]
    assert port.type is ParameterType.NUMBER
    assert (port.default, port.has_default, port.hidden, port.immutable) == (
        8080,
        True,
        False,
        True,
    )
    assert (port.label, port.description, port.tags) == (
        "Port",
        "The port to listen on",
        ("network", "web"),
    )
    assert [c.kind for c in port.constraints] == [ConstraintKind.RANGE, ConstraintKind.MODULO]
    assert port.constraints[0].definition == Bounds(1, 65535)
    assert port.constraints[0].description == "A TCP port"
    assert port.constraints[1].definition == Modulus(2, 0)
    assert port.path == ("parameters", "port")
    assert port.span is not None and (port.span.line, port.span.column) == (3, 3)
    assert port.constraints[0].path == ("parameters", "port", "constraints", 0, "range")
    assert port.constraints[0].span is not None and port.constraints[0].span.line == 11


def test_null_default_means_no_default_and_string_bounds_are_numbers() -> None:
    parameters, diagnostics = parse_hot(
        """
        name:
          type: string
          default: null
          constraints:
            - length: {min: "2", max: 8}
        """
    )
    assert diagnostics == []
    assert parameters["name"].has_default is False
    assert parameters["name"].constraints[0].definition == Bounds(2, 8)


def test_every_hot_type_name_is_accepted() -> None:
    body = "".join(f"p_{kind.value}:\n  type: {kind.value}\n" for kind in ParameterType)
    parameters, diagnostics = parse_hot(body)
    assert diagnostics == []
    assert {p.type for p in parameters.values()} == set(ParameterType)


def test_empty_section_has_no_parameters() -> None:
    assert parse_parameters(None, hot("2021-04-16")) == ({}, [])


# --------------------------------------------------------------------------- errors, with spans

SCHEMA_ERRORS = [
    (
        "unknown-key",
        "2021-04-16",
        "p:\n  type: string\n  defualt: x\n",
        "Invalid key 'defualt' for parameter (p)",
        "5:5",
    ),
    (
        "cfn-key-in-hot",
        "2021-04-16",
        "p:\n  type: string\n  Default: x\n",
        "Invalid key 'Default' for parameter (p); did you mean 'default'?",
        "5:5",
    ),
    (
        "missing-type",
        "2021-04-16",
        "p:\n  default: x\n",
        "Missing parameter type for parameter: p",
        "3:3",
    ),
    ("invalid-type", "2021-04-16", "p:\n  type: strng\n", "Invalid type (strng)", "4:11"),
    ("cfn-type-name-in-hot", "2021-04-16", "p:\n  type: String\n", "Invalid type (String)", "4:11"),
    (
        "not-a-mapping",
        "2021-04-16",
        "p: string\n",
        "Invalid parameter (p), expected a mapping",
        "3:6",
    ),
    (
        "tags-before-queens",
        "2017-09-01",
        "p:\n  type: string\n  tags: [a]\n",
        "Invalid key 'tags' for parameter (p); tags need heat_template_version 2018-03-02",
        "5:5",
    ),
    (
        "tags-not-a-list",
        "2018-03-02",
        "p:\n  type: string\n  tags: a\n",
        "Tags property should be a list for parameter: p",
        "5:11",
    ),
    (
        "constraints-not-a-list",
        "2021-04-16",
        "p:\n  type: string\n  constraints: {length: {min: 1}}\n",
        "Invalid parameter constraints for parameter p, expected a list",
        "5:18",
    ),
    (
        "constraint-not-a-mapping",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - length\n",
        "Invalid parameter constraints, expected a mapping",
        "6:9",
    ),
    (
        "constraint-unknown-key",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - length: {min: 1}\n      message: x\n",
        "Invalid key 'message' for parameter constraints",
        "7:9",
    ),
    (
        "constraint-empty",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - description: only words\n",
        "No constraint expressed",
        "6:9",
    ),
    (
        "modulo-before-ocata",
        "2016-10-14",
        "p:\n  type: number\n  constraints:\n    - modulo: {step: 2, offset: 0}\n",
        "No constraint expressed; the modulo constraint needs heat_template_version 2017-02-24",
        "6:9",
    ),
    (
        "range-not-a-mapping",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - range: 5\n",
        "Invalid range constraint, expected a mapping",
        "6:16",
    ),
    (
        "range-unknown-key",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - range: {min: 1, maximum: 5}\n",
        "Invalid key 'maximum' for range constraint",
        "6:25",
    ),
    (
        "range-without-bounds",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - range: {}\n",
        "A range constraint must have a min value and/or a max value specified.",
        "6:16",
    ),
    (
        "range-not-numeric",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - range: {min: low}\n",
        "min/max must be numeric",
        "6:22",
    ),
    (
        "length-without-bounds",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - length: {}\n",
        "A length constraint must have a min value and/or a max value specified.",
        "6:17",
    ),
    (
        "length-not-integral",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - length: {min: 1, max: 2.5}\n",
        "min/max length must be integral",
        "6:31",
    ),
    (
        "modulo-missing-offset",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - modulo: {step: 2}\n",
        "A modulo constraint must have a step value and an offset value specified.",
        "6:17",
    ),
    (
        "modulo-step-zero",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - modulo: {step: 0, offset: 0}\n",
        "step cannot be 0.",
        "6:24",
    ),
    (
        "modulo-offset-too-big",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - modulo: {step: 2, offset: 2}\n",
        "offset must be smaller (by absolute value) than step.",
        "6:35",
    ),
    (
        "modulo-signs-differ",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - modulo: {step: 3, offset: -1}\n",
        "step and offset must be both positive or both negative.",
        "6:35",
    ),
    (
        "modulo-not-integer",
        "2021-04-16",
        "p:\n  type: number\n  constraints:\n    - modulo: {step: 2.5, offset: 0}\n",
        "step/offset must be integer",
        "6:24",
    ),
    (
        "allowed-values-not-a-list",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - allowed_values: a\n",
        "AllowedValues must be a list",
        "6:25",
    ),
    (
        # refused with a default only: without one, Heat's validate passes (a warning here)
        "allowed-values-wrong-type",
        "2021-04-16",
        "p:\n  type: number\n  default: 1\n  constraints:\n    - allowed_values: [1, two]\n",
        "Parameter 'p' is invalid: Invalid default 1 (Value \"two\" is invalid for data type",
        "5:14",
    ),
    (
        "pattern-not-a-string",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - allowed_pattern: [a]\n",
        "AllowedPattern must be a string",
        "6:26",
    ),
    (
        "pattern-does-not-compile",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - allowed_pattern: '[a-'\n",
        'AllowedPattern "[a-" is not a valid regular expression',
        "6:26",
    ),
    (
        "custom-not-a-name",
        "2021-04-16",
        "p:\n  type: string\n  constraints:\n    - custom_constraint: 'nova flavor'\n",
        "custom_constraint 'nova flavor' is not a constraint name",
        "6:28",
    ),
]


@pytest.mark.parametrize(
    ("version", "body", "message", "position"),
    [case[1:] for case in SCHEMA_ERRORS],
    ids=[case[0] for case in SCHEMA_ERRORS],
)
def test_schema_errors_point_at_the_offending_key_or_value(
    version: str, body: str, message: str, position: str
) -> None:
    _, diagnostics = parse_hot(body, version)
    found = errors(diagnostics)
    assert len(found) == 1, [d.render() for d in diagnostics]
    assert found[0].message.startswith(message)
    assert found[0].code == codes.PARAMETER_SCHEMA
    assert where(found[0]) == position


def test_allowed_values_of_another_type_without_default_warn() -> None:
    """Heat's validate passes it (measured on 24.1.2); its create refuses every value."""
    body = "p:\n  type: number\n  constraints:\n    - allowed_values: [1, two]\n"
    _, diagnostics = parse_hot(body, "2021-04-16")
    assert not errors(diagnostics)
    assert [d.message.split(" (")[0] for d in diagnostics] == [
        'Value "two" is invalid for data type "number".'
    ]


INVALID_FOR_TYPE = [
    ("range-on-string", "string", "range: {min: 1}", "Range constraint invalid for string"),
    ("length-on-number", "number", "length: {min: 1}", "Length constraint invalid for number"),
    ("length-on-boolean", "boolean", "length: {min: 1}", "Length constraint invalid for boolean"),
    (
        "modulo-on-string",
        "string",
        "modulo: {step: 2, offset: 1}",
        "Modulo constraint invalid for string",
    ),
    (
        "modulo-on-list",
        "comma_delimited_list",
        "modulo: {step: 2, offset: 1}",
        "Modulo constraint invalid for comma_delimited_list",
    ),
    (
        "allowed-values-on-json",
        "json",
        "allowed_values: [a]",
        "AllowedValues constraint invalid for json",
    ),
    (
        "pattern-on-number",
        "number",
        "allowed_pattern: '[0-9]+'",
        "AllowedPattern constraint invalid for number",
    ),
    (
        "pattern-on-list",
        "comma_delimited_list",
        "allowed_pattern: a",
        "AllowedPattern constraint invalid for comma_delimited_list",
    ),
    (
        "custom-on-json",
        "json",
        "custom_constraint: json_string",
        "CustomConstraint constraint invalid for json",
    ),
]


@pytest.mark.parametrize(
    ("type_name", "constraint", "message"),
    [case[1:] for case in INVALID_FOR_TYPE],
    ids=[case[0] for case in INVALID_FOR_TYPE],
)
def test_constraint_kind_invalid_for_the_type(
    type_name: str, constraint: str, message: str
) -> None:
    parameters, diagnostics = parse_hot(
        f"p:\n  type: {type_name}\n  constraints:\n    - {constraint}\n"
    )
    assert [d.message for d in diagnostics] == [f"Parameter 'p' is invalid: {message}"]
    assert where(diagnostics[0]) == "6:9"
    assert parameters["p"].constraints == ()


VALID_FOR_TYPE = [
    ("length-on-list", "comma_delimited_list", "length: {max: 3}"),
    ("length-on-json", "json", "length: {max: 3}"),
    ("allowed-values-on-boolean", "boolean", "allowed_values: [true]"),
    ("allowed-values-on-list", "comma_delimited_list", "allowed_values: [a, b]"),
    ("custom-on-number", "number", "custom_constraint: test_constr"),
    ("modulo-on-number", "number", "modulo: {step: 2, offset: 1}"),
]


@pytest.mark.parametrize(
    ("type_name", "constraint"),
    [case[1:] for case in VALID_FOR_TYPE],
    ids=[case[0] for case in VALID_FOR_TYPE],
)
def test_constraint_kind_valid_for_the_type(type_name: str, constraint: str) -> None:
    parameters, diagnostics = parse_hot(
        f"p:\n  type: {type_name}\n  constraints:\n    - {constraint}\n"
    )
    assert diagnostics == []
    assert len(parameters["p"].constraints) == 1


def test_modulo_is_recognised_from_ocata() -> None:
    parameters, diagnostics = parse_hot(
        "p:\n  type: number\n  constraints:\n    - modulo: {step: 2, offset: 0}\n", "2017-02-24"
    )
    assert diagnostics == []
    assert parameters["p"].constraints[0].definition == Modulus(2, 0)


def test_every_problem_is_reported_together() -> None:
    parameters, diagnostics = parse_hot(
        """
        a:
          type: strng
        b:
          default: 1
        c:
          type: number
          colour: red
          constraints:
            - range: {}
            - allowed_pattern: x
        d:
          type: string
        """
    )
    assert [d.message for d in errors(diagnostics)] == [
        "Invalid type (strng); use one of string, number, comma_delimited_list, json, boolean",
        "Missing parameter type for parameter: b",
        "Invalid key 'colour' for parameter (c)",
        "A range constraint must have a min value and/or a max value specified.",
        "Parameter 'c' is invalid: AllowedPattern constraint invalid for number",
    ]
    # Unusable declarations (no valid type) are left out; the others are kept.
    assert sorted(parameters) == ["c", "d"]


# --------------------------------------------------------------------------- defaults

DEFAULT_ERRORS = [
    (  # a constraint makes Heat's validate convert the default (measured)
        "number-not-a-number",
        "number",
        "abc",
        "- range: {min: 1}",
        "Invalid default abc (could not convert string to float: 'abc')",
    ),
    (
        "boolean-not-a-word",
        "boolean",
        "maybe",
        "- allowed_values: [true]",
        "Invalid default maybe (Unrecognized value 'maybe'",
    ),
    (
        "range",
        "number",
        "0",
        "- range: {min: 1, max: 9}",
        "Invalid default 0 (0 is out of range (min: 1, max: 9))",
    ),
    (
        "length",
        "string",
        "abcdef",
        "- length: {max: 3}",
        "Invalid default abcdef (length (6) is out of range (min: None, max: 3))",
    ),
    (
        "list-length",
        "comma_delimited_list",
        "'a,b,c'",
        "- length: {max: 2}",
        "Invalid default a,b,c (length (3) is out of range (min: None, max: 2))",
    ),
    (
        "allowed-values",
        "string",
        "c",
        "- allowed_values: [a, b]",
        'Invalid default c ("c" is not an allowed value ["a", "b"])',
    ),
    (
        "pattern",
        "string",
        "ab",
        "- allowed_pattern: 'a|ab'",
        'Invalid default ab ("ab" does not match pattern "a|ab")',
    ),
    (
        "modulo",
        "number",
        "4",
        "- modulo: {step: 2, offset: 1}",
        "Invalid default 4 (4 is not a multiple of 2 with an offset of 1)",
    ),
    (
        "description-replaces-message",
        "number",
        "0",
        "- range: {min: 1}\n      description: Must be positive",
        "Invalid default 0 (Must be positive)",
    ),
]


@pytest.mark.parametrize(
    ("type_name", "default", "constraint", "message"),
    [case[1:] for case in DEFAULT_ERRORS],
    ids=[case[0] for case in DEFAULT_ERRORS],
)
def test_defaults_are_checked_against_type_and_constraints(
    type_name: str, default: str, constraint: str, message: str
) -> None:
    body = f"p:\n  type: {type_name}\n  default: {default}\n"
    if constraint:
        body += f"  constraints:\n    {constraint}\n"
    parameters, diagnostics = parse_hot(body, "2021-04-16")
    assert len(diagnostics) == 1, [d.render() for d in diagnostics]
    assert diagnostics[0].message.startswith(f"Parameter 'p' is invalid: {message}")
    assert diagnostics[0].path == ("parameters", "p", "default")
    assert where(diagnostics[0]) == "5:14"
    assert parameters["p"].default_error is not None


@pytest.mark.parametrize(
    ("type_name", "default"), [("number", "abc"), ("boolean", "maybe"), ("json", "'{x'")]
)
def test_a_default_of_the_wrong_type_without_constraints_waits_for_create(
    type_name: str, default: str
) -> None:
    """Heat 24.1.2's validate accepts these; its create refuses the value (measured)."""
    parameters, diagnostics = parse_hot(f"p:\n  type: {type_name}\n  default: {default}\n")
    assert diagnostics == []
    assert parameters["p"].default_error is None


def test_a_list_default_that_is_not_a_string_is_refused_at_validate() -> None:
    parameters, diagnostics = parse_hot("p:\n  type: comma_delimited_list\n  default: {a: 1}\n")
    assert [d.message for d in diagnostics] == [
        "Parameter 'p' is invalid: Default must be a comma-delimited list string: "
        "'dict' object has no attribute 'split'"
    ]
    assert parameters["p"].default_error is not None


def test_custom_constraints_are_not_applied_to_defaults() -> None:
    parameters, diagnostics = parse_hot(
        "p:\n  type: string\n  default: not-an-ip\n"
        "  constraints:\n    - custom_constraint: ip_addr\n"
    )
    assert diagnostics == []
    assert parameters["p"].default_error is None


def test_hidden_default_is_masked_in_messages() -> None:
    _, diagnostics = parse_hot(
        "p:\n  type: string\n  hidden: true\n  default: hunter2\n"
        "  constraints:\n    - length: {min: 12}\n    - allowed_pattern: '[a-z]+'\n"
    )
    assert len(diagnostics) == 2
    for diagnostic in diagnostics:
        assert "hunter2" not in diagnostic.render()
        assert MASK in diagnostic.message


# --------------------------------------------------------------------------- warnings

WARNINGS = [
    (
        "hidden-string-false",
        "p:\n  type: string\n  hidden: 'false'\n",
        "hidden is 'false', which Heat treats as true",
        "5:13",
    ),
    (
        "immutable-string",
        "p:\n  type: string\n  immutable: 'no'\n",
        "immutable is 'no', which Heat treats as true",
        "5:16",
    ),
    (
        "two-kinds-in-one-entry",
        "p:\n  type: number\n  constraints:\n"
        "    - range: {min: 1}\n      modulo: {step: 2, offset: 1}\n",
        "Heat uses only the first constraint kind of an entry (modulo) and ignores range; give",
        "6:9",
    ),
]


@pytest.mark.parametrize(
    ("body", "message", "position"),
    [case[1:] for case in WARNINGS],
    ids=[case[0] for case in WARNINGS],
)
def test_heat_quirks_get_a_warning(body: str, message: str, position: str) -> None:
    _, diagnostics = parse_hot(body)
    assert len(diagnostics) == 1
    assert diagnostics[0].severity is Severity.WARNING
    assert diagnostics[0].message.startswith(message)
    assert where(diagnostics[0]) == position


def test_hidden_uses_truthiness() -> None:
    parameters, _ = parse_hot(
        "a:\n  type: string\n  hidden: 'false'\nb:\n  type: string\n  hidden: 0\n"
    )
    assert parameters["a"].hidden is True
    assert parameters["b"].hidden is False


# --------------------------------------------------------------------------- CFN


def test_cfn_parameters_use_flat_keys() -> None:
    parameters, diagnostics = parse_cfn(
        """
        KeyName:
          Type: String
          Description: SSH key
          Default: mykey
          MinLength: '1'
          MaxLength: 64
          AllowedPattern: '[a-z]+'
          ConstraintDescription: lowercase letters only
          Label: Key
        Size:
          Type: Number
          MinValue: 1
          MaxValue: 10
          AllowedValues: [1, 2, 5]
        Secret:
          Type: String
          NoEcho: 'TRUE'
        Shown:
          Type: String
          NoEcho: false
        Names:
          Type: CommaDelimitedList
        Doc:
          Type: Json
        Flag:
          Type: Boolean
        """
    )
    assert diagnostics == []
    key = parameters["KeyName"]
    assert key.type is ParameterType.STRING
    assert key.path == ("Parameters", "KeyName")
    assert [c.kind for c in key.constraints] == [
        ConstraintKind.LENGTH,
        ConstraintKind.ALLOWED_PATTERN,
    ]
    assert key.constraints[0].definition == Bounds(1, 64)
    assert {c.description for c in key.constraints} == {"lowercase letters only"}
    assert (key.label, key.description, key.default) == ("Key", "SSH key", "mykey")
    size = parameters["Size"]
    assert [c.kind for c in size.constraints] == [
        ConstraintKind.RANGE,
        ConstraintKind.ALLOWED_VALUES,
    ]
    assert parameters["Secret"].hidden is True
    assert parameters["Shown"].hidden is False
    assert parameters["Names"].type is ParameterType.COMMA_DELIMITED_LIST
    assert parameters["Doc"].type is ParameterType.JSON
    assert parameters["Flag"].type is ParameterType.BOOLEAN


CFN_ERRORS = [
    (
        "hot-key-in-cfn",
        "P:\n  Type: String\n  default: x\n",
        "Invalid key 'default' for parameter (P); did you mean 'Default'?",
        "5:5",
    ),
    (
        "hot-type-name",
        "P:\n  Type: string\n",
        "Invalid type (string); use one of String, Number",
        "4:11",
    ),
    ("missing-type", "P:\n  Default: x\n", "Missing parameter type for parameter: P", "3:3"),
    (
        "no-tags-in-cfn",
        "P:\n  Type: String\n  tags: [a]\n",
        "Invalid key 'tags' for parameter (P)",
        "5:5",
    ),
    (
        "length-on-number",
        "P:\n  Type: Number\n  MinLength: 1\n",
        "Parameter 'P' is invalid: Length constraint invalid for Number",
        "5:5",
    ),
    (
        "range-on-string",
        "P:\n  Type: String\n  MaxValue: 1\n",
        "Parameter 'P' is invalid: Range constraint invalid for String",
        "5:5",
    ),
    ("bad-min-value", "P:\n  Type: Number\n  MinValue: low\n", "min/max must be numeric", "5:15"),
    (
        "bad-default",
        "P:\n  Type: Number\n  Default: 20\n  MaxValue: 10\n  ConstraintDescription: at most ten\n",
        "Parameter 'P' is invalid: Invalid default 20 (at most ten)",
        "5:14",
    ),
]


@pytest.mark.parametrize(
    ("body", "message", "position"),
    [case[1:] for case in CFN_ERRORS],
    ids=[case[0] for case in CFN_ERRORS],
)
def test_cfn_errors(body: str, message: str, position: str) -> None:
    _, diagnostics = parse_cfn(body)
    assert len(diagnostics) == 1, [d.render() for d in diagnostics]
    assert diagnostics[0].message.startswith(message)
    assert where(diagnostics[0]) == position


def test_cfn_no_echo_that_is_not_true_gets_a_warning() -> None:
    parameters, diagnostics = parse_cfn("P:\n  Type: String\n  NoEcho: 'yes'\n")
    assert parameters["P"].hidden is False
    assert [d.severity for d in diagnostics] == [Severity.WARNING]
    assert diagnostics[0].message.startswith("NoEcho is 'yes', which Heat treats as false")


# --------------------------------------------------------------------------- validate API summary


def test_summary_matches_heat_validate_output() -> None:
    parameters, _ = parse_hot(
        """
        port:
          type: number
          label: Port
          description: The port
          default: 80
          tags: [net]
          constraints:
            - range: {min: 1, max: 65535}
              description: A port.
            - modulo: {step: 2, offset: 0}
              description: Even.
        password:
          type: string
          hidden: true
          default: hunter2
          constraints:
            - length: {min: 6}
            - allowed_pattern: '[a-z0-9]+'
            - custom_constraint: nova.keypair
        names:
          type: comma_delimited_list
          constraints:
            - allowed_values: [a, b]
        """
    )
    assert parameters["port"].summary() == {
        "Type": "Number",
        "Description": "The port",
        "Default": 80,
        "NoEcho": "false",
        "Label": "Port",
        "MinValue": 1,
        "MaxValue": 65535,
        "Step": 2,
        "Offset": 0,
        "ConstraintDescription": "A port. Even.",
        "Tags": ["net"],
    }
    password = parameters["password"].summary(value="hunter2")
    assert password == {
        "Type": "String",
        "Description": "",
        "Default": MASK,
        "NoEcho": "true",
        "Label": None,
        "Value": MASK,
        "MinLength": 6,
        "AllowedPattern": "[a-z0-9]+",
        "CustomConstraint": "nova.keypair",
    }
    assert parameters["names"].summary() == {
        "Type": "CommaDelimitedList",
        "Description": "",
        "NoEcho": "false",
        "Label": None,
        "AllowedValues": ["a", "b"],
    }


def test_json_cfn_template_positions_and_summary() -> None:
    text = (
        "{\n"
        '  "AWSTemplateFormatVersion": "2010-09-09",\n'
        '  "Parameters": {\n'
        '    "Size": {"Type": "Number", "MinValue": 1, "MaxValue": 8, "Default": 4,\n'
        '             "ConstraintDescription": "1 to 8", "AllowedValues": [2, 4, 8]},\n'
        '    "Bad": {"Type": "Number", "MaxLength": 3}\n'
        "  }\n"
        "}\n"
    )
    data = load_document(text, "t.json").data
    parameters, diagnostics = parse_parameters(data["Parameters"], CFN_AWS, ("Parameters",))
    assert [(d.message, where(d)) for d in diagnostics] == [
        ("Parameter 'Bad' is invalid: Length constraint invalid for Number", "6:31")
    ]
    # Heat gives every CFN constraint the shared ConstraintDescription, and its validate
    # API joins the descriptions of all constraints.
    assert parameters["Size"].summary() == {
        "Type": "Number",
        "Description": "",
        "Default": 4,
        "NoEcho": "false",
        "Label": None,
        "MinValue": 1,
        "MaxValue": 8,
        "AllowedValues": [2, 4, 8],
        "ConstraintDescription": "1 to 8 1 to 8",
    }
