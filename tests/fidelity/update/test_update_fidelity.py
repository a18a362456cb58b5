"""stoker's stack update against Heat 24.1.2's answers (see README.md beside this file)."""

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

#: what differs on purpose (README.md): the case compares everything else
SWAPS_BACK = {"fail_rollback"}


def _reason(text: str) -> str:
    """Without the exception class (Heat's ValueError is stoker's ResourceFailure), and
    in the legacy engine's form (these recordings): stoker follows the convergence engine,
    Heat's default, whose failed update says "Resource UPDATE failed: " first."""
    text = re.sub(r"Resource [A-Z]+ failed: ", "", text)
    return re.sub(r"^\w+: (resources\.)", r"\1", text)


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


def run_case(name: str, case: dict[str, Any], stoker: Stoker) -> dict[str, Any]:
    create = ["create", name, "-t", stoker.file(f"{name}-before.yaml", case["before"])]
    for key, value in (case.get("create", {}).get("parameters") or {}).items():
        create += ["--parameter", f"{key}={value}"]
    assert stoker(*create).exit_code in (0, 1)
    before = {
        r["resource_name"]: r["physical_resource_id"]
        for r in json.loads(stoker("resource", "list", name, "-f", "json").stdout)
    }
    mark = len(json.loads(stoker("event", "list", name, "-f", "json").stdout))
    update = ["update", name]
    if "after" in case or not case.get("existing"):
        update += ["-t", stoker.file(f"{name}-after.yaml", case.get("after", case["before"]))]
    if case.get("existing"):
        update.append("--existing")
    body = case.get("update", {})
    for key, value in (body.get("parameters") or {}).items():
        update += ["--parameter", f"{key}={value}"]
    for key in body.get("clear_parameters") or ():
        update += ["--clear-parameter", key]
    if "environment" in body:
        update += ["-e", stoker.file(f"{name}-env.yaml", body["environment"])]
    if body.get("disable_rollback") is False:
        update += ["--rollback", "enabled"]
    result: dict[str, Any] = {}
    preview = stoker(*update, "--dry-run", "-f", "json")
    if preview.exit_code == 0:
        changes = json.loads(preview.stdout)
        result["preview"] = {k: sorted(r["resource_name"] for r in v) for k, v in changes.items()}
    else:
        result["preview"] = {"status": 400}
    ran = stoker(*update, "-f", "json")
    if ran.exit_code != 0 and not ran.stdout.strip():
        result["update_error"] = ran.stderr.strip().removeprefix("error: ")
    stack = json.loads(stoker("show", name, "-f", "json").stdout)
    result["status"] = stack["stack_status"]
    result["reason"] = stack["stack_status_reason"]
    result["parameters"] = {k: v for k, v in stack["parameters"].items() if "::" not in k}
    events = json.loads(stoker("event", "list", name, "-f", "json").stdout)[mark:]
    resources = json.loads(stoker("resource", "list", name, "-f", "json").stdout)
    current = {r["resource_name"]: r["physical_resource_id"] for r in resources}
    result["events"] = [
        [
            e["resource_name"] if e["resource_name"] != name else "<stack>",
            e["resource_status"],
            e["resource_status_reason"],
            "old" if e["physical_resource_id"] == before.get(e["resource_name"]) else "new",
        ]
        for e in events
    ]
    result["resources"] = {
        n: [r["resource_status"], "old" if current[n] == before.get(n) else "new"]
        for n, r in ((r["resource_name"], r) for r in resources)
    }
    return result


def per_resource(events: list[list[str]], replaced: set[str]) -> dict[str, list[tuple[str, str]]]:
    """Each resource's (status, reason) sequence; stoker's deletions of a replaced
    resource's old physical resource (which Heat keeps in a backup stack) left out."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name, status, reason, which in events:
        if name in replaced and status.startswith("DELETE") and which == "old":
            continue
        if name == "<stack>" or "replacement" in reason:
            reason = reason if name == "<stack>" else "requires replacement"
        found.setdefault(name, []).append((status, _reason(reason)))
    return found


@pytest.fixture(scope="module")
def stoker(tmp_path_factory: pytest.TempPathFactory) -> Stoker:
    directory = tmp_path_factory.mktemp("update-fidelity")
    return Stoker(f"sqlite:///{directory / 'stoker.db'}", directory)


@pytest.mark.parametrize("name", sorted(CASES))
def test_update_matches_heat(name: str, stoker: Stoker) -> None:
    heat = RECORDED[name]
    ours = run_case(name, CASES[name], stoker)
    assert ours["preview"] == heat["preview"]
    assert ours["status"] == heat["status"]
    assert _reason(ours["reason"]) == _reason(heat["reason"])
    assert ours["parameters"] == heat["parameters"]
    if heat["update_http"] >= 400:
        assert ours.get("update_error") == heat["update_error"]
        return
    if name in SWAPS_BACK:
        assert {n: s for n, (s, _) in ours["resources"].items()} == {
            n: s for n, (s, _) in heat["resources"].items()
        }
        return
    assert ours["resources"] == heat["resources"]
    replaced = set(heat["preview"].get("replaced", []))
    assert per_resource(ours["events"], replaced) == per_resource(heat["events"], replaced)
