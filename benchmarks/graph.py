"""``stoker template graph`` and ``stoker stack graph`` on a TripleO-sized tree: whole
processes. Prints figures; asserts nothing.

Run: .venv/bin/python benchmarks/graph.py [--repeat 5] [--members 150]

Scenarios, each ``--repeat`` times (median wall time, and median CPU time: user +
system, from ``wait4``, which a busy shared machine inflates much less):

- ``template``: the 630-resource tree of tests/graph/composed.py (an overcloud, groups of
  3 controller and 14 compute role templates, each role with a chain of 4 service
  templates: five levels of stacks) drawn by ``stoker template graph`` in each format, at
  ``--nested-depth`` 1 (the default: the groups' members collapsed) and 9 (everything);
  the aim of issue 29 is under 2 s;
- ``stack``: a stored stack of examples/graph/web-group.yaml with ``--members`` members
  (4 resources each: 600 with 150), created once on SQLite, drawn by ``stoker stack
  graph -f svg`` at depths 1 and 2.

Also prints the load average before and after, and the SVG's size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from graph.composed import total_resources, write_tree  # noqa: E402

STOKER = str(Path(sys.executable).with_name("stoker"))
FORMATS = ("dot", "mermaid", "json", "svg")


def run(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one process; fails loudly if it fails. Its
    stderr goes to a file: a create's progress lines would fill a pipe nobody reads yet."""
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            stderr.seek(0)
            text = stderr.read().decode(errors="replace")
            raise SystemExit(f"{' '.join(command)} failed:\n{text[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def median_of(command: list[str], repeat: int, env: dict[str, str] | None = None) -> str:
    runs = [run(command, env) for _ in range(repeat)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    return f"{wall:6.3f} s wall, {cpu:6.3f} s CPU"


def loadavg() -> str:
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])


def template_scenario(directory: Path, repeat: int) -> None:
    template, environment = write_tree(directory / "overcloud")
    print(f"template: {total_resources()} resources, five levels of stacks")
    for depth in (1, 9):
        for fmt in FORMATS:
            out = directory / f"tree-{depth}.{fmt}"
            command = [STOKER, "template", "graph", "-t", str(template), "-e", str(environment)]
            command += ["-f", fmt, "-n", str(depth), "-o", str(out)]
            figures = median_of(command, repeat)
            size = out.stat().st_size
            print(f"  --nested-depth {depth} -f {fmt:8} {figures}  ({size:,} bytes)")


def stack_scenario(directory: Path, repeat: int, members: int) -> None:
    env = {**os.environ, "STOKER_DB_URL": f"sqlite:///{directory / 'graph.db'}"}
    template = ROOT / "examples" / "graph" / "web-group.yaml"
    create = [STOKER, "stack", "create", "web", "-t", str(template)]
    create += ["--parameter", f"size={members}", "-f", "value", "-c", "id"]
    wall, cpu = run(create, env)
    print(f"stack: {4 + 4 * members} resources, created in {wall:.1f} s ({cpu:.1f} s CPU)")
    for depth in (1, 2):
        command = [STOKER, "stack", "graph", "web", "-f", "svg", "-n", str(depth)]
        command += ["-o", str(directory / f"stack-{depth}.svg")]
        print(f"  --nested-depth {depth} -f svg      {median_of(command, repeat, env)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--members", type=int, default=150)
    parser.add_argument("--only", choices=("template", "stack"))
    options = parser.parse_args()
    print(f"load average before: {loadavg()}")
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        if options.only in (None, "template"):
            template_scenario(directory, options.repeat)
        if options.only in (None, "stack"):
            stack_scenario(directory, options.repeat, options.members)
    print(f"load average after: {loadavg()}")


if __name__ == "__main__":
    main()
