"""ONAP rules on resources whose ``type`` is not a string (found by fuzzing: the port
rules looked a mapping up in a set, and every rule built on them failed with E0100)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli


@pytest.mark.parametrize("kind", ["{get_param: a_image_name}", "[OS::Neutron::Port]"])
def test_a_resource_type_that_is_not_a_string_breaks_no_onap_rule(tmp_path, kind):
    (tmp_path / "base_x.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  a_image_name: {type: string, description: x}\n"
        f"resources:\n  a_server_0:\n    type: {kind}\n"
        "  a_0_oam_port_0:\n    type: OS::Neutron::Port\n"
        "    properties:\n      network: {get_param: oam_net_id}\n"
    )
    result = CliRunner().invoke(
        cli, ["lint", "--profile", "onap", "-f", "json", str(tmp_path / "base_x.yaml")]
    )
    findings = json.loads(result.stdout)["findings"]
    assert findings, result.output  # the template is far from compliant ...
    assert not [f for f in findings if f["rule"] == "E0100"]  # ... but no rule crashed
