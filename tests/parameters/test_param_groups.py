"""The parameter_groups section and the update-time immutable check."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from stoker import codes
from stoker.diagnostics import Diagnostic
from stoker.parameters import (
    Parameter,
    ParameterGroup,
    ParameterType,
    check_immutable,
    parse_parameter_groups,
    parse_parameters,
)
from stoker.template.loader import load_document
from stoker.template.versions import CFN_AWS, hot

PARAMETERS = """\
heat_template_version: 2021-04-16
parameters:
  a: {type: string}
  b: {type: string}
  c: {type: number}
"""


def groups(section: str) -> tuple[list[ParameterGroup], list[Diagnostic]]:
    text = PARAMETERS + "parameter_groups:\n" + textwrap.indent(textwrap.dedent(section), "  ")
    data = load_document(text, "t.yaml").data
    parameters, _ = parse_parameters(data["parameters"], hot("2021-04-16"))
    return parse_parameter_groups(data["parameter_groups"], parameters, hot("2021-04-16"))


def test_valid_groups_are_read_in_order() -> None:
    found, diagnostics = groups(
        """\
        - label: Basics
          description: The usual suspects
          parameters: [a, b]
        - label: Sizing
          parameters: [c]
        """
    )
    assert diagnostics == []
    assert [(g.label, g.description, g.parameters) for g in found] == [
        ("Basics", "The usual suspects", ("a", "b")),
        ("Sizing", None, ("c",)),
    ]
    assert found[1].path == ("parameter_groups", 1)
    assert found[1].span is not None and found[1].span.line == 10


PREFIX = "Parameter Groups error: parameter_groups"
G, H, NO_LABEL = f"{PREFIX}.G: ", f"{PREFIX}.H: ", f"{PREFIX}.: "
UNKNOWN = "does not reference a valid parameter."
TWICE = "parameter must be assigned to one parameter group only."

GROUP_ERRORS = [
    (
        "not-a-list",
        "label: x\n",
        "Parameter Groups error: parameter_groups: The parameter_groups should be a list.",
        "7:3",
    ),
    (
        "no-parameters",
        "- label: G\n",
        G + "The parameters must be provided for each parameter group.",
        "7:5",
    ),
    (
        "parameters-not-a-list",
        "- label: G\n  parameters: a\n",
        G + "The parameters of parameter group should be a list.",
        "8:17",
    ),
    (
        "unknown-name",
        "- label: G\n  parameters: [a, z]\n",
        G + f"The grouped parameter z {UNKNOWN}",
        "8:21",
    ),
    (
        "pseudo-name",
        "- label: G\n  parameters: [OS::stack_name]\n",
        G + f"The grouped parameter OS::stack_name {UNKNOWN}",
        "8:18",
    ),
    (
        "name-twice",
        "- label: G\n  parameters: [a]\n- label: H\n  parameters: [b, a]\n",
        H + f"The a {TWICE}",
        "10:21",
    ),
    (
        "name-twice-same-group",
        "- label: G\n  parameters: [a, a]\n",
        G + f"The a {TWICE}",
        "8:21",
    ),
    (
        "group-without-label",
        "- parameters: [z]\n",
        NO_LABEL + f"The grouped parameter z {UNKNOWN}",
        "7:18",
    ),
]


@pytest.mark.parametrize(
    ("section", "message", "position"),
    [case[1:] for case in GROUP_ERRORS],
    ids=[case[0] for case in GROUP_ERRORS],
)
def test_group_errors(section: str, message: str, position: str) -> None:
    _, diagnostics = groups(section)
    assert [d.message for d in diagnostics] == [message]
    assert diagnostics[0].code == codes.PARAMETER_GROUPS
    span = diagnostics[0].span
    assert span is not None and f"{span.line}:{span.column}" == position


def test_all_group_errors_are_reported_together() -> None:
    _, diagnostics = groups(
        "- label: G\n  parameters: [a, x]\n- label: H\n- label: I\n  parameters: [y, a]\n"
    )
    assert len(diagnostics) == 4


@pytest.mark.parametrize("section", [None, [], {}], ids=["null", "empty-list", "empty-map"])
def test_empty_section_is_fine(section: Any) -> None:
    assert parse_parameter_groups(section, {}, hot("2021-04-16")) == ([], [])


def test_cfn_has_no_parameter_groups() -> None:
    found, diagnostics = parse_parameter_groups([{"parameters": ["a"]}], {}, CFN_AWS)
    assert found == []
    assert [d.code for d in diagnostics] == [codes.PARAMETER_GROUPS]
    assert parse_parameter_groups(None, {}, CFN_AWS) == ([], [])


# --------------------------------------------------------------------------- immutable


def immutable(name: str, kind: ParameterType = ParameterType.STRING) -> Parameter:
    return Parameter(name=name, type=kind, immutable=True, path=("parameters", name))


IMMUTABLE = [
    ("unchanged", {"a": "x"}, {"a": "x"}, None),
    ("not-supplied", {"a": "x"}, {}, None),
    ("null-is-not-supplied", {"a": "x"}, {"a": None}, None),
    ("changed", {"a": "x"}, {"a": "y"}, "a"),
    ("parsed-vs-raw-number", {"n": 5}, {"n": "5"}, "n"),
    ("same-number", {"n": 5}, {"n": 5}, None),
    ("parsed-list-vs-raw-string", {"l": ["a", "b"]}, {"l": "a,b"}, "l"),
    ("mutable-may-change", {"m": "x"}, {"m": "y"}, None),
    ("several", {"a": "x", "n": 5}, {"a": "y", "n": 6}, "a, n"),
]


@pytest.mark.parametrize(
    ("old_values", "new_raw", "names"),
    [case[1:] for case in IMMUTABLE],
    ids=[case[0] for case in IMMUTABLE],
)
def test_immutable_parameters(old_values: dict, new_raw: dict, names: str | None) -> None:
    old = {
        "a": immutable("a"),
        "n": immutable("n", ParameterType.NUMBER),
        "l": immutable("l", ParameterType.COMMA_DELIMITED_LIST),
        "m": Parameter(name="m", type=ParameterType.STRING),
    }
    diagnostics = check_immutable(old_values, old, new_raw, old_values)
    if names is None:
        assert diagnostics == []
    else:
        assert [d.message for d in diagnostics] == [
            f"The following parameters are immutable and may not be updated: {names}"
        ]


def test_immutable_only_for_parameters_in_both_templates() -> None:
    new = {"a": immutable("a")}
    assert check_immutable({"a": "x"}, {}, {"a": "y"}, {}) == []
    assert check_immutable({}, new, {"a": "y"}, {"a": "y"}) == []
    assert len(check_immutable({"a": "x"}, new, {"a": "y"}, {"a": "y"})) == 1


def test_immutable_is_the_new_templates_word() -> None:
    mutable = {"a": Parameter(name="a", type=ParameterType.STRING)}
    assert check_immutable({"a": "x"}, mutable, {"a": "y"}, {"a": "y"}) == []


def test_immutable_value_not_given_is_the_new_definitions() -> None:
    """Omitted at a PUT (the default applies), or a changed default: a change."""
    new = {"a": immutable("a")}
    (diagnostic,) = check_immutable({"a": "given"}, new, {}, {"a": "default"})
    assert diagnostic.message.endswith(": a")
    assert check_immutable({"a": "same"}, new, {}, {"a": "same"}) == []


def test_immutable_points_at_declaration_and_new_value() -> None:
    text = (
        "heat_template_version: 2021-04-16\nparameters:\n"
        "  a:\n    type: string\n    immutable: true\n"
    )
    parameters, _ = parse_parameters(
        load_document(text, "t.yaml").data["parameters"], hot("2021-04-16")
    )
    new = load_document("parameters:\n  a: changed\n", "env.yaml").data["parameters"]
    (diagnostic,) = check_immutable({"a": "old"}, parameters, new, {})
    assert str(diagnostic.span) == "t.yaml:3:3"
    assert diagnostic.notes == (
        "a is declared immutable at t.yaml:3:3",
        "new value for a at env.yaml:2:6",
    )
