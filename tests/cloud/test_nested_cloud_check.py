"""The early cloud check reaches below the top: a provider template's resources, an
inline nested stack's (``OS::Heat::Stack``) and a group's members are checked against the
cloud before anything is made, each finding located in the file that holds it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from stoker.cli.main import cli

TOP = """\
heat_template_version: wallaby
resources:
  made_first: {type: OS::Neutron::Net}
  inner:
    type: inner.yaml
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Nova::Server
        properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.tinny,
                     networks: [{allocate_network: none}]}
  nested:
    type: OS::Heat::Stack
    properties:
      template: {get_file: inline.yaml}
"""
INNER = """\
heat_template_version: wallaby
resources:
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-diskk, flavor: m1.tiny,
                 networks: [{allocate_network: none}]}
"""
INLINE = """\
heat_template_version: wallaby
resources:
  subnet: {type: OS::Neutron::Subnet, properties: {network: no-such-net, cidr: 10.9.0.0/24}}
"""


def test_nested_groups_and_provider_templates_are_checked_against_the_cloud(
    db_url: str, cloud_env: dict[str, str], admin: Any, tmp_path: Path
) -> None:
    top = tmp_path / "top.yaml"
    top.write_text(TOP)
    (tmp_path / "inner.yaml").write_text(INNER)
    (tmp_path / "inline.yaml").write_text(INLINE)
    result = CliRunner().invoke(cli, ["--db", db_url, "stack", "create", "deep", "-t", str(top)])
    assert result.exit_code != 0
    lines = result.output.splitlines()
    assert f"{tmp_path / 'inner.yaml'}:5:" in result.output
    assert any("diskk" in line and line.startswith(str(tmp_path / "inner.yaml")) for line in lines)
    group = [line for line in lines if "m1.tinny" in line]
    assert [line.split(": ")[1] for line in group] == [
        "resources.group.resources.0.properties.flavor",
        "resources.group.resources.1.properties.flavor",
    ]
    assert all(line.startswith(f"{top}:6:3") for line in group)
    assert "nearest names: m1.tiny" in group[0]
    inline = [line for line in lines if "no-such-net" in line]
    assert inline and inline[0].startswith(f"{top}:14:3: resources.nested.resources.subnet.")
    assert "the stack was not created" in result.output
    assert not [n for n in admin.network.networks() if n.name.startswith("deep-")]
