"""Template structure: versions, sections, resource and output definitions."""

from __future__ import annotations

import pytest

from stoker import codes
from stoker.definition.template_parser import parse_template
from stoker.template.loader import load_document
from stoker.template.versions import ALL_VERSIONS, CFN_HEAT, HOT_VERSIONS, Format

from .helpers import rendered, template_from


@pytest.mark.parametrize(
    ("line", "expected"),
    [(f"{v.key}: {v.value}", v) for v in ALL_VERSIONS]
    + [(f"heat_template_version: {v.alias}", v) for v in HOT_VERSIONS if v.alias]
    + [(f"{v.key}: '{v.value}'", v) for v in ALL_VERSIONS[:2]],
    ids=lambda item: str(item) if isinstance(item, str) else None,
)
def test_every_version_and_alias(line, expected):
    template = template_from(line + "\n")
    assert template.version is expected
    assert template.errors == []


def test_empty_document_is_the_skeleton_template():
    template = parse_template(load_document("", "empty.yaml"))
    assert template.version is CFN_HEAT and template.diagnostics == []
    assert template.resources == {} and template.parameters == {}


@pytest.mark.parametrize(
    ("text", "code", "where", "words"),
    [
        ("resources: {}\n", codes.VERSION, "t.yaml:1:1", "Template version was not provided"),
        (
            "heat_template_version: 2013-05-24\n",
            codes.VERSION,
            "t.yaml:1:24",
            '"heat_template_version" should be one of: 2013-05-23, 2014-10-16',
        ),
        (
            "heat_template_version: 2013-05-23\nHeatTemplateFormatVersion: '2012-12-12'\n",
            codes.VERSION,
            "t.yaml:2:1",
            "Ambiguous versions",
        ),
        ("heat_template_version: 2013\n", codes.VERSION, "t.yaml:1:1", "quote the value"),
        ("- a\n- b\n", codes.NOT_A_MAPPING, "t.yaml:1:1", "not a JSON object or YAML mapping"),
    ],
    ids=["missing", "unknown", "ambiguous", "not-a-string", "top-level-list"],
)
def test_version_errors(text, code, where, words):
    (diagnostic,) = template_from(text).diagnostics
    assert diagnostic.code == code and str(diagnostic.span) == where
    assert words in diagnostic.message


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        (
            "heat_template_version: 2015-10-15\nconditions: {}\n",
            "t.yaml:2:1",
            "heat_template_version 2016-10-14 or later",
        ),
        ("heat_template_version: rocky\nResources: {}\n", "t.yaml:2:1", 'lowercase: "resources"'),
        ("heat_template_version: rocky\nmappings: {}\n", "t.yaml:2:1", "invalid: mappings"),
        (
            "AWSTemplateFormatVersion: 2010-09-09\nparameter_groups: []\n",
            "t.yaml:2:1",
            "invalid: parameter_groups",
        ),
        ("HeatTemplateFormatVersion: 2012-12-12\nConditions: {}\n", "t.yaml:2:1", "Conditions"),
        (
            "heat_template_version: 2015-04-30\ncapabilities: {}\n",
            "t.yaml:2:1",
            "capabilities need heat_template_version 2015-10-15 or later",
        ),
    ],
    ids=[
        "conditions-too-early",
        "cfn-name-in-hot",
        "mappings-in-hot",
        "groups-in-cfn",
        "conditions-in-2012",
        "capabilities",
    ],
)
def test_unknown_sections(text, where, words):
    (diagnostic,) = template_from(text).diagnostics
    assert diagnostic.code == codes.SECTION and str(diagnostic.span) == where
    assert "The template section is invalid" in diagnostic.message and words in diagnostic.message


def test_null_sections_are_empty_and_wrong_shapes_are_errors():
    template = template_from("heat_template_version: rocky\nresources:\noutputs:\n")
    assert template.diagnostics == []
    template = template_from("heat_template_version: rocky\nresources: [a]\n")
    assert rendered(template.diagnostics) == [
        't.yaml:2:12: resources: The "resources" section must be a mapping, not SequenceNode'
    ]


