"""Record nested-stack update cases against the reference Heat (see README.md)."""

from __future__ import annotations

import json
import pathlib
import sys
import time
from typing import Any

import yaml

HERE = pathlib.Path(__file__).parent
# run as a script from the checkout: the update recorder's HTTP helpers serve both
sys.path.insert(0, str(HERE.parents[2]))
from tests.fidelity.update.record import call, wait  # noqa: E402


def child(path: str, resource: str) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """The child stack's path, its resources and its events."""
    _, body = call("GET", f"{path}/resources/{resource}")
    child_id = body["resource"]["physical_resource_id"]
    _, body = call("GET", f"/stacks/{child_id}")
    stack = body["stack"]
    child_path = f"/stacks/{stack['stack_name']}/{stack['id']}"
    _, resources = call("GET", child_path + "/resources")
    _, events = call("GET", child_path + "/events?sort_dir=asc&limit=1000")
    return child_path, resources["resources"], events["events"]


def members(resources: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {
        r["resource_name"]: [r["resource_status"], r["physical_resource_id"]] for r in resources
    }


def record(name: str, case: dict[str, Any]) -> dict[str, Any]:
    stack_name = f"fid-nupd-{name}-{int(time.time())}"
    files = case.get("files", {})
    body = {"stack_name": stack_name, "template": case["before"], "disable_rollback": True}
    body["files"] = files
    if "environment" in case:
        body["environment"] = case["environment"]
    _, created = call("POST", "/stacks", body)
    path = f"/stacks/{stack_name}/{created['stack']['id']}"
    first = wait(path)
    result: dict[str, Any] = {"create_status": first["stack_status"]}
    _, events = call("GET", path + "/events?sort_dir=asc&limit=1000")
    seen = len(events["events"])
    nested = case.get("nested")
    before_members: dict[str, list[str]] = {}
    child_seen = 0
    if nested:
        _, resources, child_events = child(path, nested)
        before_members = members(resources)
        result["create_members"] = {k: v[0] for k, v in sorted(before_members.items())}
        result["create_child_events"] = [
            [e["resource_name"], e["resource_status"]]
            for e in child_events
            if e["resource_name"] in before_members or e["resource_name"].isdigit()
        ]
        child_seen = len(child_events)
    update = {"template": case["after"], "files": files}
    if "environment" in case:
        update["environment"] = case["environment"]
    status, preview = call("PUT", path + "/preview?show_nested=True", update)
    if status == 200:
        result["preview"] = {
            k: sorted([r.get("parent_resource") or "", r["resource_name"]] for r in v)
            for k, v in preview["resource_changes"].items()
        }
    else:
        result["preview"] = {"status": status, "error": preview}
    status, answer = call("PUT", path, update)
    result["update_http"] = status
    if status >= 400:
        result["update_error"] = answer["error"]["message"]
    stack = wait(path)
    result["status"] = stack["stack_status"]
    result["reason"] = stack["stack_status_reason"]
    result["outputs"] = {o["output_key"]: o.get("output_value") for o in stack.get("outputs") or []}
    _, events = call("GET", path + "/events?sort_dir=asc&limit=1000")
    result["events"] = [
        [
            e["resource_name"] if e["resource_name"] != stack_name else "<stack>",
            e["resource_status"],
            e["resource_status_reason"].replace(stack_name, "<stack>"),
        ]
        for e in events["events"][seen:]
    ]
    if nested:
        _, resources, child_events = child(path, nested)
        after = members(resources)
        result["members"] = {
            k: [v[0], "old" if before_members.get(k, [0, None])[1] == v[1] else "new"]
            for k, v in sorted(after.items())
        }
        result["child_events"] = [
            [e["resource_name"], e["resource_status"]] for e in child_events[child_seen:]
        ]
    call("DELETE", path)
    return result


def main() -> None:
    cases = yaml.safe_load((HERE / "cases.yaml").read_text())
    only = sys.argv[1:]
    out = HERE / "recordings.json"
    recorded = json.loads(out.read_text()) if out.exists() else {}
    for name, case in cases.items():
        if only and name not in only:
            continue
        recorded[name] = record(name, case)
        print(name, recorded[name]["status"], file=sys.stderr)
        out.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
