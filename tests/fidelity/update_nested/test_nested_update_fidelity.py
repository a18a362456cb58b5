"""stoker's nested-stack updates against Heat 24.1.2's answers (record.py beside this file).

Compared: the update's outcome, the parent's events per resource, the preview with
``--show-nested`` (names per kind, with their parent resource), the child's members
after the update (state, and whether the physical resource is the old one) and the
child's events per member, batch by batch (a rolling update's batches are the child's
successive updates). Outputs are compared when they hold no generated names.
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

HERE = Path(__file__).parent
CASES: dict[str, dict[str, Any]] = yaml.safe_load((HERE / "cases.yaml").read_text())
RECORDED: dict[str, dict[str, Any]] = json.loads((HERE / "recordings.json").read_text())


class Stoker:
    def __init__(self, url: str, directory: Path) -> None:
        self.url = url
        self.directory = directory

    def __call__(self, *args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", self.url, "stack", *args], catch_exceptions=False)

    def json(self, *args: str) -> Any:
        result = self(*args, "-f", "json")
        return json.loads(result.stdout)


def _write(directory: Path, name: str, case: dict[str, Any], key: str) -> str:
    folder = directory / f"{name}-{key}"
    folder.mkdir(exist_ok=True)
    for file_name, text in (case.get("files") or {}).items():
        (folder / file_name).write_text(text)
    path = folder / "template.yaml"
    path.write_text(yaml.safe_dump(case[key]))
    return str(path)


def _child(stoker: Stoker, name: str, resource: str) -> tuple[str, list[dict[str, Any]]]:
    shown = stoker.json("resource", "show", name, resource)
    child_id = shown["physical_resource_id"]
    return child_id, stoker.json("resource", "list", child_id)


def _batches(events: list[list[str]], stack_marker: str) -> list[dict[str, list[str]]]:
    """The child's events split at each of its own UPDATE_IN_PROGRESS (one per batch):
    per batch, each member's statuses in order."""
    found: list[dict[str, list[str]]] = []
    for name, status in events:
        if name == stack_marker:
            if status == "UPDATE_IN_PROGRESS":
                found.append({})
            continue
        if not found:
            found.append({})
        found[-1].setdefault(name, []).append(status)
    return found


def run_case(name: str, case: dict[str, Any], stoker: Stoker) -> dict[str, Any]:
    env: list[str] = []
    if "environment" in case:
        path = stoker.directory / f"{name}-env.yaml"
        path.write_text(yaml.safe_dump(case["environment"]))
        env = ["-e", str(path)]
    created = stoker("create", name, "-t", _write(stoker.directory, name, case, "before"), *env)
    assert created.exit_code in (0, 1), created.output
    nested = case["nested"]
    child_id, members = _child(stoker, name, nested)
    before = {m["resource_name"]: m["physical_resource_id"] for m in members}
    created_events = stoker.json("event", "list", child_id)
    child_mark = len(created_events)
    mark = len(stoker.json("event", "list", name))
    after = _write(stoker.directory, name, case, "after")
    result: dict[str, Any] = {
        "create_child_events": [
            [e["resource_name"], e["resource_status"]]
            for e in created_events
            if e["resource_name"] in before
        ]
    }
    preview = stoker.json("update", name, "-t", after, *env, "--dry-run", "--show-nested")
    result["preview"] = {
        kind: sorted([e.get("parent_resource") or "", e["resource_name"]] for e in entries)
        for kind, entries in preview.items()
    }
    stoker("update", name, "-t", after, *env)
    stack = stoker.json("show", name)
    result["status"] = stack["stack_status"]
    result["reason"] = stack["stack_status_reason"]
    result["outputs"] = {o["output_key"]: o.get("output_value") for o in stack["outputs"]}
    events = stoker.json("event", "list", name)[mark:]
    result["events"] = [
        [
            e["resource_name"] if e["resource_name"] != name else "<stack>",
            e["resource_status"],
            e["resource_status_reason"],
        ]
        for e in events
    ]
    child_id, members = _child(stoker, name, nested)
    result["members"] = {
        m["resource_name"]: [
            m["resource_status"],
            "old" if before.get(m["resource_name"]) == m["physical_resource_id"] else "new",
        ]
        for m in members
    }
    child_events = stoker.json("event", "list", child_id)[child_mark:]
    result["child_events"] = [[e["resource_name"], e["resource_status"]] for e in child_events]
    return result


@pytest.fixture(scope="module")
def stoker(tmp_path_factory: pytest.TempPathFactory) -> Stoker:
    directory = tmp_path_factory.mktemp("nested-update-fidelity")
    return Stoker(f"sqlite:///{directory / 'stoker.db'}", directory)


def _waves(events: list[list[str]]) -> list[set[str]]:
    """Members created together: a wave closes when every member it started is done
    (a batched create's batches; one wave otherwise)."""
    waves: list[set[str]] = []
    running: set[str] = set()
    for name, status in events:
        if status.endswith("IN_PROGRESS"):
            if not running:
                waves.append(set())
            running.add(name)
            waves[-1].add(name)
        else:
            running.discard(name)
    return waves


def _child_name(events: list[list[str]]) -> str:
    """The child stack's own name in its events (the one name that is no member)."""
    return next(n for n, s in events if s == "UPDATE_IN_PROGRESS" and not n.isdigit() and "-" in n)


def _legacy_form(reason: str) -> str:
    """A failed update's reason as the legacy engine (these recordings) words it: stoker
    follows the convergence engine (Heat's default), which puts "Resource UPDATE failed: "
    before the resource's reason, and names a member's refusal under the path down to it
    (``ResourceActionRestricted: resources.g.resources[1]: ...`` where the legacy engine
    says ``resources.g: ResourceActionRestricted: resources[1]: ...``; both recorded in
    tests/fidelity/updates, groups/restricted_member_update)."""
    reason = re.sub(r"Resource [A-Z]+ failed: ", "", reason)
    return re.sub(
        r"^(ResourceActionRestricted): (resources\.[^.:\s\[]+)\.(resources[.\[][^:]*): ",
        r"\2: \1: \3: ",
        reason,
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_nested_update_matches_heat(name: str, stoker: Stoker) -> None:
    heat = RECORDED[name]
    ours = run_case(name, CASES[name], stoker)
    assert ours["preview"] == heat["preview"]
    assert (ours["status"], _legacy_form(ours["reason"])) == (heat["status"], heat["reason"])
    events = [[*rest, _legacy_form(reason)] for *rest, reason in ours["events"]]
    assert events == heat["events"] or sorted(events) == sorted(heat["events"])
    assert ours["members"] == heat["members"]
    heat_batches = _batches(heat["child_events"], _child_name(heat["child_events"]))
    # Heat deletes a replaced member's old resource in a backup stack, out of the
    # child's events; stoker records it: members that still exist were never deleted.
    kept = [e for e in ours["child_events"] if not (e[0] in ours["members"] and "DELETE" in e[1])]
    our_batches = _batches(kept, _child_name(ours["child_events"]))
    assert our_batches == heat_batches
    assert _waves(ours["create_child_events"]) == _waves(heat["create_child_events"])
    if not any("-" in json.dumps(v) for v in heat["outputs"].values()):
        assert ours["outputs"] == heat["outputs"]
