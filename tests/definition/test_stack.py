"""Stack definitions: conditions, references, dependencies, files and known values."""

from __future__ import annotations

from stoker import codes
from stoker.definition.stack import _resource_trees

from .helpers import definition_from, errors, template_from

HEADER = "heat_template_version: wallaby\n"


def test_dependencies_explicit_and_implicit_in_order():
    definition = definition_from(
        HEADER
        + """
resources:
  c:
    type: X
    depends_on: [b]
    properties: {x: {get_attr: [a, out]}}
  b: {type: X, metadata: {m: {get_resource: a}}}
  a: {type: X}
  d: {type: X, properties: {x: {list_join: [',', [{get_resource: c}]]}}}
"""
    )
    assert errors(definition) == []
    assert definition.graph.requires == {"c": ("b", "a"), "b": ("a",), "a": (), "d": ("c",)}
    assert definition.resource_order() == ["a", "b", "c", "d"]
    assert definition.graph.levels() == [["a"], ["b"], ["c"], ["d"]]


def test_cycle_is_reported_with_the_cycle():
    definition = definition_from(
        HEADER
        + """
resources:
  a: {type: X, depends_on: c}
  b: {type: X, properties: {x: {get_resource: a}}}
  c: {type: X, properties: {x: {get_attr: [b, y]}}}
"""
    )
    (error,) = definition.errors
    assert error.code == codes.DEPENDENCY_CYCLE
    assert error.render() == "t.yaml:4:3: resources.a: Circular Dependency Found: a -> c -> b -> a"


UNKNOWN_REFERENCES = (
    HEADER
    + """
resources:
  a:
    type: X
    depends_on: [nope]
    properties:
      x: {get_resource: missing}
      y: {get_attr: [gone, z]}
      z: {get_param: undeclared}
outputs:
  o: {value: {get_attr: [absent, q]}}
"""
)


def test_unknown_references_all_reported():
    definition = definition_from(UNKNOWN_REFERENCES)
    assert errors(definition) == [
        't.yaml:8:11: resources.a.properties.x.get_resource: The specified reference "missing" '
        "(in a) is incorrect: there is no such resource",
        't.yaml:9:11: resources.a.properties.y.get_attr: The specified reference "gone" (in a) '
        "is incorrect: there is no such resource",
        't.yaml:12:15: outputs.o.value.get_attr: The specified reference "absent" (in unknown) '
        "is incorrect: there is no such resource",
        't.yaml:6:18: resources.a.depends_on: Resource "a" depends on "nope", which is not a '
        "resource of this template",
    ]
    # Heat's validate does not compute property values: its create refuses this one
    (later,) = definition.create_findings
    assert later.render().startswith(
        "t.yaml:10:11: resources.a.properties.z.get_param: The Parameter (undeclared) was not "
        "defined in template. (Heat's validate accepts"
    )
    created = definition_from(UNKNOWN_REFERENCES, require_all=True)
    assert any("The Parameter (undeclared)" in e for e in errors(created))


CONDITIONAL = (
    HEADER
    + """
parameters:
  env: {type: string, default: prod}
conditions:
  is_prod: {equals: [{get_param: env}, prod]}
  is_dev: {not: is_prod}
resources:
  prod_only: {type: X, condition: is_prod}
  dev_only: {type: X, condition: is_dev}
  user:
    type: X
    depends_on: [dev_only]
    properties:
      p: {if: [is_prod, {get_resource: prod_only}, {get_resource: dev_only}]}
outputs:
  dev: {value: {get_attr: [dev_only, x]}, condition: is_dev}
"""
)


def test_conditions_decide_which_resources_exist():
    definition = definition_from(CONDITIONAL)
    assert errors(definition) == []
    assert definition.conditions == {"is_prod": True, "is_dev": False}
    assert definition.enabled == ["prod_only", "user"] and definition.disabled == ["dev_only"]
    # depends_on a resource whose condition is false is ignored, as in Heat
    assert definition.graph.requires["user"] == ("prod_only",)


