"""OpenStack types against the sandbox: N servers with a port each, BUILD delay 1 s.

Run: .venv/bin/python benchmarks/cloud.py [--servers 100] [--build-delay 1.0]

Starts `stoker sandbox serve` (its own process, an in-memory database) on a free port,
then times `stoker stack create` and `stack delete` of a stack of a network, a subnet and
N ports and N servers (each server on its own port), each a fresh process. The critical
path is the same stack with one server (net -> subnet -> port -> server, one BUILD
delay), timed the same way: the wall of N servers over it is what concurrency costs. The
sandbox's own request counter (`GET /sandbox/stats`) gives the API calls per server,
polls included, and the sandbox's requests per second. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

STOKER = [sys.executable, "-m", "stoker"]


def template(servers: int) -> str:
    lines = [
        "heat_template_version: wallaby",
        "resources:",
        "  net: {type: OS::Neutron::Net}",
        "  subnet:",
        "    type: OS::Neutron::Subnet",
        "    properties: {network: {get_resource: net}, cidr: 10.30.0.0/20}",
    ]
    for i in range(servers):
        lines += [
            f"  port{i}:",
            "    type: OS::Neutron::Port",
            "    properties: {network: {get_resource: net}, "
            "fixed_ips: [{subnet: {get_resource: subnet}}]}",
            f"  server{i}:",
            "    type: OS::Nova::Server",
            "    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.tiny, "
            f"networks: [{{port: {{get_resource: port{i}}}}}]}}",
        ]
    return "\n".join(lines) + "\n"


def wait_for_sandbox(url: str) -> None:
    """Until the sandbox at ``url`` answers (30 s at most)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{url}/identity/v3", timeout=2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the sandbox did not start") from None
            time.sleep(0.1)


def sandbox_workdir(port: int, prefix: str) -> tuple[Path, dict[str, str]]:
    """A new temporary directory with the sandbox's clouds.yaml and a stoker database in
    it, and the environment that points ``stoker`` at both."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    clouds = subprocess.run(
        [*STOKER, "sandbox", "clouds-yaml", "--port", str(port)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    (work / "clouds.yaml").write_text(clouds)
    env = {
        **os.environ,
        "OS_CLIENT_CONFIG_FILE": str(work / "clouds.yaml"),
        "OS_CLOUD": "sandbox",
        "STOKER_DB_URL": f"sqlite:///{work / 'stoker.db'}",
    }
    return work, env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stats(url: str, reset: bool = False) -> dict[str, Any]:
    request = urllib.request.Request(f"{url}/sandbox/stats", method="DELETE" if reset else "GET")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"{}") if not reset else {}


def profiled(profile: Path | None, name: str) -> list[str]:
    """The command that runs stoker, under cProfile (to ``profile/name.prof``) if asked."""
    if profile is None:
        return STOKER
    return [sys.executable, "-m", "cProfile", "-o", str(profile / f"{name}.prof"), "-m", "stoker"]


def timed(args: list[str], env: dict[str, str], command: list[str] = STOKER) -> tuple[float, float]:
    """Wall and CPU (user+sys) seconds of one stoker process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*command, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"stoker {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def process_cpu(pid: int) -> float:
    """User + system seconds a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def operation_seconds(name: str, env: dict[str, str]) -> float:
    """The create's own duration: its first event to its last, from the store (process
    start and the SDK's import left out)."""
    from stoker.store import open_store

    store = open_store(env["STOKER_DB_URL"])
    stack = store.get_stack(name, "default")
    assert stack is not None
    times = [event.time for event in store.events(stack.id)]
    return (max(times) - min(times)).total_seconds()


