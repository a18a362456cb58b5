"""The reference Heat's time for stack updates, for scale (docs/benchmarks.md).

Run (with the reference Heat up, ../shared/tools/reference-heat/heat.sh):
    .venv/bin/python benchmarks/update_heat.py [--values 200] [--randoms 100]

Creates a stack of ``--values`` OS::Heat::Value and updates 10 of them (in place), a
stack of ``--randoms`` OS::Heat::RandomString whose length changes (all replaced), and a
ResourceGroup of ``--members`` TestResource updated in rolling batches of 10 (1 s per
member update, as benchmarks/update.py's rolling100); prints
the wall time of each update from the PUT until the stack leaves UPDATE_IN_PROGRESS
(polled every 0.2 s), then deletes the stacks. Sizes are small: Heat's legacy engine takes
minutes for thousands of resources.
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

sys.path.insert(0, str(Path(__file__).parent))
import yaml  # noqa: E402

from update import critical_path, randoms, rolling, values  # noqa: E402

URL = "http://127.0.0.1:8004/v1/admin"


def call(method: str, path: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"X-Auth-Token": "x", "Content-Type": "application/json"}
    request = urllib.request.Request(URL + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=600) as response:
        text = response.read()
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def wait(path: str) -> str:
    while True:
        status = call("GET", path)["stack"]["stack_status"]
        if not status.endswith("IN_PROGRESS"):
            return str(status)
        time.sleep(0.2)


def timed_update(name: str, before: str, after: str, parameters: dict[str, str]) -> float:
    created = call(
        "POST",
        "/stacks",
        {"stack_name": name, "template": yaml.safe_load(before), "disable_rollback": True},
    )
    path = f"/stacks/{name}/{created['stack']['id']}"
    assert wait(path) == "CREATE_COMPLETE"
    start = time.perf_counter()
    call("PUT", path, {"template": yaml.safe_load(after), "parameters": parameters})
    status = wait(path)
    took = time.perf_counter() - start
    assert status == "UPDATE_COMPLETE", status
    call("DELETE", path)
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--values", type=int, default=200)
    parser.add_argument("--randoms", type=int, default=100)
    parser.add_argument("--members", type=int, default=100, help="rolling100's group size")
    parser.add_argument("--only", choices=["values", "randoms", "rolling"])
    args = parser.parse_args()
    stamp = int(time.time())
    if args.only in (None, "rolling"):
        size = args.members
        took = timed_update(f"bench-upd-g-{stamp}", rolling(size, "old"), rolling(size, "new"), {})
        print(
            f"Heat: ResourceGroup of {size} TestResource, rolling_update batch 10, 1 s per "
            f"member update: update {took:.2f} s = {took / critical_path(size):.2f} x the "
            f"batch critical path ({critical_path(size):.0f} s)"
        )
    if args.only == "rolling":
        return
    took = timed_update(f"bench-upd-v-{stamp}", values(args.values, 0), values(args.values, 10), {})
    print(f"Heat: {args.values} OS::Heat::Value, 10 changed: update {took:.2f} s")
    took = timed_update(
        f"bench-upd-r-{stamp}", randoms(args.randoms), randoms(args.randoms), {"length": "12"}
    )
    print(f"Heat: {args.randoms} OS::Heat::RandomString replaced: update {took:.2f} s")


if __name__ == "__main__":
    main()
