"""``stoker serve`` figures. Prints them; asserts nothing.

Run: .venv/bin/python benchmarks/api.py [--stacks 1000] [--concurrent 100] [--db URL]

Starts a real ``stoker serve`` (one process) on an ephemeral port over a fresh SQLite
database (or ``--db``), then measures: its idle RSS after start-up; ``--concurrent``
small stack creates sent at once through the API (wall time until every stack is
CREATE_COMPLETE, and errors); latency percentiles of ``GET /stacks`` (list) and of
``GET /stacks/{name}/{id}`` (show) with ``--stacks`` stacks in the project; and the
server's CPU time (user+sys, from /proc) over the whole run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

BIN = Path(sys.executable).parent
SMALL: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {"r": {"type": "OS::Heat::None"}},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms ({len(ordered)} requests)"


async def create_many(base: str, count: int, prefix: str) -> tuple[float, int, list[str]]:
    """``count`` creates sent at once; wall time until all are COMPLETE, errors, URLs."""
    limits = httpx.Limits(max_connections=count)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        start = time.perf_counter()
        responses = await asyncio.gather(
            *(
                client.post(
                    f"{base}/stacks", json={"stack_name": f"{prefix}{i}", "template": SMALL}
                )
                for i in range(count)
            ),
            return_exceptions=True,
        )
        urls = [
            r.headers["location"]
            for r in responses
            if isinstance(r, httpx.Response) and r.status_code == 201
        ]
        refused = [
            r for r in responses if not (isinstance(r, httpx.Response) and r.status_code == 201)
        ]
        if refused:
            first = refused[0]
            shown = first.text[:300] if isinstance(first, httpx.Response) else repr(first)
            print(f"  {len(refused)} creates refused, the first: {shown}", file=sys.stderr)
        errors = count - len(urls)
        pending = set(urls)
        while pending:
            for url in list(pending):
                status = (await client.get(url)).json()["stack"]["stack_status"]
                if status != "CREATE_IN_PROGRESS":
                    pending.discard(url)
                    errors += status != "CREATE_COMPLETE"
            if pending:
                await asyncio.sleep(0.05)
        return time.perf_counter() - start, errors, urls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stacks", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=100)
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or f"sqlite:///{tmp}/bench.db"
        port = free_port()
        server = subprocess.Popen(
            [
                str(BIN / "stoker"),
                "serve",
                "--port",
                str(port),
                "--max-stacks-per-project",
                str(args.stacks + args.concurrent),
            ],
            env={**os.environ, "STOKER_DB_URL": db},
        )
        root = f"http://127.0.0.1:{port}"
        base = f"{root}/v1/bench"
        try:
            while True:
                try:
                    if httpx.get(root + "/").status_code == 300:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            time.sleep(1.0)
            print(f"idle RSS after start-up: {rss_mb(server.pid):.1f} MB")
            wall, errors, urls = asyncio.run(create_many(base, args.concurrent, "c"))
            print(
                f"{args.concurrent} concurrent small creates: {wall:.2f} s wall until all "
                f"COMPLETE, {errors} errors"
            )
            remaining = args.stacks - len(urls)
            batch = max(args.concurrent, 1)
            made = failed = 0
            while made < remaining:
                step = min(batch, remaining - made)
                _, more_errors, more = asyncio.run(create_many(base, step, f"b{made}-"))
                urls += more
                made += step
                failed += more_errors
            print(
                f"stacks in the project: {len(urls)} ({failed} creates failed); "
                f"RSS now {rss_mb(server.pid):.1f} MB"
            )
            with httpx.Client(timeout=60) as client:
                lists = []
                for _ in range(30):
                    start = time.perf_counter()
                    response = client.get(f"{base}/stacks")
                    lists.append(time.perf_counter() - start)
                    assert len(response.json()["stacks"]) == len(urls)
                print(f"GET /stacks ({len(urls)} stacks): {percentiles(lists)}")
                shows = []
                for i in range(300):
                    url = urls[i % len(urls)]
                    start = time.perf_counter()
                    client.get(url).raise_for_status()
                    shows.append(time.perf_counter() - start)
                print(f"GET /stacks/{{name}}/{{id}}: {percentiles(shows)}")
            print(f"server CPU (user+sys) over the run: {cpu_seconds(server.pid):.2f} s")
            print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
