"""Engine speed on the embedded SQLite store. Prints figures; asserts nothing.

Run: .venv/bin/python benchmarks/engine.py [--repeat 5]
     .venv/bin/python benchmarks/engine.py --scaling [--plot docs/engine-scaling.png]
Each scenario runs in its own process, so the peak RSS printed is that scenario's own;
times are the median of ``--repeat`` runs, each in a fresh process. ``--scaling`` creates
and deletes 1k to 100k independent resources and, when matplotlib is installed (``pip
install -e '.[bench]'``), draws the curve.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


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


def functions(count: int) -> str:
    """Each resource uses str_replace, list_join, get_param, yaql and get_attr into the
    value of another resource (r{i} reads r{(i-1)//2}: chains of attributes 10 deep)."""
    lines = [
        "heat_template_version: wallaby",
        "parameters:",
        "  prefix: {type: string, default: app}",
        "  zones: {type: comma_delimited_list, default: 'a,b,c'}",
        "  settings: {type: json, default: {size: 3, tier: web}}",
        "resources:",
        "  r0:",
        "    type: OS::Heat::Value",
        "    properties: {type: json, value: {name: root, size: 1, path: r0}}",
    ]
    for i in range(1, count):
        parent = f"r{(i - 1) // 2}"
        lines += [
            f"  r{i}:",
            "    type: OS::Heat::Value",
            "    properties:",
            "      type: json",
            "      value:",
            "        name:",
            "          str_replace:",
            "            template: $prefix-$index-$parent",
            "            params:",
            "              $prefix: {get_param: prefix}",
            f"              $index: '{i}'",
            f"              $parent: {{get_attr: [{parent}, value, name]}}",
            "        zones: {list_join: [',', {get_param: zones}]}",
            "        size:",
            "          yaql:",
            "            expression: $.data.sizes.sum() + $.data.extra",
            "            data:",
            "              sizes: [1, 2, {get_param: [settings, size]}]",
            f"              extra: {{get_attr: [{parent}, value, size]}}",
            f"        path: {{list_join: ['/', [{{get_attr: [{parent}, value, path]}}, r{i}]]}}",
        ]
    lines += [
        "outputs:",
        f"  last: {{value: {{get_attr: [r{count - 1}, value]}}}}",
    ]
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
    "functions": lambda n: functions(n),
}


def run_scenario(name: str, count: int) -> dict[str, float]:
    """Create then delete one stack; runs inside the child process.

    stoker is imported here, not at the top: the parent process stays small, and Linux
    counts a child's memory before ``exec`` in the child's peak RSS.
    """
    from stoker.limits import Limits, applied
    from stoker.template.loader import LoadLimits

    directory = tempfile.mkdtemp()
    path = Path(directory, "t.yaml")
    if name == "nested":
        path.write_text(three_levels(Path(directory)))
    else:
        path.write_text(SCENARIOS[name](count))
    # --scaling goes to 100,000 resources: past the default budget, on purpose
    limits = Limits(
        template_size=64 * 1024 * 1024,
        nodes=10**8,
        expanded_size=10**10,
        resources=10**7,
        total_value_size=10**10,
    )
    with applied(limits):
        return _create_and_delete(directory, path, LoadLimits.of(limits))


def _create_and_delete(directory: str, path: Path, limits: Any) -> dict[str, float]:
    from stoker.definition.loading import LoadOptions, load_definition
    from stoker.engine.settings import EngineSettings
    from stoker.engine.stacks import CreateRequest, StackEngine
    from stoker.engine.state import Status
    from stoker.resources.registry import default_registry
    from stoker.store import open_store
    from stoker.template.nodes import plain

    options = LoadOptions(limits=limits, require_all_parameters=True, stack_name="bench")
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
    start, cpu = time.perf_counter(), time.process_time()
    record = asyncio.run(engine.create(request))
    created, created_cpu = time.perf_counter() - start, time.process_time() - cpu
    assert record.status is Status.COMPLETE, record.status_reason
    start, cpu = time.perf_counter(), time.process_time()
    deleted_record = asyncio.run(engine.delete("bench"))
    deleted, deleted_cpu = time.perf_counter() - start, time.process_time() - cpu
    assert deleted_record.status is Status.COMPLETE, deleted_record.status_reason
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # CPU time beside wall time: on a shared machine the wall time grows with the load.
    return {
        "create_s": created,
        "delete_s": deleted,
        "create_cpu_s": created_cpu,
        "delete_cpu_s": deleted_cpu,
        "rss_mb": rss_mb,
    }


def in_child(name: str, count: int) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", name, str(count)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def median_of(name: str, count: int, repeat: int) -> dict[str, float]:
    """Median create and delete times of ``repeat`` fresh processes; the largest RSS."""
    runs = [in_child(name, count) for _ in range(repeat)]
    return {
        "create_s": statistics.median(r["create_s"] for r in runs),
        "delete_s": statistics.median(r["delete_s"] for r in runs),
        "total_s": statistics.median(r["create_s"] + r["delete_s"] for r in runs),
        "total_cpu_s": statistics.median(r["create_cpu_s"] + r["delete_cpu_s"] for r in runs),
        "rss_mb": max(r["rss_mb"] for r in runs),
    }


def scenarios(repeat: int) -> None:
    print(f"(median of {repeat} processes each; peak RSS is the largest of them)")
    for count in (1000, 10000):
        figures = median_of("independent", count, repeat)
        total = figures["total_s"]
        print(
            f"{count} independent OS::Heat::None: create {figures['create_s']:.2f} s, "
            f"delete {figures['delete_s']:.2f} s, together {total:.2f} s = "
            f"{2 * count / total:.0f} resource actions/s; peak RSS {figures['rss_mb']:.0f} MB"
        )
    figures = median_of("chain", 1000, repeat)
    print(
        f"chain of 1000 dependent OS::Heat::None: create {figures['create_s']:.2f} s, "
        f"delete {figures['delete_s']:.2f} s; peak RSS {figures['rss_mb']:.0f} MB"
    )
    figures = median_of("functions", 1000, repeat)
    print(
        f"1000 OS::Heat::Value, each using str_replace, list_join, get_param, yaql and "
        f"get_attr chains: create {figures['create_s']:.2f} s, delete "
        f"{figures['delete_s']:.2f} s; peak RSS {figures['rss_mb']:.0f} MB"
    )
    for count in (1000, 10000):
        figures = median_of("group", count, repeat)
        print(
            f"ResourceGroup of {count} OS::Heat::RandomString: create "
            f"{figures['create_s']:.2f} s, delete {figures['delete_s']:.2f} s; "
            f"peak RSS {figures['rss_mb']:.0f} MB"
        )
    figures = median_of("nested", 0, repeat)
    print(
        f"three levels (10 x 10 x 20 = 2000 OS::Heat::None, 111 nested stacks): create "
        f"{figures['create_s']:.2f} s, delete {figures['delete_s']:.2f} s; "
        f"peak RSS {figures['rss_mb']:.0f} MB"
    )
    figures = in_child("layers", 0)
    print(
        f"5 layers x 40 TestResource, 1 s each (one run): create {figures['create_s']:.2f} s "
        f"= {figures['create_s'] / 5.0:.3f} x the critical path (5 s)"
    )


SCALING_SIZES = (1000, 3000, 10000, 30000, 100000)


def scaling(repeat: int, plot: str | None) -> None:
    """Create + delete of N independent resources for growing N: time and memory should
    grow linearly (a constant cost per resource)."""
    print(f"(median of {repeat} processes per size; peak RSS is the largest of them)")
    print(
        "| resources | create s | delete s | together s | µs per resource | CPU s "
        "| CPU µs per resource | peak RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for count in SCALING_SIZES:
        figures = median_of("independent", count, repeat)
        rows.append((count, figures))
        print(
            f"| {count:,} | {figures['create_s']:.2f} | {figures['delete_s']:.2f} | "
            f"{figures['total_s']:.2f} | {figures['total_s'] / count * 1e6:.0f} | "
            f"{figures['total_cpu_s']:.2f} | {figures['total_cpu_s'] / count * 1e6:.0f} | "
            f"{figures['rss_mb']:.0f} |",
            flush=True,
        )
    if plot:
        draw(rows, plot)


def draw(rows: list[tuple[int, dict[str, float]]], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plot: matplotlib is not installed (pip install -e '.[bench]')")
        return
    counts = [count for count, _ in rows]
    figure, (times, memory) = plt.subplots(1, 2, figsize=(10, 4))
    for key, label in (("create_s", "create"), ("delete_s", "delete"), ("total_s", "both")):
        times.plot(counts, [f[key] for _, f in rows], marker="o", label=label)
    cpu = [f["total_cpu_s"] for _, f in rows]
    times.plot(counts, cpu, marker="s", linestyle="--", color="black", label="both, CPU time")
    times.set(xlabel="independent OS::Heat::None", ylabel="seconds", title="Time")
    times.legend()
    memory.plot(counts, [f["rss_mb"] for _, f in rows], marker="o", color="tab:red")
    memory.set(xlabel="independent OS::Heat::None", ylabel="MB", title="Peak RSS")
    for axes in (times, memory):
        axes.grid(True, alpha=0.3)
        axes.set_xlim(left=0)
        axes.set_ylim(bottom=0)
    figure.suptitle("stoker create + delete on SQLite (benchmarks/engine.py --scaling)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print(f"plot: {path}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs=2, metavar=("SCENARIO", "COUNT"))
    parser.add_argument("--repeat", type=int, default=5, help="processes per figure")
    parser.add_argument("--scaling", action="store_true", help="1k to 100k resources")
    parser.add_argument("--plot", default="docs/engine-scaling.png", help="--scaling's PNG")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_scenario(args.child[0], int(args.child[1]))))
        return 0
    if args.scaling:
        scaling(args.repeat, args.plot)
    else:
        scenarios(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
