"""The capabilities section of a template: which versions have it, its value shapes, W1004."""

from __future__ import annotations

import pytest

from stoker import codes
from stoker.definition.template_parser import parse_template
from stoker.diagnostics import Severity
from stoker.environment import check_capability_values, template_capabilities
from stoker.template.loader import load_document
from stoker.template.versions import CAPABILITIES_FROM, HOT_VERSIONS

FILE = "t.yaml"


def parsed(text: str):
    return parse_template(load_document(text, FILE))


def rendered(diagnostics) -> list[str]:
    return [d.render() for d in diagnostics]


# --------------------------------------------------------------------------- versions


@pytest.mark.parametrize("version", [v.value for v in HOT_VERSIONS])
def test_section_accepted_from_2015_10_15_on(version):
    template = parsed(f"heat_template_version: {version}\ncapabilities:\n  deployment: puppet\n")
    if version >= CAPABILITIES_FROM:
        assert [d.code for d in template.diagnostics] == [codes.CAPABILITIES_NONPORTABLE]
        assert template.capabilities == {"deployment": ["puppet"]}
    else:
        (error,) = template.diagnostics
        assert error.code == codes.SECTION and str(error.span) == "t.yaml:2:1"
        assert error.message == (
            "The template section is invalid: capabilities (capabilities need "
            "heat_template_version 2015-10-15 or later, and Heat itself has none; this is "
            f"heat_template_version: {version})"
        )
        assert template.capabilities == {}


@pytest.mark.parametrize(
    "text",
    [
        "AWSTemplateFormatVersion: 2010-09-09\ncapabilities: {a: b}\n",
        "HeatTemplateFormatVersion: 2012-12-12\ncapabilities: {a: b}\n",
    ],
    ids=["aws", "heat-cfn"],
)
def test_cfn_rejects_the_section_and_names_the_version_that_has_it(text):
    (error,) = parsed(text).diagnostics
    assert error.code == codes.SECTION
    assert error.render() == (
        "t.yaml:2:1: capabilities: The template section is invalid: capabilities (capabilities "
        "is a HOT section, from heat_template_version 2015-10-15 on; Heat itself has none)"
    )


def test_alias_versions_have_it_too():
    template = parsed("heat_template_version: rocky\ncapabilities: {deployment: docker}\n")
    assert template.capabilities == {"deployment": ["docker"]}
    assert [d.severity for d in template.diagnostics] == [Severity.WARNING]


# --------------------------------------------------------------------------- the warning


def test_nonportable_warning_points_at_the_section_key():
    template = parsed(
        "heat_template_version: 2016-04-08\n"
        "description: x\n"
        "capabilities:\n"
        "  resource_type: OS::TripleO::Controller\n"
    )
    (warning,) = template.diagnostics
    assert warning.code == codes.CAPABILITIES_NONPORTABLE == "W1004"
    assert warning.severity is Severity.WARNING and not warning.is_error
    assert warning.render() == (
        "t.yaml:3:1: capabilities: warning: Heat itself rejects the capabilities section (The "
        "template section is invalid: capabilities); stoker reads it to choose among the "
        "templates a resource_registry list offers. Leave it out of templates that must also "
        "run on Heat"
    )
    assert template.errors == []


def test_an_empty_section_still_warns():
    template = parsed("heat_template_version: 2016-04-08\ncapabilities:\n")
    assert [d.code for d in template.diagnostics] == [codes.CAPABILITIES_NONPORTABLE]
    assert template.capabilities == {}


# --------------------------------------------------------------------------- value shapes

