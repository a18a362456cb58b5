"""What ``stack create``, ``update`` and ``adopt`` print when they end: the short view
``openstack stack create|update|adopt`` print (python-heatclient's ``_show_stack(...,
short=True)``), in every format, with ``-c`` choosing among its columns. The outputs and
parameters are ``stack show``'s (and ``stack output show``'s), never computed here."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from stoker.cli.main import cli

from .entry import SHORT_VIEW

TEMPLATE = """\
heat_template_version: 2018-08-31
description: Two values and an output
parameters:
  word: {type: string, default: one}
  secret: {type: string, hidden: true, default: s3cr3t-w0rd}
conditions:
  broken: {equals: [{get_param: word}, broken]}
resources:
  v: {type: OS::Heat::Value, properties: {value: {get_param: word}}}
  fails:
    type: OS::Heat::TestResource
    properties: {fail: {if: [broken, true, false]}}
outputs:
  said: {value: {get_attr: [v, value]}}
  kept: {value: {get_param: secret}}
"""


@pytest.fixture
def stoker(store_url: str):
    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, ["--db", store_url, "stack", *args], catch_exceptions=False)

    return run


@pytest.fixture
def template(tmp_path: Path) -> str:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def test_create_prints_the_short_view_in_every_format(stoker, template) -> None:
    created = stoker("create", "s", "-t", template, "-f", "json")
    assert created.exit_code == 0, created.output
    view = json.loads(created.stdout)
    assert list(view) == SHORT_VIEW
    shown = json.loads(stoker("show", "s", "-f", "json").stdout)
    assert view == {key: shown[key] for key in SHORT_VIEW}
    assert view["description"] == "Two values and an output"
    assert view["stack_status"] == "CREATE_COMPLETE"
    # the same view, however it is printed
    again = stoker("update", "s", "--existing", "-f", "yaml")
    assert again.exit_code == 0, again.output
    assert list(yaml.safe_load(again.stdout)) == SHORT_VIEW
    table = stoker("update", "s", "--existing").stdout
    for key in SHORT_VIEW:
        assert key in table
    assert "outputs" not in table and "parameters" not in table
    values = stoker("update", "s", "--existing", "-f", "value").stdout.splitlines()
    assert values[:2] == [view["id"], "s"] and values[-2] == "UPDATE_COMPLETE"
    rows = list(csv.reader(io.StringIO(stoker("update", "s", "--existing", "-f", "csv").stdout)))
    assert [heading.lower().replace(" ", "_") for heading in rows[0]] == SHORT_VIEW


def test_column_chooses_among_the_short_view(stoker, template) -> None:
    created = stoker(
        "create", "s", "-t", template, "-f", "value", "-c", "stack_status", "-c", "Stack Name"
    )
    assert created.exit_code == 0, created.output
    assert created.stdout.splitlines() == ["CREATE_COMPLETE", "s"]
    outputs = stoker("update", "s", "--existing", "-f", "json", "-c", "outputs")
    assert outputs.exit_code == 2
    assert "unknown column(s) outputs" in outputs.output and "stack_status_reason" in outputs.output


def test_nothing_secret_and_no_output_is_printed(stoker, template) -> None:
    for fmt in ("table", "json", "yaml", "value"):
        created = stoker("create", f"s-{fmt}", "-t", template, "-f", fmt)
        assert created.exit_code == 0, created.output
        assert "s3cr3t-w0rd" not in created.stdout and "said" not in created.stdout
    # the outputs are where `openstack` users find them
    said = stoker("output", "show", "s-json", "said", "-f", "value", "-c", "output_value")
    assert said.stdout.strip() == "one"
    # --show-secrets is for the commands that show outputs
    refused = stoker("create", "other", "-t", template, "--show-secrets")
    assert refused.exit_code == 2 and "--show-secrets" in refused.output


def test_a_failed_update_prints_the_short_view_then_fails(stoker, template) -> None:
    assert stoker("create", "s", "-t", template).exit_code == 0
    failed = stoker("update", "s", "--existing", "--parameter", "word=broken", "-f", "json")
    assert failed.exit_code == 1
    view = json.loads(failed.stdout)
    assert list(view) == SHORT_VIEW and view["stack_status"] == "UPDATE_FAILED"
    assert "Test Resource failed" in view["stack_status_reason"]


def test_the_previews_keep_what_they_print(stoker, template) -> None:
    plan = stoker("create", "s", "-t", template, "--dry-run", "-f", "json")
    assert plan.exit_code == 0, plan.output
    assert "creation_order" in json.loads(plan.stdout)
    assert stoker("create", "s", "-t", template).exit_code == 0
    preview = stoker(
        "update", "s", "--existing", "--parameter", "word=two", "--dry-run", "-f", "json"
    )
    assert preview.exit_code == 0, preview.output
    assert "v" in [r["resource_name"] for r in json.loads(preview.stdout)["updated"]]


def test_adopt_prints_the_short_view(stoker, template, tmp_path: Path) -> None:
    assert stoker("create", "s", "-t", template).exit_code == 0
    document = tmp_path / "s.json"
    assert stoker("abandon", "s", "--output-file", str(document)).exit_code == 0
    adopted = stoker("adopt", "s", "--adopt-file", str(document), "-f", "json")
    assert adopted.exit_code == 0, adopted.output
    view = json.loads(adopted.stdout)
    assert list(view) == SHORT_VIEW and view["stack_status"] == "ADOPT_COMPLETE"
