"""The other stack actions against real Heat 24.1.2: each step of actions/cases.yaml run
through the stoker CLI, compared with what actions/record.py recorded from Heat.

After every step: whether it was refused (and Heat's message), the stack's status and
reason, and each top-level resource's status and reason, exactly. A step marked
``any_resource`` compares ``resources.<name>`` in the reason as a placeholder (the first
resource to fail depends on the traversal order, which is not Heat's).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

HERE = Path(__file__).resolve().parent / "actions"
CASES = yaml.safe_load((HERE / "cases.yaml").read_text())
RECORDING = json.loads((HERE / "recording.json").read_text())
NAMED = re.compile(r"resources\.[A-Za-z0-9_]+")


def _stoker(db: str, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--db", db, "stack", *args], catch_exceptions=False)


def _state(db: str, name: str) -> dict[str, Any]:
    shown = json.loads(_stoker(db, "show", name, "-f", "json").stdout)
    rows = json.loads(_stoker(db, "resource", "list", name, "-f", "json").stdout)
    return {
        "stack_status": shown["stack_status"],
        "stack_status_reason": shown["stack_status_reason"],
        "resources": {
            r["resource_name"]: [r["resource_status"], r["resource_status_reason"]]
            for r in sorted(rows, key=lambda r: r["resource_name"])
        },
    }


def _run(db: str, name: str, step: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    action = step["action"]
    extra: dict[str, Any] = {}
    if action in ("check", "suspend", "resume"):
        result = _stoker(db, action, name)
    elif action in ("cancel_update", "cancel_without_rollback"):
        flags = ["--no-rollback"] if action == "cancel_without_rollback" else []
        result = _stoker(db, "cancel", name, *flags)
    elif action == "mark_unhealthy":
        result = _stoker(db, "resource", "mark-unhealthy", name, step["resource"], step["reason"])
    elif action == "reset":
        result = _stoker(db, "resource", "mark-unhealthy", name, step["resource"], "--reset")
    elif action == "snapshot":
        result = _stoker(db, "snapshot", "create", name, "--name", "s1", "-f", "json")
        snapshot = json.loads(_stoker(db, "snapshot", "show", name, "s1", "-f", "json").stdout)
        data = snapshot["data"]
        extra["snapshot"] = {
            "keys": sorted(snapshot),
            "status": snapshot["status"],
            "status_reason": snapshot["status_reason"],
            "data_keys": sorted(data),
            "data_action_status": [data["action"], data["status"]],
            "resource_keys": sorted(data["resources"]["rand"]),
            "rand_data_keys": sorted(data["resources"]["rand"]["resource_data"]),
        }
    else:
        raise ValueError(action)
    return result, extra


@pytest.mark.parametrize("case", sorted(CASES))
def test_actions_match_heat(case: str, tmp_path: Path) -> None:
    spec, recorded = CASES[case], RECORDING[case]
    name = f"fid-actions-{case.replace('_', '-')}"
    template = tmp_path / "t.yaml"
    template.write_text(spec["template"])
    db = str(tmp_path / "s.db")
    created = _stoker(db, "create", name, "-t", str(template))
    assert (created.exit_code == 0) == recorded["created"]["stack_status"].endswith("COMPLETE")
    if created.exit_code == 0:
        assert _state(db, name) == recorded["created"]
    else:  # the failure's wording is the create's business (tests/fidelity/known.py)
        statuses = {n: s for n, (s, _) in _state(db, name)["resources"].items()}
        assert statuses == {n: s for n, (s, _) in recorded["created"]["resources"].items()}
    for index, (step, heat) in enumerate(zip(spec["steps"], recorded["steps"], strict=True)):
        result, extra = _run(db, name, step)
        where = f"step {index} ({step['action']})"
        if heat["refused"]:
            assert result.exit_code == 1, where
            assert result.stderr.strip() == f"error: {heat['refused']['message']}", where
        state = {**_state(db, name), **extra}
        expected = {k: heat[k] for k in state}
        if created.exit_code != 0:  # a reason carried over from the failed create
            for side in (state, expected):
                side["resources"] = {
                    n: [s, "<create failure>" if s.endswith("FAILED") else r]
                    for n, (s, r) in side["resources"].items()
                }
        if step.get("any_resource"):
            for side in (state, expected):
                side["stack_status_reason"] = NAMED.sub(
                    "resources.<name>", side["stack_status_reason"]
                )
        assert state == expected, where
        failed = state["stack_status"].endswith("FAILED")
        assert (result.exit_code != 0) == bool(heat["refused"] or failed), where


def test_a_document_written_by_heat_is_adopted(tmp_path: Path) -> None:
    """Heat's own document (recorded) adopts: every resource ADOPT_COMPLETE with Heat's
    physical id, and the RandomString's value is the one Heat generated."""
    recorded = RECORDING["_document"]
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(recorded["document"]))
    db = str(tmp_path / "s.db")
    adopted = _stoker(db, "adopt", "from-heat", "--adopt-file", str(path))
    assert adopted.exit_code == 0, adopted.output
    state = _state(db, "from-heat")
    assert state["stack_status"] == "ADOPT_COMPLETE"
    assert {s for s, _ in state["resources"].values()} == {"ADOPT_COMPLETE"}
    output = _stoker(db, "output", "show", "from-heat", "r", "-f", "value", "-c", "output_value")
    assert output.stdout.strip() == recorded["outputs"]["r"]
    rows = json.loads(_stoker(db, "resource", "list", "from-heat", "-f", "json").stdout)
    ids = {r["resource_name"]: r["physical_resource_id"] for r in rows}
    assert ids == {n: r["resource_id"] for n, r in recorded["document"]["resources"].items()}
