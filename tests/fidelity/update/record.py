"""Re-record what real Heat 24.1.2 does on stack update (cases.yaml → recordings.json).

Each case creates a stack from ``before``, optionally previews and updates it to ``after``
(PUT, or PATCH with ``existing: true``), and records the preview's resource_changes (names
per kind), the update's HTTP verdict, the final stack status and reason, the events of the
update (resource, status, reason, with physical ids reduced to "same"/"new" per resource)
and the final resources. Run only when re-recording, against the reference Heat:

    .venv/bin/python tests/fidelity/update/record.py
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


def record(name: str, case: dict[str, Any]) -> dict[str, Any]:
    stack_name = f"fid-upd-{name}-{int(time.time())}"
    body = {"stack_name": stack_name, "template": case["before"], "disable_rollback": True}
    body.update(case.get("create", {}))
    _, created = call("POST", "/stacks", body)
    path = f"/stacks/{stack_name}/{created['stack']['id']}"
    first = wait(path)
    _, events = call("GET", path + "/events?sort_dir=asc&limit=1000")
    seen = len(events["events"])
    _, resources = call("GET", path + "/resources")
    before_ids = {r["resource_name"]: r["physical_resource_id"] for r in resources["resources"]}
    result: dict[str, Any] = {"create_status": first["stack_status"]}
    update = {"template": case.get("after", case["before"]), **case.get("update", {})}
    if case.get("existing"):
        update = dict(case.get("update", {}))
        if "after" in case:
            update["template"] = case["after"]
    method = "PATCH" if case.get("existing") else "PUT"
    if case.get("preview", True):
        status, preview = call(method if method == "PUT" else "PATCH", path + "/preview", update)
        if status == 200:
            changes = preview["resource_changes"]
            result["preview"] = {
                k: sorted(r["resource_name"] for r in v) for k, v in changes.items()
            }
        else:
            result["preview"] = {"status": status}
    status, answer = call(method, path, update)
    result["update_http"] = status
    if status >= 400:
        result["update_error"] = answer["error"]["message"]
    stack = wait(path)
    result["status"] = stack["stack_status"]
    result["reason"] = stack["stack_status_reason"]
    result["parameters"] = {
        k: v for k, v in stack["parameters"].items() if not k.startswith("OS::")
    }
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
    _, resources = call("GET", path + "/resources")
    result["resources"] = {
        r["resource_name"]: [
            r["resource_status"],
            "old" if r["physical_resource_id"] == before_ids.get(r["resource_name"]) else "new",
        ]
        for r in resources["resources"]
    }
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
