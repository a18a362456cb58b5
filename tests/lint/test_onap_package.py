"""How the onap profile reads a package: by file name, as ONAP's validation does.

Every ``.yaml``/``.yml`` file is a Heat template and every ``.env`` file an environment,
whatever it holds; a template without heat_template_version breaks R-27078 and the
parameter, resource and environment rules still apply to it.
"""

from __future__ import annotations

from .cases import ONAP_ENV, ONAP_OK
from .helpers import ids, run, where, zip_bytes

#: no version; parameters without type or description, with a default, a bad name and
#: type; resources with a bad id, a URL type, a URL get_file and deep get_param nesting
BROKEN = """\
description: a module that forgot its version
parameters:
  vnf_name:
    label: no type, no description
  bad-name:
    type: String
    description: d
    default: x
resources:
  bad-id:
    type: https://example.com/nested.yaml
  vnf_value:
    type: OS::Heat::Value
    properties:
      value:
        list_join:
          - ''
          - - {get_param: [vnf_name, {get_param: [bad-name, 0]}]}
            - {get_file: 'http://example.com/x'}
"""
#: the same template (with its version) in the other module of the package
TWIN = "heat_template_version: 2015-04-30\n" + BROKEN

EXPECTED = {
    "R-27078",  # no heat_template_version
    "R-36772",  # parameter without type
    "R-44001",  # parameter without description
    "R-90526",  # a default
    "R-26124",  # ... not enumerated in the environment file
    "R-25877",  # parameter name characters
    "R-11441",  # parameter type spelling
    "R-75141",  # resource id characters
    "R-71699",  # a URL as a nested template
    "R-53952",  # get_file of a URL
    "R-10834",  # get_param nested in get_param with a list argument
    "R-92635",  # Heat rejects it (at its version)
    "R-03324",  # the environment has no parameters section
}


def test_a_yaml_without_a_version_is_a_template_and_every_rule_applies(tmp_path):
    report = run(tmp_path, {"base_x.yaml": BROKEN, "base_x.env": ""}, profiles=("onap",))
    assert ids(report) >= EXPECTED
    assert {f.kind for f in report.files} == {"template", "environment"}
    assert where(report, "R-27078") == [("base_x.yaml", 1, 1)]


def test_resource_ids_are_unique_across_version_less_templates_too(tmp_path):
    files = {"base_x.yaml": BROKEN, "base_x.env": ONAP_ENV, "mod_y.yaml": TWIN}
    report = run(tmp_path, {**files, "mod_y.env": ONAP_ENV}, profiles=("onap",))
    assert where(report, "R-16447") == [("mod_y.yaml", 11, 3), ("mod_y.yaml", 13, 3)]


def test_a_template_holding_only_parameters_is_not_taken_for_an_environment(tmp_path):
    """The issue's case: once `0 errors ... in 1 file`."""
    template = "parameters:\n  vnf_name:\n    label: n\n"
    report = run(tmp_path, {"base.yaml": template}, profiles=("onap",))
    assert {"R-27078", "R-36772", "R-44001", "R-86285"} <= ids(report)
    assert [f.kind for f in report.files] == ["template"]


def test_an_env_file_is_an_environment_whatever_it_holds(tmp_path):
    files = {"base_mod.yaml": ONAP_OK, "base_mod.env": "heat_template_version: 2015-04-30\n"}
    report = run(tmp_path, files, profiles=("onap",))
    assert [f.kind for f in report.files] == ["environment", "template"]
    assert "R-86285" not in ids(report)  # the module has its environment file
    assert where(report, "R-03324")


def test_the_default_profile_still_reads_by_content(tmp_path):
    template = "parameters:\n  vnf_name:\n    label: n\n"
    report = run(tmp_path, {"base.yaml": template})
    assert [f.kind for f in report.files] == ["environment"]


def test_a_zip_package_is_read_by_name_too(tmp_path):
    archive = zip_bytes({"base_x.yaml": BROKEN, "base_x.env": "parameters: {}\n"})
    report = run(tmp_path, {"vnf.zip": archive}, profiles=("onap",), explicit=True)
    assert {"R-27078", "R-36772", "R-75141", "R-92635"} <= ids(report)
    assert "R-86285" not in ids(report)


def test_an_environment_in_another_directory_pairs_when_its_name_is_unique(tmp_path):
    files = {"heat/base_mod.yaml": ONAP_OK, "env/base_mod.env": ONAP_ENV}
    assert "R-86285" not in ids(run(tmp_path, files, profiles=("onap",)))
    doubled = {**files, "more/base_mod.env": ONAP_ENV}
    (tmp_path / "b").mkdir()
    assert where(run(tmp_path / "b", doubled, profiles=("onap",)), "R-86285")


NESTED_BAD = """\
heat_template_version: 2015-04-30
description: nested
parameters:
  size:
    type: number
    description: a size
resources:
  inner_value:
    type: OS::Heat::Value
    properties:
      value: {get_resource: missing}
"""


def test_r92635_follows_the_tree_as_template_validate_does(tmp_path):
    """A nested template's error is what `template validate` reports for the module too;
    the nested file is named as the package names it."""
    module = ONAP_OK.replace(
        "outputs:\n",
        "  vnf_nested:\n    type: nested.yaml\n    properties:\n      size: 1\noutputs:\n",
    )
    files = {"base_mod.yaml": module, "base_mod.env": ONAP_ENV, "nested.yaml": NESTED_BAD}
    report = run(tmp_path, files, profiles=("onap",))
    assert where(report, "R-92635") == [("nested.yaml", 11, 15)]
    good = {**files, "nested.yaml": NESTED_BAD.replace("{get_resource: missing}", "1")}
    (tmp_path / "b").mkdir()
    assert where(run(tmp_path / "b", good, profiles=("onap",)), "R-92635") == []


def test_r92635_reads_the_template_with_its_environment(tmp_path):
    """A fragment that relies on its environment (a type the registry maps) is what Heat's
    validate accepts with that environment: no R-92635 (R-67231 still says ONAP forbids
    the registry)."""
    module = ONAP_OK.replace("type: OS::Heat::Value", "type: My::Value")
    env = ONAP_ENV + "resource_registry:\n  My::Value: OS::Heat::Value\n"
    report = run(tmp_path, {"base_mod.yaml": module, "base_mod.env": env}, profiles=("onap",))
    assert where(report, "R-92635") == []
    assert where(report, "R-67231") == [("base_mod.env", 3, 1)]


def test_r35414_accepts_any_spelling_of_a_parameters_section_with_a_parameter(tmp_path):
    """Flow style, an anchored section, a JSON document: each declares a parameter."""
    flow = ONAP_OK.replace(
        "parameters:\n  vnf_name:\n    type: string\n    description: the VNF's name\n",
        "parameters: {vnf_name: {type: string, description: the VNF's name}}\n",
    )
    anchored = ONAP_OK.replace("parameters:\n", "parameters: &declared\n")
    as_json = (
        '{"heat_template_version": "2015-04-30", "description": "d", "parameters": '
        '{"vnf_name": {"type": "string", "description": "n"}}, "resources": {"vnf_value": '
        '{"type": "OS::Heat::Value", "properties": {"value": {"get_param": "vnf_name"}}}}}'
    )
    for index, template in enumerate((flow, anchored, as_json)):
        (tmp_path / str(index)).mkdir()
        files = {"base_mod.yaml": template, "base_mod.env": ONAP_ENV}
        report = run(tmp_path / str(index), files, profiles=("onap",))
        assert where(report, "R-35414") == [], index
