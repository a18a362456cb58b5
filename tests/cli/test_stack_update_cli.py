"""``stoker stack update`` as a user runs it (SQLite and PostgreSQL): --existing, the
dry-run's preview shape, exit statuses, refusals, rollback, events."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

TEMPLATE = """
heat_template_version: "2021-04-16"
parameters:
  p: {type: string, default: a}
  q: {type: string, default: a}
  fixed: {type: string, default: one, immutable: true}
resources:
  r: {type: OS::Heat::RandomString, properties: {length: 8}}
  v:
    type: OS::Heat::Value
    properties: {value: {list_join: [",", [{get_param: p}, {get_param: q}, {get_param: fixed}]]}}
  gone: {type: OS::Heat::None}
outputs:
  v: {value: {get_attr: [v, value]}}
"""

NEW = """
heat_template_version: "2021-04-16"
parameters:
  p: {type: string, default: a}
resources:
  r: {type: OS::Heat::RandomString, properties: {length: 10}}
  v: {type: OS::Heat::Value, properties: {value: {get_param: p}}}
  t: {type: OS::Heat::TestResource, properties: {value: {get_param: p}}}
outputs:
  v: {value: {get_attr: [v, value]}}
"""

FAILING = NEW.replace(
    "value: {get_param: p}}}\noutputs", "value: {get_param: p}, fail: true}}\noutputs"
)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in {"a.yaml": TEMPLATE, "b.yaml": NEW, "bad.yaml": FAILING}.items():
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        paths[name] = str(path)
    return paths


@pytest.fixture
def stoker(store_url):
    def run(*args: str):
        return CliRunner().invoke(cli, ["--db", store_url, "stack", *args], catch_exceptions=False)

    return run


@pytest.fixture
def demo(stoker, files):
    result = stoker(
        "create",
        "demo",
        "-t",
        files["a.yaml"],
        "--parameter",
        "p=x",
        "--parameter",
        "q=y",
        "--tags",
        "one,two",
    )
    assert result.exit_code == 0, result.output
    return result


def output(stoker) -> str:
    return stoker("output", "show", "demo", "v", "-f", "value", "-c", "output_value").stdout.strip()


def show(stoker) -> dict:
    return json.loads(stoker("show", "demo", "-f", "json").stdout)


def test_existing_keeps_template_and_parameters_overlays_new_and_clears(stoker, demo):
    first = {
        r["resource_name"]: r["physical_resource_id"]
        for r in json.loads(stoker("resource", "list", "demo", "-f", "json").stdout)
    }
    result = stoker("update", "demo", "--existing", "--parameter", "q=z", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["stack_status"] == "UPDATE_COMPLETE"
    data = show(stoker)
    assert data["parameters"]["p"] == "x" and data["parameters"]["q"] == "z"
    assert data["tags"] == ["one", "two"]  # kept unless given
    assert output(stoker) == "x,z,one"
    after = {
        r["resource_name"]: r["physical_resource_id"]
        for r in json.loads(stoker("resource", "list", "demo", "-f", "json").stdout)
    }
    assert after == first  # v updated in place, nothing replaced
    cleared = stoker("update", "demo", "--existing", "--clear-parameter", "p", "--tag", "new")
    assert cleared.exit_code == 0, cleared.output
    assert output(stoker) == "a,z,one"
    assert show(stoker)["tags"] == ["new"]


def test_existing_drops_parameters_the_new_template_does_not_declare(stoker, demo, files):
    result = stoker("update", "demo", "--existing", "-t", files["b.yaml"], "-f", "json")
    assert result.exit_code == 0, result.output
    parameters = show(stoker)["parameters"]
    assert parameters["p"] == "x" and "q" not in parameters
    assert output(stoker) == "x"


def test_a_put_update_resets_parameters_to_defaults(stoker, demo, files):
    result = stoker("update", "demo", "-t", files["a.yaml"])
    assert result.exit_code == 0, result.output
    assert output(stoker) == "a,a,one"


def test_dry_run_prints_heats_preview_shape_and_changes_nothing(stoker, demo, files):
    result = stoker(
        "update", "demo", "-t", files["b.yaml"], "--existing", "--dry-run", "-f", "json"
    )
    assert result.exit_code == 0, result.output
    preview = json.loads(result.stdout)
    assert list(preview) == ["unchanged", "updated", "replaced", "added", "deleted"]
    names = {k: [r["resource_name"] for r in v] for k, v in preview.items()}
    assert names == {
        "unchanged": [],
        "updated": ["v"],
        "replaced": ["r"],
        "added": ["t"],
        "deleted": ["gone"],
    }
    assert preview["replaced"][0]["reason"] == (
        "length cannot be updated in place (not update_allowed)"
    )
    assert preview["added"][0]["resource_status"] == "INIT_COMPLETE"
    assert show(stoker)["stack_status"] == "CREATE_COMPLETE"
    table = stoker("update", "demo", "-t", files["b.yaml"], "--dry-run")
    assert table.exit_code == 0 and "not update_allowed" in table.stdout


def test_update_events_show_every_transition(stoker, demo, files):
    result = stoker("update", "demo", "-t", files["b.yaml"], "--existing")
    assert result.exit_code == 0, result.output
    events = json.loads(stoker("event", "list", "demo", "-f", "json").stdout)
    seen = [(e["resource_name"], e["resource_status"]) for e in events]
    start = seen.index(("demo", "UPDATE_IN_PROGRESS"))
    update = seen[start:]
    assert update[-1] == ("demo", "UPDATE_COMPLETE")
    assert [s for n, s in update if n == "r"] == [
        "UPDATE_IN_PROGRESS",
        "UPDATE_COMPLETE",
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
    ]
    assert [s for n, s in update if n == "gone"] == ["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]
    listed = [
        r["resource_name"]
        for r in json.loads(stoker("resource", "list", "demo", "-f", "json").stdout)
    ]
    assert sorted(listed) == ["r", "t", "v"]  # the removed resource is gone from the list


def test_immutable_parameter_is_refused_naming_it(stoker, demo):
    result = stoker("update", "demo", "--existing", "--parameter", "fixed=two")
    assert result.exit_code == 1
    assert "The following parameters are immutable and may not be updated: fixed" in result.stderr
    assert "Traceback" not in result.output
    assert show(stoker)["stack_status"] == "CREATE_COMPLETE"


def test_failure_exits_1_and_rollback_restores(stoker, demo, files):
    before = output(stoker)
    failed = stoker(
        "update",
        "demo",
        "-t",
        files["bad.yaml"],
        "--existing",
        "--rollback",
        "enabled",
        "-f",
        "json",
    )
    assert failed.exit_code == 1
    data = json.loads(failed.stdout)
    assert data["stack_status"] == "ROLLBACK_COMPLETE"
    # Heat's status reason; the error line names the cause, as Heat's events tell it
    assert data["stack_status_reason"] == "Stack ROLLBACK completed successfully"
    assert failed.stderr.strip().splitlines()[-1] == (
        "error: demo: update failed: t: ValueError: resources.t: Test Resource failed "
        "t; rolled back (ROLLBACK_COMPLETE)"
    )
    assert output(stoker) == before
    names = sorted(
        r["resource_name"]
        for r in json.loads(stoker("resource", "list", "demo", "-f", "json").stdout)
    )
    assert names == ["gone", "r", "v"]
    # --rollback enabled stays with the stack (keep is the default): disable it again
    again = stoker(
        "update", "demo", "-t", files["bad.yaml"], "--existing", "--rollback", "disabled"
    )
    assert again.exit_code == 1
    assert show(stoker)["stack_status"] == "UPDATE_FAILED"
    fixed = stoker("update", "demo", "-t", files["b.yaml"], "--existing")
    assert fixed.exit_code == 0, fixed.output
    assert show(stoker)["stack_status"] == "UPDATE_COMPLETE"


def test_usage_errors(stoker, demo):
    assert stoker("update", "demo").exit_code == 2
    assert stoker("update", "demo", "-t", "x.yaml", "--clear-parameter", "p").exit_code == 2
    missing = stoker("update", "nosuch", "--existing")
    assert missing.exit_code != 0 and "could not be found" in missing.stderr