def test_conditions_with_another_parameter_value():
    definition = definition_from(CONDITIONAL, parameters={"env": "dev"})
    assert errors(definition) == []
    assert definition.enabled == ["dev_only", "user"]
    assert definition.graph.requires["user"] == ("dev_only",)


def test_referring_to_a_disabled_resource_fails_when_the_output_is_read():
    # Heat accepts the template; reading the output gives its output_error.
    definition = definition_from(CONDITIONAL + "  bad: {value: {get_resource: dev_only}}\n")
    assert errors(definition) == []
    (finding,) = [d.render() for d in definition.output_findings]
    assert "outputs.bad.value.get_resource" in finding and "condition is false" in finding
    assert "fails only when the output is read" in finding


def test_get_attr_of_a_disabled_resource_in_an_output_is_an_error():
    definition = definition_from(CONDITIONAL + "  bad: {value: {get_attr: [dev_only, x]}}\n")
    (error,) = errors(definition)
    assert 'The specified reference "dev_only" (in unknown) is incorrect' in error


def test_condition_errors():
    definition = definition_from(
        HEADER
        + """
parameters:
  n: {type: number, default: 1}
conditions:
  loop_a: {not: loop_b}
  loop_b: {and: [loop_a, true]}
  not_bool: {get_param: n}
resources:
  r: {type: X, condition: undefined}
  a: {type: X, condition: loop_a}
  b: {type: X, condition: not_bool}
"""
    )
    found = errors(definition)
    assert any('Circular definition for condition "loop_a"' in e for e in found), found
    assert any('condition "not_bool" is invalid: 1 is not a boolean' in e for e in found), found
    assert any("undefined" in e and "resources.r.condition" in e for e in found), found


def test_a_condition_nothing_uses_is_never_evaluated():
    # Heat 24.1.2 validates this template (a large real root template has such a condition)
    definition = definition_from(
        HEADER
        + """
parameters:
  n: {type: number, default: 1}
conditions:
  reads_undeclared: {equals: [{get_param: nosuch}, x]}
  loop_a: {not: loop_b}
  loop_b: {and: [loop_a, true]}
  used: {equals: [{get_param: n}, 1]}
resources:
  r: {type: X, condition: used}
"""
    )
    assert errors(definition) == []
    assert definition.conditions == {"used": True}


def test_unknown_condition_value_keeps_validation_lenient():
    definition = definition_from(
        HEADER
        + """
parameters:
  env: {type: string}
conditions:
  is_prod: {equals: [{get_param: env}, prod]}
resources:
  prod_only: {type: X, condition: is_prod}
  user: {type: X, properties: {p: {get_resource: prod_only}}}
"""
    )
    assert errors(definition) == []
    assert definition.conditions == {} and definition.enabled == ["prod_only", "user"]


def test_parameters_checked_and_missing_only_required_when_asked():
    text = HEADER + "parameters:\n  a: {type: number}\n  b: {type: number, default: 2}\n"
    assert errors(definition_from(text)) == []
    bad = definition_from(text, parameters={"a": "x"})  # Heat's validate accepts it
    assert errors(bad) == [] and "its create refuses it" in bad.create_findings[0].message
    assert errors(definition_from(text, parameters={"a": "x"}, require_all=True)) != []
    missing = errors(definition_from(text, require_all=True))
    assert len(missing) == 1 and "The Parameter (a) was not provided." in missing[0]
    definition = definition_from(text, parameters={"a": "3"}, require_all=True)
    assert definition.parameters == {"a": 3, "b": 2}


def test_parameter_and_resource_with_the_same_name():
    definition = definition_from(
        HEADER + "parameters:\n  x: {type: string, default: a}\nresources:\n  x: {type: X}\n"
    )
    (error,) = errors(definition)
    assert "Duplicate names {'x'}" in error