RESOURCE_CASES = [
    ("r: {properties: {}}", "t.yaml:3:3: resources.r: Each resource must contain a type key"),
    ("r: {type: [a]}", "t.yaml:3:13: resources.r.type: Resource r type type must be string"),
    ("r: {type: X, propertys: {}}", "t.yaml:3:16: resources.r.propertys: Invalid keyword(s)"),
    ("r: {type: X, depends_on: {a: b}}", 'resources.r.depends_on: "depends_on" of resource'),
    ("r: {type: X, properties: [1]}", 'resources.r.properties: "properties" of resource "r" must'),
    ("r: {type: X, deletion_policy: Keep}", 'Invalid deletion policy "Keep"'),
    ("a/b: {type: X}", 'Resource name "a/b" may not contain "/"'),
    ("r: 5", 'Resource "r" must be a mapping'),
    ("r: {type: X, condition: c}", "Invalid keyword(s) inside a resource definition: condition"),
]


@pytest.mark.parametrize(
    ("resource", "expected"),
    RESOURCE_CASES,
    ids=[c[1].split(": ")[-1][:30] for c in RESOURCE_CASES],
)
def test_resource_definition_errors(resource, expected):
    version = "2016-04-08" if "condition" in resource else "rocky"
    template = template_from(f"heat_template_version: {version}\nresources:\n  {resource}\n")
    found = rendered(template.errors)
    assert len(found) == 1 and expected in found[0], found


def test_deletion_policy_lowercase_only_from_2016_10_14():
    text = "heat_template_version: {}\nresources:\n  r: {{type: X, deletion_policy: retain}}\n"
    assert template_from(text.format("2016-10-14")).errors == []
    assert "Invalid deletion policy" in rendered(template_from(text.format("2016-04-08")).errors)[0]


def test_cfn_ignores_unknown_resource_keys_and_reads_cfn_names():
    template = template_from(
        """
        AWSTemplateFormatVersion: 2010-09-09
        Description: a CFN template
        Resources:
          r:
            Type: AWS::EC2::Instance
            Colour: blue
            DependsOn: [s]
            Properties: {ImageId: x}
            DeletionPolicy: Retain
          s: {Type: X}
        Outputs:
          o: {Value: {Ref: r}, Description: the id}
        """
    )
    assert template.errors == [] and template.version.format is Format.CFN
    resource = template.resources["r"]
    assert resource.type == "AWS::EC2::Instance" and resource.depends_on == ("s",)
    assert template.description == "a CFN template"
    assert template.outputs["o"].description == "the id"


def test_output_errors():
    template = template_from(
        "heat_template_version: rocky\noutputs:\n"
        "  a: {description: x}\n  b: {value: 1, colour: c}\n"
    )
    assert rendered(template.errors) == [
        't.yaml:3:3: outputs.a: Each output must contain a value key ("a" has none).',
    ]
    (warning,) = [d for d in template.diagnostics if not d.is_error]
    assert warning.render() == (  # Heat 24.1.2 ignores the key (measured)
        "t.yaml:4:17: outputs.b.colour: warning: Invalid keyword(s) inside an output "
        "definition: colour (Heat ignores them)"
    )


@pytest.mark.parametrize("key", ["3", ".nan", ".inf", "true"])
def test_an_unknown_key_that_is_not_a_string_is_located(key):
    """Found by fuzzing: a resource or output key read as a number or boolean (``.nan``
    is not even equal to itself) was reported without its place."""
    template = template_from(
        "heat_template_version: rocky\n"
        f"resources:\n  r:\n    type: X\n    {key}: 1\n"
        f"outputs:\n  o:\n    value: 1\n    {key}: 1\n"
    )
    found = rendered(template.diagnostics)  # the output's key is a warning: Heat ignores it
    assert len(found) == 2, found
    assert found[0].startswith("t.yaml:5:5: resources.r.") and "resource definition" in found[0]
    assert found[1].startswith("t.yaml:9:5: outputs.o.") and "output definition" in found[1]
    assert [d.is_error for d in template.diagnostics] == [True, False]


def test_function_missing_from_version_stays_literal_with_a_warning():
    template = template_from(
        "heat_template_version: 2015-10-15\nresources:\n  r:\n    type: X\n"
        "    properties:\n      a: {if: [c, 1, 2]}\n"
    )
    assert template.errors == []
    (warning,) = template.diagnostics
    assert warning.code == codes.FUNCTION_NOT_IN_VERSION and str(warning.span) == "t.yaml:6:11"
    assert "from heat_template_version: 2016-10-14 (newton) on" in warning.message
    assert template.resources["r"].properties["a"] == {"if": ["c", 1, 2]}


def test_description_defaults():
    template = template_from("heat_template_version: rocky\noutputs:\n  a: {value: 1}\n")
    assert template.description == "No description"
    assert template.outputs["a"].description == "No description given"
