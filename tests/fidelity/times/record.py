"""Record when real Heat 24.1.2 sets a stack's updated_time (cases.yaml beside this file).

    .venv/bin/python tests/fidelity/times/record.py [--url URL]

Writes recording.json: for each case, after the create and after each step, the stack's
status and the updated_time of each view (`GET /stacks/{name}/{id}`, its row in
`GET /stacks`, the nested stack named by `child`) as `null`, `kept` or `set` (see
cases.yaml). Also three facts outside the sequences: `_update_time_is_start` (an update
whose resource takes 3 s: is updated_time the update's start, the time of its
`UPDATE IN_PROGRESS` event, or its end), `_cancel` (an update cancelled and rolled back)
and `_sort` (the order of `GET /stacks?sort_keys=updated_at` with stacks never updated).
Heat is never started or stopped here; start it with ``ENGINE=convergence`` (Heat's
default engine, the reference here). recording-legacy.json is the same run against
``ENGINE=legacy``, kept for comparison (nothing replays it).
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
#: Heat's times have whole seconds: a step waits past the second of the one before it
PAUSE = 1.2


class Heat:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """The answer's status and JSON body (None when it is not JSON: an update's 202)."""
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"X-Auth-Token": "fidelity", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        try:
            return status, json.loads(text)
        except json.JSONDecodeError:
            return status, None


def _classify(value: str | None, before: str | None) -> str:
    if value is None:
        return "null"
    return "kept" if value == before else "set"


class Views:
    """The updated_time each view showed last, to classify the next one."""

    def __init__(self) -> None:
        self.last: dict[str, str | None] = {}
        self.child_paths: dict[str, str] = {}  # found while the stack is there

    def read(self, heat: Heat, name: str, path: str, child: str | None) -> dict[str, Any]:
        status, body = heat.call("GET", path)
        shown: dict[str, Any] = {}
        if status == 404:
            shown["show"] = "not found"
            values: dict[str, str | None] = {}
        else:
            stack = body["stack"]
            shown["stack_status"] = stack["stack_status"]
            values = {"show": stack["updated_time"]}
        _, listed = heat.call("GET", f"/stacks?name={name}&show_deleted=True")
        rows = listed["stacks"]
        values["list"] = rows[0]["updated_time"] if rows else None
        if not rows:
            shown["list"] = "absent"
        if child is not None:
            child_path = self.child_path(heat, path, child)
            if child_path is not None:
                status, body = heat.call("GET", child_path)
                if status == 404:
                    shown["child"] = "not found"
                else:
                    values["child"] = body["stack"]["updated_time"]
                    shown["child_status"] = body["stack"]["stack_status"]
        for view, value in values.items():
            shown[view] = _classify(value, self.last.get(view))
            self.last[view] = value
        return shown

    def child_path(self, heat: Heat, path: str, child: str) -> str | None:
        if path not in self.child_paths:
            status, body = heat.call("GET", f"{path}/resources/{child}")
            if status != 200 or not body["resource"]["physical_resource_id"]:
                return None
            self.child_paths[path] = f"/stacks/{body['resource']['physical_resource_id']}"
        return self.child_paths[path]


def wait(heat: Heat, path: str, rollback: bool = False) -> None:
    """Until the stack's operation ended; with ``rollback``, a failed create or update
    also waits (5 s at most) for the rollback that follows it."""
    failed_at = None
    for _ in range(600):
        status, body = heat.call("GET", path)
        if status == 404:
            return
        shown = body["stack"]["stack_status"]
        if rollback and shown in ("CREATE_FAILED", "UPDATE_FAILED"):
            failed_at = failed_at or time.monotonic()
            if time.monotonic() - failed_at > 5:
                return
        elif not shown.endswith("IN_PROGRESS"):
            return
        time.sleep(0.2)
    raise TimeoutError(path)


def step(heat: Heat, path: str, spec: dict[str, Any], snapshots: list[str]) -> int:
    action = spec["action"]
    if action in ("check", "suspend", "resume"):
        status, _ = heat.call("POST", path + "/actions", {action: None})
    elif action == "cancel":
        status, _ = heat.call("POST", path + "/actions", {"cancel_update": None})
    elif action == "snapshot":
        status, body = heat.call("POST", path + "/snapshots", {"name": "s1"})
        snapshots.append(body["id"])
    elif action == "restore":
        status, _ = heat.call("POST", f"{path}/snapshots/{snapshots[-1]}/restore")
    elif action == "delete":
        status, _ = heat.call("DELETE", path)
    elif action == "update":
        body = {"parameters": spec.get("parameters", {})}
        if "template" in spec:
            body["template"] = spec["template"]
        body["disable_rollback"] = not spec.get("rollback", False)
        method = "PATCH" if spec.get("existing") else "PUT"
        status, answer = heat.call(method, path, body)
        assert status < 400, answer
    else:
        raise ValueError(action)
    return status


def run_case(heat: Heat, name: str, case: dict[str, Any]) -> dict[str, Any]:
    stack_name = f"fid-times-{name.replace('_', '-')}"
    status, body = heat.call(
        "POST",
        "/stacks",
        {
            "stack_name": stack_name,
            "template": case["template"],
            "disable_rollback": not case.get("rollback", False),
        },
    )
    assert status == 201, body
    path = f"/stacks/{stack_name}/{body['stack']['id']}"
    wait(heat, path, case.get("rollback", False))
    views = Views()
    created = views.read(heat, stack_name, path, case.get("child"))
    steps, snapshots = [], []
    try:
        for spec in case["steps"]:
            time.sleep(PAUSE)
            step(heat, path, spec, snapshots)
            time.sleep(0.3)
            wait(heat, path, spec.get("rollback", False))
            steps.append(views.read(heat, stack_name, path, case.get("child")))
    finally:
        heat.call("DELETE", path)
        wait(heat, path)
    return {"created": created, "steps": steps}


SLOW = """heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}, action_wait_secs: {update: 3}}
"""


def _stack_events(heat: Heat, path: str, name: str) -> list[dict[str, Any]]:
    _, body = heat.call("GET", f"{path}/events?resource_name={name}&sort_dir=asc")
    return list(body["events"])


def update_time_is_start(heat: Heat) -> dict[str, Any]:
    """Whether an update's updated_time is the time it began (its stack event
    ``UPDATE IN_PROGRESS``) or the time it ended (``UPDATE COMPLETE``, 3 s later)."""
    name = "fid-times-slow"
    _, body = heat.call("POST", "/stacks", {"stack_name": name, "template": SLOW})
    path = f"/stacks/{name}/{body['stack']['id']}"
    wait(heat, path)
    time.sleep(PAUSE)
    heat.call("PATCH", path, {"parameters": {"v": "two"}})
    time.sleep(0.3)
    wait(heat, path)
    _, body = heat.call("GET", path)
    updated = body["stack"]["updated_time"]
    times = {
        e["resource_status"]: e["event_time"]
        for e in _stack_events(heat, path, name)
        if e["resource_status"].startswith("UPDATE_")
    }
    heat.call("DELETE", path)
    wait(heat, path)
    return {
        "equals_in_progress_event": updated == times["UPDATE_IN_PROGRESS"],
        "before_complete_event": updated < times["UPDATE_COMPLETE"],
    }


def cancel(heat: Heat) -> dict[str, Any]:
    """An update cancelled 1.5 s in (its resource takes 3 s) and rolled back."""
    name = "fid-times-cancel"
    _, body = heat.call("POST", "/stacks", {"stack_name": name, "template": SLOW})
    path = f"/stacks/{name}/{body['stack']['id']}"
    wait(heat, path)
    views = Views()
    created = views.read(heat, name, path, None)
    time.sleep(PAUSE)
    heat.call("PATCH", path, {"parameters": {"v": "two"}, "disable_rollback": False})
    time.sleep(1.5)
    heat.call("POST", path + "/actions", {"cancel_update": None})
    time.sleep(0.3)
    wait(heat, path)
    after = views.read(heat, name, path, None)
    _, body = heat.call("GET", path)
    updated = body["stack"]["updated_time"]
    starts = [
        e["event_time"]
        for e in _stack_events(heat, path, name)
        if e["resource_status"] in ("UPDATE_IN_PROGRESS", "ROLLBACK_IN_PROGRESS")
    ]
    heat.call("DELETE", path)
    wait(heat, path)
    return {
        "created": created,
        "cancelled": after,
        "starts": len(starts),
        "equals_rollback_start": updated == starts[-1],
    }


def sort(heat: Heat) -> dict[str, Any]:
    """Four stacks created in turn, the last and then the second updated: the list sorted
    by updated_time and by updated_at, both ways. The stacks never updated are written
    ``<null>``: Heat breaks ties by id (a random UUID), so their order among themselves is
    not a fact about Heat. Heat's reference stores in SQLite, which puts NULL first in
    ascending order (as MySQL does)."""
    names = [f"fid-times-sort-{letter}" for letter in "abcd"]
    paths = []
    for name in names:
        _, body = heat.call(
            "POST", "/stacks", {"stack_name": name, "template": "heat_template_version: 2018-08-31"}
        )
        paths.append(f"/stacks/{name}/{body['stack']['id']}")
        wait(heat, paths[-1])
        time.sleep(PAUSE)
    for index in (3, 1):
        heat.call("PATCH", paths[index], {"parameters": {}})
        time.sleep(0.3)
        wait(heat, paths[index])
        time.sleep(PAUSE)
    orders = {}
    for key in ("updated_time", "updated_at"):
        for direction in ("asc", "desc"):
            _, body = heat.call("GET", f"/stacks?sort_keys={key}&sort_dir={direction}")
            orders[f"{key} {direction}"] = [
                s["stack_name"] if s["updated_time"] is not None else "<null>"
                for s in body["stacks"]
                if s["stack_name"] in names
            ]
    for path in paths:
        heat.call("DELETE", path)
        wait(heat, path)
    return orders


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    heat = Heat(args.url)
    cases = yaml.safe_load((HERE / "cases.yaml").read_text())
    target = HERE / "recording.json"
    recording = json.loads(target.read_text()) if target.exists() and args.only else {}
    for name, case in cases.items():
        if args.only is None or name in args.only:
            recording[name] = run_case(heat, name, case)
            print(name, json.dumps(recording[name]))
    if args.only is None or "_update_time_is_start" in args.only:
        recording["_update_time_is_start"] = update_time_is_start(heat)
    if args.only is None or "_cancel" in args.only:
        recording["_cancel"] = cancel(heat)
    if args.only is None or "_sort" in args.only:
        recording["_sort"] = sort(heat)
    target.write_text(json.dumps(recording, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(recording)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