def throughput(url: str, seconds: float = 2.0, clients: int = 8) -> tuple[float, float]:
    """The sandbox's own rate: ``clients`` threads, each on one kept-alive connection,
    showing a network for ``seconds``; requests per second and the sandbox's CPU share."""
    import http.client
    import threading

    body = json.dumps(
        {
            "auth": {
                "identity": {
                    "methods": ["password"],
                    "password": {
                        "user": {"name": "admin", "domain": {"name": "Default"},
                                 "password": "sandbox"}
                    },
                },
                "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}},
            }
        }
    )  # fmt: skip
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port))
    connection.request(
        "POST", "/identity/v3/auth/tokens", body, {"Content-Type": "application/json"}
    )
    answer = connection.getresponse()
    token = answer.headers["X-Subject-Token"]
    answer.read()
    headers = {"X-Auth-Token": token, "Content-Type": "application/json"}
    connection.request("POST", "/network/v2.0/networks", json.dumps({"network": {}}), headers)
    network = json.loads(connection.getresponse().read())["network"]["id"]
    path = f"/network/v2.0/networks/{network}"
    counts = [0] * clients
    stop = time.monotonic() + seconds

    def client(index: int) -> None:
        mine = http.client.HTTPConnection(host, int(port))
        while time.monotonic() < stop:
            mine.request("GET", path, headers=headers)
            mine.getresponse().read()
            counts[index] += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.perf_counter() - start), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--build-delay", type=float, default=1.0)
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="DIR",
        help="run the sandbox and each stoker process under cProfile, writing DIR/*.prof",
    )
    options = parser.parse_args()
    if options.profile is not None:
        options.profile.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    sandbox = subprocess.Popen(
        [*profiled(options.profile, "sandbox"), "sandbox", "serve", "--port", str(port), "--db", "sqlite://",
         "--build-delay", str(options.build_delay), "--no-access-log"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for_sandbox(url)
        work, env = sandbox_workdir(port, "stoker-cloud-bench-")
        rows = []
        for count in (1, options.servers):
            path = work / f"s{count}.yaml"
            path.write_text(template(count))
            stats(url, reset=True)
            sandbox_before = process_cpu(sandbox.pid)
            create_wall, create_cpu = timed(
                ["stack", "create", f"s{count}", "-t", str(path)],
                env,
                profiled(options.profile, f"create{count}"),
            )
            created = stats(url)
            sandbox_cpu = process_cpu(sandbox.pid) - sandbox_before
            operation = operation_seconds(f"s{count}", env)
            stats(url, reset=True)
            delete_wall, delete_cpu = timed(
                ["stack", "delete", f"s{count}", "--yes"],
                env,
                profiled(options.profile, f"delete{count}"),
            )
            deleted = stats(url)
            rows.append(
                (
                    count,
                    create_wall,
                    create_cpu,
                    created,
                    delete_wall,
                    delete_cpu,
                    deleted,
                    operation,
                    sandbox_cpu,
                )
            )
        critical = rows[0][7]
        load = os.getloadavg()[0]
        print(f"sandbox BUILD delay {options.build_delay} s; load average {load:.2f}")
        for count, cw, cc, created, dw, dc, deleted, op, sc in rows:
            operations = created.get("operations", {})
            polls = sum(v for k, v in operations.items() if k.endswith(("show", "get", ".list")))
            print(
                f"{count:>4} servers: create {op:6.2f} s from first to last event "
                f"({op / critical:4.2f}x the 1-server path), process wall {cw:6.2f} s, "
                f"CPU {cc:5.2f} s (sandbox {sc:4.2f} s), {created['requests']} requests "
                f"({created['requests'] / count:5.1f} per server, {polls} reads), "
                f"{created['requests'] / cw:6.1f} req/s; delete wall {dw:6.2f} s, "
                f"CPU {dc:5.2f} s, {deleted['requests']} requests"
            )
            print("      create operations:", json.dumps(dict(sorted(operations.items()))))
        rate, seconds = throughput(url)
        print(f"sandbox alone: {rate:.0f} requests/s (8 kept-alive clients showing a network "
              f"for {seconds:.0f} s, in this process's threads)")  # fmt: skip
    finally:
        sandbox.send_signal(signal.SIGINT)  # uvicorn's clean stop: a profile gets written
        sandbox.wait(timeout=30)


if __name__ == "__main__":
    main()
