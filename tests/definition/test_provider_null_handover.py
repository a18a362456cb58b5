"""A provider resource's null list property beside one known only at create.

TripleO's ``AllNodesDeploySteps`` gives ``common/post.yaml`` ``EnabledNetworks:`` (null)
for a ``comma_delimited_list`` parameter without a default, beside properties that read
other resources' attributes. Heat 24.1.2 creates it: a null list is handed down as ''
(``[]`` as the output; recorded on the reference Heat, both resources below). The check
before create used to skip handing down the known properties when any required one was
known only at create, so the null reached the nested stack as "not provided".
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from stoker.cli.main import cli

CHILD = """\
heat_template_version: wallaby
parameters:
  EnabledNetworks:
    type: comma_delimited_list
  Other:
    type: json
outputs:
  v:
    value: {get_param: EnabledNetworks}
"""
TOP = """\
heat_template_version: wallaby
resources:
  known:
    type: child.yaml
    properties:
      EnabledNetworks:
      Other: {a: 1}
  at_create:
    type: child.yaml
    properties:
      EnabledNetworks:
      Other: {get_attr: [value, value]}
  value:
    type: OS::Heat::Value
    properties:
      value: {x: 1}
outputs:
  known:
    value: {get_attr: [known, v]}
  at_create:
    value: {get_attr: [at_create, v]}
"""


def test_a_null_list_is_handed_down_empty(tmp_path: Path, store_url: str) -> None:
    (tmp_path / "child.yaml").write_text(CHILD)
    (tmp_path / "top.yaml").write_text(TOP)
    created = CliRunner().invoke(
        cli,
        ["--db", store_url, "stack", "create", "s", "-t", str(tmp_path / "top.yaml"), "-f", "json"],
        catch_exceptions=False,
    )
    assert created.exit_code == 0, created.output
    shown = CliRunner().invoke(
        cli, ["--db", store_url, "stack", "output", "show", "s", "--all", "-f", "json"]
    )
    outputs = {o["output_key"]: o["output_value"] for o in json.loads(shown.stdout)}
    assert outputs == {"known": [], "at_create": []}