SHAPES = [
    # (id, capabilities text, parsed, [rendered errors])
    ("string", "{deployment: puppet}", {"deployment": ["puppet"]}, []),
    (
        "list",
        "{resource_type: [OS::A, OS::B]}",
        {"resource_type": ["OS::A", "OS::B"]},
        [],
    ),
    ("repeats-dropped", "{d: [a, b, a]}", {"d": ["a", "b"]}, []),
    ("extra-keys", "{x: 1a, y: z}", {"x": ["1a"], "y": ["z"]}, []),
    ("empty-string", '{d: ""}', {"d": [""]}, []),
    (
        "null-value",
        "{d: , e: f}",
        {"e": ["f"]},
        [
            't.yaml:2:19: capabilities.d: capabilities "d" has no value; give a string or a list '
            "of strings"
        ],
    ),
    (
        "number",
        "{version: 2}",
        {},
        [
            't.yaml:2:25: capabilities.version: capabilities "version" must be a string or a list '
            "of strings (got a number); quote it so it compares as the text you wrote"
        ],
    ),
    (
        "boolean",
        "{ha: true}",
        {},
        [
            't.yaml:2:20: capabilities.ha: capabilities "ha" must be a string or a list of strings '
            "(got a boolean); quote it so it compares as the text you wrote"
        ],
    ),
    (
        "mapping",
        "{d: {get_param: x}}",
        {},
        [
            't.yaml:2:19: capabilities.d: capabilities "d" must be a string or a list of strings '
            "(got a mapping)"
        ],
    ),
    (
        "empty-list",
        "{d: []}",
        {},
        ['t.yaml:2:19: capabilities.d: capabilities "d" is an empty list; give at least one value'],
    ),
    (
        "list-item",
        "{d: [a, [b]]}",
        {},
        ['t.yaml:2:23: capabilities.d.1: capabilities "d": item 2 must be a string (got a list)'],
    ),
    (
        "key-not-string",
        "{1: a}",
        {},
        ["t.yaml:2:16: capabilities.1: capabilities name 1 must be a string"],
    ),
    (
        "section-list",
        "[deployment]",
        {},
        [
            't.yaml:2:15: capabilities: The "capabilities" section must be a mapping of names to a '
            "string or a list of strings (got a list)"
        ],
    ),
]


@pytest.mark.parametrize(
    ("value", "expected", "errors"), [case[1:] for case in SHAPES], ids=[c[0] for c in SHAPES]
)
def test_value_shapes(value, expected, errors):
    template = parsed(f"heat_template_version: 2015-10-15\ncapabilities: {value}\n")
    assert template.capabilities == expected
    assert rendered(template.errors) == errors
    assert all(d.code == codes.CAPABILITY_VALUE for d in template.errors)


def test_capabilities_do_not_disturb_the_rest_of_the_template():
    template = parsed(
        "heat_template_version: 2015-10-15\n"
        "capabilities: {deployment: puppet}\n"
        "parameters: {n: {type: string}}\n"
        "resources: {r: {type: OS::Heat::None}}\n"
    )
    assert template.errors == []
    assert list(template.parameters) == ["n"] and list(template.resources) == ["r"]


# --------------------------------------------------------------------------- raw readers


def test_capability_values_are_read_leniently():
    data = load_document("capabilities: {a: b, c: 3, d: [e, f]}\n", FILE).data
    mapping, found = check_capability_values(data["capabilities"])
    assert {key: list(values) for key, values in mapping.items()} == {"a": ["b"], "d": ["e", "f"]}
    assert [d.path for d in found] == [("capabilities", "c")]
    for value in ([1], None):
        assert dict(check_capability_values(value)[0]) == {}


@pytest.mark.parametrize(
    ("text", "expected", "errors"),
    [
        ("parameters: {}\n", None, []),
        ("- a\n", None, []),
        ("heat_template_version: 2015-10-15\n", {}, []),
        ("heat_template_version: 2015-10-15\ncapabilities: {a: b}\n", {"a": ["b"]}, []),
        (
            "heat_template_version: 2015-04-30\ncapabilities: {a: b}\n",
            {"a": ["b"]},
            ["t.yaml:2:1: capabilities: The template section is invalid: capabilities"],
        ),
        (
            "heat_template_version: 2099-01-01\ncapabilities: {a: b}\n",
            {"a": ["b"]},
            [
                "t.yaml:1:24: heat_template_version: The template version is invalid: "
                '"heat_template_version: 2099-01-01"'
            ],
        ),
    ],
    ids=["environment", "list", "no-section", "good", "too-early", "unknown-version"],
)
def test_template_capabilities_checks_version_and_shapes(text, expected, errors):
    declared = template_capabilities(load_document(text, FILE))
    if expected is None:
        assert declared is None
        return
    assert declared.capabilities == expected
    got = rendered(declared.diagnostics)
    assert len(got) == len(errors)
    for line, prefix in zip(got, errors, strict=True):
        assert line.startswith(prefix)
    assert declared.ok is (not errors)
