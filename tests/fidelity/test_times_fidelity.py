"""When a stack's updated_time is set, against real Heat 24.1.2 (convergence engine):
each sequence of times/cases.yaml run through the stoker CLI, compared with what
times/record.py recorded from Heat.

After the create and after each step, each view's updated_time (``stack show``, the
stack's row in ``stack list --deleted``, the nested stack named by ``child``) is
classified as Heat's were: ``null``, ``kept`` or ``set``. stoker runs a step within the
same second as the one before it, so ``kept`` and ``set`` are told apart by the stored
time (microseconds), after checking that each view shows exactly that time (Heat's
seconds) or null. The short view that ``stack create`` and ``stack update`` print must
agree with ``stack show``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.engine import time_text
from stoker.store import open_store

pytestmark = pytest.mark.heavy

HERE = Path(__file__).resolve().parent / "times"
CASES: dict[str, dict[str, Any]] = yaml.safe_load((HERE / "cases.yaml").read_text())
RECORDING: dict[str, Any] = json.loads((HERE / "recording.json").read_text())
PROJECT = "default"


class Stoker:
    def __init__(self, tmp_path: Path) -> None:
        self.db = str(tmp_path / "s.db")
        self.directory = tmp_path
        self.last: dict[str, datetime | None] = {}
        self.ids: dict[str, str] = {}

    def __call__(self, *args: str, ok: bool = True) -> Any:
        result = CliRunner().invoke(cli, ["--db", self.db, "stack", *args], catch_exceptions=False)
        assert not ok or result.exit_code == 0, result.output
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "-f", "json", ok=False).stdout)

    def stored(self, stack_id: str) -> datetime | None:
        with open_store(self.db) as store:
            record = store.get_stack(stack_id, PROJECT)
            assert record is not None
            return record.updated_at

    def read(self, name: str, child: str | None) -> dict[str, Any]:
        """Heat's recorded shape (`times/record.py`: `Views.read`)."""
        shown = self.json("show", self.ids[name])
        if child is not None and "child" not in self.ids:
            nest = self.json("resource", "show", name, child)
            self.ids["child"] = nest["physical_resource_id"]
        state: dict[str, Any] = {"stack_status": shown["stack_status"]}
        rows = [r for r in self.json("list", "--deleted") if r["id"] == self.ids[name]]
        views = {"show": (self.ids[name], shown["updated_time"])}
        views["list"] = (self.ids[name], rows[0]["updated_time"])
        if child is not None:
            nested = self.json("show", self.ids["child"])
            state["child_status"] = nested["stack_status"]
            views["child"] = (self.ids["child"], nested["updated_time"])
        for view, (stack_id, text) in views.items():
            stored = self.stored(stack_id)
            assert text == time_text(stored), view
            if stored is None:
                state[view] = "null"
            else:
                state[view] = "kept" if stored == self.last.get(view) else "set"
            self.last[view] = stored
        return state

    def step(self, name: str, spec: dict[str, Any]) -> Any:
        action = spec["action"]
        if action in ("check", "suspend", "resume"):
            return self(action, name)
        if action == "snapshot":
            return self("snapshot", "create", name, "--name", "s1")
        if action == "restore":
            return self("snapshot", "restore", name, "s1")
        if action == "delete":
            return self("delete", name, "--yes")
        assert action == "update", action
        args = ["update", name, "-f", "json"]
        if "template" in spec:
            template = self.directory / "update.yaml"
            template.write_text(spec["template"])
            args += ["-t", str(template)]
        if spec.get("existing"):
            args.append("--existing")
        for key, value in (spec.get("parameters") or {}).items():
            args += ["--parameter", f"{key}={value}"]
        args += ["--rollback", "enabled" if spec.get("rollback") else "disabled"]
        return self(*args, ok=False)


def _short_view_agrees(stoker: Stoker, result: Any, name: str) -> None:
    """What create/update printed (the short view) shows the stack's updated_time."""
    short = json.loads(result.stdout)
    assert short["updated_time"] == stoker.json("show", stoker.ids[name])["updated_time"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_updated_time_matches_heat(case: str, tmp_path: Path) -> None:
    spec, recorded = CASES[case], RECORDING[case]
    name = f"fid-times-{case.replace('_', '-')}"
    stoker = Stoker(tmp_path)
    template = tmp_path / "t.yaml"
    template.write_text(spec["template"])
    rollback = ["--enable-rollback"] if spec.get("rollback") else []
    created = stoker("create", name, "-t", str(template), *rollback, "-f", "json", ok=False)
    stoker.ids[name] = json.loads(created.stdout)["id"]
    _short_view_agrees(stoker, created, name)
    assert stoker.read(name, spec.get("child")) == recorded["created"], "created"
    for index, (step, heat) in enumerate(zip(spec["steps"], recorded["steps"], strict=True)):
        result = stoker.step(name, step)
        if step["action"] == "update":
            _short_view_agrees(stoker, result, name)
        assert stoker.read(name, spec.get("child")) == heat, f"step {index} ({step['action']})"


def _stack_events(stoker: Stoker, stack_id: str) -> dict[str, datetime]:
    """The stack's own events, ``ACTION_STATUS`` to the time of the last one so named."""
    with open_store(stoker.db) as store:
        return {
            f"{e.action.value}_{e.status.value}": e.time
            for e in store.events(stack_id)
            if e.physical_id == stack_id
        }


def test_updated_time_is_the_start_of_the_update(tmp_path: Path) -> None:
    """Heat's updated_time is when the update began (its stack event
    ``UPDATE_IN_PROGRESS``), not when it ended; a rolled-back update's is when the
    rollback began (Heat: recorded on an update cancelled and rolled back)."""
    stoker = Stoker(tmp_path)
    template = tmp_path / "t.yaml"
    template.write_text(CASES["failed_update_rolled_back"]["template"])
    for name in ("updated", "rolled"):
        created = stoker("create", name, "-t", str(template), "-f", "json")
        stoker.ids[name] = json.loads(created.stdout)["id"]
    stoker("update", "updated", "--existing")
    events = _stack_events(stoker, stoker.ids["updated"])
    updated = stoker.stored(stoker.ids["updated"])
    assert {
        "equals_in_progress_event": updated == events["UPDATE_IN_PROGRESS"],
        "before_complete_event": updated is not None and updated < events["UPDATE_COMPLETE"],
    } == RECORDING["_update_time_is_start"]
    stoker(
        "update",
        "rolled",
        "--existing",
        "--parameter",
        "fail=true",
        "--rollback",
        "enabled",
        ok=False,
    )
    events = _stack_events(stoker, stoker.ids["rolled"])
    assert stoker.json("show", "rolled")["stack_status"] == "ROLLBACK_COMPLETE"
    rolled = stoker.stored(stoker.ids["rolled"])
    assert rolled == events["ROLLBACK_IN_PROGRESS"]
    assert RECORDING["_cancel"]["equals_rollback_start"] is True
    assert RECORDING["_cancel"]["cancelled"]["stack_status"] == "ROLLBACK_COMPLETE"
