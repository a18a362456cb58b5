"""``stoker stack drift`` of a stack of N servers against the sandbox.

Run: .venv/bin/python benchmarks/drift.py [--servers 100] [--repeat 3]

Starts `stoker sandbox serve` (its own process, an in-memory database), creates the
stack `benchmarks/cloud.py` makes (a network, a subnet, N ports, N servers each on its
own port), then times `stoker stack drift` of it, each a fresh process (wall, and CPU
user+sys of the process), with the requests it made (the sandbox's counter,
`GET /sandbox/stats`). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cloud import (  # noqa: E402
    STOKER,
    free_port,
    sandbox_workdir,
    stats,
    template,
    timed,
    wait_for_sandbox,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    sandbox = subprocess.Popen(
        [*STOKER, "sandbox", "serve", "--port", str(port), "--db", "sqlite://",
         "--build-delay", "0.05", "--no-access-log"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for_sandbox(url)
        work, env = sandbox_workdir(port, "stoker-drift-bench-")
        path = work / "stack.yaml"
        path.write_text(template(options.servers))
        timed(["stack", "create", "drift", "-t", str(path)], env)
        walls, cpus, requests = [], [], []
        for _ in range(options.repeat):
            stats(url, reset=True)
            wall, cpu = timed(["stack", "drift", "drift", "-f", "json"], env)
            walls.append(wall)
            cpus.append(cpu)
            requests.append(stats(url)["requests"])
        found = subprocess.run(
            [*STOKER, "stack", "drift", "drift", "-f", "json"],
            env=env, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        states = [row["drift_status"] for row in json.loads(found)]
        counts = {state: states.count(state) for state in sorted(set(states))}
        start = time.perf_counter()
        subprocess.run([*STOKER, "--version"], env=env, capture_output=True, check=True)
        bare = time.perf_counter() - start
        print(
            f"{options.servers} servers ({len(states)} resources: {counts}); load average "
            f"{os.getloadavg()[0]:.2f}"
        )
        print(
            f"stack drift: wall median {statistics.median(walls):.2f} s "
            f"(min {min(walls):.2f}), CPU median {statistics.median(cpus):.2f} s, "
            f"{statistics.median(requests):.0f} requests; `stoker --version` alone "
            f"{bare:.2f} s wall"
        )
        timed(["stack", "delete", "drift", "--yes"], env)
    finally:
        sandbox.send_signal(signal.SIGINT)
        sandbox.wait(timeout=30)


if __name__ == "__main__":
    main()
