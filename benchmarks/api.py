"""``stoker serve`` figures. Prints them; asserts nothing.

Run: .venv/bin/python benchmarks/api.py [--stacks 1000] [--concurrent 100]
         [--backends sqlite,postgresql] [--pg-server URL] [--db URL]

For each backend (by default SQLite, then PostgreSQL on a fresh database made on
``--pg-server`` and dropped after), starts a real ``stoker serve`` (one process) on an
ephemeral port, then measures: its idle RSS after start-up; ``--concurrent`` small stack
creates sent at once through the API (wall time until every stack is CREATE_COMPLETE,
and errors); latency percentiles of ``GET /stacks`` (list) and of
``GET /stacks/{name}/{id}`` (show) with ``--stacks`` stacks in the project; and the
server's CPU time (user+sys, from /proc) over the whole run. Ends with every figure of
every backend in one table. ``--db URL`` measures that database only.
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


def measure(db: str, stacks: int, concurrent: int) -> dict[str, str]:
    """One backend's figures (also printed as they come)."""
    figures: dict[str, str] = {}

    def report(name: str, value: str) -> None:
        figures[name] = value
        print(f"  {name}: {value}", flush=True)

    port = free_port()
    server = subprocess.Popen(
        [
            str(BIN / "stoker"),
            "serve",
            "--port",
            str(port),
            "--max-stacks-per-project",
            str(stacks + concurrent),
            "--log-level",  # no access log: the figures stay those of serving alone
            "warning",
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
        report("idle RSS after start-up", f"{rss_mb(server.pid):.1f} MB")
        wall, errors, urls = asyncio.run(create_many(base, concurrent, "c"))
        report(f"{concurrent} concurrent small creates", f"{wall:.2f} s wall, {errors} errors")
        remaining = stacks - len(urls)
        batch = max(concurrent, 1)
        made = failed = 0
        while made < remaining:
            step = min(batch, remaining - made)
            _, more_errors, more = asyncio.run(create_many(base, step, f"b{made}-"))
            urls += more
            made += step
            failed += more_errors
        report("stacks in the project", f"{len(urls)} ({failed} creates failed)")
        report("RSS with them", f"{rss_mb(server.pid):.1f} MB")
        with httpx.Client(timeout=60) as client:
            lists = []
            for _ in range(30):
                start = time.perf_counter()
                response = client.get(f"{base}/stacks")
                lists.append(time.perf_counter() - start)
                assert len(response.json()["stacks"]) == len(urls)
            report(f"GET /stacks ({len(urls)} stacks)", percentiles(lists))
            shows = []
            for i in range(300):
                url = urls[i % len(urls)]
                start = time.perf_counter()
                client.get(url).raise_for_status()
                shows.append(time.perf_counter() - start)
            report("GET /stacks/{name}/{id}", percentiles(shows))
        report("server CPU (user+sys) over the run", f"{cpu_seconds(server.pid):.2f} s")
        report("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    finally:
        server.terminate()
        server.wait(timeout=30)
    return figures


def _pg_database(server_url: str, name: str, *, drop: bool) -> str:
    """Create (or drop) ``name`` on the PostgreSQL server; the SQLAlchemy URL of it."""
    import psycopg
    from psycopg import sql
    from sqlalchemy.engine import make_url

    plain = make_url(server_url).set(drivername="postgresql")
    with psycopg.connect(plain.render_as_string(hide_password=False), autocommit=True) as c:
        c.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        if not drop:
            c.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return plain.set(drivername="postgresql+psycopg", database=name).render_as_string(
        hide_password=False
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stacks", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=100)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument(
        "--pg-server",
        default=os.environ.get(
            "STOKER_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
        help="the PostgreSQL server a fresh database is made on (and dropped after)",
    )
    parser.add_argument("--db", help="measure this database only")
    args = parser.parse_args()
    results: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.db:
            backends = {args.db.split(":", 1)[0]: args.db}
        else:
            backends = {}
            for name in args.backends.split(","):
                if name == "sqlite":
                    backends[name] = f"sqlite:///{tmp}/bench.db"
                elif name == "postgresql":
                    backends[name] = _pg_database(args.pg_server, "stoker_api_bench", drop=False)
                else:
                    parser.error(f"unknown backend {name!r} (sqlite, postgresql)")
        try:
            for name, db in backends.items():
                print(f"{name}:", flush=True)
                results[name] = measure(db, args.stacks, args.concurrent)
        finally:
            if "postgresql" in backends and not args.db:
                _pg_database(args.pg_server, "stoker_api_bench", drop=True)
    names = list(results)
    rows = list(dict.fromkeys(key for figures in results.values() for key in figures))
    width = max(len(row) for row in rows)
    print("\n" + " | ".join([f"{'figure':<{width}}", *names]))
    for row in rows:
        print(" | ".join([f"{row:<{width}}", *(results[n].get(row, "-") for n in names)]))


if __name__ == "__main__":
    main()
