"""``stoker stack ...`` as a user runs it: exit codes, output shapes, progress, masking."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.store import open_store

from .entry import SHORT_VIEW

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "hello.yaml")
EXAMPLE_ENV = str(ROOT / "examples" / "hello-env.yaml")
SECRET = "correct-horse-battery"


@pytest.fixture
def stoker(store_url):
    def run(*args: str):
        return CliRunner().invoke(cli, ["--db", store_url, "stack", *args], catch_exceptions=False)

    return run


@pytest.fixture
def demo(stoker):
    result = stoker("create", "demo", "-t", EXAMPLE, "-e", EXAMPLE_ENV, "-f", "json")
    assert result.exit_code == 0, result.output
    return result


def test_create_prints_the_short_view_and_show_the_stack_as_heat_shows_it(stoker, demo):
    created = json.loads(demo.stdout)
    assert list(created) == SHORT_VIEW
    assert created["stack_name"] == "demo" and created["stack_status"] == "CREATE_COMPLETE"
    assert created["stack_status_reason"] == "Stack CREATE completed successfully"
    assert created["description"].startswith("A small web tier")
    data = json.loads(stoker("show", "demo", "-f", "json").stdout)
    assert {key: data[key] for key in SHORT_VIEW} == created
    for key in ("id", "creation_time", "parent", "tags", "disable_rollback", "parameters"):
        assert key in data
    assert data["parameters"]["db_password"] == "******"
    assert data["parameters"]["OS::stack_name"] == "demo"
    assert data["parameters"]["port"] == "8443"
    outputs = {o["output_key"]: o for o in data["outputs"]}
    assert outputs["url"]["output_value"] == "http://shop.example.com:8443/"
    assert outputs["url"]["description"] == "Where the site answers"
    assert SECRET not in demo.output


def test_progress_is_plain_event_lines_on_stderr_when_not_a_terminal(demo):
    lines = demo.stderr.splitlines()
    assert any(
        line.endswith("[demo]: CREATE_IN_PROGRESS  Stack CREATE started") for line in lines
    ), lines
    assert any("[site]: CREATE_COMPLETE  state changed" in line for line in lines)
    assert not demo.stdout.lstrip().startswith("20")  # stdout stays pure JSON


def test_list_show_outputs_resources_events(stoker, demo):
    assert stoker("list", "-f", "value", "-c", "stack_name").stdout.split() == ["demo"]
    assert stoker("show", "demo", "-f", "value", "-c", "stack_status").stdout.strip() == (
        "CREATE_COMPLETE"
    )
    url = stoker("output", "show", "demo", "url", "-f", "value", "-c", "output_value")
    assert url.stdout.strip() == "http://shop.example.com:8443/"
    listed = json.loads(stoker("output", "list", "demo", "-f", "json").stdout)
    assert [o["output_key"] for o in listed] == ["url", "config_id"]
    resources = json.loads(stoker("resource", "list", "demo", "-f", "json").stdout)
    # banner's condition is false: it does not exist at all
    assert {r["resource_name"]: r["resource_status"] for r in resources} == {
        "admin_password": "CREATE_COMPLETE",
        "config": "CREATE_COMPLETE",
        "database": "CREATE_COMPLETE",
        "site": "CREATE_COMPLETE",
    }
    password = json.loads(stoker("resource", "show", "demo", "admin_password", "-f", "json").stdout)
    assert len(password["attributes"]["value"]) == 24
    assert "config" in password["required_by"]
    events = json.loads(stoker("event", "list", "demo", "-f", "json").stdout)
    site = [e["resource_status"] for e in events if e["resource_name"] == "site"]
    assert site == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert events[-1]["resource_status_reason"] == "Stack CREATE completed successfully"


def test_template_and_environment_show(stoker, demo):
    template = json.loads(stoker("template", "show", "demo", "-f", "json").stdout)
    assert template["heat_template_version"] == "wallaby"
    environment = stoker("environment", "show", "demo", "-f", "json")
    assert SECRET not in environment.stdout
    assert json.loads(environment.stdout)["parameters"]["db_password"] == "******"


def test_same_name_is_refused_and_rejected_input_creates_nothing(stoker, demo):
    again = stoker("create", "demo", "-t", EXAMPLE, "-e", EXAMPLE_ENV)
    assert again.exit_code == 1 and "The Stack (demo) already exists." in again.stderr
    bad = stoker("create", "other", "-t", EXAMPLE, "--parameter", "port=1")
    assert bad.exit_code == 1 and "parameters.port" in bad.stderr
    assert stoker("list", "-f", "value", "-c", "stack_name").stdout.split() == ["demo"]


def failing_template(tmp_path) -> str:
    path = tmp_path / "fail.yaml"
    path.write_text(
        "heat_template_version: wallaby\nresources:\n  ok: {type: OS::Heat::None}\n"
        "  bad: {type: OS::Heat::TestResource, depends_on: ok, properties: {fail: true}}\n"
    )
    return str(path)


def test_failed_create_exits_1_and_rollback_is_opt_in(stoker, tmp_path):
    failed = stoker("create", "f", "-t", failing_template(tmp_path), "-f", "json")
    assert failed.exit_code == 1
    data = json.loads(failed.stdout)
    assert data["stack_status"] == "CREATE_FAILED"
    assert "Test Resource failed bad" in data["stack_status_reason"]
    rolled = stoker(
        "create",
        "g",
        "-t",
        failing_template(tmp_path),
        "--enable-rollback",
        "-f",
        "value",
        "-c",
        "stack_status",
    )
    assert rolled.exit_code == 1 and rolled.stdout.strip() == "ROLLBACK_COMPLETE"
    assert rolled.stderr.strip().splitlines()[-1] == (
        "error: g: create failed: bad: ValueError: resources.bad: Test Resource "
        "failed bad; rolled back (ROLLBACK_COMPLETE)"
    )


def test_delete_needs_confirmation_then_frees_the_name(stoker, demo):
    refused = stoker("delete", "demo")
    assert refused.exit_code == 2 and "--yes" in refused.output
    deleted = stoker("delete", "demo", "--yes")
    assert deleted.exit_code == 0 and "DELETE_COMPLETE" in deleted.stderr
    gone = stoker("show", "demo")
    assert gone.exit_code == 1 and "could not be found" in gone.stderr
    assert stoker("list", "-f", "value").stdout == ""


def test_recover_with_nothing_to_recover(stoker, demo):
    result = stoker("recover", "demo")
    assert result.exit_code == 1 and "no interrupted operation" in result.stderr


def test_dry_run_creates_nothing(stoker):
    result = stoker("create", "dry", "-t", EXAMPLE, "-e", EXAMPLE_ENV, "--dry-run")
    assert result.exit_code == 0
    assert "creation_order" in result.stdout and "admin_password" in result.stdout
    assert stoker("list", "-f", "value").stdout == ""


def test_usage_errors(stoker, demo):
    assert stoker("show", "demo", "-c", "nonsense").exit_code == 2
    assert stoker("create", "x").exit_code == 2  # no template
    assert stoker("signal", "demo").exit_code == 2


def test_unknown_type_is_reported_before_anything_is_created(stoker, tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: wallaby\nresources:\n"
        "  s: {type: OS::Nova::Server, properties: {flavor: m1.small}}\n"
    )
    result = stoker("create", "x", "-t", str(path))
    assert result.exit_code == 1
    assert (
        f"{path}:3:3: resources.s.type: stoker runs OS::Nova::Server against an OpenStack "
        "cloud and none is chosen: choose a cloud with --os-cloud NAME or OS_CLOUD=NAME"
        in result.stderr
    )
    assert stoker("list", "-f", "value").stdout == ""


def test_wait_condition_signalled_with_the_handle_token(store_url, tmp_path):
    path = tmp_path / "wait.yaml"
    path.write_text(
        "heat_template_version: wallaby\nresources:\n"
        "  handle: {type: OS::Heat::WaitConditionHandle}\n"
        "  wait:\n    type: OS::Heat::WaitCondition\n"
        "    properties: {handle: {get_resource: handle}, timeout: 60}\n"
        "outputs:\n  data: {value: {get_attr: [wait, data]}}\n"
    )
    base = [sys.executable, "-m", "stoker", "--db", store_url, "stack"]
    creating = subprocess.Popen(
        [*base, "create", "w", "-t", str(path), "-f", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    store = open_store(store_url)
    token = None
    for _ in range(300):
        stack = store.get_stack("w", "default")
        if stack is not None:
            handle = {r.name: r for r in store.resources(stack.id)}["handle"]
            token = handle.data.get("token")
            if token:
                break
        time.sleep(0.05)
    assert token, "the handle was never created"
    signal = subprocess.run(
        [
            *base,
            "signal",
            "--token",
            token,
            "--data",
            '{"status": "SUCCESS", "data": "ready", "id": "vm1"}',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert signal.returncode == 0, signal.stderr
    output, errors = creating.communicate(timeout=60)
    assert creating.returncode == 0, errors
    assert json.loads(output)["stack_status"] == "CREATE_COMPLETE"
    data = subprocess.run(
        [*base, "output", "show", "w", "data", "-f", "value", "-c", "output_value"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert data.stdout.strip() == '{"vm1": "ready"}'
    wrong = subprocess.run(
        [*base, "signal", "--token", "not-a-token"], capture_output=True, text=True, timeout=60
    )
    assert wrong.returncode == 1 and "No resource holds this signal token." in wrong.stderr


def test_resource_type_commands():
    runner = CliRunner()
    listed = runner.invoke(cli, ["resource-type", "list", "-f", "json"])
    assert listed.exit_code == 0 and "OS::Heat::RandomString" in listed.stdout
    shown = runner.invoke(cli, ["resource-type", "show", "OS::Heat::RandomString", "-f", "json"])
    assert shown.exit_code == 0 and '"length"' in shown.stdout


TRIPLEO = ROOT / "tests" / "fixtures" / "tripleo"


def test_tripleo_tree_created_inspected_and_deleted_through_the_cli(stoker):
    created = stoker(
        "create",
        "oc",
        "-t",
        str(TRIPLEO / "overcloud.yaml"),
        "-e",
        str(TRIPLEO / "environments" / "default.yaml"),
        "-f",
        "json",
    )
    assert created.exit_code == 0, created.output
    shown = json.loads(stoker("output", "show", "oc", "--all", "-f", "json").stdout)
    outputs = {o["output_key"]: o["output_value"] for o in shown}
    assert outputs["controller_hostnames"] == ["overcloud-controller-0"]
    listed = stoker("list", "--nested", "-f", "json")
    stacks = json.loads(listed.stdout)
    assert len(stacks) == 10 and sum(1 for s in stacks if s["parent"]) == 9
    assert stoker("list", "-f", "value", "-c", "stack_name").stdout.split() == ["oc"]
    top = json.loads(stoker("resource", "list", "oc", "-f", "json").stdout)
    assert {r["resource_name"] for r in top} == {
        "Controller",
        "Compute",
        "Telemetry",
        "EndpointMap",
    }
    deep = json.loads(stoker("resource", "list", "oc", "-n", "3", "-f", "json").stdout)
    placements = [r for r in deep if r["resource_name"] == "Placement"]
    assert len(placements) == 3  # one Ntp service below each of the three role stacks
    assert all(r["stack_name"].count("-Ntp-") == 1 for r in placements)
    events = json.loads(stoker("event", "list", "oc", "--nested-depth", "1", "-f", "json").stdout)
    assert {e["stack_name"] for e in events} > {"oc"}
    deleted = stoker("delete", "oc", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert stoker("list", "--nested", "-f", "value").stdout == ""


def test_recover_prints_the_short_view_of_the_operation_it_continued(store_url, tmp_path):
    """A create killed mid-way (`stoker.engine.crash_hook`), then recovered: recover ends
    as the create would have, with the short view."""
    from stoker.engine.crash_hook import ENV_VAR

    path = tmp_path / "chain.yaml"
    resource = "{type: OS::Heat::TestResource, properties: {wait_secs: 0.01}"
    path.write_text(
        "heat_template_version: wallaby\nresources:\n"
        + f"  r0: {resource}}}\n"
        + "".join(f"  r{i}: {resource}, depends_on: [r{i - 1}]}}\n" for i in range(1, 6))
    )
    base = [sys.executable, "-m", "stoker", "--db", store_url, "stack"]
    killed = subprocess.run(
        [*base, "create", "c", "-t", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, ENV_VAR: "3"},
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    recovered = subprocess.run(
        [*base, "recover", "c", "-f", "json"], capture_output=True, text=True, timeout=120
    )
    assert recovered.returncode == 0, recovered.stderr[-2000:]
    view = json.loads(recovered.stdout)
    assert list(view) == SHORT_VIEW and view["stack_status"] == "CREATE_COMPLETE"
