"""Re-record what real Heat 24.1.2 does with the deletion policy of a replaced resource
(cases.yaml → recordings.json).

Each case creates a stack from ``before``, updates it to ``after`` and records the final
stack status and reason, the update's events (physical ids reduced to "old"/"new"), the
final resources, and whether each resource's old physical resource, a child stack, is
still there (``left``: GET of the child stack by id), and whether what the update
created is still there once it (or its rollback) ends (``made_left``). Run only when
re-recording, against the reference Heat (``../shared/tools/reference-heat``, legacy
engine):

    .venv/bin/python tests/fidelity/update_retain/record.py [CASE...]
"""

from __future__ import annotations

import json
import pathlib
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import yaml

HERE = pathlib.Path(__file__).parent
URL = "http://127.0.0.1:8004/v1/admin"


def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"X-Auth-Token": "x", "Content-Type": "application/json"}
    request = urllib.request.Request(URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            text = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        text, status = error.read(), error.code
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, None


def wait(path: str) -> dict[str, Any]:
    while True:
        _, body = call("GET", path)
        stack = body["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            return stack
        time.sleep(0.5)


def left(stack_id: str) -> bool:
    """Whether a (child) stack is still there, not deleted."""
    status, body = call("GET", f"/stacks/{stack_id}")
    return status == 200 and body["stack"]["stack_status"] != "DELETE_COMPLETE"


def made_left(events: list[dict[str, Any]], stack: str, there: Any) -> dict[str, list[bool]]:
    """Per resource, whether each physical resource the update itself (not its rollback)
    created is still there: what a rollback did with it, by its own policy."""
    found: dict[str, list[bool]] = {}
    for e in events:
        if e["resource_name"] == stack and e["resource_status"] == "ROLLBACK_IN_PROGRESS":
            break
        if e["resource_status"] == "CREATE_COMPLETE" and e["resource_name"] != stack:
            found.setdefault(e["resource_name"], []).append(there(e["physical_resource_id"]))
    return found


def record(name: str, case: dict[str, Any]) -> dict[str, Any]:
    stack_name = f"fid-retain-{name}-{int(time.time())}"
    body = {"stack_name": stack_name, "template": case["before"], "disable_rollback": True}
    _, created = call("POST", "/stacks", body)
    path = f"/stacks/{stack_name}/{created['stack']['id']}"
    first = wait(path)
    _, events = call("GET", path + "/events?sort_dir=asc&limit=1000")
    seen = len(events["events"])
    _, resources = call("GET", path + "/resources")
    before_ids = {r["resource_name"]: r["physical_resource_id"] for r in resources["resources"]}
    result: dict[str, Any] = {"create_status": first["stack_status"]}
    update = {"template": case["after"], "disable_rollback": True, **case.get("update", {})}
    status, _ = call("PUT", path, update)
    result["update_http"] = status
    stack = wait(path)
    result["status"] = stack["stack_status"]
    result["reason"] = stack["stack_status_reason"]
    _, events = call("GET", path + "/events?sort_dir=asc&limit=1000")
    result["events"] = [
        [
            e["resource_name"] if e["resource_name"] != stack_name else "<stack>",
            e["resource_status"],
            e["resource_status_reason"].replace(stack_name, "<stack>"),
            "old" if e["physical_resource_id"] == before_ids.get(e["resource_name"]) else "new",
        ]
        for e in events["events"][seen:]
    ]
    result["made_left"] = made_left(events["events"][seen:], stack_name, left)
    _, resources = call("GET", path + "/resources")
    result["resources"] = {
        r["resource_name"]: [
            r["resource_status"],
            r["resource_type"],
            "old" if r["physical_resource_id"] == before_ids.get(r["resource_name"]) else "new",
        ]
        for r in resources["resources"]
    }
    result["left"] = {n: left(i) for n, i in sorted(before_ids.items()) if i}
    call("DELETE", path)
    wait(path) if call("GET", path)[0] == 200 else None
    result["left_after_stack_delete"] = {n: left(i) for n, i in sorted(before_ids.items()) if i}
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
        print(name, recorded[name]["status"], recorded[name]["left"], file=sys.stderr)
    out.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
