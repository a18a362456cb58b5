"""A stack package (``heat.yaml`` at a ZIP's root) is linted as ``stack create`` reads it.

Its entry with its ``environment.yaml`` applied, get_file and provider templates from the
archive, its refusals (`stoker.definition.archive`) as E0101; under the ONAP profile the
same ZIP stays a VNF package.
"""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.lint import LintConfig, LintOptions, Profile, lint

from .helpers import make_zip_file, where

HEAT = """\
heat_template_version: 2021-04-16
description: an app whose type and name come from the package's environment
parameters:
  name: {type: string, description: the app's name}
resources:
  app:
    type: My::App
    properties:
      name: {get_param: name}
      script: {get_file: scripts/run.sh}
outputs:
  address:
    description: where it answers
    value: {get_attr: [app, address]}
"""
ENVIRONMENT = """\
parameters:
  name: web
resource_registry:
  My::App: app.yaml
"""
APP = """\
heat_template_version: 2021-04-16
description: the provider template My::App stands for
parameters:
  name: {type: string, description: a name}
  script: {type: string, description: a script}
resources:
  value:
    type: OS::Heat::Value
    properties:
      value: {list_join: ['-', [{get_param: name}, {get_param: script}]]}
outputs:
  address:
    description: the value
    value: {get_attr: [value, value]}
"""
PACKAGE = {
    "heat.yaml": HEAT,
    "environment.yaml": ENVIRONMENT,
    "app.yaml": APP,
    "scripts/run.sh": "echo hello\n",
}


def _kinds(report) -> dict[str, str]:
    return {f.name.split("!", 1)[-1]: f.kind for f in report.files}


def _onap() -> LintOptions:
    return LintOptions(config=LintConfig(profiles=(Profile.ONAP,)))


def test_a_package_whose_template_needs_its_environment_lints_clean(tmp_path: Path) -> None:
    archive = make_zip_file(tmp_path / "pkg.zip", PACKAGE)
    report = lint([str(archive)])
    assert report.findings == []
    assert _kinds(report) == {
        "heat.yaml": "template",
        "environment.yaml": "environment",
        "app.yaml": "skipped",  # reached through heat.yaml, as stack create reaches it
    }
    # without its environment the type is unknown: the environment really was applied
    alone = {name: text for name, text in PACKAGE.items() if name != "environment.yaml"}
    bare = lint([str(make_zip_file(tmp_path / "bare.zip", alone))])
    assert where(bare, "E3001") == [("heat.yaml", 7, 11)]


def test_a_real_error_is_reported_inside_the_package(tmp_path: Path) -> None:
    broken = {**PACKAGE, "heat.yaml": HEAT.replace("[app, address]", "[app, nope]")}
    archive = make_zip_file(tmp_path / "pkg.zip", broken)
    report = lint([str(archive)])
    assert where(report, "E3020") == [("heat.yaml", 14, 29)]
    assert [f.span.file for f in report.findings if f.span] == [f"{archive}!heat.yaml"]
    assert report.exit_code == 1


def test_the_package_environment_is_read_as_an_environment(tmp_path: Path) -> None:
    misspelt = ENVIRONMENT.replace("parameters:", "paramters:")
    archive = make_zip_file(tmp_path / "pkg.zip", {**PACKAGE, "environment.yaml": misspelt})
    report = lint([str(archive)])
    assert {f.span.file for f in report.findings if f.span} == {f"{archive}!environment.yaml"}
    assert _kinds(report)["environment.yaml"] == "environment"


def test_a_zip_slip_package_is_refused_as_a_finding(tmp_path: Path) -> None:
    archive = make_zip_file(tmp_path / "pkg.zip", {**PACKAGE, "../escape.yaml": APP})
    report = lint([str(archive)])
    assert [(f.code, f.span.file, f.span.line) for f in report.findings if f.span] == [
        ("E0101", str(archive), 1)
    ]
    assert "leaves the package" in report.findings[0].message
    result = CliRunner().invoke(cli, ["lint", str(archive)])
    assert result.exit_code == 1
    assert result.exception is None or type(result.exception) is SystemExit  # no traceback
    assert f"{archive}:1:1: E0101 error: package member '../escape.yaml'" in result.output


def test_a_symbolic_link_member_is_refused(tmp_path: Path) -> None:
    archive = make_zip_file(tmp_path / "pkg.zip", PACKAGE)
    with zipfile.ZipFile(archive, "a") as handle:
        link = zipfile.ZipInfo("data.txt")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        handle.writestr(link, "/etc/passwd")
    report = lint([str(archive)])
    assert [f.code for f in report.findings] == ["E0101"]
    assert "symbolic link" in report.findings[0].message


def test_a_blueprint_package_is_not_misread_as_a_template(tmp_path: Path) -> None:
    blueprint = "name: shop\ncomponents:\n  web:\n    type: tomcat\n"
    archive = make_zip_file(tmp_path / "pkg.zip", {"blueprint.yaml": blueprint})
    report = lint([str(archive)])
    assert [(f.code, f.severity.value) for f in report.findings] == [("I0102", "info")]
    assert _kinds(report) == {"blueprint.yaml": "skipped"}


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_blueprints_in_a_directory_are_recognised_by_their_content(tmp_path: Path) -> None:
    """`stoker lint examples/` lints the project's own blueprints as blueprints (an info
    line each), never as templates without a version (E1001)."""
    (tmp_path / "shop.yaml").write_text("name: shop\ncomponents:\n  web:\n    type: tomcat\n")
    (tmp_path / "list.json").write_text('{"components": [{"type": "tomcat"}]}')
    (tmp_path / "t.yaml").write_text("resources: {}\n")  # still a template lacking a version
    report = lint([str(tmp_path)])
    found = sorted((Path(f.span.file).name, f.code) for f in report.findings if f.span)
    assert found == [("list.json", "I0102"), ("shop.yaml", "I0102"), ("t.yaml", "E1001")]
    result = CliRunner().invoke(cli, ["lint", str(EXAMPLES)])
    assert result.exit_code == 0, result.output
    assert "E1001" not in result.output
    assert "examples/blueprints/2-war-jetty.map.yaml:1:1: I0102 info: a blueprint" in result.output


def test_the_onap_profile_still_reads_a_vnf_package(tmp_path: Path) -> None:
    archive = make_zip_file(tmp_path / "pkg.zip", PACKAGE)
    report = lint([str(archive)], _onap())
    kinds = _kinds(report)
    assert kinds["app.yaml"] == "template"  # every .yaml by its name, ONAP's rules
    assert kinds["environment.yaml"] == "template"
    # a member leaving the archive is not the VNF reader's refusal: it names nothing
    slipped = make_zip_file(tmp_path / "slip.zip", {**PACKAGE, "../escape.yaml": APP})
    assert "E0101" not in {f.code for f in lint([str(slipped)], _onap()).findings}
