"""Whole-process figures: ``stoker`` run as a user or a CI job runs it. Asserts nothing.

Run: .venv/bin/python benchmarks/cli.py [--repeat 5]

Each figure is the median wall time of ``--repeat`` runs of the command (Python start-up,
imports, the work and exit), with the largest peak RSS of those runs, and the median CPU
time (user + system) beside it: on a shared machine the wall time grows with the load
while the CPU time mostly does not. The stacks live in a
fresh SQLite file in a temporary directory. This process imports no part of stoker:
Linux counts a child's memory before ``exec`` in its peak RSS, so a large parent would
inflate every figure. stoker's bytecode is compiled first, as
installing a package does, so no run pays for compiling (``PYTHONDONTWRITEBYTECODE``
would otherwise make every run compile the sources of an editable install).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import chain, functions, independent  # noqa: E402
from update import values  # noqa: E402

STOKER = str(Path(sys.executable).with_name("stoker"))
EXAMPLE = str(ROOT / "examples" / "hello.yaml")


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds of one process; fails loudly if the
    command does."""
    with tempfile.TemporaryFile() as errors:  # not a pipe: progress lines would fill it
        start = time.perf_counter()
        process = subprocess.Popen(
            [STOKER, *args], env=env, stdout=subprocess.DEVNULL, stderr=errors
        )
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            stderr = errors.read().decode(errors="replace")[-2000:]
            raise SystemExit(f"stoker {' '.join(args)} failed ({process.returncode}):\n{stderr}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def measure(label: str, runs: list[tuple[float, float, float]]) -> None:
    times = [t for t, _, _ in runs]
    cpu = statistics.median(c for _, _, c in runs)
    print(
        f"{label}: median {statistics.median(times):.3f} s "
        f"(min {min(times):.3f}, max {max(times):.3f}); CPU {cpu:.3f} s; "
        f"peak RSS {max(r for _, r, _ in runs):.0f} MB",
        flush=True,
    )


def update_ten_of_ten_thousand(directory: str, env: dict[str, str], repeat: int) -> None:
    """``stack update`` of a stack of 10,000 OS::Heat::Value of which 10 change, the
    whole process: loading and checking the new template, the update (9,990 resources
    untouched) and showing the stack; alternately to the new values and back."""
    unlimited = ["stack", "--max-resources-per-stack", "-1"]
    big = ["--max-template-size", str(16 * 1024 * 1024)]
    paths = []
    for changed in (0, 10):
        path = Path(directory, f"values{changed}.yaml")
        path.write_text(values(10000, changed))
        paths.append(str(path))
    run([*unlimited, "create", "values", "-t", paths[0], *big], env)
    updates = [
        run([*unlimited, "update", "values", "-t", paths[(index + 1) % 2], *big], env)
        for index in range(repeat)
    ]
    measure("stoker stack update: 10 of 10,000 OS::Heat::Value changed", updates)
    run(["stack", "delete", "values", "--yes"], env)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "src" / "stoker"), quiet=1)
    repeat = args.repeat
    with tempfile.TemporaryDirectory() as directory:
        env = {**os.environ, "STOKER_DB_URL": f"sqlite:///{Path(directory, 'bench.db')}"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"(median of {repeat} runs each)")
        for label, command in (
            ("stoker --version", ["--version"]),
            ("stoker --help", ["--help"]),
            ("stoker template validate examples/hello.yaml", ["template", "validate", EXAMPLE]),
        ):
            run(command, env)  # warm the file cache
            measure(label, [run(command, env) for _ in range(repeat)])

        # the first command on a new database: its schema made at the head in one step
        firsts = []
        for index in range(repeat):
            fresh = {**env, "STOKER_DB_URL": f"sqlite:///{Path(directory, f'new{index}.db')}"}
            firsts.append(run(["stack", "list"], fresh))
        measure("stoker stack list on a new database (first command)", firsts)

        for index in range(10):
            secret = ["--parameter", "db_password=pw-12345"]
            run(["stack", "create", f"s{index}", "-t", EXAMPLE, *secret], env)
        listing = ["stack", "list"]
        run(listing, env)
        measure("stoker stack list (10 stacks)", [run(listing, env) for _ in range(repeat)])

        templates = {
            "independent": (independent(10000), "10,000 independent OS::Heat::None"),
            "chain": (chain(1000), "a chain of 1,000 dependent OS::Heat::None"),
            "functions": (functions(1000), "1,000 OS::Heat::Value using 5+ functions each"),
        }
        for name, (text, label) in templates.items():
            path = Path(directory, f"{name}.yaml")
            path.write_text(text)
            creates, deletes = [], []
            for _ in range(repeat):
                unlimited = ["stack", "--max-resources-per-stack", "-1"]
                big = ["--max-template-size", str(16 * 1024 * 1024)]
                creates.append(run([*unlimited, "create", name, "-t", str(path), *big], env))
                deletes.append(run(["stack", "delete", name, "--yes"], env))
            measure(f"stoker stack create: {label}", creates)
            measure(f"stoker stack delete: {label}", deletes)
            both = [
                (c[0] + d[0], max(c[1], d[1]), c[2] + d[2])
                for c, d in zip(creates, deletes, strict=True)
            ]
            measure(f"create + delete: {label}", both)
        update_ten_of_ten_thousand(directory, env, repeat)
    print(f"load average at the end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
