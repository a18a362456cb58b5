"""Record what real Heat 24.1.2 does on stack update, per engine (cases → recordings).

Run only when (re-)recording, against a running reference Heat of each engine
(``../shared/tools/reference-heat/heat.sh``; ``ENGINE=convergence`` for Heat's default):

    PORT=8004 heat.sh start; ENGINE=convergence PORT=8005 heat.sh start
    .venv/bin/python -m tests.fidelity.updates.record --engine legacy --port 8004 --stale
    .venv/bin/python -m tests.fidelity.updates.record --engine convergence --port 8005 --stale

``--only PREFIX`` (repeatable) limits the run to case ids starting with it
(``rollback/``, ``rollback/replace_fails``); ``--stale`` to cases not recorded for that
engine or edited since. Each case: create from ``before`` and wait; preview; update and
wait; read the stack, its events, resources and outputs; delete and wait.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import suite

#: how long a FAILED stack whose rollback is enabled is watched for the rollback to start
ROLLBACK_GRACE_S = 8.0
#: how long resources still IN_PROGRESS after the stack's end are waited for
SETTLE_S = 30.0


class Heat:
    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}/v1/admin"

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"X-Auth-Token": "x", "Content-Type": "application/json"}
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                text, status = response.read(), response.status
        except urllib.error.HTTPError as error:
            text, status = error.read(), error.code
        try:
            return status, json.loads(text) if text else None
        except ValueError:
            return status, {"error": {"message": text.decode(errors="replace")}}

    def wait(self, path: str, seconds: float = 600, *, deleting: bool = False) -> dict[str, Any]:
        """The stack once its operation ends. Polled without its outputs: resolving them
        while a nested stack changes can answer 404 (a member being replaced) and, on the
        convergence engine, stall the update; the outputs are read once at the end."""
        deadline = time.monotonic() + seconds
        failed_at: float | None = None
        while time.monotonic() < deadline:
            status, body = self.call("GET", path + "?resolve_outputs=False")
            if status == 404 and deleting:
                return {"stack_status": "GONE", "stack_status_reason": ""}
            if status >= 400:  # seen once mid-rollback (convergence): asked again
                time.sleep(0.3)
                continue
            stack = body["stack"]
            if not stack["stack_status"].endswith("IN_PROGRESS"):
                # The convergence engine shows CREATE_FAILED / UPDATE_FAILED for a moment
                # before the rollback it then starts: a stack that rolls back is waited
                # for a little longer (ROLLBACK_IN_PROGRESS), or its rollback is missed.
                rolls_back = stack["stack_status"] in ("CREATE_FAILED", "UPDATE_FAILED") and (
                    stack.get("disable_rollback") is False
                )
                failed_at = failed_at or time.monotonic()
                if not rolls_back or time.monotonic() - failed_at > ROLLBACK_GRACE_S:
                    status, body = self.call("GET", path)
                    return dict(body["stack"]) if status == 200 else stack
            time.sleep(0.3)
        raise TimeoutError(path)

    def settle(self, path: str) -> None:
        """Wait (a little) until no resource is IN_PROGRESS: the convergence engine marks
        the stack FAILED at the first failure while other resources are still being
        worked on, and what the user is left with is where those end."""
        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline:
            found = self.resources(path)
            if not any(r["resource_status"].endswith("IN_PROGRESS") for r in found):
                return
            time.sleep(0.5)

    def listing(self, path: str, key: str) -> list[dict[str, Any]]:
        """A list read again on a 404: the convergence engine purges a finished update's
        old resource rows just after the stack completes, and a listing racing that
        answers 404 once."""
        for _ in range(5):
            status, body = self.call("GET", path)
            if status == 200:
                return list(body[key])
            time.sleep(1)
        raise RuntimeError(f"{path}: {status} {body}")

    def events(self, path: str) -> list[dict[str, Any]]:
        return self.listing(path + "/events?sort_dir=asc&limit=10000", "events")

    def resources(self, path: str) -> list[dict[str, Any]]:
        return self.listing(path + "/resources", "resources")


def _message(answer: Any) -> str:
    error = (answer or {}).get("error") or {}
    return str(error.get("message") or answer)


def _with_environment_files(
    case: suite.Case, stage: str, request: dict[str, Any]
) -> dict[str, Any]:
    """The request with its files map, and its environment files as heatclient sends
    several ``-e`` files: their names in ``environment_files``, their texts in the map
    (Heat merges them in order; heatclient also sends its own merge of them as
    ``environment``, which the merge then repeats: left out, so that a merge strategy
    is not applied twice)."""
    request.pop("environment_files", None)
    found = case.environment_files(stage)
    request["files"] = {**case.files(stage), **found}
    if found:
        request["environment_files"] = list(found)
    return request


def record(heat: Heat, case: suite.Case) -> dict[str, Any]:
    name = f"{case.stack_name}-{int(time.time() * 1000) % 10**8}"
    create = _with_environment_files(case, "before", case.request("create"))
    body: dict[str, Any] = {
        "stack_name": name,
        "template": case.template("before"),
        "disable_rollback": create.pop("disable_rollback", True),
        **create,
    }
    status, created = heat.call("POST", "/stacks", body)
    if status >= 400:
        return {"create_status": "REFUSED", "create_error": _message(created)}
    path = f"/stacks/{name}/{created['stack']['id']}"
    stop = case.cancels("create")
    if stop is not None:
        cancel(heat, path, 0, stop)
    heat.wait(path)
    heat.settle(path)
    first = heat.wait(path)
    seen = len(heat.events(path))
    before_ids = {r["resource_name"]: r["physical_resource_id"] for r in heat.resources(path)}
    before_outputs = {o["output_key"]: o.get("output_value") for o in first.get("outputs") or []}
    result: dict[str, Any] = {
        "create_status": first["stack_status"],
        "create_reason": suite.reason(first["stack_status_reason"], name),
    }
    update = _with_environment_files(case, "after", case.request("update"))
    if "after" in case.spec or not case.existing:
        update["template"] = case.template("after" if "after" in case.spec else "before")
    method = "PATCH" if case.existing else "PUT"
    if case.spec.get("preview", True):
        nested = "?show_nested=True" if case.spec.get("show_nested") else ""
        status, preview = heat.call(method, path + "/preview" + nested, update)
        if status == 200:
            changes = preview["resource_changes"]
            result["preview"] = {
                k: sorted(r["resource_name"] for r in v) for k, v in changes.items()
            }
        else:
            result["preview"] = {"status": status}
    status, answer = heat.call(method, path, update)
    stop = case.cancels("update")
    if status < 400 and stop is not None:
        cancel(heat, path, seen, stop)
    result["update_http"] = status
    result["update_refused"] = status >= 400
    if status >= 400:
        result["update_error"] = suite.reason(_message(answer), name)
        fragment = case.spec.get("fragment")
        if fragment and suite.squash(fragment) not in suite.squash(result["update_error"]):
            print(f"{case.id}: fragment not in Heat's message", file=sys.stderr)
    heat.wait(path)
    heat.settle(path)
    stack = heat.wait(path)
    result["status"] = stack["stack_status"]
    result["reason"] = suite.reason(stack["stack_status_reason"], name)
    result["parameters"] = {
        k: suite.normalize(v, name) for k, v in stack["parameters"].items() if "::" not in k
    }
    opaque = list(case.spec.get("opaque") or ())
    result["outputs"] = suite.outputs(stack.get("outputs") or [], name, opaque, before_outputs)
    result["events"] = suite.events(heat.events(path)[seen:], name, before_ids)
    result["resources"] = suite.resources(heat.resources(path), before_ids)
    if case.spec.get("show_environment"):
        _, environment = heat.call("GET", path + "/environment")
        result["environment"] = suite.normalize(environment, name)
    heat.call("DELETE", path)
    try:
        heat.wait(path, 120, deleting=True)
    except TimeoutError:  # the result is whole; Heat's convergence delete sometimes hangs
        print(f"{case.id}: the stack's delete did not finish", file=sys.stderr)
    return result


def cancel(heat: Heat, path: str, seen: int, spec: dict[str, Any]) -> None:
    """``stack cancel`` (with or without rollback) once the resource ``at`` is
    IN_PROGRESS in the update (a case gives it time: TestResource's action_wait_secs)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = heat.events(path)[seen:]
        if any(
            e["resource_name"] == spec["at"] and e["resource_status"].endswith("IN_PROGRESS")
            for e in found
        ):
            break
        time.sleep(0.2)
    action = "cancel_update" if spec.get("rollback", True) else "cancel_without_rollback"
    heat.call("POST", path + "/actions", {action: None})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", choices=suite.ENGINES, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--stale", action="store_true")
    parser.add_argument("--jobs", type=int, default=4, help="cases recorded at once")
    args = parser.parse_args()
    heat = Heat(args.port)
    recorded = suite.load_recordings()
    chosen = [
        c
        for c in suite.load_cases()
        if (not args.only or any(c.id.startswith(p) for p in args.only))
        and (
            not args.stale
            or recorded.get(c.id, {}).get("digest") != c.digest()
            or args.engine not in recorded.get(c.id, {})
        )
    ]

    def one(case: suite.Case) -> dict[str, Any] | None:
        try:
            return record(heat, case)
        except Exception as error:  # one broken case must not lose the others' recordings
            print(f"{case.id}: not recorded: {error!r}", file=sys.stderr)
            return None

    with ThreadPoolExecutor(args.jobs) as pool:
        for case, result in zip(chosen, pool.map(one, chosen), strict=False):
            if result is None:
                continue
            suite.save_recording(case, args.engine, result)
            status = result.get("status", result["create_status"])  # a refused create has none
            print(case.id, status, result.get("reason", "")[:100], file=sys.stderr)


if __name__ == "__main__":
    main()
