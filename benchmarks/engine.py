"""Engine speed on the embedded SQLite store. Prints figures; asserts nothing.

Run: .venv/bin/python benchmarks/engine.py
Each scenario runs in its own process, so the peak RSS printed is that scenario's own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, StackEngine
from stoker.engine.state import Status
from stoker.resources.registry import default_registry
from stoker.store import open_store
from stoker.template.loader import LoadLimits
from stoker.template.nodes import plain


def independent(count: int) -> str:
    lines = ["heat_template_version: wallaby", "resources:"]
    lines += [f"  r{i}: {{type: OS::Heat::None}}" for i in range(count)]
    return "\n".join(lines) + "\n"


def chain(count: int) -> str:
    lines = ["heat_template_version: wallaby", "resources:", "  r0: {type: OS::Heat::None}"]
    lines += [f"  r{i}: {{type: OS::Heat::None, depends_on: r{i - 1}}}" for i in range(1, count)]
    return "\n".join(lines) + "\n"


def layers(depth: int, width: int, wait: float) -> str:
    lines = ["heat_template_version: wallaby", "resources:"]
    for layer in range(depth):
        for index in range(width):
            needs = [f"l{layer - 1}_{j}" for j in range(width)] if layer else []
            lines.append(f"  l{layer}_{index}:")
            lines.append("    type: OS::Heat::TestResource")
            if needs:
                lines.append(f"    depends_on: [{', '.join(needs)}]")
            lines.append(f"    properties: {{action_wait_secs: {{create: {wait}}}}}")
    return "\n".join(lines) + "\n"


def group(count: int) -> str:
    return (
        "heat_template_version: wallaby\nresources:\n  group:\n"
        "    type: OS::Heat::ResourceGroup\n"
        f"    properties: {{count: {count}, resource_def: {{type: OS::Heat::RandomString}}}}\n"
    )


def three_levels(directory: Path) -> str:
    """10 x 10 x 20: groups of provider templates of groups of provider templates, 2,000
    OS::Heat::None at the bottom (the facades and groups come on top of those)."""
    Path(directory, "level3.yaml").write_text(independent(20))
    Path(directory, "level2.yaml").write_text(
        "heat_template_version: wallaby\nresources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
        "    properties: {count: 10, resource_def: {type: level3.yaml}}\n"
    )
    return (
        "heat_template_version: wallaby\nresources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
        "    properties: {count: 10, resource_def: {type: level2.yaml}}\n"
    )


SCENARIOS = {
    "independent": lambda n: independent(n),
    "chain": lambda n: chain(n),
    "layers": lambda n: layers(5, 40, 1.0),
    "group": lambda n: group(n),
}


def run_scenario(name: str, count: int) -> dict[str, float]:
    """Create then delete one stack; runs inside the child process."""
    directory = tempfile.mkdtemp()
    path = Path(directory, "t.yaml")
    if name == "nested":
        path.write_text(three_levels(Path(directory)))
    else:
        path.write_text(SCENARIOS[name](count))
    options = LoadOptions(
        limits=LoadLimits(max_bytes=16 * 1024 * 1024),
        require_all_parameters=True,
        stack_name="bench",
    )
    result = load_definition(str(path), [], {}, options)
    assert result.ok and result.definition is not None, result.diagnostics[:3]
    definition = result.definition
    store = open_store(f"sqlite:///{Path(directory, 'bench.db')}")
    settings = EngineSettings(max_resources_per_stack=-1, concurrency=200)
    engine_check = StackEngine(
        open_store(f"sqlite:///{Path(directory, 'check.db')}"), default_registry(), settings
    ).check(definition, directory)
    assert not [d for d in engine_check if d.is_error], engine_check[:3]
    engine = StackEngine(store, default_registry(), settings)
    request = CreateRequest(
        name="bench",
        definition=definition,
        template=plain(definition.template.document.data),
        environment=definition.environment.to_data(absolute_paths=True),
        template_file=str(path),
    )
    start = time.perf_counter()
    record = asyncio.run(engine.create(request))
    created = time.perf_counter() - start
    assert record.status is Status.COMPLETE, record.status_reason
    start = time.perf_counter()
    deleted_record = asyncio.run(engine.delete("bench"))
    deleted = time.perf_counter() - start
    assert deleted_record.status is Status.COMPLETE, deleted_record.status_reason
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"create_s": created, "delete_s": deleted, "rss_mb": rss_mb}


def in_child(name: str, count: int) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", name, str(count)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs=2, metavar=("SCENARIO", "COUNT"))
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_scenario(args.child[0], int(args.child[1]))))
        return 0
    for count in (1000, 10000):
        figures = in_child("independent", count)
        total = figures["create_s"] + figures["delete_s"]
        print(
            f"{count} independent OS::Heat::None: create {figures['create_s']:.2f} s, "
            f"delete {figures['delete_s']:.2f} s, together {total:.2f} s = "
            f"{2 * count / total:.0f} resource actions/s; peak RSS {figures['rss_mb']:.0f} MB"
        )
    figures = in_child("chain", 1000)
    print(
        f"chain of 1000 dependent OS::Heat::None: create {figures['create_s']:.2f} s, "
        f"delete {figures['delete_s']:.2f} s; peak RSS {figures['rss_mb']:.0f} MB"
    )
    for count in (1000, 10000):
        figures = in_child("group", count)
        print(
            f"ResourceGroup of {count} OS::Heat::RandomString: create "
            f"{figures['create_s']:.2f} s, delete {figures['delete_s']:.2f} s; "
            f"peak RSS {figures['rss_mb']:.0f} MB"
        )
    figures = in_child("nested", 0)
    print(
        f"three levels (10 x 10 x 20 = 2000 OS::Heat::None, 111 nested stacks): create "
        f"{figures['create_s']:.2f} s, delete {figures['delete_s']:.2f} s; "
        f"peak RSS {figures['rss_mb']:.0f} MB"
    )
    figures = in_child("layers", 0)
    print(
        f"5 layers x 40 TestResource, 1 s each: create {figures['create_s']:.2f} s = "
        f"{figures['create_s'] / 5.0:.3f} x the critical path (5 s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
