"""Record the action sequences of cases.yaml against a running real Heat 24.1.2.

    .venv/bin/python tests/fidelity/actions/record.py [--url URL]

Also records Heat's answer to cancelling a create in progress (a TestResource that waits
4 s; the cancels are sent 1.5 s into the create), which the deterministic cancel test in
tests/engine/test_actions.py compares with. Heat is never started or stopped here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
DEFAULT_URL = "http://127.0.0.1:8004/v1/admin"


class Heat:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"X-Auth-Token": "fidelity", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text.strip() else None
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except json.JSONDecodeError:
                return error.code, {"error": {"message": text}}

    def wait(self, path: str) -> dict[str, Any]:
        for _ in range(600):
            status, body = self.call("GET", path)
            stack = body["stack"]
            if not stack["stack_status"].endswith("IN_PROGRESS"):
                return dict(stack)
            time.sleep(0.2)
        raise TimeoutError(path)

    def state(self, path: str) -> dict[str, Any]:
        stack = self.wait(path)
        _, body = self.call("GET", path + "/resources")
        resources = {
            r["resource_name"]: [r["resource_status"], r["resource_status_reason"]]
            for r in body["resources"]
        }
        return {
            "stack_status": stack["stack_status"],
            "stack_status_reason": stack["stack_status_reason"],
            "resources": dict(sorted(resources.items())),
        }


def refusal(status: int, body: Any) -> dict[str, Any] | None:
    if status < 400:
        return None
    return {"http": status, "message": body["error"]["message"]}


def run_case(heat: Heat, name: str, case: dict[str, Any]) -> dict[str, Any]:
    stack_name = f"fid-actions-{name.replace('_', '-')}"
    status, body = heat.call(
        "POST",
        "/stacks",
        {"stack_name": stack_name, "template": case["template"], "disable_rollback": True},
    )
    assert status == 201, body
    path = f"/stacks/{stack_name}/{body['stack']['id']}"
    created = heat.state(path)
    steps = []
    try:
        for step in case["steps"]:
            action = step["action"]
            extra: dict[str, Any] = {}
            if action in ("check", "suspend", "resume", "cancel_update", "cancel_without_rollback"):
                status, body = heat.call("POST", path + "/actions", {action: None})
            elif action in ("mark_unhealthy", "reset"):
                patch = {"mark_unhealthy": action == "mark_unhealthy"}
                if step.get("reason"):
                    patch["resource_status_reason"] = step["reason"]
                status, body = heat.call("PATCH", f"{path}/resources/{step['resource']}", patch)
            elif action == "snapshot":
                status, body = heat.call("POST", path + "/snapshots", {"name": "s1"})
                heat.wait(path)
                _, shown = heat.call("GET", f"{path}/snapshots/{body['id']}")
                snapshot = shown["snapshot"]
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
            steps.append(
                {"step": step, "refused": refusal(status, body), **heat.state(path), **extra}
            )
    finally:
        heat.call("DELETE", path)
    return {"created": created, "steps": steps}


CANCEL_TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "a": {"type": "OS::Heat::None"},
        "slow": {
            "type": "OS::Heat::TestResource",
            "depends_on": "a",
            "properties": {"value": "x", "action_wait_secs": {"create": 4}},
        },
        "after": {"type": "OS::Heat::None", "depends_on": "slow"},
    },
}


def cancel_create(heat: Heat) -> dict[str, Any]:
    status, body = heat.call(
        "POST",
        "/stacks",
        {"stack_name": "fid-actions-cancel", "template": CANCEL_TEMPLATE, "disable_rollback": True},
    )
    path = f"/stacks/fid-actions-cancel/{body['stack']['id']}"
    time.sleep(1.5)
    with_rollback = refusal(*heat.call("POST", path + "/actions", {"cancel_update": None}))
    without = refusal(*heat.call("POST", path + "/actions", {"cancel_without_rollback": None}))
    state = heat.state(path)
    heat.call("DELETE", path)
    return {"cancel_update": with_rollback, "cancel_without_rollback": without, **state}


DOCUMENT_TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"len": {"type": "number", "default": 8}},
    "resources": {
        "rand": {"type": "OS::Heat::RandomString", "properties": {"length": {"get_param": "len"}}},
        "none": {"type": "OS::Heat::None", "depends_on": "rand"},
        "val": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"get_attr": ["rand", "value"]}},
        },
    },
    "outputs": {"r": {"value": {"get_attr": ["val", "value"]}}},
}


def heat_document(heat: Heat) -> dict[str, Any]:
    """A stack's document as Heat writes it (abandon and export are off in the reference
    Heat; a snapshot's data is the same ``prepare_abandon`` document), with the stack's
    output, for stoker to adopt."""
    status, body = heat.call(
        "POST",
        "/stacks",
        {
            "stack_name": "fid-actions-document",
            "template": DOCUMENT_TEMPLATE,
            "parameters": {"len": "10"},
            "disable_rollback": True,
        },
    )
    path = f"/stacks/fid-actions-document/{body['stack']['id']}"
    heat.wait(path)
    _, made = heat.call("POST", path + "/snapshots", {"name": "doc"})
    for _ in range(100):
        _, shown = heat.call("GET", f"{path}/snapshots/{made['id']}")
        if shown["snapshot"]["status"] != "IN_PROGRESS":
            break
        time.sleep(0.2)
    _, stack = heat.call("GET", path)
    outputs = {o["output_key"]: o["output_value"] for o in stack["stack"]["outputs"]}
    heat.call("DELETE", path)
    return {"document": shown["snapshot"]["data"], "outputs": outputs}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default=DEFAULT_URL)
    args = parser.parse_args()
    heat = Heat(args.url)
    cases = yaml.safe_load((HERE / "cases.yaml").read_text())
    recording = {name: run_case(heat, name, case) for name, case in cases.items()}
    recording["_cancel_create"] = cancel_create(heat)
    recording["_document"] = heat_document(heat)
    (HERE / "recording.json").write_text(json.dumps(recording, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(recording)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
