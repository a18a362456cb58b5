"""``template validate --os-cloud NAME`` checks custom constraints (nova.flavor,
glance.image, ...) against the cloud, as ``stack create`` does, with the nearest names;
without a cloud they are reported as not checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

TEMPLATE = """\
heat_template_version: 2021-04-16
parameters:
  flavor:
    type: string
    constraints: [{custom_constraint: nova.flavor}]
  image:
    type: string
    default: cirros-0.6.2-x86_64-disk
    constraints: [{custom_constraint: glance.image}]
resources:
  nothing: {type: OS::Heat::None}
"""


@pytest.fixture
def template(tmp_path: Path, clouds_yaml: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds_yaml))
    monkeypatch.delenv("OS_CLOUD", raising=False)
    for name in ("OS_AUTH_URL", "OS_USERNAME", "OS_PASSWORD", "OS_PROJECT_NAME"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def _validate(template: str, *args: str):
    return CliRunner().invoke(cli, ["template", "validate", template, *args])


def test_a_flavor_the_cloud_lacks_is_refused_with_the_nearest_names(template: str) -> None:
    result = _validate(template, "--parameter", "flavor=m1.tny", "--os-cloud", "sandbox")
    # a warning, as every value validate finds wrong: Heat's validate accepts the template
    # and its create refuses it (stack create, with the same cloud, exits 1)
    assert result.exit_code == 0, result.output
    assert "warning: Parameter 'flavor' is invalid" in result.output
    assert "The Flavor (m1.tny) could not be found; the nearest names: m1.tiny" in result.output
    assert "not checked offline" not in result.output


def test_values_the_cloud_has_pass_and_nothing_is_left_unchecked(template: str) -> None:
    result = _validate(template, "--parameter", "flavor=m1.tiny", "--os-cloud", "sandbox")
    assert result.exit_code == 0, result.output
    assert "not checked offline" not in result.output


def test_without_a_cloud_they_are_reported_unchecked(template: str) -> None:
    result = _validate(template, "--parameter", "flavor=m1.tny")
    assert result.exit_code == 0, result.output
    assert "custom constraint nova.flavor was not checked offline" in result.output
