"""Requests per second of ``stoker sandbox serve``. Asserts nothing.

Run: .venv/bin/python benchmarks/sandbox.py [--requests 500] [--clients 1]

The sandbox runs as a separate process (``stoker sandbox serve``, in-memory database, no
build delay, no access log), as users run it; this process drives it over HTTP with httpx
(keep-alive connections, ``--clients`` threads). For each kind of request it prints the
requests per second (wall) and the sandbox process's CPU time per request (user + system,
read from /proc before and after): on a loaded machine the first moves with the load, the
second mostly does not.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

STOKER = str(Path(sys.executable).with_name("stoker"))
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def auth_body(password: str) -> dict[str, object]:
    user = {"name": "admin", "domain": {"id": "default"}, "password": password}
    return {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
        }
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--clients", type=int, default=1)
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [STOKER, "sandbox", "serve", "--port", str(port), "--db", "sqlite://"]
        + ["--build-delay", "0", "--no-access-log", "--password", "bench"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/identity", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise SystemExit("the sandbox did not start") from None
                time.sleep(0.1)
        clients = [httpx.Client(base_url=base, timeout=30) for _ in range(args.clients)]
        issued = clients[0].post("/identity/v3/auth/tokens", json=auth_body("bench"))
        token = issued.headers["x-subject-token"]
        for client in clients:
            client.headers["X-Auth-Token"] = token
        image = clients[0].get("/image/v2/images?name=cirros-0.6.2-x86_64-disk").json()
        image_id = image["images"][0]["id"]
        boot = {"server": {"name": "b", "flavorRef": "1", "imageRef": image_id, "networks": "none"}}
        made: list[str] = []

        def token_issue(client: httpx.Client) -> None:
            client.post("/identity/v3/auth/tokens", json=auth_body("bench")).raise_for_status()

        def flavor_list(client: httpx.Client) -> None:
            client.get("/compute/v2.1/flavors/detail").raise_for_status()

        def server_create(client: httpx.Client) -> None:
            response = client.post("/compute/v2.1/servers", json=boot)
            response.raise_for_status()
            made.append(response.json()["server"]["id"])

        def server_show(client: httpx.Client) -> None:
            client.get(f"/compute/v2.1/servers/{made[0]}").raise_for_status()

        def server_delete(client: httpx.Client) -> None:
            client.delete(f"/compute/v2.1/servers/{made.pop()}").raise_for_status()

        def image_list(client: httpx.Client) -> None:
            client.get("/image/v2/images").raise_for_status()

        cases: list[tuple[str, Callable[[httpx.Client], None]]] = [
            ("POST /identity/v3/auth/tokens", token_issue),
            ("GET /compute/v2.1/flavors/detail", flavor_list),
            ("POST /compute/v2.1/servers", server_create),
            ("GET /compute/v2.1/servers/{id}", server_show),
            ("GET /image/v2/images", image_list),
            ("DELETE /compute/v2.1/servers/{id}", server_delete),
        ]
        load = os.getloadavg()[0]
        print(f"{args.requests} requests each, {args.clients} client(s); load {load:.2f}")
        for label, call in cases:
            count = min(args.requests, len(made) - 1) if call is server_delete else args.requests
            cpu = cpu_seconds(server.pid)
            started = time.perf_counter()
            with ThreadPoolExecutor(args.clients) as pool:
                list(pool.map(call, (clients[i % len(clients)] for i in range(count))))
            wall = time.perf_counter() - started
            used = cpu_seconds(server.pid) - cpu
            print(
                f"{label}: {count / wall:.0f} requests/s; "
                f"sandbox CPU {1000 * used / count:.2f} ms/request"
            )
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
