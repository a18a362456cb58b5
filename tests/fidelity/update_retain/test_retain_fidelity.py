"""The deletion policy of a resource an update replaces (or removes), against Heat 24.1.2's
answers (see README.md beside this file): the old resource goes by its own definition's
policy, not the new one's."""

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

#: Heat's legacy rollback creates a third resource; stoker swaps the old one back (see
#: tests/fidelity/update/README.md): which physical resource is current differs
SWAPS_BACK = {"retain_rollback", "rollback_new_retain", "rollback_new_delete"}


class Stoker:
    def __init__(self, url: str, directory: Path) -> None:
        self.url = url
        self.directory = directory

    def __call__(self, *args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", self.url, "stack", *args], catch_exceptions=False)

    def file(self, name: str, data: Any) -> str:
        path = self.directory / name
        path.write_text(yaml.safe_dump(data))
        return str(path)

    def left(self, stack_id: str) -> bool:
        shown = self("show", stack_id, "-f", "json")
        return shown.exit_code == 0 and json.loads(shown.stdout)["stack_status"] != (
            "DELETE_COMPLETE"
        )


def run_case(name: str, case: dict[str, Any], stoker: Stoker) -> dict[str, Any]:
    created = stoker("create", name, "-t", stoker.file(f"{name}-before.yaml", case["before"]))
    assert created.exit_code == 0, created.output
    before = {
        r["resource_name"]: r["physical_resource_id"]
        for r in json.loads(stoker("resource", "list", name, "-f", "json").stdout)
    }
    mark = len(json.loads(stoker("event", "list", name, "-f", "json").stdout))
    update = ["update", name, "-t", stoker.file(f"{name}-after.yaml", case["after"])]
    if case.get("update", {}).get("disable_rollback") is False:
        update += ["--rollback", "enabled"]
    stoker(*update)
    stack = json.loads(stoker("show", name, "-f", "json").stdout)
    events = json.loads(stoker("event", "list", name, "-f", "json").stdout)[mark:]
    resources = json.loads(stoker("resource", "list", name, "-f", "json").stdout)
    result: dict[str, Any] = {
        "status": stack["stack_status"],
        "reason": stack["stack_status_reason"],
        "events": [
            [
                e["resource_name"] if e["resource_name"] != name else "<stack>",
                e["resource_status"],
                e["resource_status_reason"],
                "old" if e["physical_resource_id"] == before.get(e["resource_name"]) else "new",
            ]
            for e in events
        ],
        "resources": {
            r["resource_name"]: [
                r["resource_status"],
                r["resource_type"],
                "old" if r["physical_resource_id"] == before.get(r["resource_name"]) else "new",
            ]
            for r in resources
        },
        "left": {n: stoker.left(i) for n, i in sorted(before.items()) if i},
        "made_left": made_left(events, name, stoker.left),
    }
    assert stoker("delete", name, "--yes").exit_code == 0
    result["left_after_stack_delete"] = {n: stoker.left(i) for n, i in sorted(before.items()) if i}
    return result


def made_left(events: list[dict[str, Any]], stack: str, there: Any) -> dict[str, list[bool]]:
    """As record.py's: per resource, whether each physical resource the update itself
    (not its rollback) created is still there."""
    found: dict[str, list[bool]] = {}
    for e in events:
        if e["resource_name"] == stack and e["resource_status"] == "ROLLBACK_IN_PROGRESS":
            break
        if e["resource_status"] == "CREATE_COMPLETE" and e["resource_name"] != stack:
            found.setdefault(e["resource_name"], []).append(there(e["physical_resource_id"]))
    return found


def _reason(text: str) -> str:
    """Without the exception class (Heat's ValueError is stoker's ResourceFailure)."""
    return re.sub(r"^\w+: (resources\.)", r"\1", text)


def per_resource(events: list[list[str]], replaced: bool) -> dict[str, list[tuple[str, str]]]:
    """Each resource's (status, reason) sequence, without the deletion of a replaced `g`'s
    old resource, which Heat does in a backup stack (its events never reach the stack;
    stoker records them). A removed `g` is deleted in the stack itself: kept."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name, status, reason, _ in events:
        if replaced and name == "g" and status.startswith("DELETE"):
            continue
        found.setdefault(name, []).append((status, _reason(reason)))
    return found


@pytest.fixture(scope="module")
def stoker(tmp_path_factory: pytest.TempPathFactory) -> Stoker:
    directory = tmp_path_factory.mktemp("retain-fidelity")
    return Stoker(f"sqlite:///{directory / 'stoker.db'}", directory)


@pytest.mark.parametrize("name", sorted(CASES))
def test_replaced_resource_keeps_its_own_deletion_policy(name: str, stoker: Stoker) -> None:
    heat = RECORDED[name]
    ours = run_case(name, CASES[name], stoker)
    assert ours["status"] == heat["status"]
    assert ours["reason"] == heat["reason"]
    assert ours["left"] == heat["left"]
    assert ours["made_left"] == heat["made_left"]
    assert ours["left_after_stack_delete"] == heat["left_after_stack_delete"]
    if name in SWAPS_BACK:  # the swapped-back group is then updated (Heat's third: created)
        assert {n: (r[0].endswith("_COMPLETE"), r[1]) for n, r in ours["resources"].items()} == {
            n: (r[0].endswith("_COMPLETE"), r[1]) for n, r in heat["resources"].items()
        }
        return
    assert ours["resources"] == heat["resources"]
    replaced = "g" in heat["resources"]
    assert per_resource(ours["events"], replaced) == per_resource(heat["events"], replaced)
