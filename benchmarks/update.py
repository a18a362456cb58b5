"""Stack update speed on the embedded SQLite store. Prints figures; asserts nothing.

Run: .venv/bin/python benchmarks/update.py [--repeat 3]

Scenarios (each in its own process, median of ``--repeat``):

- ``change10``: a stack of 10,000 OS::Heat::Value, of which 10 get a new value: the plan
  alone (``preview_update``) and the update (in place), timed from the engine call with
  the new definition loaded, as benchmarks/engine.py times create;
- ``replace1000``: a stack of 1,000 OS::Heat::RandomString whose length (a parameter)
  changes: all 1,000 are replaced (created new, then the old ones deleted);
- ``rolling100``: a ResourceGroup of 100 OS::Heat::TestResource under
  ``rolling_update {max_batch_size: 10}`` whose member value changes; each member's update
  takes 1 s (``action_wait_secs: {update: 1}``), so the batches' critical path is 10 x 1 s
  = 10 s, and the figure is the update's wall time over it (the issue asks <= 1.05).

A bare ``yaml.safe_load`` of the 10,000-resource template is timed in the same process,
as a yardstick for the machine's speed at that moment.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def values(count: int, changed: int) -> str:
    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(count):
        value = f"new{index}" if index < changed else f"v{index}"
        lines.append(f"  r{index}: {{type: OS::Heat::Value, properties: {{value: {value}}}}}")
    return "\n".join(lines) + "\n"


def randoms(count: int) -> str:
    lines = [
        "heat_template_version: wallaby",
        "parameters:",
        "  length: {type: number, default: 8}",
        "resources:",
    ]
    lines += [
        f"  r{i}: {{type: OS::Heat::RandomString, properties: {{length: {{get_param: length}}}}}}"
        for i in range(count)
    ]
    return "\n".join(lines) + "\n"


def rolling(count: int, value: str) -> str:
    return f"""heat_template_version: wallaby
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy: {{rolling_update: {{max_batch_size: 10}}}}
    properties:
      count: {count}
      resource_def:
        type: OS::Heat::TestResource
        properties: {{value: {value}, action_wait_secs: {{update: 1}}}}
"""


#: rolling100's critical path: ceil(count / batch) batches of one 1 s member update each
def critical_path(count: int) -> float:
    return float(-(-count // 10))


def run_scenario(name: str, size: int) -> dict[str, float]:
    import yaml

    from stoker.definition.loading import LoadOptions, load_definition
    from stoker.engine.settings import EngineSettings
    from stoker.engine.stacks import CreateRequest, StackEngine, UpdateRequest
    from stoker.engine.state import Status
    from stoker.resources.registry import default_registry
    from stoker.store import open_store
    from stoker.template.loader import LoadLimits
    from stoker.template.nodes import plain

    directory = tempfile.mkdtemp()
    before, after = Path(directory, "a.yaml"), Path(directory, "b.yaml")
    parameters: dict[str, str] = {}
    if name == "change10":
        before.write_text(values(size, 0))
        after.write_text(values(size, 10))
    elif name == "rolling100":
        before.write_text(rolling(size, "old"))
        after.write_text(rolling(size, "new"))
    else:
        before.write_text(randoms(size))
        after.write_text(randoms(size))
        parameters = {"length": "12"}
    options = LoadOptions(
        limits=LoadLimits(max_bytes=16 * 1024 * 1024),
        require_all_parameters=True,
        stack_name="bench",
    )

    def load(path: Path, given: dict[str, str]):  # type: ignore[no-untyped-def]
        result = load_definition(str(path), [], given, options)
        assert result.ok and result.definition is not None, result.diagnostics[:3]
        return result.definition

    store = open_store(f"sqlite:///{Path(directory, 'bench.db')}")
    settings = EngineSettings(max_resources_per_stack=-1, concurrency=200)
    engine = StackEngine(store, default_registry(), settings)
    first = load(before, {})
    start = time.perf_counter()
    record = asyncio.run(
        engine.create(
            CreateRequest(
                name="bench",
                definition=first,
                template=plain(first.template.document.data),
                environment=first.environment.to_data(absolute_paths=True),
                template_file=str(before),
            )
        )
    )
    created = time.perf_counter() - start
    assert record.status is Status.COMPLETE, record.status_reason
    second = load(after, parameters)
    request = UpdateRequest(
        definition=second,
        template=plain(second.template.document.data),
        environment=second.environment.to_data(absolute_paths=True),
        parameters=parameters,
        template_file=str(after),
    )
    profile = os.environ.get("STOKER_BENCH_PROFILE")
    if profile:
        import cProfile

        cProfile.runctx(
            "asyncio.run(engine.preview_update('bench', request))", globals(), locals(), profile
        )
    start = time.perf_counter()
    plan = asyncio.run(engine.preview_update("bench", request))
    planned = time.perf_counter() - start
    changes = {k: len(v) for k, v in plan.changes().items()}
    start = time.perf_counter()
    cpu = time.process_time()
    updated = asyncio.run(engine.update("bench", request))
    took = time.perf_counter() - start
    cpu = time.process_time() - cpu
    assert updated.status is Status.COMPLETE, updated.status_reason
    start = time.perf_counter()
    yaml.safe_load(values(10_000, 0))
    yardstick = time.perf_counter() - start
    return {
        "create_s": created,
        "plan_s": planned,
        "update_s": took,
        "update_cpu_s": cpu,
        "yaml_s": yardstick,
        **changes,
    }


def in_child(name: str, size: int) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", name, "--size", str(size)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def _load_average() -> str:
    with open("/proc/loadavg", encoding="ascii") as handle:
        return " ".join(handle.read().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child")
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--values", type=int, default=10_000, help="size of change10")
    parser.add_argument("--randoms", type=int, default=1000, help="size of replace1000")
    parser.add_argument("--members", type=int, default=100, help="size of rolling100")
    parser.add_argument("--only", help="run this scenario only")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_scenario(args.child, args.size)))
        return
    print(f"load average: {_load_average()}")
    scenarios = (
        ("change10", args.values),
        ("replace1000", args.randoms),
        ("rolling100", args.members),
    )
    for name, size in scenarios:
        if args.only and name != args.only:
            continue
        runs = [in_child(name, size) for _ in range(args.repeat)]
        median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        if name == "rolling100":
            path = critical_path(size)
            print(
                f"{name} ({size} members, batch 10, 1 s per member update): update "
                f"{median['update_s']:.3f} s wall = {median['update_s'] / path:.3f} x the "
                f"batch critical path ({path:.0f} s), CPU {median['update_cpu_s']:.3f} s; "
                "runs: " + ", ".join(f"{r['update_s']:.3f}" for r in runs)
            )
            continue
        print(
            f"{name} ({size}): plan {median['plan_s']:.3f} s, update {median['update_s']:.3f} s "
            f"(the stack's create {median['create_s']:.3f} s; yaml.safe_load of 10,000 "
            f"resources {median['yaml_s']:.3f} s); "
            f"unchanged {median['unchanged']:.0f}, updated {median['updated']:.0f}, "
            f"replaced {median['replaced']:.0f}; runs: "
            + ", ".join(f"{r['update_s']:.3f}" for r in runs)
        )
    print(f"load average: {_load_average()}")


if __name__ == "__main__":
    main()
