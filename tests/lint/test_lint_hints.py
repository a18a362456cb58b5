"""Nearest-name hints (`stoker.nearest`): a misspelt resource type, property or parameter
reference is answered with the name it most likely means."""

from __future__ import annotations

from pathlib import Path

from stoker.lint import LintConfig, LintOptions, lint
from stoker.nearest import did_you_mean, nearest

TEMPLATE = """\
heat_template_version: 2021-04-16
description: hints
parameters:
  image: {type: string, description: the image}
  size: {type: number, description: the size}
resources:
  vol:
    type: OS::Cinder::Volum
    properties: {size: {get_param: size}}
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: imag}
      flavour: m1.tiny
      user_data_fromat: RAW
"""


def _messages(tmp_path: Path) -> dict[str, list[str]]:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    report = lint([str(path)], LintOptions(config=LintConfig()))
    found: dict[str, list[str]] = {}
    for finding in report.findings:
        found.setdefault(finding.code, []).append(finding.message)
    return found


def test_unknown_type_property_and_parameter_name_the_nearest(tmp_path: Path) -> None:
    found = _messages(tmp_path)
    assert found["E3001"] == [
        "The Resource Type (OS::Cinder::Volum) could not be found: it is not a Heat "
        "resource type, and no environment maps it to one; did you mean `OS::Cinder::Volume`?"
    ]
    assert sorted(found["E1081"]) == [
        "Unknown Property flavour; did you mean `flavor`?",
        "Unknown Property user_data_fromat; did you mean `user_data_format`?",
    ]
    (unknown,) = found["E1032"]
    assert unknown.startswith("The Parameter (imag) was not defined in template.")
    assert unknown.endswith("; did you mean `image`?")


def test_a_parameter_read_under_a_misspelt_name_is_reported_unused(tmp_path: Path) -> None:
    assert _messages(tmp_path)["W2001"] == [
        'parameter "image" is declared but never used ("imag" is read but not declared: '
        "a misspelling?)"
    ]


def test_nearest_offers_only_names_that_are_near() -> None:
    assert nearest("flavour", ["flavor", "image", "networks"]) == ["flavor"]
    assert nearest("zzz", ["flavor", "image"]) == []
    assert nearest("image", ["image"]) == []  # a name is not its own misspelling
    assert nearest("m1.tny", ["m1.tiny", "m1.small", "m1.large"], n=3, cutoff=0.5)[0] == "m1.tiny"
    assert did_you_mean("get_parm", ["get_param", "get_attr"]) == "; did you mean `get_param`?"
    assert did_you_mean("type", ["get_param"]) == ""
