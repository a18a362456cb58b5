"""``stoker sandbox serve`` as users run it: a process, its port, its fault plan."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import sqlite3
import stat
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


class Served:
    """A ``stoker sandbox serve`` process (umask 022, as a user's shell has it)."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [STOKER, "sandbox", "serve", "--port", "0", "--no-access-log", *args],
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            umask=0o022,
        )
        assert self.process.stderr is not None
        first = self.process.stderr.readline()
        assert first.startswith("stoker sandbox: http://127.0.0.1:"), first
        self.url = first.split()[2].removesuffix("/identity/v3")
        for _ in range(100):
            try:
                httpx.get(f"{self.url}/identity", timeout=2)
                break
            except httpx.TransportError:
                continue

    def token(self) -> str:
        default = {"name": "Default"}
        user = {"name": "admin", "domain": default, "password": "sandbox"}
        auth = {
            "auth": {
                "identity": {"methods": ["password"], "password": {"user": user}},
                "scope": {"project": {"name": "admin", "domain": default}},
            }
        }
        answer = httpx.post(f"{self.url}/identity/v3/auth/tokens", json=auth)
        assert answer.status_code == 201, answer.text
        return answer.headers["x-subject-token"]

    def peak_memory_kib(self) -> int:
        """The process's peak resident memory (VmHWM), in KiB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(
            next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1]
        )

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=20)
        assert self.process.stderr is not None
        self.process.stderr.close()


@pytest.mark.parametrize("where", ["--db", "default"])
def test_the_database_is_private_and_holds_no_token(tmp_path: Path, where: str) -> None:
    """Created 0600 (in a 0700 directory when stoker makes it), with tokens stored only
    as their SHA-256: a file that others could read held the admin's live token in
    clear (issue 28)."""
    if where == "--db":
        database = tmp_path / "s.db"
        served = Served("--db", str(database))
    else:
        data_home = tmp_path / "data"
        database = data_home / "stoker" / "sandbox.db"
        served = Served(env={"XDG_DATA_HOME": str(data_home)})
    try:
        token = served.token()
        check = httpx.get(
            f"{served.url}/identity/v3/auth/tokens",
            headers={"x-auth-token": token, "x-subject-token": token},
        )
        assert check.status_code == 200
        assert check.headers["x-subject-token"] == token
    finally:
        served.stop()
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    if where == "default":
        assert stat.S_IMODE(database.parent.stat().st_mode) == 0o700
    stored = b"".join(p.read_bytes() for p in database.parent.glob(database.name + "*"))
    assert token.encode() not in stored
    with sqlite3.connect(database) as connection:
        keys = [
            row[0]
            for row in connection.execute(
                "SELECT id FROM sandbox_objects WHERE kind = 'identity.token'"
            )
        ]
    assert keys == [hashlib.sha256(token.encode()).hexdigest()]


def test_a_huge_unauthenticated_body_costs_no_memory(tmp_path: Path) -> None:
    """200 MB posted to the token route without a token: refused (413) once the body
    passes `stoker serve`'s 1 MiB limit, read no further; it raised the process's
    memory from ~45 MB to ~660 MB (issue 28)."""
    served = Served("--db", "sqlite://")
    try:
        before = served.peak_memory_kib()
        try:
            answer = httpx.post(
                f"{served.url}/identity/v3/auth/tokens",
                content=(b" " * 1_048_576 for _ in range(200)),
                headers={"content-type": "application/json"},
                timeout=60,
            )
            assert answer.status_code == 413
        except httpx.TransportError:  # the sandbox answered and closed first
            pass
        grown = served.peak_memory_kib() - before
    finally:
        served.stop()
    assert grown < 32 * 1024, f"peak memory grew by {grown} KiB"
