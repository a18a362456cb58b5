"""``stoker sandbox serve`` as users run it: a process, its port, its fault plan."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.heavy

STOKER = str(Path(sys.executable).with_name("stoker"))


def test_serve_on_a_free_port_with_a_fault_plan_and_stop(tmp_path: Path) -> None:
    plan = tmp_path / "faults.yaml"
    plan.write_text("rules:\n  - {service: image, error_rate: 1, status: 500}\n")
    process = subprocess.Popen(
        [STOKER, "sandbox", "serve", "--port", "0", "--db", str(tmp_path / "s.db")]
        + ["--faults", str(plan), "--no-access-log"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first.startswith("stoker sandbox: http://127.0.0.1:"), first
        url = first.split()[2].removesuffix("/identity/v3")
        for _ in range(100):
            try:
                discovery = httpx.get(f"{url}/identity", timeout=2)
                break
            except httpx.TransportError:
                continue
        assert discovery.status_code == 300
        assert httpx.get(f"{url}/sandbox/faults").json()["rules"][0]["service"] == "image"
    finally:
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=20)
        assert process.stderr is not None
        process.stderr.close()
    assert status == 0
    assert (tmp_path / "s.db").exists()


def test_a_port_in_use_is_one_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [STOKER, "sandbox", "serve", "--port", str(port), "--db", "sqlite://"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}:")
    assert "Traceback" not in done.stderr
