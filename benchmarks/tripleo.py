"""Whole-process figures of TripleO's overcloud: ``stoker stack create`` of the inputs
``openstack overcloud deploy`` sends (vendored in tests/tripleo/data, see its NOTICE), then
``stack delete``. Asserts nothing.

Run: .venv/bin/python benchmarks/tripleo.py [--repeat 3]

Each figure is the median of ``--repeat`` runs: wall time and CPU time (user + system) of
the whole process (Python start-up, imports, the work, exit), with the largest peak RSS.
On a shared machine the wall time grows with the load while the CPU time mostly does not.
Each run uses a fresh SQLite file. Real Heat 24.1.2 takes 145 s for the create with its
legacy engine and 295 s with convergence on a 2-core machine (delete 103 s / 278 s).
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
STOKER = str(Path(sys.executable).with_name("stoker"))
DATA = ROOT / "tests" / "tripleo" / "data"
THT = DATA / "tripleo-heat-templates"
#: the client's order (tests/tripleo/test_overcloud.py)
ENVIRONMENTS = (
    THT / "overcloud-resource-registry-puppet.yaml",
    DATA / "environments" / "tripleoclient-parameters.yaml",
    THT / "environments" / "deployed-network-environment.yaml",
    DATA / "environments" / "vip-deployed.yaml",
    DATA / "environments" / "baremetal-deployed.yaml",
)


def create_args(db: str) -> list[str]:
    environments = [arg for env in ENVIRONMENTS for arg in ("-e", str(env))]
    return [
        "--db",
        db,
        "stack",
        "--max-nested-depth",
        "10",
        "create",
        "overcloud",
        "-t",
        str(THT / "overcloud.yaml"),
        *environments,
        "--yaql-limit-iterators",
        "9000",
        "--yaql-memory-quota",
        "900000",
    ]


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one process; fails loudly if the
    command does."""
    with tempfile.TemporaryFile() as errors:  # not a pipe: progress lines would fill it
        start = time.perf_counter()
        process = subprocess.Popen(
            [STOKER, *args], env=env, stdout=subprocess.DEVNULL, stderr=errors
        )
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            stderr = errors.read().decode(errors="replace")[-2000:]
            raise SystemExit(f"stoker {' '.join(args[:6])} ... failed:\n{stderr}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def report(label: str, runs: list[tuple[float, float, float]]) -> None:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    rss = max(r[2] for r in runs)
    print(f"{label}: median wall {wall:.3f} s; CPU {cpu:.3f} s; peak {rss:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    compileall.compile_dir(str(ROOT / "src" / "stoker"), quiet=1)
    creates, deletes = [], []
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "STOKER_SECRET_KEY_FILE": os.path.join(work, "secret.key")}
        for index in range(options.repeat):
            db = os.path.join(work, f"tripleo-{index}.db")
            creates.append(run(create_args(db), env))
            deletes.append(run(["--db", db, "stack", "delete", "overcloud", "-y"], env))
    print(f"load average {os.getloadavg()[0]:.1f} (2-core machine: above 2 the wall grows)")
    report("TripleO overcloud create (583 resources, 238 stacks)", creates)
    report("TripleO overcloud delete", deletes)


if __name__ == "__main__":
    main()
