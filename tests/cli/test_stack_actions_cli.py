"""``stoker stack check|suspend|resume|cancel|export|abandon|adopt|snapshot`` and
``resource mark-unhealthy`` as a user runs them (SQLite: the engine tests cover both
databases)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "hello.yaml")
EXAMPLE_ENV = str(ROOT / "examples" / "hello-env.yaml")


@pytest.fixture
def stoker(tmp_path):
    db = str(tmp_path / "stoker.db")

    def run(*args: str):
        return CliRunner().invoke(cli, ["--db", db, "stack", *args], catch_exceptions=False)

    return run


@pytest.fixture
def demo(stoker):
    result = stoker("create", "demo", "-t", EXAMPLE, "-e", EXAMPLE_ENV, "-f", "json")
    assert result.exit_code == 0, result.output
    return result


def test_suspend_resume_and_check_print_the_stack_row(stoker, demo):
    suspended = stoker("suspend", "demo", "-f", "json")
    assert suspended.exit_code == 0, suspended.output
    (row,) = json.loads(suspended.stdout)
    assert row["stack_status"] == "SUSPEND_COMPLETE" and row["stack_name"] == "demo"
    assert "[demo]: SUSPEND_COMPLETE" in suspended.stderr
    resumed = stoker("resume", "demo", "-f", "value", "-c", "stack_status")
    assert (resumed.exit_code, resumed.stdout.strip()) == (0, "RESUME_COMPLETE")
    checked = stoker("check", "demo", "-f", "value", "-c", "stack_status")
    assert (checked.exit_code, checked.stdout.strip()) == (0, "CHECK_COMPLETE")


def test_resume_of_a_stack_not_suspended_fails_with_heats_reason(stoker, demo):
    result = stoker("resume", "demo", "-f", "value", "-c", "stack_status")
    assert result.exit_code == 1 and result.stdout.strip() == "RESUME_FAILED"
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: demo: RESUME_FAILED: Resource RESUME failed: Error: ")
    assert last.endswith("invalid for resume")


def test_mark_unhealthy_and_reset(stoker, demo):
    marked = stoker("resource", "mark-unhealthy", "demo", "site", "disk full")
    assert marked.exit_code == 0 and "site: CHECK_FAILED: disk full" in marked.stderr
    shown = json.loads(stoker("resource", "show", "demo", "site", "-f", "json").stdout)
    assert shown["resource_status"] == "CHECK_FAILED"
    reset = stoker("resource", "mark-unhealthy", "demo", "site", "--reset")
    assert reset.exit_code == 0 and "site: CHECK_COMPLETE" in reset.stderr


def test_cancel_of_a_stack_with_nothing_running_is_refused_as_in_heat(stoker, demo):
    result = stoker("cancel", "demo", "--no-rollback")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: Cancelling update when stack is CREATE_COMPLETE is not supported."
    )


def test_export_abandon_and_adopt_round_trip(stoker, demo, tmp_path):
    exported = stoker("export", "demo")
    assert exported.exit_code == 0
    document = json.loads(exported.stdout)
    assert document["name"] == "demo" and document["status"] == "COMPLETE"
    target = tmp_path / "demo.json"
    abandoned = stoker("abandon", "demo", "--output-file", str(target))
    assert abandoned.exit_code == 0 and abandoned.stdout == ""
    assert json.loads(target.read_text())["resources"] == document["resources"]
    assert stoker("show", "demo").exit_code == 1
    adopted = stoker(
        "adopt", "demo", "--adopt-file", str(target), "-f", "value", "-c", "stack_status"
    )
    assert (adopted.exit_code, adopted.stdout.strip()) == (0, "ADOPT_COMPLETE"), adopted.output
    again = json.loads(stoker("export", "demo").stdout)
    assert {n: r["resource_data"] for n, r in again["resources"].items()} == {
        n: r["resource_data"] for n, r in document["resources"].items()
    }


def test_adopt_file_that_is_not_json_is_a_usage_error(stoker, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not: [json")
    result = stoker("adopt", "x", "--adopt-file", str(bad))
    assert result.exit_code == 2 and "not JSON" in result.output


def test_snapshots_from_the_command_line(stoker, demo):
    made = stoker("snapshot", "create", "demo", "--name", "before", "-f", "json")
    assert made.exit_code == 0, made.output
    snapshot = json.loads(made.stdout)
    assert snapshot["status"] == "COMPLETE" and "data" not in snapshot
    listed = json.loads(stoker("snapshot", "list", "demo", "-f", "json").stdout)
    assert [s["name"] for s in listed] == ["before"]
    shown = json.loads(stoker("snapshot", "show", "demo", "before", "-f", "json").stdout)
    assert shown["data"]["action"] == "SNAPSHOT" and shown["id"] == snapshot["id"]
    assert stoker("snapshot", "delete", "demo", snapshot["id"]).exit_code == 0
    missing = stoker("snapshot", "show", "demo", snapshot["id"])
    assert missing.exit_code == 1
    assert missing.stderr.strip() == f"error: Snapshot with id {snapshot['id']} not found"


def test_snapshot_restore_from_the_command_line(stoker, demo):
    def url() -> str:
        shown = json.loads(stoker("output", "show", "demo", "url", "-f", "json").stdout)
        return str(shown["output_value"])

    before = url()
    assert stoker("snapshot", "create", "demo", "--name", "before").exit_code == 0
    changed = stoker("update", "demo", "--existing", "--parameter", "port=9090", "-f", "json")
    assert changed.exit_code == 0, changed.output
    assert url() != before and "9090" in url()
    restored = stoker("snapshot", "restore", "demo", "before", "-f", "value", "-c", "stack_status")
    assert (restored.exit_code, restored.stdout.strip()) == (0, "RESTORE_COMPLETE"), restored.output
    assert url() == before
    missing = stoker("snapshot", "restore", "demo", "nosuch")
    assert missing.exit_code == 1
    assert missing.stderr.strip() == "error: Snapshot with id nosuch not found"
