"""What ``stoker serve`` prints: a start line (URL, auth mode, store, workers) and, at
``--log-level info`` (the default), a line per request, as heat-api logs them."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.heavy

STOKER = str(Path(sys.executable).with_name("stoker"))


def _serve(tmp_path: Path, *options: str) -> tuple[str, str]:
    """The start line (stderr) and the rest of the output (uvicorn's access log is on
    stdout, its other messages on stderr), after one request and Ctrl-C."""
    db = tmp_path / "serve.db"
    process = subprocess.Popen(
        [STOKER, "--db", str(db), "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        url = first.split()[2].removesuffix("/v1/{project_id}")
        for _ in range(200):
            try:
                answer = httpx.get(f"{url}/v1/demo/stacks", headers={"X-Auth-Token": "t"})
                break
            except httpx.TransportError:
                continue
        assert answer.status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    return first, out + err


def test_serve_prints_a_start_line_and_an_access_log(tmp_path: Path) -> None:
    first, rest = _serve(tmp_path)
    assert first.startswith("stoker serve: http://127.0.0.1:"), first
    assert first.rstrip().endswith(
        f"/v1/{{project_id}} (auth noauth, store sqlite:///{tmp_path / 'serve.db'}, "
        "1 worker; Ctrl-C stops it)"
    )
    assert '"GET /v1/demo/stacks HTTP/1.1" 200' in rest, rest


def test_log_level_warning_keeps_the_start_line_only(tmp_path: Path) -> None:
    first, rest = _serve(tmp_path, "--log-level", "warning", "--workers", "2")
    assert first.startswith("stoker serve: http://127.0.0.1:") and "2 workers" in first
    assert "GET /v1/demo/stacks" not in rest
