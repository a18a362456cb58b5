"""The ONAP lint as a user or CI runs it, against a bare YAML load: whole processes.

Run: .venv/bin/python benchmarks/lint_process.py [--repeat 5]

Writes the generated 50-template VNF package (`vnf_package`) and runs, interleaved so that
a busy machine slows both alike, ``--repeat`` times each:

- ``stoker lint --profile onap PACKAGE`` (Python start-up, imports, the lint, exit);
- a bare Python process that imports PyYAML and loads each of the same files with
  ``CSafeLoader`` (no positions, no checks): the floor any YAML tool pays.

Prints the median wall time and the median CPU time (user + system, from ``wait4``) of
each, their ratios, and the load average before and after (the machine is shared). The
aim (issue 26) is a ratio within 4. This process imports no part of stoker, and stoker's bytecode is
compiled first, as installing a package does. Asserts nothing.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vnf_package import write_package  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STOKER = str(Path(sys.executable).with_name("stoker"))

BARE_LOAD = """
import os, sys, yaml
directory = sys.argv[1]
for name in sorted(os.listdir(directory)):
    with open(os.path.join(directory, name), "rb") as handle:
        yaml.load(handle, Loader=yaml.CSafeLoader)
"""


def run(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one process; fails loudly if it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    assert process.stderr is not None
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def loadavg() -> str:
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each (default 5)")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "src"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        package = Path(tmp) / "vnf"
        package.mkdir()
        templates = write_package(package)
        files = len(list(package.iterdir()))
        lint_command = [STOKER, "lint", "--profile", "onap", str(package)]
        bare_command = [sys.executable, "-c", BARE_LOAD, str(package)]
        run(lint_command)  # warm the page cache for both, untimed
        run(bare_command)
        before = loadavg()
        linted, bare = [], []
        for _ in range(args.repeat):
            bare.append(run(bare_command))
            linted.append(run(lint_command))
        after = loadavg()
    lint_wall = statistics.median(t for t, _ in linted)
    lint_cpu = statistics.median(c for _, c in linted)
    bare_wall = statistics.median(t for t, _ in bare)
    bare_cpu = statistics.median(c for _, c in bare)
    print(f"package: {templates} templates, {files} files; medians of {args.repeat} runs each")
    print(f"bare CSafeLoader load process: wall {bare_wall:.3f} s, CPU {bare_cpu:.3f} s")
    print(f"stoker lint --profile onap:    wall {lint_wall:.3f} s, CPU {lint_cpu:.3f} s")
    print(f"ratio: wall {lint_wall / bare_wall:.1f}x, CPU {lint_cpu / bare_cpu:.1f}x (aim: <= 4x)")
    print(f"load average: {before} before, {after} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