def test_get_file_needs_content_in_the_files_map():
    text = HEADER + "resources:\n  r: {type: X, properties: {a: {get_file: s.sh}}}\n"
    assert errors(definition_from(text, files={"s.sh": "echo"})) == []
    # Heat's validate API accepts a files map without it; its create refuses
    assert errors(definition_from(text, files={})) == []
    (error,) = errors(definition_from(text, files={}, require_all=True))
    assert 'No content found in the "files" section for get_file path: s.sh' in error


def test_known_values_are_checked_before_anything_runs():
    definition = definition_from(
        HEADER
        + """
parameters:
  csv: {type: string, default: "a,b"}
resources:
  r:
    type: X
    properties:
      third: {str_split: [',', {get_param: csv}, 2]}
      later: {str_split: [',', {get_attr: [s, x]}, 5]}
  s: {type: X}
""",
        require_all=True,
    )
    (error,) = definition.errors
    assert error.code == codes.FUNCTION_FAILED and "str_split" in error.render()


def test_cfn_ref_resource_or_parameter_and_conditions():
    definition = definition_from(
        """
AWSTemplateFormatVersion: 2010-09-09
Parameters:
  Env: {Type: String, Default: prod}
Conditions:
  IsProd: {"Fn::Equals": [{Ref: Env}, prod]}
Mappings:
  Sizes: {prod: {size: large}}
Resources:
  a: {Type: X, Condition: IsProd}
  b:
    Type: X
    Properties:
      x: {Ref: a}
      y: {Ref: Env}
      z: {"Fn::FindInMap": [Sizes, {Ref: Env}, size]}
      w: {Ref: AWS::StackName}
"""
    )
    assert errors(definition) == []
    assert definition.graph.requires["b"] == ("a",)


def test_an_if_without_arguments_is_its_own_error_not_a_crash():
    """Found by fuzzing: ``if: []`` names no condition; collecting the used conditions
    indexed its first argument."""
    definition = definition_from(HEADER + "outputs:\n  o:\n    value: {if: []}\n")
    assert errors(definition) == [
        't.yaml:4:13: outputs.o.value.if: Arguments to "if" must be of the form: '
        "[condition_name, value_if_true, value_if_false] or [condition_name, value_if_true]"
    ]


def test_a_reference_the_context_refuses_at_resolve_points_at_its_call():
    """Found by fuzzing: a resource name computed by another function (here a list) is
    refused by the context, which knows no call; the message points at the call."""
    from stoker.definition.context import partial_resolve, zones_from
    from stoker.errors import FunctionError

    definition = definition_from(
        "AWSTemplateFormatVersion: 2010-09-09\nResources:\n  r: {Type: OS::Heat::None}\n"
        "Outputs:\n  o:\n    Value:\n      Fn::GetAtt: [{Fn::GetAZs: ''}, x]\n"
    )
    try:
        with zones_from(lambda: ["nova"]):  # a cloud whose Nova has the one zone
            partial_resolve(definition.template.outputs["o"].value, definition.context)
    except FunctionError as error:
        diagnostic = error.to_diagnostic()
    else:
        raise AssertionError("the reference was accepted")
    assert diagnostic.render() == (
        "t.yaml:7:7: Outputs.o.Value.Fn::GetAtt: The specified reference \"['nova']\" "
        "(in unknown) is incorrect."
    )


def test_only_trees_that_may_hold_a_call_are_walked():
    """An absent or empty properties, metadata, policy or external id holds no call: the
    validation walks leave it out (each of 10,000 bare resources had five walks)."""
    template = template_from(
        HEADER
        + """
resources:
  bare: {type: X}
  empty: {type: X, properties: {}, metadata: {}}
  full:
    type: X
    properties: {a: 1}
    metadata: {m: {get_resource: bare}}
    deletion_policy: Retain
    update_policy: {p: 1}
"""
    )
    resources = template.resources
    assert _resource_trees(resources["bare"]) == []
    assert _resource_trees(resources["empty"]) == []
    full = resources["full"]
    assert _resource_trees(full) == [
        full.properties,
        full.metadata,
        full.deletion_policy,
        full.update_policy,
    ]
